import OpLabCore

/// A world for Foundation's real `OperationQueue`, as plain data: actions at ticks.
///
/// The shell's `real` builds one from the commands that made the lab's world; the differential
/// tests build theirs by hand. ``RealDriver/run(_:tickSeconds:until:grace:expectedMarks:interrupt:progress:)`` performs it in
/// scaled real time. The queue named `main` is `OperationQueue.main`.
public struct RealScript: Sendable, Equatable {
  /// Actions in time order; actions at the same tick run in list order.
  public var actions: [TimedAction]

  public init(actions: [TimedAction] = []) { self.actions = actions }

  /// Appends `action` at `tick`.
  public mutating func at(_ tick: Tick, _ action: RealAction) { actions.append(TimedAction(tick: tick, action: action)) }

  /// The tick of the last action.
  public var lastTick: Tick { actions.last?.tick ?? 0 }
}

/// An action at a tick.
public struct TimedAction: Sendable, Equatable {
  public var tick: Tick
  public var action: RealAction

  public init(tick: Tick, action: RealAction) {
    self.tick = tick
    self.action = action
  }
}

/// What an operation's code does, for a stand-in that takes real time.
public struct RealWork: Sendable, Equatable {
  /// The name, also the operation's `name` and its label in the log.
  public var name: String
  /// Ticks of work `main()` sleeps (for an asynchronous operation, the time until its callback).
  public var ticks: Tick
  /// A `BlockOperation` whose execution blocks sleep these ticks each; `nil` for an `Operation` subclass.
  public var blocks: [Tick]?
  /// An asynchronous operation (`isAsynchronous`, KVO, `finish()`); with `forgetsFinish`, the
  /// callback never calls `finish()`.
  public var isAsynchronous = false
  public var forgetsFinish = false
  /// `main()` checks `isCancelled` when it begins and after every this many ticks of work
  /// (never at the very end), and returns when it sees it.
  public var checksCancellationEvery: Tick?
  /// `main()` checks `isCancelled` once, when it begins.
  public var checksCancellationAtStart = false
  /// `main()` returns at once when a dependency was cancelled.
  public var bailsIfDependencyCancelled = false
  /// `main()` returns at once unless every dependency succeeded.
  public var bailsUnlessDependenciesSucceeded = false
  /// Its `isReady` also waits for this gate: `super.isReady && (gate.isOpen || isCancelled)`.
  public var gate: String?
  /// The work fails after this many ticks.
  public var failsAfter: Tick?
  /// A completion block that sleeps this many ticks.
  public var completionTicks: Tick?
  /// `main()` written as steps on shared state, played for real (see ``OpLabCore/Step``): a
  /// step a tick, then the rest of `ticks` as plain work.
  public var steps: [Step]?
  /// The completion block written as steps, a tick each, then the rest of `completionTicks`.
  public var completionSteps: [Step]?
  public var priority: QueuePriority?
  public var qualityOfService: QualityOfService?

  public init(_ name: String, ticks: Tick) {
    self.name = name
    self.ticks = ticks
  }
}

/// A blocking call made on the main thread (``RealAction/onMainThread(_:until:)``).
public enum RealMainCall: Sendable, Equatable {
  /// `op.waitUntilFinished()` on each, in turn.
  case waitForOperations([String])
  /// `queue.waitUntilAllOperationsAreFinished()`; `nil`: on every queue made so far, main too.
  case waitForQueue(String?)
  /// `queue.addOperations(ops, waitUntilFinished: true)`: nothing is added until the main
  /// thread gets to the call.
  case addAndWait([String], to: String)
}

/// Something done at a tick, on the driver's thread.
public enum RealAction: Sendable, Equatable {
  /// `let q = OperationQueue()` with a name, and optionally its max and QoS.
  case makeQueue(String)
  /// Creates the operation (not yet in a queue).
  case makeOperation(RealWork)
  /// `queue.addOperation(op)`.
  case add(String, to: String)
  /// `queue.addOperations(ops, waitUntilFinished: false)`: all inserted, then one pick.
  case addBatch([String], to: String)
  /// `op.start()` called by hand: on the main thread when the driver runs there (queued to
  /// it, as a call the main thread gets to), else on the driver's thread, where a
  /// synchronous operation's `main()` then runs.
  case startByHand(String)
  /// `op.addExecutionBlock { … }` on a block operation, the block sleeping `ticks`.
  case addBlock(String, ticks: Tick)
  /// Opens a gate: each operation waiting for it gets KVO on `isReady`.
  case openGate(String)
  /// `op.addDependency(dependency)`.
  case addDependency(String, on: String)
  /// `op.removeDependency(dependency)`.
  case removeDependency(String, on: String)
  /// `op.queuePriority = p`.
  case setPriority(String, QueuePriority)
  /// `op.qualityOfService = q`.
  case setOperationQoS(String, QualityOfService)
  /// `queue.qualityOfService = q`.
  case setQueueQoS(String, QualityOfService)
  /// `queue.maxConcurrentOperationCount = n` (`nil`: the default, −1).
  case setMax(String, Int?)
  /// `op.cancel()`.
  case cancel(String)
  /// `queue.cancelAllOperations()`.
  case cancelAll(String)
  /// `queue.isSuspended = true`.
  case suspend(String)
  /// `queue.isSuspended = false`.
  case resume(String)
  /// `queue.addBarrierBlock { … }`, the block sleeping `ticks`; `label` names it in the log.
  case barrier(String, label: String, ticks: Tick)
  /// A call made on the main thread: main-thread work that arrives now and runs when the main
  /// thread gets to it, after what already waits there (queued to it when the driver runs on
  /// the main thread; else made on the driver's thread at once). It blocks the thread until
  /// it returns, or until `until` when given (a wait cut short).
  case onMainThread(RealMainCall, until: Tick?)
  /// A shared integer variable with its first value (`var NAME = N`).
  case makeVariable(String, Int)
  /// An `NSLock` (`lock NAME`).
  case makeLock(String)
  /// `DispatchQueue(label: name, qos: qos, attributes: .concurrent)` (serial unless `concurrent`).
  case makeDispatchQueue(String, concurrent: Bool, QualityOfService?)
  /// `queue.underlyingQueue = dispatchQueue` (`nil`: its own again).
  case setUnderlyingQueue(String, String?)
}
