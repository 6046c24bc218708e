/// An action the simulator refused, with what the real API would have done.
///
/// Errors are data: the shell turns them into located, coloured text. Each
/// ``description`` is a full sentence a learner can act on.
public enum SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No operation has that name.
  case unknownOperation(String)
  /// No queue has that name.
  case unknownQueue(String)
  /// The name is already taken by an operation or a queue.
  case duplicateName(String)
  /// Names must be non-empty identifiers.
  case invalidName(String)
  /// A number or combination in an operation spec, or a step, that cannot run.
  case invalidSpec(SpecProblem)
  /// Enqueueing an operation that is not fresh (rule 39).
  case cannotEnqueue(operation: String, phase: OpPhase, platform: Platform)
  /// A `maxConcurrentOperationCount` below −1 crashes (rule 26).
  case invalidMaxConcurrent(Int)
  /// The operation does not depend on the other one.
  case notADependency(operation: String, dependency: String)
  /// A clock argument that goes backwards or overflows.
  case invalidTick(TickProblem)
  /// Time travel to a tick the simulation has not reached.
  case tickNotReached(requested: Tick, now: Tick)
  /// A barrier's duration must be 0 or more.
  case invalidDuration(Tick)
  /// A machine has 1 to ``Machine/maxCores`` cores.
  case invalidCores(Int)
  /// Cores cannot be limited while work runs on unlimited ones (the named operation runs).
  case machineBusy(String)
  /// `start()` by hand on an operation a queue owns (rule 3).
  case startInQueue(operation: String, queue: String, platform: Platform)
  /// `start()` by hand on an executing operation (rule 3).
  case startWhileExecuting(operation: String, platform: Platform)
  /// `start()` by hand on an operation that is not ready: these dependencies are unfinished (rule 3).
  case startNotReady(operation: String, waitingOn: [String], platform: Platform)
  /// A `start()` call on the operation is already waiting for the main thread.
  case startAlreadyCalled(String)
  /// An `addOperations(_:waitUntilFinished: true)` call waiting for the main thread will add
  /// the operation to this queue: adding it elsewhere meanwhile would add it twice (rule 39).
  case cannotEnqueueWhileAdding(operation: String, queue: String)
  /// The same operation twice in one `addOperations(_:waitUntilFinished:)` (rule 39).
  case listedTwice(String)
  /// `addExecutionBlock(_:)` on something that is not a `BlockOperation`.
  case notABlockOperation(String)
  /// `addExecutionBlock(_:)` after the operation started (rule 38).
  case blockAfterStart(operation: String, phase: OpPhase, platform: Platform)
  /// A gate is part of an operation's class: it is given when the operation is defined.
  case gateAfterDefinition(String)
  /// No gate has that name.
  case unknownGate(String)
  /// `underlyingQueue` set while the queue has operations.
  case underlyingQueueNotEmpty(queue: String, operationCount: Int, platform: Platform)

  /// The tick the error is about, when it is about one: where a message points.
  public var tick: Tick? {
    switch self {
    case .invalidTick(let problem): problem.tick
    case .tickNotReached(let requested, _): requested
    default: nil
    }
  }

  /// What to do instead, where a sentence helps beyond the ``description``.
  public var hint: String? {
    switch self {
    case .cannotEnqueue: "define a new operation with `op` instead"
    case .tickNotReached: "use `step` or `run` to move forward"
    case .invalidCores: "e.g. `machine cores 4`, or `machine unlimited` for a core per running piece of work"
    case .underlyingQueueNotEmpty(let q, _, _): "set it before adding operations, or after `wait \(q)` (or `undo` back to there)"
    default: nil
    }
  }

  public var description: String {
    switch self {
    case .unknownOperation(let name): "there is no operation named '\(name)'"
    case .unknownQueue(let name): "there is no queue named '\(name)'"
    case .duplicateName(let name): "the name '\(name)' is already taken"
    case .invalidName(let name):
      World.reservedNames.contains(name.lowercased())
        ? "'\(name)' is a reserved word and cannot name an operation or a queue"
        : "'\(name)' is not a valid name: use letters, digits, '-', '_' and '.', starting with a letter"
    case .invalidSpec(let problem): problem.description
    case .cannotEnqueue(let name, let phase, let platform):
      "'\(name)' is \(Self.phrase(phase)) and cannot be added to a queue again: "
        + (platform == .apple
          ? "the real addOperation(_:) raises NSInvalidArgumentException"
          : "the real addOperation(_:) crashes the process (fatalError: \"operations finished, executing or already in a queue cannot be enqueued\")")
    case .invalidMaxConcurrent(let n):
      "maxConcurrentOperationCount must be 0 or more, or default (-1); the real setter crashes on \(n)"
    case .notADependency(let op, let dep): "'\(op)' does not depend on '\(dep)'"
    case .invalidTick(let problem): problem.description
    case .tickNotReached(let requested, let now):
      "tick \(requested) has not happened yet (the clock is at \(now))"
    case .invalidDuration(let n): "a duration is 0 to \(OperationSpec.maxDuration) ticks, not \(n)"
    case .invalidCores(let n): "a machine has 1 to \(Machine.maxCores) cores (or unlimited), not \(n)"
    case .machineBusy(let name):
      "'\(name)' is running on unlimited cores: limit the cores before work starts (undo back to there, or reset)"
    case .startInQueue(let name, let queue, let platform):
      "'\(name)' is in \(queue), which starts it: calling start() yourself "
        + (platform == .apple
          ? "is a programming error (Apple's documentation: a queued operation is started by its queue, never by your code; what then happens is undocumented)"
          : "crashes the process (fatalError: \"something is trying to start the receiver simultaneously from more than one thread\")")
    case .startWhileExecuting(let name, let platform):
      "'\(name)' is executing: calling start() again "
        + (platform == .apple
          ? "raises NSInvalidArgumentException"
          : "crashes the process (fatalError: \"receiver is already executing\")")
    case .startNotReady(let name, let deps, let platform):
      "'\(name)' is not ready (\(deps.isEmpty ? "a dependency is unfinished" : "waiting on " + deps.joined(separator: "; "))): calling start() "
        + (platform == .apple
          ? "raises NSInvalidArgumentException"
          : "crashes the process (fatalError: \"receiver is not yet ready to execute\")")
    case .startAlreadyCalled(let name):
      "start() on '\(name)' is already called and waiting for the main thread; a second call would find it executing"
    case .cannotEnqueueWhileAdding(let name, let queue):
      "'\(name)' is already being added to \(queue) by an addOperations(_:waitUntilFinished: true) call waiting for the "
        + "main thread; adding it again would add it twice, which the real queue refuses"
    case .listedTwice(let name):
      "'\(name)' is listed twice: addOperations(_:waitUntilFinished:) would find it already in the queue the second time "
        + "and fail for all of them (Darwin raises NSInvalidArgumentException; corelibs crashes)"
    case .notABlockOperation(let name):
      "'\(name)' is not a BlockOperation: only a BlockOperation has addExecutionBlock(_:) "
        + "(in the lab: one made with `blocks`, or a plain `takes N` operation, which is BlockOperation { work })"
    case .gateAfterDefinition(let name):
      "'\(name)' is already defined: a gate is part of its class (its isReady override), so give it with `op \(name) … gate G`"
    case .unknownGate(let name): "there is no gate named '\(name)'"
    case .underlyingQueueNotEmpty(let q, let count, let platform):
      "\(q) has \(count) unfinished \(count == 1 ? "operation" : "operations"): setting its underlyingQueue now "
        + (platform == .apple
          ? "raises NSInvalidArgumentException (Apple's documentation: only while operationCount is 0)"
          : "crashes the process (fatalError: \"operation queue must be empty in order to change underlying dispatch queue\")")
    case .blockAfterStart(let name, let phase, let platform):
      "'\(name)' is \(phase == .finished ? "finished" : "executing"): adding an execution block now "
        + (platform == .apple
          ? "raises NSInvalidArgumentException"
          : "crashes the process (fatalError: \"blocks cannot be added after the operation has started executing or finished\")")
    }
  }

  private static func phrase(_ phase: OpPhase) -> String {
    switch phase {
    case .created: "new"
    case .pending, .ready: "already in a queue"
    case .executing: "executing"
    case .finished: "finished"
    }
  }
}
