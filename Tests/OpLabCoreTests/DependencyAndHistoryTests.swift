import Testing

@testable import OpLabCore

/// Dependencies added before and after enqueueing, and the histories `why` reads.
@Suite struct DependencyAndHistoryTests {
  @Test("A dependency added to a ready op makes it pending again; one on a finished op does not block (rule 5)")
  func dependencyAfterEnqueue() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let done = try w.addOperation(spec("done", 1), to: q)
    try w.step(1)
    let mark = w.trace.count
    try w.addOperation(spec("busy", 2), to: q)
    let waiter = try w.addOperation(spec("waiter", 1), to: q)
    let late = try w.createOperation(spec("late", 1))
    try w.addDependency(waiter, on: late)
    #expect(try w.addDependency(waiter, on: late) == false)  // a duplicate is ignored
    try w.addDependency(waiter, on: done)
    try w.enqueue(late, on: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "1 busy created", "1 busy enqueued", "1 busy ready", "1 busy started",
        "1 waiter created", "1 waiter enqueued", "1 waiter ready",
        "1 late created", "1 waiter dep+late", "1 waiter unready", "1 waiter dep+done",
        "1 late enqueued", "1 late ready",
        "3 busy finished", "3 late started",
        "4 late finished", "4 waiter ready", "4 waiter started",
        "5 waiter finished",
      ])
    #expect(w.dependencies(of: waiter) == [late, done])
  }

  @Test("Priority changes on a started op are recorded as having no effect")
  func priorityOnStartedOp() throws {
    var w = World()
    let a = try w.addOperation(spec("a", 2), to: .main)
    w.setPriority(a, to: .veryHigh)
    #expect(w.reasonText(w.trace.count - 1) == "a queuePriority = veryHigh: no effect on an operation that has started")
  }

  @Test("A history records readiness, who went ahead, cancellation and the finish, each with its reason")
  func historyOfAnOperation() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let first = try w.addOperation(spec("first", 2), to: q)
    let target = try w.addOperation(spec("target", 4, check: .every(2), completion: 1), to: q)
    let vip = try w.addOperation(spec("vip", 1, priority: .veryHigh), to: q)
    try w.step(4)
    w.cancel(target)
    w.runUntilIdle()
    let h = w.history(of: target)
    #expect(h.overtakenBy.map { w.trace[$0].op } == [vip])
    #expect(h.started.map { w.trace[$0].tick } == 3)
    #expect(h.cancelRequests.map { w.trace[$0].tick } == [4])
    #expect(h.cancelObserved.map { w.trace[$0].tick } == 5)
    #expect(h.finished.map { w.describe(w.trace[$0]) } == "target finished (cancelled): returned early after seeing isCancelled")
    #expect(h.completionFinished.map { w.trace[$0].tick } == 6)
    #expect(h.blockage == nil)
    _ = first
  }

  @Test("blockage names what holds an op now: a running dependency, then nothing")
  func blockageOfWaitingOp() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let a = try w.addOperation(spec("a", 3), to: q)
    let b = try w.addOperation(spec("b", 1), to: q, dependencies: [a])
    #expect(w.blockage(of: b) == .waitingOn(a))
    #expect(w.blockage(of: a) == nil)
    w.runUntilIdle()
    #expect(w.blockage(of: b) == nil)
  }

  @Test("Invalid specs and names are refused with a sentence, leaving the world unchanged")
  func invalidInputIsRefused() throws {
    var w = World()
    let before = w.trace
    #expect(throws: SimulationError.invalidSpec(.ticksOutOfRange(.operation, ticks: -1))) { try w.createOperation(spec("a", -1)) }
    #expect(throws: SimulationError.invalidSpec(.failsOutsideWork(at: 5, duration: 2))) {
      try w.createOperation(spec("a", 2, failsAt: 5))
    }
    #expect(throws: SimulationError.invalidName("-x")) { try w.createOperation(spec("-x")) }
    #expect(throws: SimulationError.duplicateName("main")) { try w.createOperation(spec("main")) }
    #expect(throws: SimulationError.invalidMaxConcurrent(-2)) { try w.createQueue(name: "q", maxConcurrent: -2) }
    #expect(throws: SimulationError.invalidTick(.negativeStep(-3))) { try w.step(-3) }
    #expect(throws: SimulationError.invalidSpec(.ticksOutOfRange(.completionBlock, ticks: Int.max))) {
      try w.createOperation(spec("a", 1, completion: Int.max))
    }
    #expect(throws: SimulationError.invalidTick(.stepPastLastTick(Int.max))) {
      try w.step(1)
      try w.step(Int.max)
    }
    // Errors are data; their words are the ones a learner reads.
    #expect(SimulationError.invalidSpec(.ticksOutOfRange(.operation, ticks: -1)).description == "an operation takes 0 or more ticks, not -1")
    #expect(SimulationError.invalidSpec(.failsOutsideWork(at: 5, duration: 2)).description == "fails at 5 is outside the operation's 2 ticks of work")
    #expect(SimulationError.invalidTick(.negativeStep(-3)).description == "step takes 0 or more ticks, not -3")
    #expect(
      SimulationError.invalidSpec(.ticksOutOfRange(.completionBlock, ticks: Int.max)).description
        == "a completion block takes at most 1099511627776 ticks, not 9223372036854775807")
    #expect(
      SimulationError.invalidTick(.stepPastLastTick(Int.max)).description
        == "step 9223372036854775807 would move the clock past the last tick (4611686018427387904)")
    #expect(Array(w.trace.prefix(before.count)) == Array(before))
  }
}

/// Time travel and forks.
@Suite struct SimulationTests {
  @Test("back and rewind restore the past; a fork explores a what-if without touching the original")
  func backAndFork() throws {
    var sim = Simulation()
    let q = QueueID(1)
    try sim.perform(.createQueue(name: "q", maxConcurrent: 1, qualityOfService: nil))
    try sim.perform(.createOperation(spec("a", 3), dependencies: [], queue: q))
    try sim.perform(.createOperation(spec("b", 3), dependencies: [], queue: q))
    try sim.perform(.step(4))
    let atFour = sim.world.trace
    try sim.perform(.runUntilIdle)
    #expect(sim.world.now == 6)
    try sim.back(2)
    #expect(sim.world.now == 4)
    #expect(sim.world.trace == atFour)
    #expect(sim.journal.last == .runUntil(4))

    var whatIf = sim
    try whatIf.perform(.cancel(OpID(1)))
    try whatIf.perform(.runUntilIdle)
    try sim.perform(.runUntilIdle)
    #expect(whatIf.world.operation(OpID(1)).outcome == .succeeded)  // cancel came too late to stop b's work
    #expect(whatIf.world.operation(OpID(1)).isCancelled)
    #expect(!sim.world.operation(OpID(1)).isCancelled)
    #expect(throws: SimulationError.tickNotReached(requested: 99, now: 6)) { try sim.rewind(to: 99) }
  }

  @Test("Past the last tick only work carries the clock: a run cut out there is journalled, replays, and an idle clock stops at the last tick")
  func pastTheLastTick() throws {
    let last = World.maxTick
    var sim = Simulation()
    try sim.perform(.runUntil(last - 1))
    try sim.perform(.createOperation(spec("d", 3), dependencies: [], queue: .main))
    try sim.perform(.runUntilIdle)
    #expect(sim.world.now == last + 2)
    try sim.rewind(to: last + 1)
    #expect(sim.journal.last == .runUntil(last + 1))
    var replay = World()
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.now == last + 1 && replay.trace == sim.world.trace)
    #expect(
      replay.lines() == [
        "0 main queue",
        "\(last - 1) d created", "\(last - 1) d enqueued", "\(last - 1) d ready", "\(last - 1) d started",
      ])

    // Running on past the work: the clock stops where the work ends, not at the target.
    try replay.run(until: last + 10)
    #expect(replay.now == last + 2 && replay.operation(OpID(0)).finishedAt == last + 2)
    // Idle past the last tick, nothing may move the clock further.
    #expect(throws: SimulationError.invalidTick(.pastLastTick(last + 10))) { try replay.run(until: last + 10) }
    var idle = World()
    #expect(throws: SimulationError.invalidTick(.pastLastTick(last + 1))) { try idle.run(until: last + 1) }
    try idle.run(until: last)
    #expect(idle.now == last)
  }

  @Test("Going back into a wait from main keeps the wait: the past shows the main thread blocked, and running on finishes it")
  func backIntoAWaitFromMain() throws {
    var sim = Simulation()
    let net = QueueID(1)
    try sim.perform(.createQueue(name: "net", maxConcurrent: 1, qualityOfService: nil))
    try sim.perform(.createOperation(spec("a", 6), dependencies: [], queue: net))
    try sim.perform(.tap(at: 2))
    try sim.perform(.waitOnMainThread(net))
    #expect(sim.world.now == 6)
    try sim.rewind(to: 3)
    #expect(sim.journal.last == .waitOnMainThreadUntil(net, 3))
    #expect(
      sim.world.lines() == [
        "0 main queue", "0 net queue", "0 a created", "0 a enqueued", "0 a ready", "0 a started", "0 main tap@2",
        "0 main.wait1 created", "0 main.wait1 enqueued", "0 main.wait1 ready", "0 main.wait1 started", "0 main.wait1 wait",
        "2 main.tap1 created", "2 main.tap1 enqueued", "2 main.tap1 ready",
      ])
    #expect(sim.world.mainThreadWait == OpID(1))
    var replay = World()
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.now == 3 && replay.trace == sim.world.trace)
    try sim.perform(.runUntilIdle)
    #expect(
      sim.world.lines(from: 15) == [
        "6 a finished", "6 main.wait1 finished", "6 main.wait1 waited", "6 main.tap1 started", "7 main.tap1 finished",
      ])
  }

  @Test("A refused action is not journalled")
  func refusedActionsAreNotJournalled() throws {
    var sim = Simulation()
    #expect(throws: SimulationError.invalidMaxConcurrent(-3)) { try sim.perform(.setMaxConcurrent(.main, -3)) }
    #expect(sim.journal.isEmpty)
  }
}

/// Interrupting long runs (Ctrl-C in the shell).
@Suite struct InterruptTests {
  @Test("An interrupted run stops between ticks, is journalled as a run to that tick, and replays exactly")
  func interruptStopsBetweenTicks() throws {
    var sim = Simulation()
    let q = QueueID(1)
    try sim.perform(.createQueue(name: "q", maxConcurrent: 2, qualityOfService: nil))
    for i in 0..<5_000 {
      try sim.perform(.createOperation(spec("o\(i)", 1 + i % 3), dependencies: [], queue: q))
    }
    var asked = 0
    let result = try sim.perform(.runUntilIdle) {
      asked += 1
      return asked == 3
    }
    #expect(result == .verdict(.interrupted))
    #expect(asked == 3)
    let stoppedAt = sim.world.now
    #expect(stoppedAt > 0)
    #expect(sim.world.trace.last.map { $0.tick } ?? 0 <= stoppedAt)
    #expect(sim.journal.last == .runUntil(stoppedAt))
    #expect(sim.world.invariantViolations() == [])
    var replay = World()
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.trace == sim.world.trace)
    try sim.perform(.runUntilIdle)
    #expect(sim.world.isIdle)
  }

  @Test("An interrupted wait leaves no half-recorded wait behind")
  func interruptedWait() throws {
    var sim = Simulation()
    for i in 0..<3_000 { try sim.perform(.createOperation(spec("o\(i)", 2), dependencies: i > 0 ? [OpID(i - 1)] : [], queue: .main)) }
    let result = try sim.perform(.wait(nil)) { true }
    #expect(result == .verdict(.interrupted))
    #expect(!sim.world.trace.contains { $0.kind == .waitStarted })
    #expect(sim.journal.last == .runUntil(sim.world.now))
  }
}

/// Room made ahead for a world built in bulk.
@Suite struct CapacityTests {
  @Test("reserveCapacity changes nothing a learner sees: the same trace, names and lookups as a world that grew")
  func reservingChangesNothing() throws {
    func build(reserving: Bool) throws -> World {
      var w = World()
      let q = try w.createQueue(name: "q", maxConcurrent: 2)
      try w.addOperation(spec("early", 3), to: q)
      if reserving { w.reserveCapacity(operations: 300, dependencies: 600) }
      for i in 0..<300 {
        let deps = i == 0 ? [] : [OpID(i), OpID((i * 7) % (i + 1))]
        try w.addOperation(spec("op\(i)", i % 4), to: q, dependencies: deps)
      }
      w.runUntilIdle()
      return w
    }
    let grown = try build(reserving: false), reserved = try build(reserving: true)
    #expect(reserved.trace == grown.trace)
    #expect(reserved.operationNames == grown.operationNames)
    #expect(reserved.now == grown.now && reserved.now > 0)
    // Names filed before the table was grown ahead, and after, are found; a duplicate is refused.
    #expect(reserved.operationID(named: "early") == OpID(0))
    #expect(reserved.operationID(named: "op299") == OpID(300))
    #expect(reserved.operationID(named: "op300") == nil)
    var again = reserved
    #expect(throws: SimulationError.duplicateName("op17")) { try again.createOperation(spec("op17", 1)) }
    #expect(reserved.invariantViolations().isEmpty)
  }
}
