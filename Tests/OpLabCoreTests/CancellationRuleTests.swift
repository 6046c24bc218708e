import Testing

@testable import OpLabCore

/// Whole-trace scenarios for cancellation (spec section C, rules 12–17 and 33).
@Suite struct CancellationRuleTests {
  @Test("Cancelling a waiting op in a chain A→B→C makes B ready at once, so C runs while A still runs (rule 13)")
  func cancelPendingReleasesDependentsEarly() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    let a = try w.addOperation(spec("A", 4), to: q)
    let b = try w.addOperation(spec("B", 2), to: q, dependencies: [a])
    try w.addOperation(spec("C", 2), to: q, dependencies: [b])
    try w.step(1)
    w.cancel(b)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 A created", "0 A enqueued", "0 A ready", "0 A started",
        "0 B created", "0 B dep+A", "0 B enqueued",
        "0 C created", "0 C dep+B", "0 C enqueued",
        "1 B cancel", "1 B ready", "1 B skipped", "1 B cancelled", "1 C ready", "1 C started",
        "3 C finished",
        "4 A finished",
      ])
    #expect(w.reasonText(w.firstIndex("ready", "B")!) == "B ready: cancelled while waiting: dependencies are ignored")
    #expect(w.operation(b).outcome == .cancelled)
    #expect(w.operation(b).isCancelled)
  }

  @Test("Cancel is cooperative: an executing op stops only at its next isCancelled check (rule 12)")
  func cancelExecutingIsCooperative() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    let polls = try w.addOperation(spec("polls", 10, check: .every(3)), to: q)
    let deaf = try w.addOperation(spec("deaf", 10, check: .never), to: q)
    let once = try w.addOperation(spec("once", 10, check: .atStart), to: q)
    try w.step(4)
    w.cancel(polls)
    w.cancel(deaf)
    w.cancel(once)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["cancel", "sawCancel", "finished", "cancelled"]) == [
        "4 polls cancel", "4 deaf cancel", "4 once cancel",
        "6 polls sawCancel", "6 polls cancelled",
        "10 deaf finished", "10 once finished",
      ])
    #expect(w.reasonText(w.firstIndex("sawCancel", "polls")!) == "polls saw isCancelled: checked isCancelled after 6 ticks of work")
    #expect(w.operation(deaf).isCancelled && w.operation(deaf).outcome == .succeeded)
  }

  @Test("An op that checks at start sees a cancel made in the tick it started (rule 12)")
  func atStartCheckSeesSameTickCancel() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    let a = try w.addOperation(spec("a", 5, check: .atStart), to: q)
    w.cancel(a)
    #expect(
      w.lines(from: mark) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a started", "0 a cancel", "0 a sawCancel", "0 a cancelled",
      ])
  }

  @Test("Cancelling a finished op does nothing and isCancelled stays false (rule 12)")
  func cancelFinishedIsNoOp() throws {
    var w = World()
    let a = try w.addOperation(spec("a", 1), to: .main)
    w.runUntilIdle()
    let mark = w.trace.count
    w.cancel(a)
    #expect(w.lines(from: mark) == ["1 a cancel"])
    #expect(w.reasonText(mark) == "a cancel requested: no effect, already finished")
    #expect(!w.operation(a).isCancelled)
  }

  @Test("Cancellation does not propagate; an op that checks its dependencies bails (rule 8)")
  func cancellationDoesNotPropagate() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    let gate = try w.addOperation(spec("gate", 2), to: q)
    let dl = try w.addOperation(spec("dl", 3), to: q)
    try w.addOperation(spec("naive", 2), to: q, dependencies: [dl])
    try w.addOperation(spec("careful", 2, bails: true), to: q, dependencies: [dl])
    w.cancel(dl)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["cancel", "skipped", "started", "finished", "cancelled", "bailed"]) == [
        "0 gate started", "0 dl cancel",
        "2 gate finished", "2 dl skipped", "2 dl cancelled", "2 naive started",
        "4 naive finished", "4 careful started", "4 careful bailed",
      ])
    #expect(
      w.reasonText(w.firstIndex("bailed", "careful")!)
        == "careful finished (bailed): returned at once: dependency dl was cancelled")
    _ = gate
  }

  @Test("A suspended queue keeps its cancelled ops unfinished, with no completion block, until resumed (rule 14)")
  func suspendedQueueKeepsCancelledOps() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    let mark = w.trace.count
    let a = try w.addOperation(spec("a", 3, completion: 1), to: q)
    w.cancel(a)
    try w.step(5)
    #expect(!w.operation(a).isFinished)
    #expect(w.operationCount(of: q) == 1)
    try w.resume(q)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a cancel",
        "5 q resumed", "5 a skipped", "5 a cancelled", "5 a completion+",
        "6 a completion-",
      ])
  }

  @Test("Completion blocks run after finish for succeeded, failed and cancelled ops, outside the slots (rule 36)")
  func completionBlocksRunForEveryOutcome() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let mark = w.trace.count
    try w.addOperation(spec("ok", 1, completion: 2), to: q)
    try w.addOperation(spec("bad", 3, failsAt: 1, completion: 2), to: q)
    let gone = try w.addOperation(spec("gone", 1, completion: 2), to: q)
    w.cancel(gone)
    w.runUntilIdle()
    #expect(
      w.lines(from: mark, only: ["started", "skipped", "finished", "failed", "cancelled", "completion+", "completion-"]) == [
        "0 ok started",
        "1 ok finished", "1 ok completion+", "1 bad started",
        "2 bad failed", "2 bad completion+", "2 gone skipped",
        "2 gone cancelled", "2 gone completion+",
        "3 ok completion-",
        "4 bad completion-", "4 gone completion-",
      ])
  }

  @Test("cancelAllOperations is not atomic: a dependent released mid-loop starts before the loop reaches it (rule 33)")
  func cancelAllIsNotAtomic() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let s1 = try w.addOperation(spec("step1", 5), to: q)
    let s2 = try w.addOperation(spec("step2", 5), to: q, dependencies: [s1])
    try w.addOperation(spec("step3", 5, check: .atStart), to: q, dependencies: [s2])
    try w.addOperation(spec("step3b", 5, check: .never), to: q, dependencies: [s2])
    try w.step(1)
    let mark = w.trace.count
    w.cancelAll(q)
    #expect(
      w.lines(from: mark) == [
        "1 step1 cancel",
        "1 step2 cancel", "1 step2 ready", "1 step2 skipped", "1 step2 cancelled",
        "1 step3 ready", "1 step3 started", "1 step3b ready", "1 step3b started",
        "1 step3 cancel", "1 step3 sawCancel", "1 step3 cancelled",
        "1 step3b cancel",
      ])
    #expect(w.reasonText(mark) == "step1 cancel requested: cancelAllOperations() on q")
    w.runUntilIdle()
    #expect(w.operation(w.operationID(named: "step3b")!).outcome == .succeeded)
    #expect(w.operation(s1).outcome == .succeeded)
  }

  @Test("Darwin finishes an op cancelled outside any queue at once; Linux waits for start (rule 15)")
  func cancelOutsideQueue() throws {
    var apple = World()
    let a = try apple.createOperation(spec("a", 2, completion: 1))
    let mark = apple.trace.count
    apple.cancel(a)
    #expect(apple.lines(from: mark) == ["0 a cancel", "0 a cancelled", "0 a completion+"])
    #expect(throws: SimulationError.cannotEnqueue(operation: "a", phase: .finished, platform: .apple)) {
      try apple.enqueue(a, on: .main)
    }

    var linux = World(platform: .linux)
    let b = try linux.createOperation(spec("b", 2, completion: 1))
    linux.cancel(b)
    #expect(!linux.operation(b).isFinished && linux.isReady(b))
    let mark2 = linux.trace.count
    try linux.enqueue(b, on: .main)
    linux.runUntilIdle()
    #expect(
      linux.lines(from: mark2) == [
        "0 b enqueued", "0 b ready", "0 b skipped", "0 b cancelled", "0 b completion+", "1 b completion-",
      ])
  }

  @Test("Work cut short by a cancel leaves no stale wake-up behind: the clock stops where the op did")
  func earlyReturnDoesNotMoveTheClock() throws {
    var w = World()
    let a = try w.addOperation(spec("a", 5, check: .every(1)), to: .main)
    try w.step(2)
    w.cancel(a)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.now == 2)
    #expect(w.nextEventTick == nil)
  }

  @Test("An asynchronous operation cancelled before it starts: its own start() must see the flag and call finish(), or it holds its slot forever")
  func asyncCancelledBeforeStart() throws {
    var w = World()
    let q = try w.createQueue(name: "net", maxConcurrent: 1)
    try w.addOperation(spec("busy", 2), to: q)
    let good = try w.addOperation(spec("good", 3, kind: .async(forgetsFinish: false)), to: q)
    let bad = try w.addOperation(spec("bad", 3, kind: .async(forgetsFinish: true)), to: q)
    try w.addOperation(spec("after", 1), to: q)
    w.cancel(good)
    w.cancel(bad)
    let mark = w.trace.count
    guard case .stalled(let diagnosis) = w.runUntilIdle() else {
      Issue.record("bad should hold its slot forever")
      return
    }
    #expect(
      w.lines(from: mark) == [
        "2 busy finished",
        // good's start() sees isCancelled and calls finish(): only isFinished changes (it never executed).
        "2 good skipped", "2 good will:isFinished", "2 good cancelled", "2 good did:isFinished",
        // bad's start() sees isCancelled and returns without finish(): the slot stays taken.
        "2 bad skipped", "2 bad jammed",
      ])
    #expect(w.operation(good).outcome == .cancelled)
    #expect(w.operation(bad).isFinished == false && w.queue(q).executingCount == 1)
    #expect(diagnosis.stuck.map(\.op).contains(bad))
    #expect(w.invariantViolations().isEmpty)
  }

  @Test(
    "Unspecified orders, and the one the lab chose: dependents released together go in edge order; cancelAllOperations() lets each cancel settle, so a released dependent starts (rules 4, 33)"
  )
  func chosenOrders() throws {
    var w = World()
    let r = try w.createQueue(name: "r")
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let x = try w.addOperation(spec("x", 1), to: r)
    try w.addOperation(spec("d1", 1), to: q, dependencies: [x])
    try w.addOperation(spec("d2", 1, priority: .high), to: q, dependencies: [x])
    w.runUntilIdle()
    #expect(
      w.lines(from: 3) == [
        "0 x created", "0 x enqueued", "0 x ready", "0 x started",
        "0 d1 created", "0 d1 dep+x", "0 d1 enqueued", "0 d2 created", "0 d2 dep+x", "0 d2 enqueued",
        "1 x finished", "1 d1 ready", "1 d1 started", "1 d2 ready", "2 d1 finished", "2 d2 started", "3 d2 finished",
      ])

    var c = World()
    let r2 = try c.createQueue(name: "r")
    let q2 = try c.createQueue(name: "q")
    let z = try c.addOperation(spec("z", 3), to: r2)
    let a = try c.addOperation(spec("a", 1), to: q2, dependencies: [z])
    try c.addOperation(spec("b", 2), to: q2, dependencies: [a])
    try c.run(until: 1)
    let mark = c.trace.count
    c.cancelAll(q2)
    c.runUntilIdle()
    #expect(
      c.lines(from: mark) == [
        "1 a cancel", "1 a ready", "1 a skipped", "1 a cancelled", "1 b ready", "1 b started", "1 b cancel",
        "3 z finished", "3 b finished",
      ])
  }
}
