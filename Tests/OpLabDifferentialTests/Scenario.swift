import OpLabCore

/// One differential scenario as plain data: queues, operations, and actions at ticks.
///
/// The same value is run by two interpreters: ``SimulatedRun/init(_:)`` drives
/// `OpLabCore.World`, and ``RealRun/perform(_:tickSeconds:expecting:endTick:)`` drives
/// Foundation's `OperationQueue` in scaled real time. Their start/finish orders are then
/// compared tick group by tick group (``TickGroup``).
///
/// Rules for writing a scenario (checked by ``SimulatedRun/designProblems``):
/// - No action may happen at a tick where an operation's work ends: in reality the two race.
/// - At most 2 operations may be sleeping at once, because Linux's libdispatch pool starts
///   with one worker per CPU and only grows about once a second (spec rule 29).
struct Scenario: Sendable, CustomStringConvertible {
  /// A short identifier, shown in failure messages.
  var name: String
  /// The simulator's platform mode. Use `.linux` where corelibs differs from Darwin.
  var platform: Platform = .apple
  /// The queues, created before tick 0.
  var queues: [QueueSpec]
  /// The operations, created (with their dependencies) before tick 0 and added by ``Action/enqueue(_:)``.
  var operations: [OperationSpecification]
  /// Actions in time order; actions at the same tick run in list order.
  var steps: [Step]

  var description: String { name }

  /// The operation called `name`.
  func operation(named name: String) -> OperationSpecification {
    guard let op = operations.first(where: { $0.name == name }) else {
      preconditionFailure("scenario \(self.name) has no operation named \(name)")
    }
    return op
  }
}

/// An `OperationQueue` in a scenario.
struct QueueSpec: Sendable {
  /// The queue's name.
  var name: String
  /// `maxConcurrentOperationCount`; `nil` is the default (−1, no limit).
  var maxConcurrent: Int?

  init(_ name: String, max: Int? = nil) {
    self.name = name
    maxConcurrent = max
  }
}

/// An operation in a scenario: a plain `Operation` whose `main()` sleeps, or a `BlockOperation`.
struct OperationSpecification: Sendable {
  /// The operation's name, also its label in the event log.
  var name: String
  /// The queue it is added to.
  var queue: String
  /// Ticks `main()` sleeps (ignored for a block operation).
  var ticks: Tick
  /// An explicit `queuePriority`, or `nil` to leave it unset.
  var priority: QueuePriority?
  /// Operations it depends on (`addDependency`), added before tick 0.
  var dependencies: [String]
  /// Whether it has a `completionBlock` (which only logs, taking no time).
  var hasCompletion: Bool
  /// For a `BlockOperation`: the ticks each execution block sleeps.
  var blocks: [Tick]?
  /// An explicit `qualityOfService`, or `nil` to leave it unset.
  var qualityOfService: QualityOfService?
  /// When set, `main()` checks `isCancelled` when it begins and after every this many ticks
  /// of work, and returns when it sees it (cooperative cancellation, rule 12).
  var checksCancellationEvery: Tick?
  /// Whether `main()` returns at once when a dependency was cancelled (the rule 8 idiom).
  var bailsIfDependencyCancelled = false

  /// A plain operation.
  init(
    _ name: String, on queue: String, ticks: Tick, priority: QueuePriority? = nil,
    qos: QualityOfService? = nil, after dependencies: [String] = [], completion: Bool = false
  ) {
    self.name = name
    self.queue = queue
    self.ticks = ticks
    self.priority = priority
    self.dependencies = dependencies
    hasCompletion = completion
    blocks = nil
    qualityOfService = qos
  }

  /// A `BlockOperation` with one execution block per entry of `blocks`.
  static func blockOperation(_ name: String, on queue: String, blocks: [Tick]) -> Self {
    var op = Self(name, on: queue, ticks: 0)
    op.blocks = blocks
    return op
  }
}

/// Something the test thread does at a tick.
enum Action: Sendable {
  /// `queue.addOperation(op)` for each operation, in order, each to its own queue.
  case enqueue([String])
  /// `op.cancel()`.
  case cancel(String)
  /// `queue.cancelAllOperations()`.
  case cancelAll(String)
  /// `queue.isSuspended = true`.
  case suspend(String)
  /// `queue.isSuspended = false`.
  case resume(String)
  /// `queue.maxConcurrentOperationCount = n` (`nil`: the default, −1).
  case setMax(String, Int?)
  /// `queue.addBarrierBlock { … }`, the block sleeping `ticks`; `label` names it in the log.
  case barrier(String, label: String, ticks: Tick)
  /// `op.queuePriority = p`.
  case setPriority(String, QueuePriority)
  /// `op.removeDependency(dep)`, written `removeDependency(op, dep)`.
  case removeDependency(String, String)
  /// `queue.addOperations(ops, waitUntilFinished: false)`: one call for all of them.
  case addBatch([String], to: String)
  /// `op.start()` called by hand on an operation in no queue (the simulator makes the call
  /// on its main thread; the real run from the test thread).
  case startByHand(String)

  /// `addOperation` for each named operation, in order.
  static func add(_ names: String...) -> Action { .enqueue(names) }
}

/// An action at a tick.
struct Step: Sendable {
  var tick: Tick
  var action: Action

  static func at(_ tick: Tick, _ action: Action) -> Step { Step(tick: tick, action: action) }
}
