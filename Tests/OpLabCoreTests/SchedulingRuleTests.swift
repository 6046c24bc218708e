import Testing

@testable import OpLabCore

/// One whole-trace scenario per scheduling rule of the spec (section D and E).
@Suite struct SchedulingRuleTests {
  @Test("A serial queue runs equal-priority operations in FIFO order (rule 22)")
  func fifoOnSerialQueue() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("a", 2), to: q)
    try w.addOperation(spec("b", 1), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready",
        "2 a finished", "2 b started",
        "3 b finished",
      ])
    #expect(w.reasonText(w.firstIndex("started", "b")!) == "b started on q: slot freed by a")
  }

  @Test("The first operation on an idle queue starts at once, whatever its priority (rule 21)")
  func firstOnIdleQueueIgnoresPriority() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("low", 2, priority: .veryLow), to: q)
    try w.addOperation(spec("norm", 1), to: q)
    try w.addOperation(spec("high", 1, priority: .veryHigh), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished"]) == [
        "0 low started", "2 low finished", "2 high started", "3 high finished", "3 norm started", "4 norm finished",
      ])
    #expect(w.reasonText(w.firstIndex("started", "low")!) == "low started on q: a slot was free when it was enqueued")
    #expect(
      w.reasonText(w.firstIndex("started", "high")!)
        == "high started on q: slot freed by low; veryHigh beats normal norm")
  }

  @Test("Five priority levels run in level order when added to a suspended queue (rules 19, 21)")
  func priorityLevelsOnSuspendedQueue() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.suspend(q)
    let mark = w.trace.count
    for (name, p) in [("vl", QueuePriority.veryLow), ("l", .low), ("n", .normal), ("h", .high), ("vh", .veryHigh), ("n2", .normal)] {
      try w.addOperation(spec(name, 1, priority: p), to: q)
    }
    try w.resume(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "resumed"]) == [
        "0 q resumed", "0 vh started", "1 h started", "2 n started", "3 n2 started", "4 l started", "5 vl started",
      ])
    #expect(
      w.reasonText(w.firstIndex("started", "n")!) == "n started on q: slot freed by h; the same priority (normal) as n2, but ahead in the line (FIFO)"
    )
  }

  @Test("Changing a waiting operation's priority moves it to the tail of its new level; the same level changes nothing (rule 23)")
  func priorityChangeMovesToTail() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("run", 1), to: q)
    let a = try w.addOperation(spec("a", 1, priority: .high), to: q)
    let b = try w.addOperation(spec("b", 1, priority: .high), to: q)
    try w.addOperation(spec("c", 1), to: q)
    try w.addOperation(spec("d", 1), to: q)
    w.setPriority(a, to: .high)  // the level it has: it keeps its place
    w.setPriority(b, to: .normal)  // behind c and d
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "priority=high", "priority=normal"]) == [
        "0 run started", "0 a priority=high", "0 b priority=normal", "1 a started", "2 c started", "3 d started", "4 b started",
      ])
  }

  @Test("Linux guesses the old level from QoS: on a serial queue a change to that level leaves the op in place (rule 24)")
  func linuxPriorityChangeUsesQoSGuess() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.suspend(q)
    try w.addOperation(spec("b", 1), to: q)
    let a = try w.addOperation(spec("a", 1, qos: .userInteractive), to: q)
    w.setPriority(a, to: .veryHigh)  // corelibs thinks a is already veryHigh: nothing moves
    let mark = w.trace.count
    try w.resume(q)
    w.runUntilIdle()
    #expect(w.lines(from: mark, only: ["started"]) == ["0 b started", "1 a started"])
  }

  @Test("A ready low-priority operation beats a not-ready high one: no priority inheritance (rule 20)")
  func readinessBeatsPriority() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let other = try w.createQueue(name: "other")
    let mark = w.trace.count
    let slow = try w.addOperation(spec("slow", 3), to: other)
    try w.addOperation(spec("first", 1), to: q)
    try w.addOperation(spec("urgent", 1, priority: .veryHigh), to: q, dependencies: [slow])
    try w.addOperation(spec("lazy", 1, priority: .veryLow), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished", "ready"]) == [
        "0 slow ready", "0 slow started", "0 first ready", "0 first started", "0 lazy ready",
        "1 first finished", "1 lazy started",
        "2 lazy finished",
        "3 slow finished", "3 urgent ready", "3 urgent started", "4 urgent finished",
      ])
  }

  @Test("maxConcurrentOperationCount 0 runs nothing; raising it starts waiting operations at once (rules 26, 28)")
  func maxZeroThenRaised() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 0)
    let mark = w.trace.count
    try w.addOperation(spec("a", 2), to: q)
    try w.addOperation(spec("b", 2), to: q)
    try w.addOperation(spec("c", 2), to: q)
    let verdict = w.runUntilIdle()
    guard case .stalled(let d) = verdict else { Issue.record("expected a stall, got \(verdict)"); return }
    #expect(d.stuck.map(\.cause) == Array(repeating: .queueMaxZero(q), count: 3))
    try w.step(1)
    try w.setMaxConcurrent(q, to: 2)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished", "max=2"]) == [
        "1 q max=2", "1 a started", "1 b started", "3 a finished", "3 c started", "3 b finished", "5 c finished",
      ])
  }

  @Test("Lowering the limit never preempts running operations (rule 28)")
  func loweringNeverPreempts() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 3)
    let mark = w.trace.count
    for name in ["a", "b", "c", "d"] { try w.addOperation(spec(name, 2), to: q) }
    try w.setMaxConcurrent(q, to: 1)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished", "max=1"]) == [
        "0 a started", "0 b started", "0 c started", "0 q max=1",
        "2 a finished", "2 b finished", "2 c finished", "2 d started", "4 d finished",
      ])
  }

  @Test("Dependencies work across queues; the dependent's queue picks before the finisher's own (rule 4)")
  func dependenciesAcrossQueues() throws {
    var w = World()
    let downloads = try w.createQueue(name: "downloads", maxConcurrent: 1)
    let filters = try w.createQueue(name: "filters", maxConcurrent: 1)
    let mark = w.trace.count
    let d1 = try w.addOperation(spec("d1", 2), to: downloads)
    let d2 = try w.addOperation(spec("d2", 2), to: downloads)
    try w.addOperation(spec("f1", 1), to: filters, dependencies: [d1])
    try w.addOperation(spec("f2", 1), to: filters, dependencies: [d2])
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 d1 created", "0 d1 enqueued", "0 d1 ready", "0 d1 started",
        "0 d2 created", "0 d2 enqueued", "0 d2 ready",
        "0 f1 created", "0 f1 dep+d1", "0 f1 enqueued",
        "0 f2 created", "0 f2 dep+d2", "0 f2 enqueued",
        "2 d1 finished", "2 f1 ready", "2 f1 started", "2 d2 started",
        "3 f1 finished",
        "4 d2 finished", "4 f2 ready", "4 f2 started",
        "5 f2 finished",
      ])
    #expect(w.reasonText(w.firstIndex("ready", "f1")!) == "f1 ready: dependency d1 finished")
    #expect(w.reasonText(w.firstIndex("started", "f1")!) == "f1 started on filters: became ready with a slot free")
  }

  @Test(
    "Apple: the main queue ignores suspension, a new limit and a new quality of service, and says why; cancelAllOperations() cancels (rules 26, 31, 33, 41)"
  )
  func mainQueueIsFixedOnApple() throws {
    var w = World()
    try w.addOperation(spec("a", 2), to: .main)
    try w.addOperation(spec("b", 1), to: .main)
    let mark = w.trace.count
    try w.suspend(.main)
    try w.setMaxConcurrent(.main, to: 4)
    w.setQualityOfService(.main, to: .background)
    w.cancelAll(.main)
    try w.resume(.main)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 main ignored:suspend", "0 main ignored:max=4", "0 main ignored:qos=background",
        "0 a cancel", "0 b cancel", "0 main ignored:resume",
        "2 a finished", "2 b skipped", "2 b cancelled",
      ])
    #expect(
      w.reasonText(mark)
        == "main isSuspended = true ignored: Darwin's documentation does not say what suspending the main queue does; the lab keeps it running, as corelibs does"
    )
    #expect(
      w.reasonText(mark + 1)
        == "main maxConcurrentOperationCount = 4 ignored: the main queue runs one operation at a time (Darwin's documentation of OperationQueue.main)"
    )
    #expect(
      w.reasonText(mark + 2)
        == "main qualityOfService = .background ignored: the main queue's quality of service is userInteractive and cannot be changed (Darwin's documentation)"
    )
    #expect(w.queue(.main).reportedQualityOfService == .userInteractive)
    #expect(w.queue(.main).effectiveMax == 1 && !w.queue(.main).isSuspended)
  }

  @Test(
    "Linux: corelibs' `if !__mainQ` makes the main queue ignore suspension, a limit, a quality of service and cancelAllOperations() (rules 26, 31, 33, 41)"
  )
  func mainQueueGuardsOnLinux() throws {
    var w = World(platform: .linux)
    try w.addOperation(spec("a", 2), to: .main)
    try w.addOperation(spec("b", 1), to: .main)
    let mark = w.trace.count
    try w.suspend(.main)
    try w.setMaxConcurrent(.main, to: nil)
    w.setQualityOfService(.main, to: .utility)
    w.cancelAll(.main)
    try w.resume(.main)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 main ignored:suspend", "0 main ignored:max=default", "0 main ignored:qos=utility", "0 main ignored:cancelAll",
        "0 main ignored:resume", "2 a finished", "2 b started", "3 b finished",
      ])
    for i in mark..<(mark + 5) {
      #expect(w.reasonText(i).hasSuffix("ignored: corelibs wraps it in `if !__mainQ`, so it does nothing on the main queue"))
    }
    #expect(w.reasonText(mark + 3).hasPrefix("main cancelAllOperations() ignored"))
    // A negative limit is checked before the guard, as corelibs' setter does.
    #expect(throws: SimulationError.invalidMaxConcurrent(-2)) { try w.setMaxConcurrent(.main, to: -2) }
  }

  @Test("Enqueueing an operation twice, or a finished one, is refused with what the real API does (rule 39)")
  func enqueueErrors() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let a = try w.addOperation(spec("a", 2), to: q)
    #expect(throws: SimulationError.cannotEnqueue(operation: "a", phase: .executing, platform: .apple)) {
      try w.enqueue(a, on: q)
    }
    w.runUntilIdle()
    let before = w.trace
    #expect(throws: SimulationError.cannotEnqueue(operation: "a", phase: .finished, platform: .apple)) {
      try w.enqueue(a, on: .main)
    }
    #expect(w.trace == before)
    #expect(
      SimulationError.cannotEnqueue(operation: "a", phase: .finished, platform: .apple).description
        == "'a' is finished and cannot be added to a queue again: the real addOperation(_:) raises NSInvalidArgumentException")
    #expect(SimulationError.cannotEnqueue(operation: "a", phase: .ready, platform: .linux).description.contains("crashes"))
  }
}
