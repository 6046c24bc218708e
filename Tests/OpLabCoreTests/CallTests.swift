import Testing

@testable import OpLabCore

/// Whole-trace scenarios for the calls a learner makes on operations directly (#20):
/// addOperations(_:waitUntilFinished:), waitUntilFinished(), start() by hand,
/// addExecutionBlock(_:) and a main() that needs its dependencies to have succeeded.
@Suite struct CallTests {
  // MARK: addOperations

  @Test("addOperations files every operation, then picks once: on a serial queue the later high-priority one starts first (rule 35)")
  func batchedAddPicksOnce() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q", maxConcurrent: 1)
      let a = try w.createOperation(spec("a"))
      let b = try w.createOperation(spec("b"))
      let c = try w.createOperation(spec("c", priority: .high))
      let mark = w.trace.count
      try w.enqueue(all: [a, b, c], on: q)
      w.runUntilIdle()
      #expect(
        w.lines(from: mark) == [
          "0 a enqueued", "0 a ready", "0 b enqueued", "0 b ready", "0 c enqueued", "0 c ready", "0 c started",
          "1 c finished", "1 a started",
          "2 a finished", "2 b started",
          "3 b finished",
        ], "\(platform)")
      #expect(w.reasonText(w.firstIndex("started", "c")!) == "c started on q: a slot was free when it was enqueued; high beats normal a")
    }
  }

  @Test("One addOperation at a time starts the first at once: the contrast to a batch")
  func singleAddsStartTheFirst() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("a"), to: q)
    try w.addOperation(spec("b"), to: q)
    try w.addOperation(spec("c", priority: .high), to: q)
    w.runUntilIdle()
    #expect(w.lines(from: mark, only: ["started"]) == ["0 a started", "1 c started", "2 b started"])
  }

  @Test("A batch with an operation that is not new, or one listed twice, adds nothing (rule 39)")
  func batchedAddRefusesAll() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q")
    let a = try w.createOperation(spec("a"))
    let b = try w.addOperation(spec("b", 3), to: q)
    let mark = w.trace.count
    #expect(throws: SimulationError.cannotEnqueue(operation: "b", phase: .executing, platform: .linux)) { try w.enqueue(all: [a, b], on: q) }
    #expect(throws: SimulationError.listedTwice("a")) { try w.enqueue(all: [a, a], on: q) }
    #expect(w.trace.count == mark)
    #expect(w.operation(a).phase == .created)
  }

  @Test("addOperations(waitUntilFinished: true) from the lab's thread waits for each operation in turn")
  func batchedAddAndWait() throws {
    var sim = Simulation()
    let q = try #require(
      { if case .queue(let q) = try sim.perform(.createQueue(name: "q", maxConcurrent: 2, qualityOfService: nil)) { q } else { nil } }())
    var ids: [OpID] = []
    for (name, d) in [("a", 3), ("b", 1)] {
      if case .operation(let id) = try sim.perform(.createOperation(spec(name, d), dependencies: [], queue: nil)) { ids.append(id) }
    }
    let mark = sim.world.trace.count
    let result = try sim.perform(.enqueueAll(ids, on: q, wait: World.Waiter(fromMain: false)))
    #expect(result == .verdict(.reached))
    #expect(
      sim.world.lines(from: mark) == [
        "0 a enqueued", "0 a ready", "0 b enqueued", "0 b ready", "0 a started", "0 b started",
        "0 a wait",
        "1 b finished",
        "3 a finished", "3 a waited",
        "3 b wait", "3 b waited",
      ])
  }

  // MARK: waitUntilFinished

  @Test("wait OP from the lab's thread runs the clock until it finishes; on an operation in no queue it would block forever")
  func waitForOperation() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.addOperation(spec("a", 3), to: q)
    let b = try w.addOperation(spec("b", 2), to: q)
    let mark = w.trace.count
    #expect(w.waitUntilFinished([b]) == .reached)
    #expect(w.lines(from: mark) == ["0 b wait", "3 a finished", "3 b started", "5 b finished", "5 b waited"])
    let loose = try w.createOperation(spec("loose"))
    let verdict = w.waitUntilFinished([loose])
    guard case .stalled(let d) = verdict else { Issue.record("\(verdict)"); return }
    #expect(d.stuck.first == StuckOperation(op: loose, cause: .notInQueue))
    #expect(w.lines(from: mark + 5) == ["5 loose created", "5 loose wait", "5 loose waitStalled"])
    #expect(w.reasonText(w.trace.count - 1) == "loose waitUntilFinished() would block forever: nothing can make progress")
  }

  @Test("wait OP from main blocks the main thread until it finishes; a tap waits meanwhile")
  func waitFromMainReturns() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let a = try w.addOperation(spec("a", 2), to: q)
    try w.tap(at: 1)
    let mark = w.trace.count
    #expect(w.waitOnMainThread(for: [a]) == .reached)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 main.wait1 created", "0 main.wait1 enqueued", "0 main.wait1 ready", "0 main.wait1 started", "0 main.wait1 wait",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready",
        "2 a finished", "2 main.wait1 finished", "2 main.wait1 waited", "2 main.tap1 started",
        "3 main.tap1 finished",
      ])
    #expect(w.reasonText(w.firstIndex("wait", "main.wait1")!) == "main.wait1 waitUntilFinished() on a began")
  }

  @Test("wait OP from main on an operation that needs the main thread deadlocks, and the diagnosis says so")
  func waitFromMainDeadlocks() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let x = try w.addOperation(spec("x", 2), to: q)
    let b = try w.addOperation(spec("b"), to: .main, dependencies: [x])
    let verdict = w.waitOnMainThread(for: [b])
    guard case .stalled(let d) = verdict else { Issue.record("\(verdict)"); return }
    let wait = try #require(w.operationID(named: "main.wait1"))
    #expect(
      d.stuck == [
        StuckOperation(op: wait, cause: .mainThreadWaitingFor(b)),
        StuckOperation(op: b, cause: .slotsHeld(.main, by: [wait])),
      ])
    #expect(w.now == 2 && w.operation(b).phase == .ready)
  }

  // MARK: start() by hand

  @Test("start OP runs a synchronous operation on the main thread, blocking it: a tap waits until it returns")
  func startBlocksMain() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let a = try w.createOperation(spec("a", 3))
      try w.tap(at: 1)
      let mark = w.trace.count
      let call = try #require(try w.callStart(a))
      w.runUntilIdle()
      #expect(
        w.lines(from: mark) == [
          "0 main.start1 created", "0 main.start1 enqueued", "0 main.start1 ready", "0 main.start1 started", "0 a started",
          "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready",
          "3 a finished", "3 main.start1 finished", "3 main.tap1 started",
          "4 main.tap1 finished",
        ], "\(platform)")
      #expect(w.name(call) == "main.start1")
      #expect(
        w.reasonText(w.firstIndex("started", "a")!)
          == "a started: start() called by hand on the main thread (main.start1): main() runs there, blocking it until it returns")
    }
  }

  @Test("start OP on an asynchronous operation returns at once: the main thread is free while its work goes on")
  func startAsyncReturns() throws {
    var w = World()
    let a = try w.createOperation(spec("a", 3, kind: .async(forgetsFinish: false)))
    let mark = w.trace.count
    try w.callStart(a)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 main.start1 created", "0 main.start1 enqueued", "0 main.start1 ready", "0 main.start1 started",
        "0 a will:isExecuting", "0 a started", "0 a did:isExecuting", "0 main.start1 finished",
        "3 a will:isFinished", "3 a will:isExecuting", "3 a finished", "3 a did:isExecuting", "3 a did:isFinished",
      ])
  }

  @Test("start on a cancelled operation: Linux finishes it there, releasing its dependents; on Darwin the cancel finished it already")
  func startCancelled() throws {
    var linux = World(platform: .linux)
    let q = try linux.createQueue(name: "q")
    let a = try linux.createOperation(spec("a", 5))
    try linux.addOperation(spec("d"), to: q, dependencies: [a])
    linux.cancel(a)
    let mark = linux.trace.count
    try linux.callStart(a)
    #expect(
      linux.lines(from: mark) == [
        "0 main.start1 created", "0 main.start1 enqueued", "0 main.start1 ready", "0 main.start1 started",
        "0 a skipped", "0 a cancelled", "0 d ready", "0 d started", "0 main.start1 finished",
      ])
    var apple = World()
    let b = try apple.createOperation(spec("b", 5))
    apple.cancel(b)
    let appleMark = apple.trace.count
    #expect(try apple.callStart(b) == nil)
    #expect(apple.lines(from: appleMark) == ["0 b startCalled"])
    #expect(apple.reasonText(appleMark) == "b start() called by hand: no effect, already finished")
  }

  @Test("start on an operation in a queue, executing or not ready is the real exception: refused, nothing changes (rule 3)")
  func startRefused() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q", maxConcurrent: 0)
      let queued = try w.addOperation(spec("queued"), to: q)
      let dep = try w.createOperation(spec("dep"))
      let waiting = try w.createOperation(spec("waiting"), dependencies: [dep])
      let running = try w.createOperation(spec("running", 5))
      try w.callStart(running)
      let mark = w.trace.count
      #expect(throws: SimulationError.startInQueue(operation: "queued", queue: "q", platform: platform)) { try w.callStart(queued) }
      #expect(throws: SimulationError.startNotReady(operation: "waiting", waitingOn: ["dep"], platform: platform)) { try w.callStart(waiting) }
      #expect(throws: SimulationError.startWhileExecuting(operation: "running", platform: platform)) { try w.callStart(running) }
      #expect(w.trace.count == mark)
    }
  }

  @Test("A start() call that waits for a busy main thread finds the operation added to a queue meanwhile: it starts nothing")
  func startNoLongerPossible() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 0)
    try w.addOperation(spec("busy", 2), to: .main)
    let a = try w.createOperation(spec("a"))
    try w.callStart(a)
    #expect(throws: SimulationError.cannotEnqueue(operation: "a", phase: .executing, platform: .apple)) { try w.enqueue(all: [a], on: q) }
    #expect(throws: SimulationError.startAlreadyCalled("a")) { try w.callStart(a) }
    try w.enqueue(a, on: q)
    let mark = w.trace.count
    w.runUntilIdle()
    #expect(w.lines(from: mark) == ["2 busy finished", "2 main.start1 started", "2 main.start1 finished"])
    #expect(
      w.reasonText(w.trace.count - 1)
        == "main.start1 finished (succeeded): by the time the main thread got to it, a could not be started any more (the real call raises there); nothing started"
    )
  }

  // MARK: addExecutionBlock

  @Test("blocks OP +D adds an execution block before the start; after it, the real exception (rule 38)")
  func addExecutionBlock() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q")
      let b = try w.createOperation(spec("b", kind: .blocks([2])))
      let plain = try w.createOperation(spec("plain", 1))
      let checks = try w.createOperation(spec("checks", 1, check: .every(1)))
      let mark = w.trace.count
      try w.addExecutionBlock(b, duration: 3)
      try w.addExecutionBlock(plain, duration: 2)
      #expect(throws: SimulationError.notABlockOperation("checks")) { try w.addExecutionBlock(checks, duration: 1) }
      try w.enqueue(b, on: q)
      #expect(throws: SimulationError.blockAfterStart(operation: "b", phase: .executing, platform: platform)) {
        try w.addExecutionBlock(b, duration: 1)
      }
      w.runUntilIdle()
      let end = platform == .apple ? 3 : 5
      #expect(
        w.lines(from: mark, only: ["addBlock", "block1-", "block2-", "finished"]) == [
          "0 b addBlock=3", "0 plain addBlock=2",
          "2 b block1-", "\(end) b block2-", "\(end) b finished",
        ], "\(platform)")
      #expect(w.operation(plain).spec.kind == .blocks([1, 2]))
      #expect(w.reasonText(mark) == "b addExecutionBlock: a block of 3 ticks (2 blocks now)")
    }
  }

  // MARK: only-if-deps-succeeded

  @Test("only-if-deps-succeeded: a filter returns at once when its download failed, but runs after a success")
  func onlyIfDependenciesSucceeded() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let bad = try w.addOperation(spec("bad", 2, failsAt: 1), to: q)
    let good = try w.addOperation(spec("good", 2), to: q)
    var filter = spec("filter", 3)
    filter.bailsUnlessDependenciesSucceeded = true
    try w.addOperation(filter, to: q, dependencies: [bad])
    var other = spec("other", 3)
    other.bailsUnlessDependenciesSucceeded = true
    try w.addOperation(other, to: q, dependencies: [good])
    let mark = w.trace.count
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "1 bad failed", "1 filter ready", "1 filter started", "1 filter bailed",
        "2 good finished", "2 other ready", "2 other started",
        "5 other finished",
      ])
    #expect(w.reasonText(w.firstIndex("bailed", "filter")!) == "filter finished (bailed): returned at once: dependency bad did not succeed (failed)")
  }

  @Test("only-if-deps-succeeded reads `dependencies`, which hides the queue's barriers (rule 7): a cancelled barrier does not make it return early")
  func onlyIfDependenciesSucceededIgnoresBarriers() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.addOperation(spec("a", 2), to: q)
    let barrier = try w.addBarrier(to: q)
    var filter = spec("filter")
    filter.bailsUnlessDependenciesSucceeded = true
    let f = try w.addOperation(filter, to: q)
    w.cancel(barrier)
    w.runUntilIdle()
    #expect(w.dependencies(of: f) == [barrier])
    #expect(w.operation(barrier).outcome == .cancelled && w.operation(f).outcome == .succeeded)
  }

  // MARK: gates

  @Test(
    "A gate holds an operation whose dependencies are done until it opens; its KVO on isReady lets the queue pick; a cancel lets it through",
    arguments: Platform.allCases)
  func gate(platform: Platform) throws {
    var w = World(platform: platform)
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    let mark = w.trace.count
    let login = try w.addOperation(spec("login"), to: q)
    let fetch = try w.createOperation(spec("fetch", 2), dependencies: [login])
    try w.gate(fetch, named: "net")
    try w.enqueue(fetch, on: q)
    let other = try w.createOperation(spec("other", 5))
    try w.gate(other, named: "net")
    try w.enqueue(other, on: q)
    try w.step(2)
    #expect(!w.isReady(fetch) && w.operation(fetch).phase == .pending)
    #expect(w.blockage(of: fetch) == .gateClosed(0))
    #expect(throws: SimulationError.startNotReady(operation: "held", waitingOn: ["gate net"], platform: platform)) {
      let held = try w.createOperation(spec("held"))
      try w.gate(held, named: "net")
      try w.callStart(held)
    }
    w.cancel(other)
    try w.openGate(named: "net")
    w.runUntilIdle()
    #expect(
      w.lines(
        from: mark, only: ["gate", "open:net", "will:isReady", "did:isReady", "ready", "started", "skipped", "cancel", "cancelled", "finished"]) == [
          "0 login ready", "0 login started",
          "0 fetch gate=net", "0 other gate=net",
          "1 login finished",
          "2 held gate=net",
          "2 other cancel", "2 other ready", "2 other skipped", "2 other cancelled",
          "2 world open:net", "2 fetch will:isReady", "2 fetch did:isReady", "2 fetch ready", "2 fetch started",
          "4 fetch finished",
        ], "\(platform)")
    #expect(
      w.reasonText(w.firstIndex("ready", "fetch")!) == "fetch ready: gate net opened: its isReady override now reads true, and KVO told the queue")
    #expect(throws: SimulationError.gateAfterDefinition("login")) { try w.gate(login, named: "net") }
    #expect(throws: SimulationError.unknownGate("nope")) { try w.openGate(named: "nope") }
  }
}

/// A call made from the main thread — `start()`, `waitUntilFinished()`,
/// `addOperations(_:waitUntilFinished: true)` — is itself main-thread work: it arrives when it
/// is called and runs when the main thread gets to it, after the work already waiting there
/// (checked on the real queue in OpLabDifferentialTests, #31).
@Suite struct MainThreadCallOrderTests {
  @Test("start() called from main while the main thread is busy runs after the main-queue operation dispatched before it")
  func startWaitsItsTurn() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let s = try w.createOperation(spec("s", 3))
      let s2 = try w.createOperation(spec("s2", 2))
      try w.callStart(s)
      try w.run(until: 1)
      try w.addOperation(spec("m", 1), to: .main)
      try w.run(until: 2)
      try w.callStart(s2)
      #expect(w.runUntilIdle() == .idle)
      #expect(
        w.lines(only: ["started", "finished"]) == [
          "0 main.start1 started", "0 s started",
          "3 s finished", "3 main.start1 finished", "3 m started",
          "4 m finished", "4 main.start2 started", "4 s2 started",
          "6 s2 finished", "6 main.start2 finished",
        ], "\(platform)")
      #expect(
        w.reasonText(w.firstIndex("started", "m")!)
          == "m started on main: the main thread was freed by main.start1; it became runnable on the main thread before main.start2, whatever their priorities"
      )
    }
  }

  @Test(
    "waitUntilFinished() called from a busy main thread begins after the main-queue operation dispatched before it; one dispatched after waits for it"
  )
  func waitWaitsItsTurn() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q")
    let s = try w.createOperation(spec("s", 3))
    let wOp = try w.addOperation(spec("w", 5), to: q)
    try w.callStart(s)
    try w.run(until: 1)
    try w.addOperation(spec("m", 1), to: .main)
    try w.run(until: 2)
    let mark = w.trace.count
    #expect(w.waitOnMainThread(for: [wOp], cap: 2) == .capped)
    try w.addOperation(spec("m2", 1), to: .main)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark, only: ["started", "finished", "wait", "waited"]) == [
        "3 s finished", "3 main.start1 finished", "3 m started",
        "4 m finished", "4 main.wait1 started", "4 main.wait1 wait",
        "5 w finished", "5 main.wait1 finished", "5 main.wait1 waited", "5 m2 started",
        "6 m2 finished",
      ])
  }

  @Test("addOperations(_:waitUntilFinished: true) from a busy main thread adds nothing until the main thread gets to the call")
  func addWaitsItsTurn() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q")
    let s = try w.createOperation(spec("s", 3))
    let a = try w.createOperation(spec("a", 2))
    let b = try w.createOperation(spec("b", 1))
    try w.callStart(s)
    try w.run(until: 1)
    let mark = w.trace.count
    #expect(try w.enqueueOnMainThread(all: [a, b], on: q, cap: 1) == .capped)
    // Called, not yet made: a and b are in no queue, and adding one elsewhere would add it twice.
    #expect(w.operation(a).queue == nil && w.operation(b).queue == nil)
    #expect(throws: SimulationError.cannotEnqueueWhileAdding(operation: "a", queue: "q")) { try w.enqueue(a, on: q) }
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark, only: ["enqueued", "started", "finished", "wait", "waited"]) == [
        "1 main.wait1 enqueued",
        "3 s finished", "3 main.start1 finished", "3 main.wait1 started",
        "3 a enqueued", "3 b enqueued", "3 a started", "3 b started", "3 main.wait1 wait",
        "4 b finished", "5 a finished", "5 main.wait1 finished", "5 main.wait1 waited",
      ])
    #expect(
      w.reasonText(w.firstIndex("enqueued", "a")!)
        == "a enqueued on q: main.wait1, addOperations(_:waitUntilFinished: true) called on the main thread, added it when the main thread got to the call"
    )
  }
}
