/// Calls a learner makes on operations directly, outside a queue's own scheduling:
/// `addOperations(_:waitUntilFinished:)`, `waitUntilFinished()`, `start()` by hand and
/// `addExecutionBlock(_:)`.
extension World {
  /// Who waits in `waitUntilFinished()`: the lab's own thread, or the main thread; and,
  /// for a wait cut short by Ctrl-C or time travel, the tick the lab stopped watching it.
  public struct Waiter: Hashable, Sendable {
    /// Whether the call is made on the main thread (blocking it) rather than the lab's own.
    public var fromMain: Bool
    /// The tick the lab stops at if the wait has not returned by then.
    public var until: Tick?

    public init(fromMain: Bool, until: Tick? = nil) {
      self.fromMain = fromMain
      self.until = until
    }
  }

  /// The operations a wait or `start()` call made on the main thread is about (empty for
  /// other work).
  public func callTargets(of call: OpID) -> [OpID] { callTargetsByCall[call] ?? [] }

  // MARK: - addOperations

  /// `queue.addOperations(ops, waitUntilFinished: false)`: every operation is filed first,
  /// in the order given, then the queue picks once (rule 35; corelibs' `_addOperations`
  /// inserts them all and calls `_schedule()` once). So on a serial queue a later operation
  /// of higher priority starts first, where one `addOperation` at a time would have started
  /// the first at once.
  /// - Throws: ``SimulationError/cannotEnqueue(operation:phase:platform:)`` unless every
  ///   operation is new, or ``SimulationError/listedTwice(_:)``: nothing is added then.
  public mutating func enqueue(all ops: [OpID], on q: QueueID) throws(SimulationError) {
    defer { checkInvariants() }
    try checkEnqueue(all: ops)
    for op in ops { file(op, on: q, reason: .command) }
    pick(on: q, trigger: .enqueued)
    settle()
  }

  /// `queue.addOperations(ops, waitUntilFinished: true)` called on the main thread: one call,
  /// which takes the main thread (after the work running there now), adds the operations and
  /// waits for them there. Operations that need the main thread themselves (on `main`) come
  /// after the call, which never returns: the main thread is deadlocked, and diagnosed so.
  /// - Throws: as ``enqueue(all:on:)``; nothing is added then.
  public mutating func enqueueOnMainThread(
    all ops: [OpID], on q: QueueID, cap: Tick? = nil, interrupt: Interrupt? = nil
  ) throws(SimulationError) -> RunVerdict {
    defer { checkInvariants() }
    try checkEnqueue(all: ops)
    // The call is main-thread work that arrives now; it adds them when the main thread gets
    // to it (``beginMainThreadCall(_:)``), after what already waits there.
    let call = addMainThreadWork(.waitForOperations, targets: ops, adding: q, reason: .command)
    settle()
    return runMainThreadCall(call, cap: cap, interrupt: interrupt)
  }

  /// Throws unless every operation is new and listed once.
  func checkEnqueue(all ops: [OpID]) throws(SimulationError) {
    var seen = Set<OpID>()
    for op in ops {
      guard operations[op.slot].phase == .created else {
        throw .cannotEnqueue(operation: operations[op.slot].name, phase: operations[op.slot].phase, platform: platform)
      }
      if pendingStartCall(on: op) != nil {
        throw .cannotEnqueue(operation: operations[op.slot].name, phase: .executing, platform: platform)
      }
      guard seen.insert(op).inserted else { throw .listedTwice(operations[op.slot].name) }
      if let q = pendingAdd(of: op) {
        throw .cannotEnqueueWhileAdding(operation: operations[op.slot].name, queue: queues[q.slot].name)
      }
    }
  }

  /// For an `addOperations(_:waitUntilFinished: true)` call made on the main thread, the queue
  /// it adds its operations to (when the main thread gets to it); `nil` for other work.
  public func queueAdded(by call: OpID) -> QueueID? { addCalls[call] }

  /// The queue an `addOperations(_:waitUntilFinished: true)` call that waits for the main
  /// thread will add `op` to, if one will.
  func pendingAdd(of op: OpID) -> QueueID? {
    for (call, q) in addCalls where operations[call.slot].phase != .executing && !operations[call.slot].isFinished {
      if callTargets(of: call).contains(op) { return q }
    }
    return nil
  }

  // MARK: - waitUntilFinished

  /// `waitUntilFinished()` on each operation in turn, from the lab's own thread: the clock
  /// runs until each has finished (completion blocks are not waited for). When one can
  /// never finish, the wait stops and says why instead of hanging.
  @discardableResult
  public mutating func waitUntilFinished(
    _ ops: [OpID], cap: Tick? = nil, interrupt: Interrupt? = nil
  ) -> RunVerdict {
    defer { checkInvariants() }
    var verdict = RunVerdict.reached
    for op in ops {
      record(.waitStarted, op: op, reason: .command)
      verdict = runLoop(cap: cap, interrupt: interrupt) { world in
        if world.operations[op.slot].isFinished { return .reached }
        return world.nothingScheduled ? .stalled(world.diagnose(startingWith: [op])) : nil
      }
      switch verdict {
      case .reached: record(.waitEnded, op: op, reason: .allFinished)
      case .stalled:
        record(.waitStalled, op: op, reason: .stalled)
        return verdict
      case .idle, .capped, .interrupted: return verdict
      }
    }
    return verdict
  }

  /// `waitUntilFinished()` on each operation, called on the main thread: the call takes
  /// the main thread (after the work running there now) and keeps it until they have all
  /// finished. Work that needs the main thread first — an operation on `main` — deadlocks it.
  @discardableResult
  public mutating func waitOnMainThread(
    for ops: [OpID], cap: Tick? = nil, interrupt: Interrupt? = nil
  ) -> RunVerdict {
    defer { checkInvariants() }
    let wait = addMainThreadWork(.waitForOperations, targets: ops, reason: .command)
    settle()
    return runMainThreadCall(wait, cap: cap, interrupt: interrupt)
  }

  /// Runs the clock until a call on the main thread returns, or stops it where it never can.
  mutating func runMainThreadCall(_ call: OpID, cap: Tick?, interrupt: Interrupt?) -> RunVerdict {
    let verdict = runLoop(cap: cap, interrupt: interrupt) { world in
      if world.operations[call.slot].isFinished { return .reached }
      return world.nothingScheduled ? .stalled(world.diagnose(startingWith: [call])) : nil
    }
    if case .stalled = verdict { record(.waitStalled, op: call, reason: .stalled) }
    return verdict
  }

  // MARK: - start() by hand

  /// `op.start()` called by hand on the main thread, for an operation in no queue (rule 3).
  /// The call waits for the main thread like any work there; when it runs, a synchronous
  /// operation runs on the main thread (the call returns when it finishes), an
  /// asynchronous one begins its work and the call returns at once. A cancelled operation
  /// is finished without running (on Darwin one cancelled in no queue is finished already,
  /// and `start()` on a finished operation returns at once: recorded, nothing changes).
  /// - Returns: the call, or `nil` when it did nothing (a finished operation).
  /// - Throws: for an operation in a queue, executing or not ready: the real call raises
  ///   there (Darwin) or crashes (corelibs). Nothing changes then.
  @discardableResult
  public mutating func callStart(_ op: OpID) throws(SimulationError) -> OpID? {
    defer { checkInvariants() }
    if let problem = startProblem(op) { throw problem }
    if operations[op.slot].isFinished {
      record(.startCalled, op: op, reason: .alreadyFinished)
      return nil
    }
    let call = addMainThreadWork(.start, targets: [op], reason: .command)
    settle()
    return call
  }

  /// Why `start()` on `op` would raise now, if it would.
  func startProblem(_ op: OpID) -> SimulationError? {
    let r = operations[op.slot]
    if r.isFinished { return nil }
    if r.phase == .executing { return .startWhileExecuting(operation: r.name, platform: platform) }
    if let q = r.queue { return .startInQueue(operation: r.name, queue: queues[q.slot].name, platform: platform) }
    if pendingStartCall(on: op) != nil { return .startAlreadyCalled(r.name) }
    if let q = pendingAdd(of: op) { return .startInQueue(operation: r.name, queue: queues[q.slot].name, platform: platform) }
    if !readiness[op.slot].isReady {
      var waiting = dependencies(of: op).filter { !operations[$0.slot].isFinished }.map { operations[$0.slot].name }
      if readiness[op.slot].gateClosed, let g = gateOfOperation[op] { waiting.append("gate " + gates[Int(g)].name) }
      if readiness[op.slot].countBelowZero {
        waiting.append("corelibs' unfinished count, which removeDependency took to −1: cancel it again")
      }
      return .startNotReady(operation: r.name, waitingOn: waiting, platform: platform)
    }
    return nil
  }

  /// A `start()` call on `op` that waits for the main thread, if any.
  func pendingStartCall(on op: OpID) -> OpID? {
    callTargetsByCall.first { call, targets in
      targets == [op] && operations[call.slot].mainThreadWork == .start && operations[call.slot].phase != .executing
        && !operations[call.slot].isFinished
    }?.key
  }

  /// The main thread got to a call (it has just started): a wait begins, a `start()` starts
  /// its operation. Called from ``start(_:reason:holdsSlot:)``.
  mutating func beginMainThreadCall(_ call: OpID) {
    let generation = operations[call.slot].generation
    let targets = callTargets(of: call)
    mainThreadWait = call
    switch operations[call.slot].mainThreadWork {
    case .waitForOperations?:
      if let q = addCalls[call] {
        // addOperations(_:waitUntilFinished: true): the main thread has got to the call, which adds them now.
        let fresh = targets.filter { operations[$0.slot].phase == .created && operations[$0.slot].queue == nil }
        for op in fresh { file(op, on: q, reason: .addedByMainThreadCall(call)) }
        if !fresh.isEmpty { pick(on: q, trigger: .enqueued) }
      }
      record(.waitStarted, op: call, queue: .main, reason: .command)
      if targets.allSatisfy({ operations[$0.slot].isFinished }) {
        schedule(.finishNow(call, .succeeded, .waitReturned, generation: generation), at: now)
      }
    case .start?:
      guard let op = targets.first else { return }
      let r = operations[op.slot]
      // Commands given while the call waited for the main thread may have changed the operation.
      if r.phase != .created || r.queue != nil || !readiness[op.slot].isReady {
        schedule(.finishNow(call, .succeeded, .startNoLongerPossible(op), generation: generation), at: now)
        return
      }
      start(op, reason: .startedByHand(call), holdsSlot: false)
      if operations[op.slot].isFinished { return }
      if case .async = operations[op.slot].spec.kind, !operations[op.slot].isCancelled || operations[op.slot].jammed {
        schedule(.finishNow(call, .succeeded, .asyncStartReturned, generation: generation), at: now)
      }
    default:
      break
    }
  }

  /// After `op` finished: a call on the main thread that waited for it returns when all it
  /// waited for has finished. Called from ``finish(_:outcome:reason:)``.
  mutating func releaseMainThreadCall(after op: OpID) {
    guard let call = mainThreadWait, call != op, let targets = callTargetsByCall[call], targets.contains(op),
      !operations[call.slot].isFinished, targets.allSatisfy({ operations[$0.slot].isFinished })
    else { return }
    schedule(.finishNow(call, .succeeded, .waitReturned, generation: operations[call.slot].generation), at: now)
  }

  // MARK: - addExecutionBlock

  /// `blockOperation.addExecutionBlock { work(ticks: duration) }` before it starts (rule 38).
  /// A plain operation that just works is a `BlockOperation { work }`: it becomes one of
  /// two blocks.
  /// - Throws: for an operation that is not a BlockOperation, or has started or finished
  ///   (the real call raises on Darwin and crashes on Linux).
  public mutating func addExecutionBlock(_ op: OpID, duration: Tick) throws(SimulationError) {
    defer { checkInvariants() }
    let r = operations[op.slot]
    if duration < 0 || duration > OperationSpec.maxDuration { throw .invalidDuration(duration) }
    let blocks: [Tick]
    switch r.spec.kind {
    case .blocks(let existing): blocks = existing
    case .plain
    where r.spec.cancellation == .never && !r.spec.bailsIfDependencyCancelled
      && !r.spec.bailsUnlessDependenciesSucceeded && r.spec.failsAt == nil && r.mainThreadWork == nil && !r.isBarrier:
      blocks = [r.spec.duration]
    default: throw .notABlockOperation(r.name)
    }
    if r.phase == .executing || r.isFinished { throw .blockAfterStart(operation: r.name, phase: r.phase, platform: platform) }
    let total = blocks.reduce(0, +) + duration
    if total > OperationSpec.maxDuration {
      throw .invalidSpec(.blocksTooLong)
    }
    operations[op.slot].spec.kind = .blocks(blocks + [duration])
    record(.executionBlockAdded(duration), op: op, queue: r.queue, reason: .command)
  }
}

/// A condition operations wait on besides their dependencies: a custom `isReady` that
/// reads `super.isReady && (gate.isOpen || isCancelled)`, told to the queue by KVO when the
/// gate opens (the advanced pattern of operation conditions: "the network is reachable").
public struct Gate: Hashable, Sendable {
  /// The gate's name.
  public let name: String
  /// Whether it has opened (gates open once).
  public internal(set) var isOpen = false
  /// The operations whose `isReady` waits for it, in the order they were gated.
  public internal(set) var operations: [OpID] = []
}

extension World {
  /// Makes `op`'s `isReady` also wait for the gate called `name` (made, closed, on first
  /// use), as an `isReady` override in its class would. Only before the operation is
  /// added anywhere: the class is fixed when the operation is made.
  /// - Throws: ``SimulationError/gateAfterDefinition(_:)`` for an operation that is in a
  ///   queue, started or finished; ``SimulationError/invalidName(_:)`` for a bad name.
  public mutating func gate(_ op: OpID, named name: String) throws(SimulationError) {
    defer { checkInvariants() }
    guard Self.isValidName(name) else { throw .invalidName(name) }
    let r = operations[op.slot]
    guard r.phase == .created, r.queue == nil, r.mainThreadWork == nil, !r.isBarrier, gateOfOperation[op] == nil,
      pendingStartCall(on: op) == nil
    else { throw .gateAfterDefinition(r.name) }
    let index: Int
    if let existing = gates.firstIndex(where: { $0.name == name }) {
      index = existing
    } else {
      index = gates.count
      gates.append(Gate(name: name))
    }
    gates[index].operations.append(op)
    gateOfOperation[op] = Int32(index)
    if !gates[index].isOpen { readiness[op.slot].gateClosed = true }
    record(.gated(Int32(index)), op: op, reason: .command)
  }

  /// Opens the gate: each operation waiting for it posts `willChangeValue`/`didChangeValue`
  /// for `isReady`, so its queue reads the new value and, ready now, picks.
  /// - Throws: ``SimulationError/unknownGate(_:)``.
  public mutating func openGate(named name: String) throws(SimulationError) {
    defer { checkInvariants() }
    guard let g = gates.firstIndex(where: { $0.name == name }) else { throw .unknownGate(name) }
    record(.gateOpened(Int32(g)), reason: gates[g].isOpen ? .alreadyFinished : .command)
    guard !gates[g].isOpen else { return }
    gates[g].isOpen = true
    for op in gates[g].operations {
      readiness[op.slot].gateClosed = false
      guard readiness[op.slot].phase == .pending, readiness[op.slot].isReady, let q = operations[op.slot].queue else { continue }
      // The gate's own KVO (an asynchronous operation's ready posts its pair itself).
      if case .async = operations[op.slot].spec.kind {
      } else {
        record(.kvoWillChange(.isReady), op: op, queue: q, reason: .gateOpened(Int32(g)))
        record(.kvoDidChange(.isReady), op: op, queue: q, reason: .gateOpened(Int32(g)))
      }
      becomeReadyIfPossible(op, reason: .gateOpened(Int32(g)))
    }
    settle()
  }
}

extension World {
  /// The gate `op`'s `isReady` waits for, if any (an index into ``gates``).
  public func gate(of op: OpID) -> Int32? { gateOfOperation[op] }
}
