import HeapModule

/// The simulator's live state for one `OperationQueue`.
public struct QueueRecord: Sendable {
  /// The queue's name.
  public internal(set) var name: String
  /// `maxConcurrentOperationCount`; `nil` is the default (−1: no limit).
  public internal(set) var maxConcurrent: Int?
  /// `isSuspended`.
  public internal(set) var isSuspended = false
  /// `qualityOfService` as set by the learner, or `nil` for the queue's default.
  public internal(set) var qualityOfService: QualityOfService?
  /// Whether this is `OperationQueue.main`: serial, never suspended.
  public let isMain: Bool
  /// The first tick anything happened in the queue after its creation (an operation
  /// added, a suspension, a limit changed): where a timeline of this queue starts.
  public internal(set) var firstActivity: Tick?
  /// Operations started and not yet finished; each holds a slot (rule 27).
  public internal(set) var executingCount = 0
  /// Every operation ever added, in insertion order (barriers included).
  var members: [OpID] = []
  /// How many of `members` are finished; used to compact `members` lazily.
  var finishedMembers = 0
  /// Ready operations not yet started, best first (lazy deletion: stale entries are skipped).
  var readyHeap = ReadyQueue()
  /// Entries of `readyHeap` known to have gone stale since it was last compacted (dropped
  /// frames, which would otherwise pile up behind a main thread that never frees).
  var staleReadyEntries = 0
  /// Entries of `readyHeap` that may be stale: counted whenever one goes stale (an operation
  /// made unready, re-filed under a new priority, or a frame dropped), uncounted when one is
  /// popped and found stale. Never fewer than the stale entries and the second entries of
  /// an operation made ready twice (the invariants check), so while it is 0 every entry is
  /// current and the scheduler reads no record to check one. Apart from
  /// ``staleReadyEntries``, which alone decides when the heap is compacted: compacting at
  /// other times would change which operation a pick is said to have gone before.
  var possiblyStaleReadyEntries = 0
  /// The newest barrier that has not started: later operations wait for it (rule 40).
  var openBarrier: OpID?
  /// A barrier block running on the backing dispatch queue (rule 40; on an empty queue,
  /// corelibs' rule 32): operations the queue dispatches meanwhile wait behind it.
  var dispatchBarrier: OpID?
  /// Operations dispatched while `dispatchBarrier` runs, in dispatch order.
  var heldBehindBarrier: [OpID] = []
  /// `main` only: its ready operations OperationQueue.main has not dispatched to the main
  /// thread yet, best first by priority, then FIFO (rule 42). User-interface work is not here.
  var operationsHeap = ReadyQueue()
  /// `main` only: the operation OperationQueue.main has dispatched to the main thread and
  /// that has not finished: it holds the queue's one operation slot, from its dispatch
  /// (it then waits for the main thread behind work that became runnable earlier) to its finish.
  var dispatchedOperation: OpID?
  /// Barriers created so far, for naming.
  var barrierCount = 0
  /// `underlyingQueue`: the index in ``World/dispatchQueues`` of the dispatch queue its
  /// operations run on, or `nil` for its own backing queue (`main`: the main thread's).
  public internal(set) var underlyingQueue: Int32?

  init(name: String, maxConcurrent: Int?, qualityOfService: QualityOfService?, isMain: Bool) {
    self.name = name
    self.maxConcurrent = maxConcurrent
    self.qualityOfService = qualityOfService
    self.isMain = isMain
  }

  /// The limit the scheduler applies: 1 for `main`, unlimited for the default.
  public var effectiveMax: Int { isMain ? 1 : (maxConcurrent ?? Int.max) }

  /// The quality of service the queue reports (`main` reports `.userInteractive`).
  public var reportedQualityOfService: QualityOfService {
    qualityOfService ?? (isMain ? .userInteractive : .default)
  }
}

/// A ready operation waiting in a queue, ordered best-first: higher level, then earlier place.
struct ReadyEntry: Comparable, Sendable {
  // 12 bytes, not 24 (a queue can hold a million ready entries).
  var place: UInt32
  var op: OpID
  var level: Int8

  init(level: Int8, place: UInt32, op: OpID) {
    self.place = place
    self.op = op
    self.level = level
  }

  static func < (a: ReadyEntry, b: ReadyEntry) -> Bool {
    // "Greater" is better: popMax returns the next operation to start.
    if a.level != b.level { return a.level < b.level }
    return a.place > b.place
  }
}

/// A queue's ready entries, best first: higher level, then earlier place.
///
/// One heap per level in use (a queue has at most six: five priorities and the barrier
/// level), each ordered by place alone, so an entry is a single 8-byte integer (its place
/// in the high half, its operation in the low) compared in one instruction. One heap of
/// 12-byte `ReadyEntry` values compared field by field was a fifth of a million-operation
/// run's simulation; its entries were half again as big.
struct ReadyQueue: Sendable {
  /// The levels in use, best first, and their heaps.
  private var levels: [Int8] = []
  private var heaps: [Heap<UInt64>] = []
  /// Entries in all levels, stale ones included.
  private(set) var count = 0

  init() {}

  /// The entries as one queue, each level's heap built in one pass.
  init(_ entries: some Sequence<ReadyEntry>) {
    var byLevel: [Int8: [UInt64]] = [:]
    for e in entries { byLevel[e.level, default: []].append(Self.key(e)) }
    levels = byLevel.keys.sorted(by: >)
    heaps = levels.map { Heap(byLevel[$0] ?? []) }
    count = heaps.reduce(0) { $0 + $1.count }
  }

  private static func key(_ e: ReadyEntry) -> UInt64 { UInt64(e.place) << 32 | UInt64(UInt32(bitPattern: e.op.index)) }

  private static func entry(_ key: UInt64, level: Int8) -> ReadyEntry {
    ReadyEntry(level: level, place: UInt32(truncatingIfNeeded: key >> 32), op: OpID(Int(Int32(bitPattern: UInt32(truncatingIfNeeded: key)))))
  }

  mutating func insert(_ e: ReadyEntry) {
    count += 1
    var i = 0
    while i < levels.count, levels[i] > e.level { i += 1 }
    if i == levels.count || levels[i] != e.level {
      levels.insert(e.level, at: i)
      heaps.insert(Heap(), at: i)
    }
    heaps[i].insert(Self.key(e))
  }

  /// The best entry, if any.
  var max: ReadyEntry? {
    for i in heaps.indices { if let k = heaps[i].min { return Self.entry(k, level: levels[i]) } }
    return nil
  }

  /// Removes and returns the best entry, if any.
  mutating func popMax() -> ReadyEntry? {
    for i in heaps.indices {
      if let k = heaps[i].popMin() {
        count -= 1
        return Self.entry(k, level: levels[i])
      }
    }
    return nil
  }

  /// Every entry, in no particular order.
  var unordered: [ReadyEntry] {
    var out: [ReadyEntry] = []
    out.reserveCapacity(count)
    for i in heaps.indices { out += heaps[i].unordered.map { Self.entry($0, level: levels[i]) } }
    return out
  }
}
