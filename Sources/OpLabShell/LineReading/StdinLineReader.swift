#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from standard input when it is not a terminal (a pipe, a file, CI).
///
/// No prompt, no editing, no history: piped lines must not end up in the learner's
/// history. A trailing carriage return (a file with CRLF line ends) is removed.
public final class StdinLineReader: LineReader {
  private let nextItem: () -> DescriptorLines.Item?

  /// - Parameter readLine: the source of lines, without their newline; `nil` at the
  ///   end of input. Defaults to the lines of standard input (``DescriptorLines``,
  ///   which skips lines longer than 64 KiB).
  public init(readLine: (() -> String?)? = nil) {
    if let readLine {
      self.nextItem = { readLine().map { .line($0) } }
    } else {
      let lines = DescriptorLines(fd: 0)
      self.nextItem = { lines.next() }
    }
  }

  /// Reads what `items` gives: the lines of a script file or stream (``ScriptFile``), a
  /// line too long to keep among them.
  init(items: @escaping () -> DescriptorLines.Item?) {
    self.nextItem = items
  }

  /// Reads the next line; `prompt` is not shown.
  public func readLine(prompt: String) -> LineInput {
    guard let item = nextItem() else { return .endOfInput }
    switch item {
    case .line(let line): return .line(Self.strippingCarriageReturn(line))
    case .tooLong(let start, let bytes): return .tooLong(start: start, bytes: bytes)
    }
  }

  /// No history for piped input.
  public func addHistory(_ line: String) {}

  /// No history for piped input.
  public func saveHistory() -> String? { nil }

  /// Runs `work` (a batch of commands) with SIGINT, SIGTERM and SIGHUP caught (see
  /// `BatchSignals`): the command running stops at its next check, and
  /// ``terminationSignal`` then tells the batch to end.
  public func whileCatchingInterrupts<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T {
    BatchSignals.whileCatching(work)
  }

  /// The signal caught during the last `whileCatchingInterrupts`, if any: the batch stops.
  public var terminationSignal: Int32? { BatchSignals.caughtSignal }

  /// `line` without one trailing "\r" (or "\r\n", or "\n").
  static func strippingCarriageReturn(_ line: String) -> String {
    var scalars = Substring(line).unicodeScalars
    if scalars.last == "\n" { scalars.removeLast() }
    if scalars.last == "\r" { scalars.removeLast() }
    return String(scalars)
  }
}

/// The lines of a file descriptor, read with read(2) in large chunks.
///
/// Not `Swift.readLine`: it retries a read that a signal interrupted for as long as the
/// stream reports the interruption, and once glibc has marked the stream in error that is
/// for ever — a batch reading a pipe would spin at full speed after Ctrl-C. Here an
/// interrupted read ends the input when the batch caught a signal (see `BatchSignals`),
/// and is simply retried otherwise. Invalid UTF-8 is repaired, as `readLine` does.
///
/// A line ends at LF, CRLF or a lone CR (a file saved by an old Mac editor), and a UTF-8
/// byte-order mark at the very start is dropped, so it neither becomes part of the first
/// word nor shifts the columns of a diagnostic. Any descriptor works: a file, a pipe, a
/// FIFO, `/dev/null`.
///
/// A line longer than ``maxLineBytes`` is not kept: its start is, for the message, and the
/// rest up to its line end is counted and dropped a chunk at a time, so endless input with
/// no newline (`head -c 3000000000 /dev/zero | oplab`) takes no more memory than one chunk
/// and one line.
final class DescriptorLines {
  /// What one call to ``next()`` read.
  enum Item: Equatable {
    /// A line without its line end.
    case line(String)
    /// A line longer than ``maxLineBytes``, skipped: its first characters, and its length
    /// in bytes without the line end.
    case tooLong(start: String, bytes: Int)
  }

  /// The longest line kept, in bytes. A command is a few dozen; 64 KiB holds any real one.
  static let maxLineBytes = 64 * 1024
  private static let chunkSize = 64 * 1024
  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
  private static let lineFeed = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")

  private let fd: Int32
  private let maxLineBytes: Int
  private var buffer: [UInt8] = []
  /// Where the next line starts, and how far the search for its line end has got.
  private var start = 0
  private var scanned = 0
  private var atEnd = false
  /// Whether the start of the input has still to be checked for a byte-order mark.
  private var markPending = true
  /// A skipped line ended in CR as its chunk ended: an LF first in the next is its CRLF's.
  private var lineFeedPending = false

  /// - Parameter maxLineBytes: the longest line kept (tests make it small).
  init(fd: Int32, maxLineBytes: Int = DescriptorLines.maxLineBytes) {
    self.fd = fd
    self.maxLineBytes = maxLineBytes
  }

  /// The next line, or `nil` at the end of input.
  func next() -> Item? {
    while true {
      if lineFeedPending, start < buffer.count {
        lineFeedPending = false
        if buffer[start] == Self.lineFeed {
          start += 1
          scanned = start
        }
      }
      if markPending, buffer.count - start >= Self.byteOrderMark.count || atEnd {
        markPending = false
        if buffer[start...].starts(with: Self.byteOrderMark) {
          start += Self.byteOrderMark.count
          scanned = start
        }
      }
      if !markPending {
        if let end = buffer[scanned...].firstIndex(where: { $0 == Self.lineFeed || $0 == Self.carriageReturn }) {
          let isCarriageReturn = buffer[end] == Self.carriageReturn
          // A CR last in the buffer may be the first half of a CRLF: look again with the next
          // byte. Unless the line is too long anyway: it ends here, and an LF first in the
          // next read belongs to it.
          if isCarriageReturn, end + 1 == buffer.count, !atEnd, end - start > maxLineBytes {
            let item = Item.tooLong(start: Self.shownStart(of: buffer[start..<end]), bytes: end - start)
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
            lineFeedPending = true
            return item
          }
          if !(isCarriageReturn && end + 1 == buffer.count && !atEnd) {
            let item: Item =
              end - start > maxLineBytes
              ? .tooLong(start: Self.shownStart(of: buffer[start..<end]), bytes: end - start)
              : .line(String(decoding: buffer[start..<end], as: UTF8.self))
            start = end + (isCarriageReturn && end + 1 < buffer.count && buffer[end + 1] == Self.lineFeed ? 2 : 1)
            scanned = start
            if start > 1 << 16, start * 2 > buffer.count {  // drop what was read, now and then
              buffer.removeFirst(start)
              start = 0
              scanned = 0
            }
            return item
          }
          scanned = end
        } else {
          scanned = buffer.count
        }
        if buffer.count - start > maxLineBytes { return skipLongLine() }
        if atEnd {
          guard start < buffer.count else { return nil }
          defer {
            start = buffer.count
            scanned = start
          }
          return .line(String(decoding: buffer[start...], as: UTF8.self))
        }
      }
      guard let chunk = readChunk() else { continue }
      buffer.append(contentsOf: chunk)
    }
  }

  /// Reads one chunk; `nil` when nothing came (an interrupted read, or the end: see ``atEnd``).
  /// A signal a batch caught, or Ctrl-C during a command, ends the input: a stream that
  /// never ends (`/dev/zero`) never blocks a read, so it is asked before each one.
  private func readChunk() -> ArraySlice<UInt8>? {
    if Self.stopRequested {
      atEnd = true
      return nil
    }
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count > 0 { return chunk[..<count] }
    if count < 0, errno == EINTR {
      if Self.stopRequested { atEnd = true }
    } else {
      atEnd = true  // the end, or an error reading: either way no more lines
    }
    return nil
  }

  private static var stopRequested: Bool { BatchSignals.caughtSignal != nil || EditLineReader.interruptPending }

  /// The buffer every read fills (one, reused: a skipped line reads gigabytes through it).
  private var chunk = [UInt8](repeating: 0, count: DescriptorLines.chunkSize)

  /// The line at `start` has no line end within ``maxLineBytes``: keeps its start, then
  /// drops chunks until its line end (or the end of input), counting its bytes.
  private func skipLongLine() -> Item {
    let startText = Self.shownStart(of: buffer[start...])
    var bytes = buffer.count - start
    buffer.removeAll(keepingCapacity: true)
    start = 0
    scanned = 0
    while !atEnd {
      guard let read = readChunk() else { continue }
      if let end = Self.firstLineEnd(in: read) {
        bytes += end
        var rest = read.dropFirst(end + 1)
        if read[read.startIndex + end] == Self.carriageReturn {
          if rest.first == Self.lineFeed { rest = rest.dropFirst() } else if rest.isEmpty { lineFeedPending = true }
        }
        buffer.append(contentsOf: rest)
        break
      }
      bytes += read.count
    }
    return .tooLong(start: startText, bytes: bytes)
  }

  /// The offset of the first LF or CR in `bytes` (memchr: a skipped line can be gigabytes).
  private static func firstLineEnd(in bytes: ArraySlice<UInt8>) -> Int? {
    bytes.withUnsafeBytes { raw -> Int? in
      guard let base = raw.baseAddress else { return nil }
      let lf = memchr(base, Int32(lineFeed), raw.count).map { base.distance(to: UnsafeRawPointer($0)) }
      let cr = memchr(base, Int32(carriageReturn), lf ?? raw.count).map { base.distance(to: UnsafeRawPointer($0)) }
      return cr ?? lf
    }
  }

  /// How a skipped line began, as the message shows it: at most ``shownStartColumns``
  /// columns once hidden characters are escaped (a NUL takes six: `\u{0}`).
  static func shownStart(of bytes: ArraySlice<UInt8>) -> String {
    let text = String(decoding: bytes.prefix(shownStartColumns * 4), as: UTF8.self)
    var out = ""
    for ch in text {
      let shown = Visible.escape(String(ch))
      if out.count + shown.count > shownStartColumns { break }
      out += shown
    }
    return out
  }

  /// The most columns of a skipped line's start that the message shows.
  static let shownStartColumns = 24
}
