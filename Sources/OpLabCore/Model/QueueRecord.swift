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
  var readyHeap = Heap<ReadyEntry>()
  /// Entries of `readyHeap` known to have gone stale since it was last compacted (dropped
  /// frames, which would otherwise pile up behind a main thread that never frees).
  var staleReadyEntries = 0
  /// The newest barrier that has not finished: later operations wait for it (rule 40).
  var openBarrier: OpID?
  /// A corelibs empty-queue barrier running on the backing dispatch queue: operations the
  /// queue dispatches meanwhile wait behind it (rule 32).
  var dispatchBarrier: OpID?
  /// Operations dispatched while `dispatchBarrier` runs, in dispatch order.
  var heldBehindBarrier: [OpID] = []
  /// Barriers created so far, for naming.
  var barrierCount = 0

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
