/// The simulator's live state for one operation.
///
/// All fields are derived from the actions applied so far; the public view of an
/// operation is ``World/operation(_:)``.
public struct OperationRecord: Sendable {
  // Stored fields go widest first, and times are plain integers with a sentinel for
  // "not yet": a million records are most of a big world's memory.

  /// What the learner defined.
  public internal(set) var spec: OperationSpec
  var cancelledTick = Self.notYet
  var enqueuedTick = Self.notYet
  var startedTick = Self.notYet
  var finishedTick = Self.notYet
  /// Its place inside the level: smaller is earlier (FIFO).
  var place: Int = 0
  /// Dependencies in the order they were added, finished ones included (rule 7); read
  /// them with ``World/dependencies(of:)``.
  var dependencyList = EdgeList()
  /// Operations that depend on this one, in the order the edges were added
  /// (``World/dependents(of:)``).
  var dependentList = EdgeList()
  /// Unfinished dependencies still counted against readiness.
  var unfinishedCount: Int32 = 0
  /// Bumped whenever scheduled wake-ups for this operation become stale.
  var generation: UInt32 = 0
  /// BlockOperation blocks finished so far.
  var blocksDone: Int32 = 0
  /// The queue's index, or -1 before the operation is added to one.
  var queueIndex: Int32 = -1
  /// Set for user-interface work and waits on the main thread, which the lab creates itself.
  public internal(set) var mainThreadWork: MainThreadWork?
  /// The public phase.
  public internal(set) var phase: OpPhase = .created
  /// How it ended, once finished.
  public internal(set) var outcome: Outcome?
  /// `isCancelled`: sticky once set.
  public internal(set) var isCancelled = false
  /// Whether this is a queue's internal barrier operation (`addBarrierBlock`).
  public internal(set) var isBarrier = false
  /// Whether the completion block is running now.
  public internal(set) var completionRunning = false
  /// Set by `cancel()` on an operation that has not started: dependencies are ignored (rule 13).
  var dependenciesIgnored = false
  /// Whether the work ended without calling `finish()` (an async operation's jam).
  public internal(set) var jammed = false
  /// The priority level it is filed under in its queue (barrier = 12).
  var level: Int8 = 0
  /// Whether it occupies one of its queue's slots while started (a corelibs empty-queue barrier does not).
  var holdsSlot = false
  /// Linux's `removeDependency` removed an unfinished dependency without releasing it (rule 9).
  var stranded = false
  /// Handed to the backing dispatch queue behind a corelibs barrier block; starts when it ends.
  public internal(set) var dispatched = false
  /// Whether its blocks run one after another (corelibs) rather than side by side (Darwin).
  var blocksSequential = false

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

  /// `isReady`: no unfinished dependency is counted against it.
  ///
  /// Like the real flag, this is independent of the phase: a finished operation is ready.
  public var isReady: Bool { dependenciesIgnored || unfinishedCount == 0 }
  /// `isFinished`.
  public var isFinished: Bool { phase == .finished }
  /// `isExecuting`: started, not finished, and not a cancelled operation being skipped.
  public var isExecuting: Bool { phase == .executing }
  /// The name.
  public var name: String { spec.name }
  /// The priority level it is filed under in its queue (`nil` for a barrier, or before enqueueing).
  public var filedPriority: QueuePriority? { queue == nil || isBarrier ? nil : QueuePriority(rawValue: level) }
}
