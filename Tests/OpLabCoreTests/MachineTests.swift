import Testing

@testable import OpLabCore

/// The machine model: CPU cores shared by quality of service, the main thread's taps and
/// frames, and waits called from the main thread. Each test asserts a scenario's whole trace.
@Suite struct MachineTests {
  @Test("Three equal operations on 2 cores each get 2/3 of a core: 4 ticks of work take 6")
  func equalContention() throws {
    var w = World()
    try w.setCores(2)
    let q = try w.createQueue(name: "q")
    for name in ["a", "b", "c"] { try w.addOperation(spec(name, 4), to: q) }
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines() == [
        "0 main queue", "0 world cores=2", "0 q queue",
        "0 a created", "0 a enqueued", "0 a ready", "0 a started", "0 world cpu=1",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started", "0 world cpu=2",
        "0 c created", "0 c enqueued", "0 c ready", "0 c started",
        "0 a share=2/3", "0 b share=2/3", "0 c share=2/3",  // the load stays 2 cores: no cpu event
        "6 a finished", "6 b finished", "6 c finished", "6 world cpu=0",
      ])
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("Under contention userInitiated outweighs utility: it keeps a full core and finishes first")
  func qualityOfServiceDecidesWhoFinishesFirst() throws {
    var w = World()
    try w.setCores(2)
    let ui = try w.createQueue(name: "ui", qualityOfService: .userInitiated)
    let net = try w.createQueue(name: "net", qualityOfService: .utility)
    try w.addOperation(spec("a", 6), to: ui)
    try w.addOperation(spec("b", 6), to: net)
    try w.addOperation(spec("c", 6), to: net)
    w.runUntilIdle()
    #expect(
      w.lines(only: ["started", "finished", "share", "cpu"]) == [
        "0 a started", "0 world cpu=1", "0 b started", "0 world cpu=2", "0 c started",
        "0 b share=1/2", "0 c share=1/2",
        "6 a finished", "6 b share=1", "6 c share=1",
        "9 b finished", "9 c finished", "9 world cpu=0",
      ])
    // The same three with equal quality of service all finish together, at 9.
    var same = World()
    try same.setCores(2)
    let q = try same.createQueue(name: "q")
    for name in ["a", "b", "c"] { try same.addOperation(spec(name, 6), to: q) }
    same.runUntilIdle()
    #expect(["a", "b", "c"].map { same.operation(same.operationID(named: $0)!).finishedAt } == [9, 9, 9])
    let b = w.history(of: w.operationID(named: "b")!)
    #expect(
      b.contention == [CPUStretch(from: 0, to: 6, share: Machine.subTicks / 2, units: 3, cores: 2, heavier: [OpID(0)], lighter: [], equal: [OpID(2)])]
    )
    // a kept a whole core all along: its userInitiated outweighed b and c.
    let a = w.history(of: w.operationID(named: "a")!)
    #expect(a.contention.isEmpty)
    #expect(
      a.favoured == [CPUStretch(from: 0, to: 6, share: Machine.subTicks, units: 3, cores: 2, heavier: [], lighter: [OpID(1), OpID(2)], equal: [])])
  }

  @Test("An operation's effective QoS is its own, else its queue's; main's is userInteractive (rule 41)")
  func effectiveQualityOfService() throws {
    var w = World()
    let q = try w.createQueue(name: "q", qualityOfService: .utility)
    let plain = try w.createQueue(name: "plain")
    let own = try w.addOperation(spec("own", qos: .background), to: q)
    let inherits = try w.addOperation(spec("inherits"), to: q)
    let onMain = try w.addOperation(spec("onMain"), to: .main)
    let onPlain = try w.addOperation(spec("onPlain"), to: plain)
    #expect(w.effectiveQualityOfService(of: own) == .background)
    #expect(w.effectiveQualityOfService(of: inherits) == .utility)
    #expect(w.effectiveQualityOfService(of: onMain) == .userInteractive)
    #expect(w.effectiveQualityOfService(of: onPlain) == .default)
  }

  @Test("A cancellation check comes after N ticks of work, not N ticks of clock, when the core is shared")
  func cancelCheckCountsWork() throws {
    var w = World()
    try w.setCores(1)
    let q = try w.createQueue(name: "q")
    let a = try w.addOperation(spec("a", 6, check: .every(2)), to: q)
    try w.addOperation(spec("b", 6), to: q)
    try w.step(1)
    w.cancel(a)
    w.runUntilIdle()
    // Half a core each: 2 ticks of work take 4 ticks; then b has the core to itself.
    #expect(
      w.lines(only: ["started", "cancel", "sawCancel", "cancelled", "finished", "share"]) == [
        "0 a started", "0 b started", "0 a share=1/2", "0 b share=1/2",
        "1 a cancel", "4 a sawCancel", "4 a cancelled", "4 b share=1", "8 b finished",
      ])
    #expect(w.reasonText(w.firstIndex("sawCancel", "a")!).contains("after 2 ticks of work"))
  }

  @Test("Blocks and completion blocks are units of work too; the load never exceeds the cores")
  func blocksAndCompletionsShare() throws {
    var w = World()
    try w.setCores(2)
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("blocks", kind: .blocks([2, 2, 2])), to: q)
    try w.addOperation(spec("x", 1, completion: 2), to: q)
    while w.nextEventTick != nil {
      #expect(w.cpuLoad.used <= 2 * Machine.subTicks)
      #expect(w.invariantViolations().isEmpty)
      try w.step(1)
    }
    // 4 units on 2 cores: each block and x get 1/2; x's 1 tick takes 2; then its completion
    // block takes its place, and the blocks end at 4 with 2 ticks of work done each.
    #expect(
      w.lines(only: ["started", "finished", "share", "completion+", "completion-", "block1-", "block2-", "block3-"]) == [
        "0 blocks started", "0 blocks share=2/3",  // alone: 3 blocks on 2 cores
        "0 x started", "0 blocks share=1/2", "0 x share=1/2",
        "2 x finished", "2 x completion+",
        "4 blocks block1-", "4 blocks block2-", "4 blocks block3-", "4 blocks finished",
        "5 x completion-",  // 1 tick of work at 1/2 from 2 to 4, then 1 at a full core
      ])
  }

  @Test("Cores cannot be limited under running work; unlimited cores trace exactly as before")
  func limitingCoresNeedsAnIdleMachine() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("a", 3), to: q)
    let before = w.trace
    #expect(throws: SimulationError.machineBusy("a")) { try w.setCores(2) }
    #expect(w.trace == before)
    #expect(throws: SimulationError.invalidCores(0)) { try w.setCores(0) }
    try w.setCores(nil)  // unlimited stays the plain simulator
    w.runUntilIdle()
    #expect(w.lines().filter { $0.contains("cpu") || $0.contains("share") }.isEmpty)
    #expect(w.operation(w.operationID(named: "a")!).finishedAt == 3)
  }

  @Test("Downloads on main: a tap waits for the main thread (the frozen UI)")
  func tapWaitsForBusyMain() throws {
    var w = World()
    try w.addOperation(spec("download", 6), to: .main)
    try w.tap(at: 1)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines() == [
        "0 main queue", "0 download created", "0 download enqueued", "0 download ready", "0 download started",
        "0 main tap@1",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready",
        "6 download finished", "6 main.tap1 started", "7 main.tap1 finished",
      ])
    let r = w.responsiveness()
    #expect(r.taps == 1 && r.tapsDelayed == 1 && r.longestTapWait == 5 && r.longestFreeze == 1..<6)
    #expect(w.operationCount(of: .main) == 0)
  }

  @Test(
    "The main thread takes work in the order it became runnable there: an op enqueued at 0 but dispatched at 6 goes after a tap from t=1, whatever its priority (rule 42)"
  )
  func mainThreadOrderIsWhenRunnable() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let d = try w.addOperation(spec("d", 4), to: q)
    try w.addOperation(spec("m", 6), to: .main)
    let x = try w.addOperation(spec("x", 1, priority: .veryHigh), to: .main, dependencies: [d])
    try w.tap(at: 1)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: 2) == [
        "0 d created", "0 d enqueued", "0 d ready", "0 d started",
        "0 m created", "0 m enqueued", "0 m ready", "0 m started",
        "0 x created", "0 x dep+d", "0 x enqueued", "0 main tap@1",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready",
        // x is ready at 4, but m holds OperationQueue.main's one operation slot until 6.
        "4 d finished", "4 x ready",
        "6 m finished", "6 main.tap1 started", "7 main.tap1 finished", "7 x started", "8 x finished",
      ])
    #expect(w.mainThreadDispatches[x] == 6)
  }

  @Test(
    "An op that becomes ready while taps hold the main thread is dispatched at once: it goes after the taps already there and before a later one (rule 42)"
  )
  func dispatchedWhileTapsRun() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let d = try w.addOperation(spec("d", 2), to: q)
    let x = try w.addOperation(spec("x", 2), to: .main, dependencies: [d])
    for _ in 0..<3 { try w.tap(at: 1) }
    try w.tap(at: 3)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: 2) == [
        "0 d created", "0 d enqueued", "0 d ready", "0 d started",
        "0 x created", "0 x dep+d", "0 x enqueued", "0 main tap@1", "0 main tap@1", "0 main tap@1", "0 main tap@3",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready", "1 main.tap1 started",
        "1 main.tap2 created", "1 main.tap2 enqueued", "1 main.tap2 ready",
        "1 main.tap3 created", "1 main.tap3 enqueued", "1 main.tap3 ready",
        "2 d finished", "2 x ready", "2 main.tap1 finished", "2 main.tap2 started",
        "3 main.tap4 created", "3 main.tap4 enqueued", "3 main.tap4 ready", "3 main.tap2 finished", "3 main.tap3 started",
        "4 main.tap3 finished", "4 x started", "6 x finished", "6 main.tap4 started", "7 main.tap4 finished",
      ])
    // No operation held OperationQueue.main's slot: x was dispatched the moment it was ready.
    #expect(w.mainThreadDispatches[x] == 2)
  }

  @Test("Downloads on a background queue: the tap is answered at once")
  func tapAnsweredAtOnce() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads")
    try w.addOperation(spec("download", 6), to: q)
    try w.tap(at: 1)
    w.runUntilIdle()
    #expect(
      w.lines(from: 2) == [
        "0 download created", "0 download enqueued", "0 download ready", "0 download started", "0 main tap@1",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready", "1 main.tap1 started",
        "2 main.tap1 finished", "6 download finished",
      ])
    let r = w.responsiveness()
    #expect(r.tapsDelayed == 0 && r.longestFreeze == nil)
  }

  @Test("A frame that cannot start before the next is due is dropped; frames with an end are waited for")
  func framesDropWhileMainIsBusy() throws {
    var w = World()
    try w.addOperation(spec("download", 5), to: .main)
    try w.setFrames(every: 2, from: 0, until: 8)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: 5) == [
        "0 main frames=2",
        "0 main.frame1 created", "0 main.frame1 enqueued", "0 main.frame1 ready",
        "2 main.frame1 dropped", "2 main.frame2 created", "2 main.frame2 enqueued", "2 main.frame2 ready",
        "4 main.frame2 dropped", "4 main.frame3 created", "4 main.frame3 enqueued", "4 main.frame3 ready",
        "5 download finished", "5 main.frame3 started",
        // At one tick, everything else goes before a frame comes due: frame3 ends first.
        "6 main.frame3 finished", "6 main.frame4 created", "6 main.frame4 enqueued", "6 main.frame4 ready",
        "6 main.frame4 started", "7 main.frame4 finished",
        "8 main.frame5 created", "8 main.frame5 enqueued", "8 main.frame5 ready", "8 main.frame5 started",
        "9 main.frame5 finished",
      ])
    let r = w.responsiveness()
    #expect(r.frames == 5 && r.framesDropped == 2 && r.longestFreeze == 0..<5)
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("Frames without an end come only while other work remains; their number is capped")
  func framesWithoutEnd() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("work", 4), to: q)
    try w.setFrames(every: 3)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.now == 4)
    #expect(w.responsiveness().frames == 2)  // due at 0 and 3
    #expect(throws: SimulationError.self) { try w.setFrames(every: 1, from: 4, until: 4 + World.maxFrames) }
    #expect(throws: SimulationError.self) { try w.setFrames(every: 0) }
  }

  @Test("A frame that must wait for the main thread freezes the interface from the tick it is due, even that tick")
  func frozenFromTheFirstTick() throws {
    var w = World()
    try w.addOperation(spec("download", 4), to: .main)
    try w.setFrames(every: 2)
    #expect(w.responsiveness().frozenSince == 0)  // lesson 1: `status` says FROZEN at once
    try w.step(4)
    #expect(w.responsiveness().frozenSince == nil)  // download done, the frame due at 4 drawn
    #expect(w.responsiveness().longestFreeze == 0..<4)
  }

  @Test("Frames every tick do not keep a run going: it ends when the other work does")
  func framesEveryTickEndWithTheWork() throws {
    // Each frame's tick of drawing ends just as the next frame is due; these frames used
    // to come due one after another until the 100,000-frame limit.
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("work", 2), to: q)
    try w.setFrames(every: 1)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: 2) == [
        "0 work created", "0 work enqueued", "0 work ready", "0 work started",
        "0 main frames=1",
        "0 main.frame1 created", "0 main.frame1 enqueued", "0 main.frame1 ready", "0 main.frame1 started",
        "1 main.frame1 finished",
        "1 main.frame2 created", "1 main.frame2 enqueued", "1 main.frame2 ready", "1 main.frame2 started",
        "2 work finished", "2 main.frame2 finished",
      ])
    #expect(w.now == 2)
    // With nothing else going on no frame is asked for, so stepping draws none...
    try w.step(3)
    #expect(w.lines(from: 18) == [])
    // ...and work added later brings the frames back from its own tick, not in a burst of
    // frames due meanwhile, each dropping the one before.
    try w.addOperation(spec("more", 1), to: q)
    try w.step(1)
    #expect(
      w.lines(from: 18, only: ["started", "finished", "dropped"]) == [
        "5 more started", "5 main.frame3 started", "6 more finished", "6 main.frame3 finished",
      ])
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("A command that changes nothing runnable draws no frame; new work brings the frame due at its tick")
  func framesNotDrawnByAnIdleCommand() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("work", 2), to: q)
    try w.setFrames(every: 1)
    #expect(w.runUntilIdle() == .idle)
    let mark = w.trace.count
    // The frame due at t=2 was never asked for: only frames went on. A limit change settles
    // the world at this tick, and used to draw that frame all the same.
    try w.setMaxConcurrent(q, to: 3)
    let c = try w.createOperation(spec("c", 1))
    w.cancel(c)
    #expect(w.lines(from: mark) == ["2 q max=3", "2 c created", "2 c cancel", "2 c cancelled"])
    try w.addOperation(spec("more", 1), to: q)
    #expect(
      w.lines(from: mark + 4, only: ["started", "finished", "dropped"]) == [
        "2 more started", "2 main.frame3 started",
      ])
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("Frames every tick beside work that can never run: the run stalls at once, with the diagnosis")
  func framesEveryTickBesideAStall() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 0)
    let stuck = try w.addOperation(spec("stuck", 1), to: q)
    try w.setFrames(every: 1)
    guard case .stalled(let diagnosis) = w.runUntilIdle() else {
      Issue.record("expected a stall")
      return
    }
    #expect(diagnosis.stuck.map(\.op) == [stuck])
    #expect(
      w.lines(from: 2) == [
        "0 stuck created", "0 stuck enqueued", "0 stuck ready",
        // Nothing but frames could go on from the moment they were asked for: none is drawn.
        "0 main frames=1",
      ])
    #expect(w.now == 0)
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("A tap waiting behind a main thread that never frees keeps frames coming, each dropped; dropped frames do not pile up")
  func framesDroppedBehindAJammedMainThread() throws {
    var w = World()
    try w.addOperation(spec("j", 1, kind: .async(forgetsFinish: true)), to: .main)
    try w.setFrames(every: 1)
    try w.tap(at: 2)
    try w.step(4)
    #expect(
      w.lines(from: 2) == [
        "0 j enqueued", "0 j will:isReady", "0 j ready", "0 j did:isReady",
        "0 j will:isExecuting", "0 j started", "0 j did:isExecuting",
        "0 main frames=1",
        "0 main.frame1 created", "0 main.frame1 enqueued", "0 main.frame1 ready", "0 main tap@2",
        "1 j jammed",
        "1 main.frame1 dropped", "1 main.frame2 created", "1 main.frame2 enqueued", "1 main.frame2 ready",
        // The tap waits for the main thread (other work), so frames go on coming due.
        "2 main.tap1 created", "2 main.tap1 enqueued", "2 main.tap1 ready",
        "2 main.frame2 dropped", "2 main.frame3 created", "2 main.frame3 enqueued", "2 main.frame3 ready",
        "3 main.frame3 dropped", "3 main.frame4 created", "3 main.frame4 enqueued", "3 main.frame4 ready",
        "4 main.frame4 dropped", "4 main.frame5 created", "4 main.frame5 enqueued", "4 main.frame5 ready",
      ])
    // Each dropped frame leaves a stale entry in main's ready heap, and each frame due asks
    // whether only frames go on, which reads that heap: it is compacted, so thousands of
    // dropped frames cost linear time, not quadratic (a `step 16000` here took 42 s).
    try w.step(5_000)
    #expect(w.responsiveness().framesDropped == 5_004)
    #expect(w.queues[QueueID.main.slot].readyHeap.count <= 2 * 2 + 32)
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("An operation waiting on main behind a frame is other work: the next frame still comes due")
  func framesComeWhileMainQueueWorkWaits() throws {
    var w = World()
    try w.addOperation(spec("a", 1), to: .main)
    try w.setFrames(every: 1)  // frame1 waits for a
    try w.addOperation(spec("m", 1), to: .main)  // filed after frame1
    #expect(w.runUntilIdle() == .idle)
    // At t=1 only frame1's drawing is scheduled, but m waits for main: frame2 comes due.
    #expect(
      w.lines(only: ["started", "finished", "dropped", "created"]) == [
        "0 a created", "0 a started", "0 main.frame1 created", "0 m created",
        "1 a finished", "1 main.frame1 started", "1 main.frame2 created",
        "2 main.frame1 finished", "2 m started", "2 main.frame2 dropped", "2 main.frame3 created",
        "3 m finished", "3 main.frame3 started",
        "4 main.frame3 finished",
      ])
    #expect(w.now == 4)
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("wait from main holds the main thread: a tap waits until the wait returns")
  func waitOnMainBlocksTaps() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads")
    try w.addOperation(spec("d1", 4), to: q)
    try w.tap(at: 1)
    let mark = w.trace.count
    #expect(w.waitOnMainThread(q) == .reached)
    #expect(
      w.lines(from: mark) == [
        "0 main.wait1 created", "0 main.wait1 enqueued", "0 main.wait1 ready", "0 main.wait1 started",
        "0 main.wait1 wait",
        "1 main.tap1 created", "1 main.tap1 enqueued", "1 main.tap1 ready",
        "4 d1 finished", "4 main.wait1 finished", "4 main.wait1 waited", "4 main.tap1 started",
      ])
    #expect(w.reasonText(w.firstIndex("finished", "main.wait1")!).contains("the main thread is free again"))
  }

  @Test(
    "A wait from main takes its turn on the main thread, ahead of a frame due after it was called, and is called a wait, not a barrier; a wait on every queue says so"
  )
  func waitFromMainIsNamedAsAWait() throws {
    var w = World()
    try w.addOperation(spec("m", 2), to: .main)
    try w.setFrames(every: 1)
    let q = try w.createQueue(name: "w")
    try w.addOperation(spec("d", 3), to: q)
    #expect(w.waitOnMainThread(q) == .reached)
    #expect(
      w.reasonText(w.firstIndex("started", "main.wait1")!)
        == "main.wait1 started on main: slot freed by m; it reached the main thread before main.frame2")
    w.waitUntilAllOperationsAreFinished()
    let waited = w.trace.indices.last { if case .waitEnded = w.trace[$0].kind { true } else { false } }
    #expect(waited.map { w.reasonText($0).hasPrefix("every queue: waitUntilAllOperationsAreFinished() returned") } == true)
  }

  @Test("wait from main deadlocks when the work it waits for needs the main thread, and the chain is named")
  func waitOnMainDeadlocks() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads")
    try w.addOperation(spec("prepare", 2), to: .main)
    let refresh = try w.addOperation(spec("refresh"), to: .main)
    let d1 = try w.addOperation(spec("d1", 4), to: q, dependencies: [refresh])
    guard case .stalled(let d) = w.waitOnMainThread(q) else {
      Issue.record("expected a stall")
      return
    }
    let wait = try #require(w.operationID(named: "main.wait1"))
    #expect(
      d.stuck == [
        StuckOperation(op: wait, cause: .mainThreadWaitingFor(d1)),
        StuckOperation(op: d1, cause: .waitingOn(refresh)),
        StuckOperation(op: refresh, cause: .slotsHeld(.main, by: [wait])),
      ])
    #expect(w.now == 2)
    #expect(
      w.lines(only: ["started", "finished", "wait", "waitStalled"]) == [
        // The wait begins when the main thread gets to it.
        "0 prepare started", "2 prepare finished", "2 main.wait1 started", "2 main.wait1 wait", "2 main.wait1 waitStalled",
      ])
  }
}
