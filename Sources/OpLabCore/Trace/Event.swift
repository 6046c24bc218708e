/// One entry of the append-only trace: what happened, to what, when, and why.
///
/// The trace is the single source every view reads: timelines, event logs, `why`,
/// exports and lessons never recompute scheduling. An event's sequence number is
/// its index in ``World/trace``.
public struct Event: Hashable, Sendable {
  /// When it happened.
  public var tick: Tick
  /// What happened.
  public var kind: EventKind
  /// The operation it happened to, if any.
  public var op: OpID?
  /// The queue involved, if any.
  public var queue: QueueID?
  /// The operation's phase before, for phase transitions.
  public var from: OpPhase?
  /// The operation's phase after, for phase transitions.
  public var to: OpPhase?
  /// Why it happened.
  public var reason: Reason

  /// Creates an event.
  public init(
    tick: Tick, kind: EventKind, op: OpID? = nil, queue: QueueID? = nil,
    from: OpPhase? = nil, to: OpPhase? = nil, reason: Reason
  ) {
    self.tick = tick
    self.kind = kind
    self.op = op
    self.queue = queue
    self.from = from
    self.to = to
    self.reason = reason
  }
}

/// What an ``Event`` records.
public enum EventKind: Hashable, Sendable {
  /// A queue was created with this `maxConcurrentOperationCount` (`nil`: the default).
  case queueCreated(maxConcurrent: Int?)
  /// An operation was defined.
  case created
  /// An operation was added to a queue.
  case enqueued
  /// An enqueued operation became ready (pending → ready).
  case ready
  /// A ready operation stopped being ready because a dependency was added (ready → pending).
  case unready
  /// Corelibs: the queue handed the operation to its backing dispatch queue, where it waits
  /// behind a running barrier block (rule 32). It holds a slot from now on.
  case dispatched
  /// The queue started an operation: `main()` begins.
  case started
  /// The queue started a cancelled operation, and `start()` skipped `main()`.
  case skipped
  /// `cancel()` was called.
  case cancelRequested
  /// The operation's code saw `isCancelled` and stopped.
  case cancelObserved
  /// The operation became `isFinished`, with this outcome.
  case finished(Outcome)
  /// The completion block began, on a global queue, outside the queue's slots.
  case completionStarted
  /// The completion block ended.
  case completionFinished
  /// An asynchronous operation's work ended without calling `finish()`: its slot is jammed.
  case workEnded
  /// A `BlockOperation` block began (0-based index).
  case blockStarted(Int32)
  /// A `BlockOperation` block ended (0-based index).
  case blockFinished(Int32)
  /// An asynchronous operation's manual `willChangeValue(forKey:)`.
  case kvoWillChange(KVOKey)
  /// An asynchronous operation's manual `didChangeValue(forKey:)`.
  case kvoDidChange(KVOKey)
  /// `isSuspended = true`.
  case suspended
  /// `isSuspended = false`.
  case resumed
  /// `maxConcurrentOperationCount` changed; `nil` is the default (−1).
  case maxChanged(Int?)
  /// `queuePriority` changed.
  case priorityChanged(QueuePriority)
  /// `qualityOfService` changed (of ``Event/op`` or, without one, of ``Event/queue``).
  case qualityOfServiceChanged(QualityOfService)
  /// `addDependency(_:)`: ``Event/op`` now depends on the given operation.
  case dependencyAdded(OpID)
  /// `removeDependency(_:)`.
  case dependencyRemoved(OpID)
  /// Warning: making ``Event/op`` depend on the given operation closed a dependency cycle.
  /// The real queue accepts it silently and the operations in the cycle never become ready.
  case cycleClosed(OpID)
  /// `addBarrierBlock`: ``Event/op`` is the queue's internal barrier operation.
  case barrierAdded
  /// `waitUntilAllOperationsAreFinished()` began (on ``Event/queue``, or on every queue).
  case waitStarted
  /// The wait returned.
  case waitEnded
  /// The wait could never return; the simulator stopped it (the real call would block forever).
  case waitStalled
  /// The platform mode changed.
  case platformChanged(Platform)
  /// The machine's cores changed (`nil`: unlimited).
  case machineChanged(cores: Int?)
  /// The CPU model's load changed: the work done per tick (``Machine/subTicks`` per busy
  /// core). The reason, ``Reason/cpuShared(units:cores:)``, counts the units running.
  case cpuLoad(used: Int64)
  /// ``Event/op``'s work now gets this much CPU per tick, per unit of work it runs
  /// (``Machine/subTicks`` is a full core). Recorded only when it changes; work starts with
  /// a full core.
  case cpuShare(Int64)
  /// A tap was scheduled for this tick.
  case tapScheduled(Tick)
  /// The display's frame requests changed: a frame every so many ticks, or none.
  case framesChanged(every: Tick?)
  /// `start()` was called by hand on ``Event/op`` and did nothing (the reason says why).
  case startCalled
  /// `addExecutionBlock(_:)`: a block of this many ticks was added to the BlockOperation.
  case executionBlockAdded(Tick)
  /// ``Event/op``'s custom `isReady` also waits for this gate (an index into ``World/gates``).
  case gated(Int32)
  /// The gate opened: each operation waiting for it is told, by KVO on `isReady`.
  case gateOpened(Int32)
  /// A request the main queue ignores: nothing changed. The reason,
  /// ``Reason/ignoredOnMainQueue(_:)``, says which Foundation ignores it and why.
  case ignoredOnMainQueue(MainQueueRequest)
  /// A shared variable was created (its index in ``SharedState/variableNames``) with this value.
  case variableCreated(Int32, value: Int)
  /// An `NSLock` was created (its index in ``SharedState/lockNames``).
  case lockCreated(Int32)
  /// ``Event/op`` read the variable, loading this value into its register.
  case variableRead(Int32, value: Int)
  /// ``Event/op`` added this much to its register, which now holds `result`.
  case computed(Int, result: Int)
  /// ``Event/op`` wrote this value to the variable.
  case variableWritten(Int32, value: Int)
  /// ``Event/op`` took the lock.
  case lockAcquired(Int32)
  /// ``Event/op`` called `lock()` on a lock another operation (or itself) holds: it waits, keeping its slot.
  case lockWaiting(Int32)
  /// ``Event/op`` released the lock.
  case lockReleased(Int32)
  /// ``Event/op`` called into the user-interface framework.
  case touchedUI
  /// A step of ``Event/op`` called `addOperation` on this operation, which was already in a
  /// queue: the real call raises (Apple) or crashes (Linux); the lab skipped it.
  case addRefused(OpID)
  /// A `DispatchQueue` was made (its index in ``World/dispatchQueues``).
  case dispatchQueueCreated(Int32)
  /// The queue's `underlyingQueue` was set to a dispatch queue (its index), or to `nil`.
  case underlyingQueueSet(Int32?)
}

/// A setter or call on `OperationQueue.main` that does nothing there (rules 26, 31, 33, 41).
///
/// Corelibs wraps `cancelAllOperations()` and the setters of `isSuspended`,
/// `maxConcurrentOperationCount` and `qualityOfService` in `if !__mainQ`; Darwin documents
/// the main queue as serial and its quality of service as fixed.
public enum MainQueueRequest: Hashable, Sendable {
  /// `isSuspended = true`.
  case suspend
  /// `isSuspended = false`.
  case resume
  /// `maxConcurrentOperationCount = n` (`nil`: the default, −1).
  case maxConcurrent(Int?)
  /// `qualityOfService = qos`.
  case qualityOfService(QualityOfService)
  /// `cancelAllOperations()`.
  case cancelAll
  /// `underlyingQueue = …` (a dispatch queue's index, or `nil`).
  case underlyingQueue(Int32?)
}

/// Why an ``Event`` happened: the cause `why` explains.
public enum Reason: Hashable, Sendable {
  /// The learner's own action.
  case command
  /// `cancelAllOperations()` on the queue, cancelling its operations one by one.
  case cancelAll(QueueID)
  /// Enqueued with this many unfinished dependencies.
  case waitingOnDependencies(Int32)
  /// Enqueued with no unfinished dependency.
  case noUnfinishedDependencies
  /// The last unfinished dependency finished.
  case dependencyFinished(OpID)
  /// The last unfinished dependency was removed.
  case dependencyRemoved(OpID)
  /// A dependency on an unfinished operation was added.
  case dependencyAdded(OpID)
  /// Cancelled before starting: unfinished dependencies are ignored from now on (rule 13).
  case cancelledWhilePending
  /// Picked by the queue. ``StartTrigger`` says what let it start at this tick;
  /// `beat` names the best operation left waiting, when one was.
  case picked(StartTrigger, beat: OpID?)
  /// Picked outside the queue's slots: a barrier on an empty queue (corelibs, rule 32).
  case emptyQueueBarrier
  /// It was waiting on the backing dispatch queue behind this barrier block, which ended.
  case dispatchBarrierEnded(OpID)
  /// `cancel()` on a finished operation does nothing.
  case alreadyFinished
  /// `cancel()` on a cancelled operation does nothing more.
  case alreadyCancelled
  /// The change does nothing to an operation that has already started.
  case alreadyStarted
  /// The operation's code checked `isCancelled` after this many ticks of work.
  case checkedIsCancelled(elapsed: Tick)
  /// `main()` did all its work.
  case workDone
  /// The work failed after this many ticks.
  case failedAt(Tick)
  /// The operation saw `isCancelled` and returned early.
  case sawCancellation
  /// `start()` found `isCancelled` and skipped `main()`.
  case skippedBecauseCancelled
  /// `main()` returned at once because this dependency was cancelled.
  case dependencyWasCancelled(OpID)
  /// Darwin: `cancel()` on an operation in no queue marks it finished at once.
  case cancelledOutsideQueue
  /// The asynchronous operation's work called `finish()`.
  case finishCalled
  /// The asynchronous operation's work ended without calling `finish()`.
  case forgotFinish
  /// An asynchronous operation's own `start()` saw `isCancelled` and called `finish()`.
  case asyncStartSawCancellation
  /// An asynchronous operation's own `start()` saw `isCancelled` and returned without
  /// calling `finish()`: it holds its slot forever.
  case asyncStartForgotFinish
  /// A completion block runs after its operation finishes, cancelled or not.
  case afterFinish
  /// A barrier waits for everything already in its queue, and everything added later waits for it.
  case barrier
  /// A `BlockOperation` block: Darwin runs the blocks side by side, corelibs one after another.
  case blockSchedule
  /// The clock reached the end of the wait.
  case allFinished
  /// A stall: the wait could never return. `Diagnosis` says why.
  case stalled
  /// The user tapped: the tap needs the main thread.
  case tapped
  /// The display asked for a frame: it needs the main thread.
  case frameDue
  /// The frame could not start before the next frame was due, so it was dropped.
  case frameDropped
  /// Frames stop after ``World/maxFrames``.
  case frameLimit
  /// The wait on the main thread returned: everything it waited for finished.
  case waitReturned
  /// The cores are shared: this many units of work run on this many cores (`nil`: unlimited).
  case cpuShared(units: Int32, cores: Int32?)
  /// The main queue ignores the request on this platform: corelibs by its `if !__mainQ`
  /// guards, Darwin as documented (or, where Darwin's documentation is silent, as the lab
  /// chose; see ``World/explain(_:about:)``).
  case ignoredOnMainQueue(Platform)
  /// Linux: `removeDependency` of a finished dependency from an operation cancelled before
  /// it started took corelibs' unfinished count to −1: not ready until cancelled again (rule 9).
  case unfinishedCountBelowZero
  /// Linux: `cancel()` on a cancelled operation whose count was below zero set it back to 0.
  case cancelledAgain
  /// `start()` called by hand, on the main thread, by this call (``MainThreadWork/start``).
  case startedByHand(OpID)
  /// An asynchronous operation's `start()` returns once its work has begun: the call is over.
  case asyncStartReturned
  /// `main()` returned at once because this dependency did not succeed (`only-if-deps-succeeded`).
  case dependencyDidNotSucceed(OpID)
  /// By the time the main thread got to a `start()` call, the operation could not be
  /// started any more: the real call raises there. The lab skipped it.
  case startNoLongerPossible(OpID)
  /// The gate opened and posted KVO for `isReady` (an index into ``World/gates``).
  case gateOpened(Int32)
  /// The operation's step with this (0-based) index.
  case step(Int32)
  /// The lock is held by this operation (the event's own, for a second `lock()` by the holder).
  case lockHeldBy(OpID)
  /// This operation unlocked the lock, and the waiter was first in line for it.
  case lockReleasedBy(OpID)
  /// This operation unlocked the lock, and the step order gave it to this waiter, not to
  /// the one that had waited longest (NSLock documents no order among waiters).
  case lockChosenAfter(OpID)
  /// The step with this (0-based) index of the operation's completion block.
  case completionStep(Int32)
  /// A step of this operation's work (or, with `completion`, of its completion block) added it.
  case addedByStep(OpID, completion: Bool)
  /// This `addOperations(_:waitUntilFinished: true)` call on the main thread added it, when
  /// the main thread got to the call.
  case addedByMainThreadCall(OpID)
  /// Dispatched to its queue's serial underlying queue (an index into
  /// ``World/dispatchQueues``) while the work item of `running` runs there: it waits, holding its slot.
  case dispatchQueueBusy(Int32, running: OpID)
  /// Its serial underlying queue went on to it when the work item before it, `after`'s, returned.
  case dispatchQueueFreed(Int32, after: OpID)
}

extension EventKind {
  /// Whether a step records this (a read, a computation, a write, a lock taken, waited for
  /// or released, a call into the user interface, a refused `add`): such an event is
  /// stamped with the tick the step took, the column the timeline draws it in, and what it
  /// did shows in the world from the tick after (see ``World/recordStep(_:op:queue:reason:)``).
  public var isStep: Bool {
    switch self {
    case .variableRead, .computed, .variableWritten, .lockAcquired, .lockWaiting, .lockReleased, .touchedUI, .addRefused: true
    default: false
    }
  }
}

extension Reason {
  /// Whether the event was a step of a completion block (not of `main()`).
  public var isCompletionStep: Bool {
    if case .completionStep = self { return true }
    return false
  }

  /// Whether a lock was handed over by an `unlock` to a waiter (not taken by its own `lock` step).
  public var isLockHandoff: Bool {
    switch self {
    case .lockReleasedBy, .lockChosenAfter: true
    default: false
    }
  }
}

/// What allowed an operation to start at the tick it did.
public enum StartTrigger: Hashable, Sendable {
  /// It was enqueued while the queue had a free slot: the first operation on an idle queue starts at once.
  case enqueued
  /// It became ready while the queue had a free slot.
  case becameReady
  /// A slot was freed when this operation finished.
  case slotFreed(OpID)
  /// The queue was resumed.
  case resumed
  /// `maxConcurrentOperationCount` was raised.
  case maxRaised
  /// It was cancelled, which made it ready (or it was cancelled while waiting).
  case cancelled
}
