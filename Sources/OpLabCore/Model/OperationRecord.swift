/// The simulator's live state for one operation.
///
/// All fields are derived from the actions applied so far; the public view of an
/// operation is ``World/operation(_:)``.
public struct OperationRecord: Sendable {
  /// What the learner defined.
  public internal(set) var spec: OperationSpec
  /// The public phase.
  public internal(set) var phase: OpPhase = .created
  /// The queue the operation was added to, if any.
  public internal(set) var queue: QueueID?
  /// `isCancelled`: sticky once set.
  public internal(set) var isCancelled = false
  /// When `cancel()` first took effect.
  public internal(set) var cancelledAt: Tick?
  /// When the operation was added to its queue.
  public internal(set) var enqueuedAt: Tick?
  /// When the queue started it (or skipped it, when cancelled).
  public internal(set) var startedAt: Tick?
  /// When it became `isFinished`.
  public internal(set) var finishedAt: Tick?
  /// How it ended, once finished.
  public internal(set) var outcome: Outcome?
  /// Dependencies in the order they were added, finished ones included (rule 7).
  public internal(set) var dependencies: [OpID] = []
  /// Operations that depend on this one, in the order the edges were added.
  public internal(set) var dependents: [OpID] = []
  /// Whether this is a queue's internal barrier operation (`addBarrierBlock`).
  public internal(set) var isBarrier = false
  /// Set for user-interface work and waits on the main thread, which the lab creates itself.
  public internal(set) var mainThreadWork: MainThreadWork?
  /// Whether the completion block is running now.
  public internal(set) var completionRunning = false

  /// Unfinished dependencies still counted against readiness.
  var unfinishedCount: Int32 = 0
  /// Set by `cancel()` on an operation that has not started: dependencies are ignored (rule 13).
  var dependenciesIgnored = false
  /// Whether the work ended without calling `finish()` (an async operation's jam).
  public internal(set) var jammed = false
  /// The priority level it is filed under in its queue (barrier = 12).
  var level: Int8 = 0
  /// Its place inside the level: smaller is earlier (FIFO).
  var place: Int = 0
  /// Bumped whenever scheduled wake-ups for this operation become stale.
  var generation: UInt32 = 0
  /// Whether it occupies one of its queue's slots while started (a corelibs empty-queue barrier does not).
  var holdsSlot = false
  /// Linux's `removeDependency` removed an unfinished dependency without releasing it (rule 9).
  var stranded = false
  /// Handed to the backing dispatch queue behind a corelibs barrier block; starts when it ends.
  public internal(set) var dispatched = false
  /// BlockOperation blocks finished so far.
  var blocksDone: Int32 = 0
  /// Whether its blocks run one after another (corelibs) rather than side by side (Darwin).
  var blocksSequential = false

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
