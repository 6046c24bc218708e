/// One thing a learner can do to a world, as data: the unit of the journal that
/// time travel replays.
public enum Action: Hashable, Sendable {
  /// ``World/createQueue(name:maxConcurrent:qualityOfService:)``.
  case createQueue(name: String, maxConcurrent: Int?, qualityOfService: QualityOfService?)
  /// Defines an operation; adds it to `queue` unless that is `nil` (`hold`).
  case createOperation(OperationSpec, dependencies: [OpID], queue: QueueID?)
  /// ``World/enqueue(_:on:)``: `addOperation`.
  case enqueue(OpID, on: QueueID)
  /// ``World/cancel(_:)``.
  case cancel(OpID)
  /// ``World/cancelAll(_:)``: `cancelAllOperations()`.
  case cancelAll(QueueID)
  /// ``World/suspend(_:)``.
  case suspend(QueueID)
  /// ``World/resume(_:)``.
  case resume(QueueID)
  /// ``World/setMaxConcurrent(_:to:)``; `nil` is the default.
  case setMaxConcurrent(QueueID, Int?)
  /// ``World/setPriority(_:to:)``.
  case setPriority(OpID, QueuePriority)
  /// An operation's `qualityOfService`.
  case setOperationQualityOfService(OpID, QualityOfService)
  /// A queue's `qualityOfService`.
  case setQueueQualityOfService(QueueID, QualityOfService)
  /// ``World/addDependency(_:on:)``.
  case addDependency(OpID, on: OpID)
  /// ``World/removeDependency(_:on:)``.
  case removeDependency(OpID, on: OpID)
  /// ``World/addBarrier(to:duration:)``: `addBarrierBlock`.
  case addBarrier(QueueID, duration: Tick)
  /// ``World/setPlatform(_:)``.
  case setPlatform(Platform)
  /// Advance the clock by this many ticks.
  case step(Tick)
  /// Run up to and including this tick.
  case runUntil(Tick)
  /// Run until idle or stalled.
  case runUntilIdle
  /// Run until the operation finishes, or until stalled.
  case runUntilFinished(OpID)
  /// `waitUntilAllOperationsAreFinished()` on one queue, or on every queue.
  case wait(QueueID?)
  /// The same wait, called on the main thread: it blocks the main thread until it returns.
  case waitOnMainThread(QueueID?)
  /// A wait on the main thread that the lab stops watching at a tick if it has not
  /// returned by then: the main thread stays blocked by it afterwards. The journal's form
  /// of a wait from main cut short by Ctrl-C or time travel, so the past keeps it.
  case waitOnMainThreadUntil(QueueID?, Tick)
  /// ``World/setCores(_:)``; `nil` is unlimited.
  case setCores(Int?)
  /// ``World/tap(at:)``.
  case tap(at: Tick)
  /// ``World/setFrames(every:from:until:)``; `every == nil` stops them.
  case frames(every: Tick?, from: Tick?, until: Tick?)
  /// ``World/enqueue(all:on:)``: `addOperations(_:waitUntilFinished:)`, with the wait's
  /// caller when it waits.
  case enqueueAll([OpID], on: QueueID, wait: World.Waiter?)
  /// `waitUntilFinished()` on each operation in turn, from the lab's thread or the main thread.
  case waitForOperations([OpID], World.Waiter)
  /// ``World/callStart(_:)``: `start()` called by hand on the main thread.
  case start(OpID)
  /// ``World/addExecutionBlock(_:duration:)``.
  case addExecutionBlock(OpID, duration: Tick)
  /// ``World/gate(_:named:)``: the operation's `isReady` also waits for the gate.
  case gate(OpID, String)
  /// ``World/openGate(named:)``.
  case openGate(String)
  /// ``World/createVariable(name:initial:)``: `var NAME = N`.
  case createVariable(name: String, initial: Int)
  /// ``World/createLock(name:)``: `lock NAME`, an NSLock.
  case createLock(name: String)
  /// ``World/setCompletionSteps(_:_:)``: `completion does …`, a completion block written as steps.
  case setCompletionSteps(OpID, [Step])
  /// ``World/setStepOrder(_:)``: `order C1,C2,…`, the choices at the open points from now on.
  case setStepOrder([Int])
  /// ``World/chooseNext(_:)``: `choose K`, the choice at the next open point.
  case chooseNext(Int)
  /// ``World/createDispatchQueue(name:concurrent:qualityOfService:)``: a `DispatchQueue`.
  case createDispatchQueue(name: String, concurrent: Bool, qualityOfService: QualityOfService?)
  /// ``World/setUnderlyingQueue(_:to:)``: `underlyingQueue`, a dispatch queue's index or `nil`.
  case setUnderlyingQueue(QueueID, Int32?)

  /// Whether this is a wait (from anywhere). A wait records its start, so one cut short by
  /// an interrupt or by time travel is replaced in the journal from the state before it
  /// (see ``Simulation``): a wait from the lab's thread by a plain run to the tick, a wait
  /// on the main thread by the same wait stopped at the tick (``cut(at:)``).
  public var isWait: Bool {
    switch self {
    case .wait, .waitOnMainThread, .waitOnMainThreadUntil, .waitForOperations: true
    case .enqueueAll(_, _, let wait): wait != nil
    default: false
    }
  }

  /// What the journal keeps of this clock action when it is cut short at `tick`.
  public func cut(at tick: Tick) -> Action {
    switch self {
    case .waitOnMainThread(let q), .waitOnMainThreadUntil(let q, _): .waitOnMainThreadUntil(q, tick)
    case .waitForOperations(let ops, let wait) where wait.fromMain: .waitForOperations(ops, World.Waiter(fromMain: true, until: tick))
    // The operations were added: that stays, and the wait is stopped at the tick.
    case .enqueueAll(let ops, let q, let wait?): .enqueueAll(ops, on: q, wait: World.Waiter(fromMain: wait.fromMain, until: tick))
    default: .runUntil(tick)
    }
  }

  /// Whether the action moves the clock.
  public var movesClock: Bool {
    switch self {
    case .step, .runUntil, .runUntilIdle, .runUntilFinished, .wait, .waitOnMainThread, .waitOnMainThreadUntil, .waitForOperations: true
    case .enqueueAll(_, _, let wait): wait != nil
    default: false
    }
  }
}

/// What performing an ``Action`` produced.
public enum ActionResult: Hashable, Sendable {
  /// Nothing to report.
  case done
  /// A queue was created.
  case queue(QueueID)
  /// An operation (or a barrier) was created.
  case operation(OpID)
  /// `addDependency` found the dependency already present and ignored it.
  case duplicateDependency
  /// How a clock run ended.
  case verdict(RunVerdict)
}

extension World {
  /// Performs an action.
  /// - Parameter cap: for clock actions, the tick not to go past.
  /// - Returns: the result, and whether the action completed (`false` only when the cap stopped it).
  /// - Throws: the action's ``SimulationError``; the world is unchanged then.
  /// - Parameter interrupt: asked between ticks during clock actions; `true` stops the run
  ///   there, and the action reports `completed == false` with verdict `.interrupted`.
  public mutating func perform(
    _ action: Action, cap: Tick? = nil, interrupt: Interrupt? = nil
  ) throws(SimulationError) -> (ActionResult, completed: Bool) {
    switch action {
    case .createQueue(let name, let max, let qos):
      return (.queue(try createQueue(name: name, maxConcurrent: max, qualityOfService: qos)), true)
    case .createOperation(let spec, let deps, let queue):
      if let dep = deps.first(where: { $0.slot >= operations.count }) { throw .unknownOperation("\(dep)") }
      if let queue, queue.slot >= queues.count { throw .unknownQueue("\(queue)") }
      let id = try createOperation(spec, dependencies: deps)
      if let queue { try enqueue(id, on: queue) }
      return (.operation(id), true)
    case .enqueue(let op, let q): try enqueue(op, on: q)
    case .cancel(let op): cancel(op)
    case .cancelAll(let q): cancelAll(q)
    case .suspend(let q): try suspend(q)
    case .resume(let q): try resume(q)
    case .setMaxConcurrent(let q, let max): try setMaxConcurrent(q, to: max)
    case .setPriority(let op, let p): setPriority(op, to: p)
    case .setOperationQualityOfService(let op, let qos): setQualityOfService(op, to: qos)
    case .setQueueQualityOfService(let q, let qos): setQualityOfService(q, to: qos)
    case .addDependency(let op, let dep):
      return (try addDependency(op, on: dep) ? .done : .duplicateDependency, true)
    case .removeDependency(let op, let dep): try removeDependency(op, on: dep)
    case .addBarrier(let q, let duration): return (.operation(try addBarrier(to: q, duration: duration)), true)
    case .setPlatform(let p): setPlatform(p)
    case .step(let n):
      guard n >= 0 else { throw .invalidTick(.negativeStep(n)) }
      let (target, overflow) = now.addingReportingOverflow(n)
      guard !overflow, target <= Swift.max(Self.maxTick, now) else {
        throw .invalidTick(.stepPastLastTick(n))
      }
      return try runClock(to: target, cap: cap, interrupt: interrupt)
    case .runUntil(let t):
      guard t >= now else { throw .invalidTick(.inThePast(t, now: now)) }
      return try runClock(to: t, cap: cap, interrupt: interrupt)
    case .runUntilIdle:
      let v = runUntilIdle(cap: cap, interrupt: interrupt)
      return (.verdict(v), v != .capped && v != .interrupted)
    case .runUntilFinished(let op):
      let v = run(untilFinished: op, cap: cap, interrupt: interrupt)
      return (.verdict(v), v != .capped && v != .interrupted)
    case .wait(let q):
      let v = waitUntilAllOperationsAreFinished(q, cap: cap, interrupt: interrupt)
      return (.verdict(v), v != .capped && v != .interrupted)
    case .waitOnMainThread(let q):
      if let q, q.slot >= queues.count { throw .unknownQueue("\(q)") }
      let v = waitOnMainThread(q, cap: cap, interrupt: interrupt)
      return (.verdict(v), v != .capped && v != .interrupted)
    case .waitOnMainThreadUntil(let q, let t):
      if let q, q.slot >= queues.count { throw .unknownQueue("\(q)") }
      try checkRunTarget(t)
      let v = waitOnMainThread(q, cap: cap.map { Swift.min($0, t) } ?? t, interrupt: interrupt)
      // Stopped at its own tick, it did what it says; stopped earlier by the cap, it was cut.
      if v == .capped, now == t { return (.verdict(.reached), true) }
      return (.verdict(v), v != .capped && v != .interrupted)
    case .setCores(let n): try setCores(n)
    case .enqueueAll(let ops, let q, let wait):
      if let op = ops.first(where: { $0.slot >= operations.count }) { throw .unknownOperation("\(op)") }
      if q.slot >= queues.count { throw .unknownQueue("\(q)") }
      if let t = wait?.until { try checkRunTarget(t) }
      if let wait, wait.fromMain {
        // One call on the main thread: it adds the operations, then waits there.
        let limit = wait.until.map { t in cap.map { Swift.min($0, t) } ?? t } ?? cap
        let v = try enqueueOnMainThread(all: ops, on: q, cap: limit, interrupt: interrupt)
        if v == .capped, let t = wait.until, now == t { return (.verdict(.reached), true) }
        return (.verdict(v), v != .capped && v != .interrupted)
      }
      try enqueue(all: ops, on: q)
      if let wait { return performWait(ops, wait, cap: cap, interrupt: interrupt) }
    case .waitForOperations(let ops, let wait):
      if let op = ops.first(where: { $0.slot >= operations.count }) { throw .unknownOperation("\(op)") }
      if let t = wait.until { try checkRunTarget(t) }
      return performWait(ops, wait, cap: cap, interrupt: interrupt)
    case .start(let op):
      if op.slot >= operations.count { throw .unknownOperation("\(op)") }
      if let call = try callStart(op) { return (.operation(call), true) }
    case .addExecutionBlock(let op, let duration):
      if op.slot >= operations.count { throw .unknownOperation("\(op)") }
      try addExecutionBlock(op, duration: duration)
    case .gate(let op, let name):
      if op.slot >= operations.count { throw .unknownOperation("\(op)") }
      try gate(op, named: name)
    case .openGate(let name): try openGate(named: name)
    case .tap(let t): try tap(at: t)
    case .frames(let every, let from, let until): try setFrames(every: every, from: from, until: until)
    case .createVariable(let name, let initial): try createVariable(name: name, initial: initial)
    case .createLock(let name): try createLock(name: name)
    case .setCompletionSteps(let op, let steps): try setCompletionSteps(op, steps)
    case .setStepOrder(let script): setStepOrder(script)
    case .chooseNext(let k): chooseNext(k)
    case .createDispatchQueue(let name, let concurrent, let qos):
      try createDispatchQueue(name: name, concurrent: concurrent, qualityOfService: qos)
    case .setUnderlyingQueue(let q, let d): try setUnderlyingQueue(q, to: d)
    }
    return (.done, true)
  }

  /// `waitUntilFinished()` on `ops` from the waiter's thread, stopped at its `until` tick if given.
  private mutating func performWait(
    _ ops: [OpID], _ wait: Waiter, cap: Tick?, interrupt: Interrupt?
  ) -> (ActionResult, completed: Bool) {
    let limit = wait.until.map { t in cap.map { Swift.min($0, t) } ?? t } ?? cap
    let v =
      wait.fromMain
      ? waitOnMainThread(for: ops, cap: limit, interrupt: interrupt)
      : waitUntilFinished(ops, cap: limit, interrupt: interrupt)
    // Stopped at its own tick, it did what it says; stopped earlier by the cap, it was cut.
    if v == .capped, let t = wait.until, now == t { return (.verdict(.reached), true) }
    return (.verdict(v), v != .capped && v != .interrupted)
  }

  private mutating func runClock(
    to target: Tick, cap: Tick?, interrupt: Interrupt?
  ) throws(SimulationError) -> (ActionResult, completed: Bool) {
    if let cap, target > cap {
      // The clock passed the cap when this action first ran, so it can again.
      advance(to: max(cap, now))
      return (.done, false)
    }
    try checkRunTarget(target)
    if !advance(to: target, interrupt: interrupt) { return (.verdict(.interrupted), false) }
    return (.done, true)
  }
}
