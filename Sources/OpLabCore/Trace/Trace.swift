/// The append-only trace, packed: a collection of ``Event``s that stores each one in
/// about 10 bytes instead of the 60 an `Event` value takes.
///
/// A world of a million operations records about six million events, so the trace is
/// most of a big world's memory. Each event is written as a few bytes — its kind, its
/// reason and which fields it has, then variable-length integers for the tick (as the
/// step from the event before), the operation, the queue and the payloads — into
/// fixed-size chunks, so the trace never copies itself to grow and a copy of the world
/// (a fork, a time-travel checkpoint) shares every chunk but the one being written.
///
/// Reading is cheap in order (the iterator decodes as it goes) and O(1) at random: every
/// ``markEvery``-th event is indexed, and `trace[i]` decodes from the mark before `i`.
///
/// ```swift
/// for event in world.trace where event.kind == .started { … }
/// let first = world.trace.firstIndex(atOrAfter: 10)  // binary search on the marks
/// ```
public struct Trace: RandomAccessCollection, Equatable, Sendable {
  public typealias Index = Int

  /// Bytes per chunk (but the first few, see ``firstChunkBytes``). An event never straddles two chunks.
  static let chunkBytes = 1 << 16
  /// Bytes of the first chunk; each next one is twice as long, up to ``chunkBytes``: a
  /// small world's trace is small, so a copy of it that changes (a fork, each of `explore`'s
  /// runs taken up from a saved world) copies a few hundred bytes, not 64 KB.
  static let firstChunkBytes = 1 << 9
  /// The most bytes one event can take: a 3-byte header and at most six 10-byte integers.
  static let maxEventBytes = 64
  /// One event in this many is indexed for random access.
  public static let markEvery = 32

  /// Where an indexed event starts, and the tick of the event before it (its tick is
  /// written as a step from that one).
  struct Mark: Sendable {
    var chunk: Int32
    var offset: Int32
    var previousTick: Tick
  }

  /// Full chunks and the one being written; chunk `i` is `firstChunkBytes << i` long up to
  /// `chunkBytes` (``chunkSize(_:)``), and only the first `used` bytes of the last one are written.
  var chunks: [[UInt8]] = []
  var used = 0
  var marks: [Mark] = []
  /// The tick of the last event (0 when empty).
  public private(set) var lastTick: Tick = 0
  public private(set) var count = 0

  public init() {}

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  /// The bytes the events take (chunks allocated, including the unwritten end of the last one).
  public var storedBytes: Int { chunks.indices.reduce(0) { $0 + Self.chunkSize($1) } + marks.count * MemoryLayout<Mark>.stride }

  /// The length of chunk `i`.
  @inline(__always) static func chunkSize(_ i: Int) -> Int {
    i >= 7 ? chunkBytes : Swift.min(chunkBytes, firstChunkBytes << i)
  }

  public subscript(position: Int) -> Event {
    precondition(position >= 0 && position < count, "trace index \(position) out of 0..<\(count)")
    var cursor = Cursor(mark: marks[position / Self.markEvery])
    for _ in 0..<(position % Self.markEvery) { _ = cursor.next(in: chunks) }
    return cursor.next(in: chunks)
  }

  public func makeIterator() -> Iterator { Iterator(trace: self, from: 0) }

  /// The events from `start` to the end, in order: decoding begins at the mark before
  /// `start`, then each event takes constant time. Prefer it to `trace[start...]`, whose
  /// iterator decodes every element afresh from its mark (up to ``markEvery`` events each).
  public func events(from start: Int) -> IteratorSequence<Iterator> {
    IteratorSequence(Iterator(trace: self, from: Swift.min(Swift.max(0, start), count)))
  }

  /// Where the next event appended will be, for reading on from there later (``end``).
  public struct Position: Sendable {
    /// The index of the event at this position (the trace's count when it was taken).
    public let index: Int
    let cursor: Cursor
  }

  /// Where the next event will be written: ``events(from:)-(Position)`` reads the events
  /// appended after it was taken without first decoding the events from the mark before
  /// them (up to ``markEvery`` - 1 of them), as ``events(from:)-(Int)`` does. A shell line
  /// reads its command's events so, a few events each, on every line of a script (#34).
  public var end: Position {
    guard let last = chunks.indices.last else {
      return Position(index: 0, cursor: Cursor(mark: Mark(chunk: 0, offset: 0, previousTick: 0)))
    }
    // The writer starts a new chunk where this one could not hold a whole event (``append``).
    let full = used > Self.chunkSize(last) - Self.maxEventBytes
    return Position(
      index: count, cursor: Cursor(mark: Mark(chunk: Int32(full ? last + 1 : last), offset: Int32(full ? 0 : used), previousTick: lastTick)))
  }

  /// The events from `position` (this trace's ``end`` when it was shorter) to the end, in
  /// order, each in constant time.
  public func events(from position: Position) -> IteratorSequence<Iterator> {
    guard position.index <= count else { return events(from: count) }
    return IteratorSequence(Iterator(chunks: chunks, cursor: position.cursor, remaining: count - position.index))
  }

  /// Decodes the events in order, each in constant time.
  public struct Iterator: IteratorProtocol, Sendable {
    let chunks: [[UInt8]]
    var cursor: Cursor
    var remaining: Int

    init(chunks: [[UInt8]], cursor: Cursor, remaining: Int) {
      self.chunks = chunks
      self.cursor = cursor
      self.remaining = remaining
    }

    init(trace: Trace, from start: Int) {
      chunks = trace.chunks
      remaining = trace.count - start
      guard start < trace.count else {
        cursor = Cursor(mark: Mark(chunk: 0, offset: 0, previousTick: 0))
        return
      }
      cursor = Cursor(mark: trace.marks[start / Trace.markEvery])
      for _ in 0..<(start % Trace.markEvery) { _ = cursor.next(in: chunks) }
    }

    public mutating func next() -> Event? {
      guard remaining > 0 else { return nil }
      remaining -= 1
      return cursor.next(in: chunks)
    }
  }

  /// The first event at or after `tick` (`endIndex` when none), found by binary search on
  /// the marks: O(log n).
  public func firstIndex(atOrAfter tick: Tick) -> Int {
    // The last mark whose event is before `tick`; the answer lies after it.
    var low = 0, high = marks.count
    while low < high {
      let mid = (low + high) / 2
      var cursor = Cursor(mark: marks[mid])
      if cursor.next(in: chunks).tick < tick { low = mid + 1 } else { high = mid }
    }
    var index = Swift.max(0, low - 1) * Self.markEvery
    guard index < count else { return count }
    var cursor = Cursor(mark: marks[index / Self.markEvery])
    while index < count, cursor.next(in: chunks).tick < tick { index += 1 }
    return index
  }

  public static func == (a: Trace, b: Trace) -> Bool {
    a.count == b.count && a.lastTick == b.lastTick && a.elementsEqual(b)
  }

  // MARK: - Writing

  /// Appends an event. Ticks never go back: `event.tick` is at least ``lastTick``.
  mutating func append(_ event: Event) {
    append(tick: event.tick, kind: event.kind, op: event.op, queue: event.queue, from: event.from, to: event.to, reason: event.reason)
  }

  /// Appends an event given field by field (as ``World`` records them): the fields go to
  /// the encoder in registers, where an `Event` went through memory (a 60-byte value,
  /// stored by the caller and loaded back, a profile's hottest instruction).
  mutating func append(
    tick: Tick, kind: EventKind, op: OpID?, queue: QueueID?, from: OpPhase?, to: OpPhase?, reason: Reason
  ) {
    precondition(tick >= lastTick || count == 0, "the trace is in tick order")
    if chunks.isEmpty || used > Self.chunkSize(chunks.count - 1) - Self.maxEventBytes {
      chunks.append([UInt8](repeating: 0, count: Self.chunkSize(chunks.count)))
      used = 0
    }
    if count % Self.markEvery == 0 {
      marks.append(Mark(chunk: Int32(chunks.count - 1), offset: Int32(used), previousTick: lastTick))
    }
    let step = tick - (count == 0 ? 0 : lastTick)
    let last = chunks.count - 1
    used = chunks[last].withUnsafeMutableBufferPointer { buffer in
      // A chunk is never empty, so it has a base address; the room for a whole event was made above.
      guard let base = buffer.baseAddress else { return used }
      var w = Writer(at: base + used)
      Codec.write(kind: kind, op: op, queue: queue, from: from, to: to, reason: reason, step: UInt64(step), to: &w)
      // The room made above holds any event; a kind or reason that outgrew it would write
      // past the chunk, which debug builds and the tests catch here.
      assert(w.cursor - (base + used) <= Self.maxEventBytes, "an event took more than \(Self.maxEventBytes) bytes")
      return w.cursor - base
    }
    lastTick = tick
    count += 1
  }

  // MARK: - Reading

  /// A reading position: a chunk, an offset in it and the tick of the event before.
  struct Cursor: Sendable {
    var chunk: Int
    var offset: Int
    var previousTick: Tick

    init(mark: Mark) {
      chunk = Int(mark.chunk)
      offset = Int(mark.offset)
      previousTick = mark.previousTick
    }

    /// Decodes the event here and moves past it.
    mutating func next(in chunks: [[UInt8]]) -> Event {
      let (event, end) = chunks[chunk].withUnsafeBufferPointer { buffer in
        var r = Reader(buffer: buffer, position: offset)
        let e = Codec.read(from: &r, previousTick: previousTick)
        return (e, r.position)
      }
      previousTick = event.tick
      // The writer starts a new chunk exactly when this one could not hold a whole event.
      if end > Trace.chunkSize(chunk) - Trace.maxEventBytes {
        chunk += 1
        offset = 0
      } else {
        offset = end
      }
      return event
    }
  }
}

/// Little-endian base-128 integers into a chunk, through a bare pointer: ``Trace/append(_:)``
/// makes room for a whole event (``Trace/maxEventBytes``) first, and the cursor stays in a
/// register, where an index into a buffer was stored back and overflow-checked per byte.
struct Writer {
  var cursor: UnsafeMutablePointer<UInt8>

  @inline(__always) init(at start: UnsafeMutablePointer<UInt8>) { cursor = start }

  @inline(__always) mutating func byte(_ b: UInt8) {
    cursor.pointee = b
    cursor += 1
  }

  @inline(__always) mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      byte(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    byte(UInt8(v))
  }

  /// Signed values, zigzag-encoded so small negatives stay short.
  @inline(__always) mutating func signed(_ value: Int64) {
    varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }
}

struct Reader {
  var buffer: UnsafeBufferPointer<UInt8>
  var position: Int

  mutating func byte() -> UInt8 {
    let b = buffer[position]
    position += 1
    return b
  }

  mutating func varint() -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let b = byte()
      value |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return value }
      shift += 7
    }
  }

  mutating func signed() -> Int64 {
    let v = varint()
    return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
  }

  mutating func int32() -> Int32 { Int32(truncatingIfNeeded: signed()) }
  mutating func op() -> OpID { OpID(Int(int32())) }
}

extension Trace: CustomStringConvertible, CustomDebugStringConvertible {
  /// A summary, not the chunks' bytes (test failures print it).
  public var description: String { "Trace(\(count) events, last at t=\(lastTick))" }
  public var debugDescription: String { description }
}
