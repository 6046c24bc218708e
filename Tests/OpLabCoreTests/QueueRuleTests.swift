import Testing

@testable import OpLabCore

/// Whole-trace scenarios for suspension, barriers, BlockOperation, asynchronous
/// operations and the Linux-only differences (spec sections E–G).
@Suite struct QueueRuleTests {
  @Test("Suspending stops new starts only: the running op finishes, the others wait for resume (rule 31)")
  func suspendStopsNewStartsOnly() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("a", 3), to: q)
    try w.addOperation(spec("b", 1), to: q)
    try w.step(1)
    try w.suspend(q)
    try w.addOperation(spec("c", 1, priority: .veryHigh), to: q)
    try w.step(4)
    try w.resume(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "finished", "suspended", "resumed"]) == [
        "0 a started", "1 q suspended", "3 a finished", "5 q resumed", "5 c started", "6 c finished", "6 b started", "7 b finished",
      ])
    #expect(w.reasonText(w.firstIndex("started", "c")!) == "c started on q: queue resumed; veryHigh beats normal b")
  }

  @Test("A barrier waits for every op already in the queue and holds back ops added later (rule 40)")
  func barrierWaitsAndHolds() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    let mark = w.trace.count
    try w.addOperation(spec("a", 2), to: q)
    try w.addOperation(spec("b", 3), to: q)
    let barrier = try w.addBarrier(to: q, duration: 1)
    try w.addOperation(spec("c", 1), to: q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started",
        "0 q.barrier1 created", "0 q.barrier1 barrier", "0 q.barrier1 dep+a", "0 q.barrier1 dep+b", "0 q.barrier1 enqueued",
        "0 c created", "0 c enqueued", "0 c dep+q.barrier1",
        "2 a finished",
        "3 b finished", "3 q.barrier1 ready", "3 q.barrier1 started",
        "4 q.barrier1 finished", "4 c ready", "4 c started",
        "5 c finished",
      ])
    #expect(w.operation(barrier).isBarrier)
    #expect(w.operationCount(of: q) == 0)
  }

  @Test("A barrier on an empty suspended queue waits on Darwin but runs at once on Linux (rule 32)")
  func barrierOnEmptySuspendedQueue() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q")
      try w.suspend(q)
      let mark = w.trace.count
      try w.addBarrier(to: q, duration: 2)
      try w.addOperation(spec("later", 1), to: q)
      try w.step(3)
      let expected: [String] =
        switch platform {
        case .apple:
          [
            "0 q.barrier1 created", "0 q.barrier1 barrier", "0 q.barrier1 enqueued", "0 q.barrier1 ready",
            "0 later created", "0 later enqueued", "0 later dep+q.barrier1",
          ]
        case .linux:
          [
            "0 q.barrier1 created", "0 q.barrier1 barrier", "0 q.barrier1 enqueued", "0 q.barrier1 ready", "0 q.barrier1 started",
            "0 later created", "0 later enqueued", "0 later ready",
            "2 q.barrier1 finished",
          ]
        }
      #expect(w.lines(from: mark) == expected, "platform \(platform)")
    }
  }

  @Test("On Linux, ops dispatched while an empty-queue barrier runs wait behind it, past suspension and cancel (rule 32)")
  func linuxOpsWaitBehindDispatchBarrier() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    try w.addBarrier(to: q, duration: 3)
    try w.step(1)
    let a = try w.addOperation(spec("a", 1), to: q)
    try w.addOperation(spec("b", 1), to: q, dependencies: [a])
    try w.step(1)
    w.cancel(a)
    try w.suspend(q)
    w.runUntilIdle()
    try w.resume(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 q.barrier1 created", "0 q.barrier1 barrier", "0 q.barrier1 enqueued", "0 q.barrier1 ready", "0 q.barrier1 started",
        "1 a created", "1 a enqueued", "1 a ready", "1 a dispatched",
        "1 b created", "1 b dep+a", "1 b enqueued",
        "2 a cancel", "2 q suspended",
        "3 q.barrier1 finished", "3 a skipped", "3 a cancelled", "3 b ready",
        "3 q resumed", "3 b started", "4 b finished",
      ])
  }

  @Test("On Linux, a dependency added to an op dispatched behind a barrier counts against isReady until it finishes (rules 5, 6, 32)")
  func dependencyOfDispatchedOpIsCounted() throws {
    var w = World(platform: .linux)
    let q = try w.createQueue(name: "q")
    let other = try w.createQueue(name: "other")
    try w.addBarrier(to: q, duration: 3)
    let a = try w.addOperation(spec("a", 1), to: q)
    let d = try w.addOperation(spec("d", 1), to: other)
    #expect(w.operation(a).dispatched && w.operation(a).phase == .ready && w.isReady(a))
    let mark = w.trace.count
    try w.addDependency(a, on: d)
    #expect(!w.isReady(a))  // counted, as corelibs counts it; a stays dispatched
    #expect(w.invariantViolations() == [])
    try w.step(1)  // d finishes and releases a: back to 0, not −1
    #expect(w.isReady(a) && w.unfinishedCount(of: a) == 0)
    #expect(w.invariantViolations() == [])
    w.runUntilIdle()
    #expect(w.invariantViolations() == [])
    #expect(
      w.lines(from: mark) == [
        "0 a dep+d", "1 d finished", "3 q.barrier1 finished", "3 a started", "4 a finished",
      ])
  }

  @Test("cancelAllOperations cancels a pending barrier too, so its block never runs (rule 33)")
  func cancelAllCancelsBarrier() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("a", 2), to: q)
    let barrier = try w.addBarrier(to: q, duration: 1)
    let mark = w.trace.count
    w.cancelAll(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 a cancel",
        "0 q.barrier1 cancel", "0 q.barrier1 ready", "0 q.barrier1 skipped", "0 q.barrier1 cancelled",
        "2 a finished",
      ])
    #expect(w.operation(barrier).outcome == .cancelled)
  }

  @Test("BlockOperation blocks run side by side on Darwin and one after another on Linux, ignoring cancel (rules 17, 38)")
  func blockOperationInBothModes() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q")
      let mark = w.trace.count
      let b = try w.addOperation(spec("b", kind: .blocks([2, 3])), to: q)
      try w.step(1)
      w.cancel(b)
      w.runUntilIdle()
      let expected: [String] =
        switch platform {
        case .apple:
          [
            "0 b created", "0 b enqueued", "0 b ready", "0 b started", "0 b block1+", "0 b block2+",
            "1 b cancel", "2 b block1-", "3 b block2-", "3 b finished",
          ]
        case .linux:
          [
            "0 b created", "0 b enqueued", "0 b ready", "0 b started", "0 b block1+",
            "1 b cancel", "2 b block1-", "2 b block2+", "5 b block2-", "5 b finished",
          ]
        }
      #expect(w.lines(from: mark) == expected, "platform \(platform)")
    }
  }

  @Test("An asynchronous op posts KVO for isExecuting and isFinished, and finishes when its work calls finish()")
  func asyncOperationKVO() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    let dep = try w.addOperation(spec("dep", 1), to: q)
    try w.addOperation(spec("net", 2, kind: .async(forgetsFinish: false)), to: q, dependencies: [dep])
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 dep created", "0 dep enqueued", "0 dep ready", "0 dep started",
        "0 net created", "0 net dep+dep", "0 net enqueued",
        "1 dep finished", "1 net will:isReady", "1 net ready", "1 net did:isReady",
        "1 net will:isExecuting", "1 net started", "1 net did:isExecuting",
        "3 net will:isFinished", "3 net will:isExecuting", "3 net finished", "3 net did:isExecuting", "3 net did:isFinished",
      ])
  }

  @Test("An async op that forgets to call finish() jams its slot forever, and the run says so")
  func asyncForgetsFinishJamsSlot() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    let jam = try w.addOperation(spec("jam", 2, kind: .async(forgetsFinish: true)), to: q)
    let next = try w.addOperation(spec("next", 1), to: q)
    let verdict = w.runUntilIdle()
    #expect(w.lines(from: mark, only: ["started", "jammed", "finished"]) == ["0 jam started", "2 jam jammed"])
    #expect(
      verdict
        == .stalled(
          Diagnosis(
            stuck: [StuckOperation(op: jam, cause: .neverCallsFinish), StuckOperation(op: next, cause: .slotsHeld(q, by: [jam]))],
            cycles: [])))
    #expect(w.now == 2)
  }

  @Test("A dependency cycle is accepted with a warning, stalls with a diagnosis, and cancel breaks it (rule 10)")
  func cycleWarningDiagnosisAndEscape() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let a = try w.createOperation(spec("a", 1))
    let b = try w.createOperation(spec("b", 1), dependencies: [a])
    let c = try w.createOperation(spec("c", 1), dependencies: [b])
    let mark = w.trace.count
    #expect(try w.addDependency(a, on: c))
    #expect(w.lines(from: mark) == ["0 a dep+c", "0 a cycle:c"])
    for op in [a, b, c] { try w.enqueue(op, on: q) }
    let verdict = w.runUntilIdle()
    #expect(
      verdict
        == .stalled(
          Diagnosis(
            stuck: [StuckOperation(op: a, cause: .inCycle(0)), StuckOperation(op: b, cause: .inCycle(0)), StuckOperation(op: c, cause: .inCycle(0))],
            cycles: [[a, b, c]])))
    w.cancel(b)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.lines(from: mark, only: ["started", "skipped"]) == ["0 b skipped", "0 c started", "1 a started"])
  }

  @Test("A loop through a started or a cancelled operation is no deadlock: no cycle, no warning, and the run ends")
  func loopsThroughStartedOrCancelledOpsAreNoCycle() throws {
    var w = World()
    let dl = try w.createQueue(name: "dl", maxConcurrent: 1)
    let fx = try w.createQueue(name: "fx", maxConcurrent: 1)
    let d1 = try w.addOperation(spec("d1", 3), to: dl)
    let f1 = try w.addOperation(spec("f1", 2), to: fx, dependencies: [d1])
    let mark = w.trace.count
    #expect(try w.addDependency(d1, on: f1))  // d1 is executing: listed, no effect
    #expect(w.lines(from: mark) == ["0 d1 dep+f1"])
    #expect(w.dependencyCycles().isEmpty)
    // The same loop closed from the other end: g (held) on executing d1, which lists g.
    let g = try w.createOperation(spec("g", 1))
    #expect(try w.addDependency(d1, on: g))
    let other = w.trace.count
    #expect(try w.addDependency(g, on: d1))
    #expect(w.lines(from: other) == ["0 g dep+d1"])
    #expect(w.dependencyCycles().isEmpty)
    // A loop through an operation cancelled before it started: it ignores its dependencies.
    let x = try w.addOperation(spec("x", 1), to: dl)  // waits behind d1
    let y = try w.addOperation(spec("y", 1), to: dl, dependencies: [x])
    w.cancel(y)
    let cancelled = w.trace.count
    #expect(try w.addDependency(x, on: y))
    #expect(w.lines(from: cancelled) == ["0 x dep+y", "0 x unready"])
    #expect(w.dependencyCycles().isEmpty)
    // A loop among operations that have not started is a cycle, until one is cancelled.
    let a = try w.createOperation(spec("a", 1))
    let b = try w.createOperation(spec("b", 1), dependencies: [a])
    let loop = w.trace.count
    #expect(try w.addDependency(a, on: b))
    #expect(w.lines(from: loop) == ["0 a dep+b", "0 a cycle:b"])
    for op in [a, b] { try w.enqueue(op, on: fx) }
    #expect(w.dependencyCycles() == [[a, b]])
    w.cancel(a)  // ready at once, its dependencies ignored (rule 13)
    #expect(w.dependencyCycles().isEmpty)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark, only: ["started", "skipped", "finished"]) == [
        "0 a skipped", "0 b started", "1 b finished", "3 d1 finished", "3 f1 started",
        "3 y skipped", "3 x started", "4 x finished", "5 f1 finished",
      ])
  }

  @Test("waitUntilAllOperationsAreFinished returns when ops finish, not their completion blocks (rule 34)")
  func waitIgnoresCompletionBlocks() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("a", 2, completion: 5), to: q)
    let verdict = w.waitUntilAllOperationsAreFinished(q)
    #expect(verdict == .reached)
    #expect(w.now == 2)
    #expect(w.lines(only: ["wait", "waited", "completion+"]) == ["0 q wait", "2 a completion+", "2 q waited"])
    #expect(w.runningCompletions == 1)
  }

  @Test("A wait that could never return stops with why: suspended queue, op on a held dependency (rules 11, 34)")
  func waitDiagnosesStalls() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let held = try w.createOperation(spec("held", 1))
    let a = try w.addOperation(spec("a", 1), to: q, dependencies: [held])
    let s = try w.createQueue(name: "s")
    try w.suspend(s)
    let b = try w.addOperation(spec("b", 1), to: s)
    let verdict = w.waitUntilAllOperationsAreFinished()
    #expect(
      verdict
        == .stalled(
          Diagnosis(
            stuck: [
              StuckOperation(op: a, cause: .dependencyNotInQueue(held)), StuckOperation(op: b, cause: .queueSuspended(s)),
              StuckOperation(op: held, cause: .notInQueue),
            ],
            cycles: [])))
    #expect(w.lines(only: ["wait", "waitStalled"]) == ["0 world wait", "0 world waitStalled"])
  }

  @Test(
    "An op picked while a barrier block runs takes its slot then, by priority then, and waits behind the block; suspension does not stop it (rule 40)"
  )
  func heldBehindRunningBarrier() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q", maxConcurrent: 2)
      try w.addOperation(spec("a", 2), to: q)
      try w.run(until: 1)
      try w.addBarrier(to: q, duration: 3)
      try w.run(until: 3)
      let l = try w.addOperation(spec("l", 1, priority: .low), to: q)
      try w.run(until: 4)
      let h1 = try w.addOperation(spec("h1", 2, priority: .high), to: q)
      try w.addOperation(spec("h2", 1, priority: .high), to: q)
      try w.suspend(q)
      try w.run(until: 7)
      try w.resume(q)
      w.runUntilIdle()
      #expect(
        w.lines(from: 2) == [
          "0 a created", "0 a enqueued", "0 a ready", "0 a started",
          "1 q.barrier1 created", "1 q.barrier1 barrier", "1 q.barrier1 dep+a", "1 q.barrier1 enqueued",
          "2 a finished", "2 q.barrier1 ready", "2 q.barrier1 started",
          "3 l created", "3 l enqueued", "3 l ready", "3 l dispatched",
          "4 h1 created", "4 h1 enqueued", "4 h1 ready", "4 h2 created", "4 h2 enqueued", "4 h2 ready", "4 q suspended",
          "5 q.barrier1 finished", "5 l started", "6 l finished",
          "7 q resumed", "7 h1 started", "7 h2 started", "8 h2 finished", "9 h1 finished",
        ], "\(platform)")
      #expect(w.reasonText(w.firstIndex("started", "l")!) == "l started on q: the barrier block q.barrier1 it waited behind ended")
      #expect(w.dependencies(of: l).isEmpty && w.dependencies(of: h1).isEmpty)
    }
  }

  @Test("A cancelled op waiting behind a running barrier block is skipped when the block returns, not at the cancel (rules 40, 13)")
  func cancelledBehindRunningBarrier() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("a", 2), to: q)
    try w.run(until: 1)
    try w.addBarrier(to: q, duration: 3)
    let p = try w.addOperation(spec("p", 1), to: q)
    try w.run(until: 3)
    let c = try w.addOperation(spec("c", 1), to: q)
    w.cancel(p)
    try w.run(until: 4)
    w.cancel(c)
    w.runUntilIdle()
    #expect(
      w.lines(from: 2) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "1 q.barrier1 created", "1 q.barrier1 barrier", "1 q.barrier1 dep+a", "1 q.barrier1 enqueued",
        "1 p created", "1 p enqueued", "1 p dep+q.barrier1",
        "2 a finished", "2 q.barrier1 ready", "2 q.barrier1 started",
        "3 c created", "3 c enqueued", "3 c ready", "3 c dispatched", "3 p cancel", "3 p ready", "3 p dispatched",
        "4 c cancel",
        "5 q.barrier1 finished", "5 c skipped", "5 p skipped", "5 c cancelled", "5 p cancelled",
      ])
    #expect(w.dependencies(of: c).isEmpty)
  }

  @Test("removeDependency readies the op on Darwin but strands it on Linux until cancelled (rule 9)")
  func removeDependencyInBothModes() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q")
      let slow = try w.addOperation(spec("slow", 5), to: q)
      let op = try w.addOperation(spec("op", 1), to: q, dependencies: [slow])
      try w.step(1)
      let mark = w.trace.count
      try w.removeDependency(op, on: slow)
      try w.step(9)
      switch platform {
      case .apple:
        #expect(w.lines(from: mark) == ["1 op dep-slow", "1 op ready", "1 op started", "2 op finished", "5 slow finished"])
      case .linux:
        #expect(w.lines(from: mark) == ["1 op dep-slow", "5 slow finished"])
        #expect(w.diagnose() == Diagnosis(stuck: [StuckOperation(op: op, cause: .strandedByRemoveDependency)], cycles: []))
        w.cancel(op)
        #expect(w.operation(op).outcome == .cancelled)
      }
    }
  }

  @Test(
    "Linux: removing a finished dependency from a cancelled op takes its count to -1, so it waits until cancelled again; Darwin ignores it (rule 9)")
  func removeFinishedDependencyFromCancelledOp() throws {
    for platform in Platform.allCases {
      var w = World(platform: platform)
      let r = try w.createQueue(name: "r")
      let q = try w.createQueue(name: "q")
      try w.suspend(q)
      let a = try w.addOperation(spec("a", 1), to: r)
      let b = try w.addOperation(spec("b", 1), to: q, dependencies: [a])
      try w.run(until: 2)
      w.cancel(b)
      try w.run(until: 3)
      try w.removeDependency(b, on: a)
      try w.run(until: 4)
      try w.resume(q)
      try w.run(until: 5)
      let mark = w.trace.count
      w.cancel(b)
      w.runUntilIdle()
      switch platform {
      case .apple:
        #expect(
          w.lines() == [
            "0 main queue", "0 r queue", "0 q queue", "0 q suspended",
            "0 a created", "0 a enqueued", "0 a ready", "0 a started",
            "0 b created", "0 b dep+a", "0 b enqueued",
            "1 a finished", "1 b ready", "2 b cancel", "3 b dep-a",
            "4 q resumed", "4 b skipped", "4 b cancelled", "5 b cancel",
          ])
        #expect(w.reasonText(mark) == "b cancel requested: no effect, already finished")
      case .linux:
        #expect(
          w.lines() == [
            "0 main queue", "0 r queue", "0 q queue", "0 q suspended",
            "0 a created", "0 a enqueued", "0 a ready", "0 a started",
            "0 b created", "0 b dep+a", "0 b enqueued",
            "1 a finished", "1 b ready", "2 b cancel", "3 b dep-a", "3 b unready",
            "4 q resumed", "5 b cancel", "5 b ready", "5 b skipped", "5 b cancelled",
          ])
        let removed = w.firstIndex("dep-a", "b")!
        #expect(
          w.reasonText(removed)
            == "b no longer depends on a: removeDependency of a finished dependency from a cancelled operation: corelibs counts it off the unfinished count that cancel() zeroed, which is now −1, so isReady is false until cancel() is called again (rule 9)"
        )
        #expect(w.reasonText(mark) == "b cancel requested: cancel() sets corelibs' unfinished count back to 0, so isReady is true again")
      }
    }
  }

  @Test("Linux: between the removal and the second cancel, the op is not ready, its queue runs without it, and the diagnosis says why (rule 9)")
  func countBelowZeroDiagnosis() throws {
    var w = World(platform: .linux)
    let a = try w.addOperation(spec("a", 1), to: .main)
    let b = try w.createOperation(spec("b", 1), dependencies: [a])
    w.runUntilIdle()
    w.cancel(b)  // in no queue: on Linux it stays unfinished (rule 15)
    try w.removeDependency(b, on: a)
    #expect(!w.isReady(b))
    let q = try w.createQueue(name: "q")
    try w.enqueue(b, on: q)
    #expect(w.runUntilIdle() == .stalled(Diagnosis(stuck: [StuckOperation(op: b, cause: .countBelowZero)], cycles: [])))
    w.cancel(b)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.operation(b).outcome == .cancelled)
  }

  @Test("Linux files an op with QoS but no priority under the mapped level on a concurrent queue only (rule 24)")
  func qosMapsToPriorityOnLinuxOnly() throws {
    func order(_ platform: Platform, max: Int) throws -> [String] {
      var w = World(platform: platform)
      let q = try w.createQueue(name: "q", maxConcurrent: max)
      try w.suspend(q)
      try w.addOperation(spec("bg", 1, qos: .background), to: q)
      try w.addOperation(spec("ui", 1, qos: .userInteractive), to: q)
      try w.addOperation(spec("plain", 1), to: q)
      let mark = w.trace.count
      try w.resume(q)
      w.runUntilIdle()
      return w.lines(from: mark, only: ["started"])
    }
    #expect(try order(.linux, max: 2) == ["0 ui started", "0 plain started", "1 bg started"])
    #expect(try order(.linux, max: 1) == ["0 bg started", "1 ui started", "2 plain started"])
    #expect(try order(.apple, max: 2) == ["0 bg started", "0 ui started", "1 plain started"])
  }
}
