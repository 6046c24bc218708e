/// The simulator's live state for one operation.
///
/// All fields are derived from the actions applied so far; the public view of an
/// operation is ``World/operation(_:)``.
public struct OperationRecord: Sendable {
  // Stored fields go widest first (a 4-byte field fits in the spec's tail), times and the
  // queue are plain integers with a sentinel for "none", and the flags share one word:
  // a million records are most of a big world's memory.

  /// What the learner defined.
  public internal(set) var spec: OperationSpec
  /// Its place inside the level: smaller is earlier (FIFO). See ``World/takePlace()``.
  /// (Declared next to the spec, it takes the 4 bytes after the spec's last field.)
  var place: UInt32 = 0
  var cancelledTick = Self.notYet
  var enqueuedTick = Self.notYet
  var startedTick = Self.notYet
  var finishedTick = Self.notYet
  /// Dependencies in the order they were added, finished ones included (rule 7); read
  /// them with ``World/dependencies(of:)``.
  var dependencyList = EdgeList()
  /// Bumped whenever scheduled wake-ups for this operation become stale.
  var generation: UInt32 = 0
  /// BlockOperation blocks finished so far.
  var blocksDone: Int32 = 0
  /// The queue's index, or -1 before the operation is added to one.
  var queueIndex: Int32 = -1
  /// ``mainThreadWork`` as one integer (see ``MainThreadWork/code``).
  var mainThreadWorkCode: Int32 = MainThreadWork.noneCode
  var flags = Flags()
  /// The public phase. ``World/readiness`` keeps a copy, which the kernel reads on its hot
  /// paths; both change together, through ``World/setPhase(_:_:)``.
  public internal(set) var phase: OpPhase = .created
  /// How it ended, once finished.
  public internal(set) var outcome: Outcome?
  /// The priority level it is filed under in its queue (barrier = 12).
  var level: Int8 = 0

  /// The record's yes/no facts, one bit each.
  struct Flags: OptionSet, Sendable {
    let rawValue: UInt16
    static let cancelled = Flags(rawValue: 1 << 0)
    static let barrier = Flags(rawValue: 1 << 1)
    static let completionRunning = Flags(rawValue: 1 << 2)
    static let jammed = Flags(rawValue: 1 << 4)
    static let holdsSlot = Flags(rawValue: 1 << 5)
    static let stranded = Flags(rawValue: 1 << 6)
    static let dispatched = Flags(rawValue: 1 << 7)
    static let blocksSequential = Flags(rawValue: 1 << 8)
  }

  private func has(_ flag: Flags) -> Bool { flags.contains(flag) }
  private mutating func set(_ flag: Flags, _ on: Bool) {
    if on { flags.insert(flag) } else { flags.remove(flag) }
  }

  /// `isCancelled`: sticky once set.
  public internal(set) var isCancelled: Bool {
    get { has(.cancelled) }
    set { set(.cancelled, newValue) }
  }
  /// Whether this is a queue's internal barrier operation (`addBarrierBlock`).
  public internal(set) var isBarrier: Bool {
    get { has(.barrier) }
    set { set(.barrier, newValue) }
  }
  /// Whether the completion block is running now.
  public internal(set) var completionRunning: Bool {
    get { has(.completionRunning) }
    set { set(.completionRunning, newValue) }
  }
  /// Whether the work ended without calling `finish()` (an async operation's jam).
  public internal(set) var jammed: Bool {
    get { has(.jammed) }
    set { set(.jammed, newValue) }
  }
  /// Whether it occupies one of its queue's slots while started (a corelibs empty-queue barrier does not).
  var holdsSlot: Bool {
    get { has(.holdsSlot) }
    set { set(.holdsSlot, newValue) }
  }
  /// Linux's `removeDependency` removed an unfinished dependency without releasing it (rule 9).
  var stranded: Bool {
    get { has(.stranded) }
    set { set(.stranded, newValue) }
  }
  /// Handed to the backing dispatch queue behind a corelibs barrier block; starts when it ends.
  public internal(set) var dispatched: Bool {
    get { has(.dispatched) }
    set { set(.dispatched, newValue) }
  }
  /// Whether its blocks run one after another (corelibs) rather than side by side (Darwin).
  var blocksSequential: Bool {
    get { has(.blocksSequential) }
    set { set(.blocksSequential, newValue) }
  }
  /// Set for user-interface work and waits on the main thread, which the lab creates itself.
  public internal(set) var mainThreadWork: MainThreadWork? {
    @inline(__always) get { MainThreadWork(code: mainThreadWorkCode) }
    set { mainThreadWorkCode = newValue?.code ?? MainThreadWork.noneCode }
  }

  /// The stored time of something that has not happened (ticks are never negative).
  static let notYet = Tick.min

  /// The queue the operation was added to, if any.
  public internal(set) var queue: QueueID? {
    get { queueIndex < 0 ? nil : QueueID(Int(queueIndex)) }
    set { queueIndex = newValue?.index ?? -1 }
  }
  /// When `cancel()` first took effect.
  public internal(set) var cancelledAt: Tick? {
    get { cancelledTick == Self.notYet ? nil : cancelledTick }
    set { cancelledTick = newValue ?? Self.notYet }
  }
  /// When the operation was added to its queue.
  public internal(set) var enqueuedAt: Tick? {
    get { enqueuedTick == Self.notYet ? nil : enqueuedTick }
    set { enqueuedTick = newValue ?? Self.notYet }
  }
  /// When the queue started it (or skipped it, when cancelled).
  public internal(set) var startedAt: Tick? {
    get { startedTick == Self.notYet ? nil : startedTick }
    set { startedTick = newValue ?? Self.notYet }
  }
  /// When it became `isFinished`.
  public internal(set) var finishedAt: Tick? {
    get { finishedTick == Self.notYet ? nil : finishedTick }
    set { finishedTick = newValue ?? Self.notYet }
  }

  init(spec: OperationSpec) { self.spec = spec }

  /// `isFinished`.
  public var isFinished: Bool { phase == .finished }
  /// `isExecuting`: started, not finished, and not a cancelled operation being skipped.
  public var isExecuting: Bool { phase == .executing }
  /// The name.
  public var name: String { spec.name }
  /// The priority level it is filed under in its queue (`nil` for a barrier, or before enqueueing).
  public var filedPriority: QueuePriority? { queue == nil || isBarrier ? nil : QueuePriority(rawValue: level) }
}

/// What the scheduler reads of an operation at random: its phase, the dependencies still
/// counted against `isReady`, whether it ignores them, and what depends on it.
///
/// Kept apart from ``OperationRecord`` in one dense array (``World/readiness``, 16 bytes an
/// operation), so that releasing a finished operation's dependents and linking a new one
/// to an old one read 16 MB at a million operations rather than jumping about 136 MB of
/// records: at that size most of those reads were cache misses (a profile of the benchmark
/// put half of `finish` and most of `link` on them). The oldest dependent is kept here
/// too, so the usual operation, with one dependent or none, needs no link in the pool.
struct Readiness: Sendable {
  /// Unfinished dependencies still counted against readiness.
  var unfinishedCount: Int32 = 0
  /// The index of the oldest operation that depends on this one, or -1 (none, or removed).
  /// Older than every one in ``dependents``.
  var firstDependent: Int32 = -1
  /// The first link in ``World/edges`` of the later operations that depend on this one,
  /// newest edge first (built by prepending), or -1. ``World/dependents(of:)`` reads
  /// ``firstDependent`` and then these, oldest first.
  var dependents: Int32 = -1
  /// A copy of ``OperationRecord/phase``.
  var phase: OpPhase = .created
  /// Set by `cancel()` on an operation that has not started: dependencies are ignored (rule 13).
  var ignoresDependencies = false
  /// Linux: `removeDependency` of a finished dependency from a cancelled operation took
  /// corelibs' unfinished count below the 0 that `cancel()` left (rule 9): `isReady` is
  /// false until `cancel()` is called again, which sets the count back to 0.
  var countBelowZero = false

  /// Its custom `isReady` also waits for a gate that is closed (``World/gate(_:named:)``).
  var gateClosed = false

  /// `isReady`: no unfinished dependency is counted against it (nor a count below zero),
  /// and no closed gate holds it (a gated operation's override reads
  /// `super.isReady && (gate.isOpen || isCancelled)`, so a cancel lets it through too).
  /// Like the real flag, this is independent of the phase: a finished operation is ready.
  var isReady: Bool { !countBelowZero && (ignoresDependencies || (unfinishedCount == 0 && !gateClosed)) }
}
