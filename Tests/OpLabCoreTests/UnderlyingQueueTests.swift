import Testing

@testable import OpLabCore

/// Whole-trace scenarios for `OperationQueue.underlyingQueue` (corelibs `_schedule()` submits
/// what it dispatches to `__dispatch_queue ?? backing queue`; the differential tests check
/// each against the real queue).
@Suite struct UnderlyingQueueTests {
  /// A queue `q` with `max` on a dispatch queue `x`, and the trace mark after the setup.
  private func world(
    max: Int?, concurrent: Bool, platform: Platform = .apple
  ) throws -> (World, QueueID, Int32, Int) {
    var w = World(platform: platform)
    let q = try w.createQueue(name: "q", maxConcurrent: max)
    let x = try w.createDispatchQueue(name: "x", concurrent: concurrent, qualityOfService: nil)
    try w.setUnderlyingQueue(q, to: x)
    return (w, q, x, w.trace.count)
  }

  @Test("A serial underlying queue runs one at a time; the count still decides which is handed over next, by priority")
  func serialUnderlyingQueueWithMaxTwo() throws {
    var (w, q, _, mark) = try world(max: 2, concurrent: false)
    #expect(w.lines(from: 1).prefix(3) == ["0 q queue", "0 world dispatchQueue:x", "0 q underlying=x"])
    try w.addOperation(spec("a", 3), to: q)
    try w.addOperation(spec("b", 3), to: q)
    try w.step(1)
    #expect(w.operation(w.operationID(named: "b")!).phase == .ready)  // isExecuting is false while it waits
    #expect(w.queue(q).executingCount == 2)
    try w.addOperation(spec("c", 3), to: q)
    try w.addOperation(spec("d", 3, priority: .veryHigh), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 a started", "0 b dispatched",
        "3 a finished", "3 d dispatched", "3 b started",
        "6 b finished", "6 c dispatched", "6 d started",
        "9 d finished", "9 c started",
        "12 c finished",
      ])
    #expect(
      w.reasonText(w.firstIndex("dispatched", "b")!)
        == "b dispatched on q, waiting on its underlying queue x: its underlying queue x is serial and runs a's work item: it holds its slot and waits there, one at a time"
    )
    #expect(
      w.reasonText(w.firstIndex("started", "b")!)
        == "b started on q: a's work item returned, so its serial underlying queue x ran the next")
  }

  @Test(
    "With the default count every operation is handed over at once: a serial underlying queue runs them in the order added, whatever their priority")
  func serialUnderlyingQueueDefaultMax() throws {
    var (w, q, _, mark) = try world(max: nil, concurrent: false)
    try w.addOperation(spec("a", 2), to: q)
    try w.addOperation(spec("b", 2), to: q)
    try w.addOperation(spec("c", 2, priority: .veryHigh), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 a started", "0 b dispatched", "0 c dispatched",
        "2 a finished", "2 b started", "4 b finished", "4 c started", "6 c finished",
      ])
  }

  @Test("A concurrent underlying queue changes nothing in the order: the count alone limits")
  func concurrentUnderlyingQueue() throws {
    var (w, q, _, mark) = try world(max: 2, concurrent: true)
    try w.addOperation(spec("a", 3), to: q)
    try w.addOperation(spec("b", 2), to: q)
    try w.step(1)
    try w.addOperation(spec("c", 3), to: q)
    try w.addOperation(spec("d", 3, priority: .veryHigh), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 a started", "0 b started", "2 b finished", "2 d started", "3 a finished", "3 c started", "5 d finished",
        "6 c finished",
      ])
  }

  @Test("Two queues on one serial dispatch queue take turns in the order their work was submitted")
  func sharedSerialDispatchQueue() throws {
    var w = World()
    let q1 = try w.createQueue(name: "q1")
    let q2 = try w.createQueue(name: "q2")
    let x = try w.createDispatchQueue(name: "x", concurrent: false, qualityOfService: nil)
    try w.setUnderlyingQueue(q1, to: x)
    try w.setUnderlyingQueue(q2, to: x)
    let mark = w.trace.count
    try w.addOperation(spec("a", 3), to: q1)
    try w.addOperation(spec("b", 3), to: q2)
    try w.addOperation(spec("c", 3), to: q1)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 a started", "0 b dispatched", "0 c dispatched", "3 a finished", "3 b started", "6 b finished", "6 c started",
        "9 c finished",
      ])
    let stuck = w.diagnose(startingWith: []).stuck
    #expect(stuck.isEmpty)
  }

  @Test("An asynchronous operation's start() returns at once: a serial underlying queue goes on to the next while it runs")
  func asyncOperationsFreeTheSerialQueue() throws {
    var (w, q, _, mark) = try world(max: 2, concurrent: false)
    for name in ["a", "b", "c"] { try w.addOperation(spec(name, 3, kind: .async(forgetsFinish: false)), to: q) }
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished"]) == [
        "0 a started", "0 b started", "3 a finished", "3 c started", "3 b finished", "6 c finished",
      ])
  }

  @Test("underlyingQueue can be set only while operationCount is 0; nil gives the queue its own dispatch queue back")
  func settingRules() throws {
    for platform in Platform.allCases {
      var (w, q, x, mark) = try world(max: nil, concurrent: false, platform: platform)
      try w.addOperation(spec("a", 2), to: q)
      let before = w.trace.count
      #expect(throws: SimulationError.underlyingQueueNotEmpty(queue: "q", operationCount: 1, platform: platform)) {
        try w.setUnderlyingQueue(q, to: nil)
      }
      #expect(w.trace.count == before)
      try w.step(2)
      try w.setUnderlyingQueue(q, to: nil)
      try w.addOperation(spec("b", 2), to: q)
      try w.addOperation(spec("c", 2), to: q)
      try w.setUnderlyingQueue(.main, to: x)
      w.runUntilIdle()
      #expect(
        w.lines(from: mark, only: ["started", "finished", "underlying", "ignored:underlying"]) == [
          "0 a started", "2 a finished", "2 q underlying=nil", "2 b started", "2 c started", "2 main ignored:underlying=x",
          "4 b finished", "4 c finished",
        ])
      #expect(w.queue(.main).underlyingQueue == nil)
    }
    let error = SimulationError.underlyingQueueNotEmpty(queue: "q", operationCount: 2, platform: .linux)
    #expect(
      error.description
        == "q has 2 unfinished operations: setting its underlyingQueue now crashes the process (fatalError: \"operation queue must be empty in order to change underlying dispatch queue\")"
    )
    #expect(error.hint == "set it before adding operations, or after `wait q` (or `undo` back to there)")
  }

  @Test("Work on an underlying queue runs at its quality of service, unless the operation has its own")
  func qualityOfService() throws {
    var w = World()
    let q = try w.createQueue(name: "q", qualityOfService: .background)
    let x = try w.createDispatchQueue(name: "x", concurrent: true, qualityOfService: .userInitiated)
    try w.setUnderlyingQueue(q, to: x)
    let a = try w.addOperation(spec("a", 2), to: q)
    let b = try w.addOperation(spec("b", 2, qos: .utility), to: q)
    #expect(w.effectiveQualityOfService(of: a) == .userInitiated)
    #expect(w.effectiveQualityOfService(of: b) == .utility)
    #expect(w.queue(q).reportedQualityOfService == .background)  // the property keeps its own value
  }

  @Test("A waiting operation is explained by the serial queue it waits on, and the item running there")
  func diagnosisOfAWaitingOperation() throws {
    var (w, q, x, _) = try world(max: 2, concurrent: false)
    let a = try w.addOperation(spec("a", 3), to: q)
    let b = try w.addOperation(spec("b", 3), to: q)
    // The chain ends at a, which runs and will finish.
    let chain = w.waitChain(of: b)
    #expect(chain.map(\.op) == [b])
    #expect(chain.first?.cause == .heldByDispatchQueue(x, behind: a))
    #expect(chain.first?.cause.heldBy == a)
  }

  @Test("Corelibs runs an empty-queue barrier on the backing queue: what the queue dispatches meanwhile is not held")
  func emptyQueueBarrierOnLinux() throws {
    var (w, q, _, mark) = try world(max: nil, concurrent: true, platform: .linux)
    try w.addBarrier(to: q, duration: 3)
    try w.addOperation(spec("a", 1), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 q.barrier1 started", "0 a started", "1 a finished", "3 q.barrier1 finished",
      ])
  }

  @Test("A barrier on a serial underlying queue is one more item there, in the order submitted")
  func barrierOnSerialQueue() throws {
    var (w, q, _, mark) = try world(max: 2, concurrent: false)
    try w.addOperation(spec("a", 2), to: q)
    try w.addBarrier(to: q, duration: 1)
    try w.addOperation(spec("b", 1), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "finished"]) == [
        "0 a started", "2 a finished", "2 q.barrier1 dispatched", "2 q.barrier1 started", "3 q.barrier1 finished",
        "3 b dispatched", "3 b started", "4 b finished",
      ])
  }

  @Test("Time travel replays the dispatch queues: back and forth gives the same trace")
  func replay() throws {
    var sim = Simulation(world: World())
    try sim.perform(.createQueue(name: "q", maxConcurrent: 2, qualityOfService: nil))
    try sim.perform(.createDispatchQueue(name: "x", concurrent: false, qualityOfService: .utility))
    try sim.perform(.setUnderlyingQueue(QueueID(1), 0))
    for name in ["a", "b", "c"] { try sim.perform(.createOperation(spec(name, 2), dependencies: [], queue: QueueID(1))) }
    try sim.perform(.runUntilIdle)
    let whole = sim.world.lines()
    try sim.rewind(to: 3)
    #expect(sim.world.lines() == Array(whole.prefix { Int($0.split(separator: " ")[0])! <= 3 }))
    try sim.perform(.runUntilIdle)
    #expect(sim.world.lines() == whole)
  }

  @Test("An operation waiting on a serial dispatch queue sees a cancel only when its item runs, and suspending its queue does not stop it")
  func cancelAndSuspendWhileWaiting() throws {
    var (w, q, _, mark) = try world(max: 2, concurrent: false)
    try w.addOperation(spec("a", 2), to: q)
    let b = try w.addOperation(spec("b", 2), to: q)
    let c = try w.addOperation(spec("c", 1), to: q)
    try w.step(1)
    w.cancel(b)
    try w.suspend(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["dispatched", "started", "skipped", "finished", "cancelled", "suspended"]) == [
        "0 a started", "0 b dispatched", "1 q suspended", "2 a finished", "2 b skipped", "2 b cancelled",
      ])
    #expect(w.operation(c).phase == .ready)  // the suspended queue hands nothing more over
  }

  @Test("The invariants check a serial dispatch queue's line: a broken one is named")
  func invariants() throws {
    var (w, q, x, _) = try world(max: 2, concurrent: false)
    try w.addOperation(spec("a", 2), to: q)
    try w.addOperation(spec("b", 2), to: q)
    #expect(w.invariantViolations().isEmpty)
    var broken = w
    broken.dispatchQueues[Int(x)].running = nil
    #expect(broken.invariantViolations() == ["dispatch queue x is idle while 1 items wait"])
    broken = w
    broken.dispatchQueues[Int(x)].waiting.append(OpID(Int(w.operationID(named: "a")!.index)))
    #expect(broken.invariantViolations() == ["a waits on dispatch queue x but is not a ready operation of a queue on it, dispatched with its slot"])
  }
}
