import OpLabCore
import Testing

@testable import OpLabRender

/// `why` tells the truth: a skipped operation is not said to have started, and a wait is
/// followed down to what holds it (#18).
@Suite struct WhyTests {
  @Test("A cancelled operation that went ahead in the line is described as skipped, not started (rule 13)")
  func overtakenBySkippedOperation() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "d1", duration: 2), to: q)
    let d3 = try w.addOperation(OperationSpec(name: "d3", duration: 2), to: q)
    let d4 = try w.addOperation(OperationSpec(name: "d4", duration: 1), to: q)
    w.cancel(d3)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      Why.render(d4, in: w) == """
        d4 was created at t=0.
        It was added to downloads at t=0.
        It became ready at t=0 (no unfinished dependencies).
        While it waited for a slot, d3 was skipped at t=2: it was cancelled, so start() returned without running main() (same priority, ahead in the line: first in, first out).
        It started at t=2 (slot freed by d3).
        It finished at t=3 (work done).

        """)
  }

  @Test("why says an op picked while a barrier block ran took its slot then, and what that means; one that waited sees it go ahead (rule 40)")
  func heldBehindRunningBarrier() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    try w.addOperation(OperationSpec(name: "a", duration: 2), to: q)
    try w.run(until: 1)
    try w.addBarrier(to: q, duration: 3)
    try w.run(until: 3)
    let l = try w.addOperation(OperationSpec(name: "l", duration: 2, priority: .low), to: q)
    try w.run(until: 4)
    let h1 = try w.addOperation(OperationSpec(name: "h1", duration: 1, priority: .high), to: q)
    let h2 = try w.addOperation(OperationSpec(name: "h2", duration: 1, priority: .high), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      Why.render(l, in: w) == """
        l was created at t=3.
        It was added to q at t=3.
        It became ready at t=3 (no unfinished dependencies).
        It took a slot at t=3 (a slot was free when it was enqueued), while the barrier block q.barrier1 ran: the queue handed it to its dispatch queue, where it waited behind the block. From then on it held its slot: suspending the queue could not stop it, a cancel was seen only when it started, and which operations got the slots was decided then, by priority at that moment.
        It started at t=5 (the barrier block q.barrier1 it waited behind ended).
        It finished at t=7 (work done).

        """)
    // h1 took the barrier's slot at 5; h2 waited for the next one, and l held its slot since t=3.
    #expect(
      Why.render(h1, in: w).contains("It started at t=5 (slot freed by q.barrier1; the same priority (high) as h2, but ahead in the line (FIFO))."))
    #expect(Why.render(h2, in: w).contains("While it waited for a slot, h1 started at t=5 (same priority, ahead in the line: first in, first out)."))
  }

  @Test(
    "why says that dependents released together onto a queue that cannot start them all went in one of several possible orders, and which the lab chose (rule 4)"
  )
  func dependentsReleasedTogether() throws {
    var w = World()
    let r = try w.createQueue(name: "r")
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let x = try w.addOperation(OperationSpec(name: "x"), to: r)
    let d1 = try w.addOperation(OperationSpec(name: "d1"), to: q, dependencies: [x])
    let d2 = try w.addOperation(OperationSpec(name: "d2", priority: .high), to: q, dependencies: [x])
    #expect(w.runUntilIdle() == .idle)
    let sentence =
      "x released d1, d2 at once, onto q, which could not start them all: the real queue keeps an operation's dependents in a Set, so the order they become ready, and so which one takes the free slot, is one of several possible. The lab releases them in the order their dependencies were added, so d1 went first."
    #expect(
      Why.render(d2, in: w) == """
        d2 was created at t=0.
        It was added to q at t=0 (waits on 1 unfinished dependency).
        It became ready at t=1 (dependency x finished).
        \(sentence)
        It started at t=2 (slot freed by d1).
        It finished at t=3 (work done).

        """)
    #expect(Why.render(d1, in: w).contains(sentence))
    // With a slot for each, they start together: no order to choose, nothing said.
    var wide = World()
    let r2 = try wide.createQueue(name: "r")
    let q2 = try wide.createQueue(name: "q")
    let x2 = try wide.addOperation(OperationSpec(name: "x"), to: r2)
    let e1 = try wide.addOperation(OperationSpec(name: "e1"), to: q2, dependencies: [x2])
    try wide.addOperation(OperationSpec(name: "e2"), to: q2, dependencies: [x2])
    #expect(wide.runUntilIdle() == .idle)
    #expect(!Why.render(e1, in: wide).contains("one of several possible"))
  }

  @Test("why says that a dependent started during cancelAllOperations() raced the loop, and which outcome the lab chose (rule 33)")
  func cancelAllRace() throws {
    var w = World()
    let r = try w.createQueue(name: "r")
    let q = try w.createQueue(name: "q")
    let z = try w.addOperation(OperationSpec(name: "z", duration: 3), to: r)
    let a = try w.addOperation(OperationSpec(name: "a"), to: q, dependencies: [z])
    let b = try w.addOperation(OperationSpec(name: "b", duration: 2), to: q, dependencies: [a])
    try w.run(until: 1)
    w.cancelAll(q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      Why.render(b, in: w) == """
        b was created at t=0.
        It was added to q at t=0 (waits on 1 unfinished dependency).
        It became ready at t=1 (dependency a finished — it was cancelled, and cancellation does not propagate).
        It started at t=1 (became ready with a slot free).
        cancel() reached it at t=1 (cancelAllOperations() on q).
        b started during cancelAllOperations() on q, before the loop reached it: the real loop cancels on the calling thread while skipped operations finish on worker threads, so b may start first or be cancelled first (and skipped); the order is one of several possible. The lab lets each cancel's consequences happen before the next cancel, so b started.
        It ran to the end although cancelled: its code never checks isCancelled, so cancel() could not stop it.
        It finished at t=3 (work done).

        """)
    // a was cancelled by the loop before it started: nothing raced for it.
    #expect(!Why.render(a, in: w).contains("one of several possible"))
  }

  @Test("A cancel typed at the tick a finish let the operation start is an order the real queue leaves open; a cancel after one's own add is not")
  func cancelAtTheTickOfAStart() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "d1", duration: 3), to: q)
    let d2 = try w.addOperation(OperationSpec(name: "d2", duration: 2, cancellation: .every(1)), to: q)
    try w.run(until: 3)
    w.cancel(d2)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      Why.render(d2, in: w) == """
        d2 was created at t=0.
        It was added to downloads at t=0.
        It became ready at t=0 (no unfinished dependencies).
        It started at t=3 (slot freed by d1).
        cancel() reached it at t=3.
        d2 started at t=3 and was cancelled at that same tick: the lab lets a tick's work happen (the finish that let d2 start) before the commands typed at that tick, but in a real program the cancel() and that finish on a worker thread race, so the cancel may come first and d2 be skipped; the order is one of several possible.
        It saw isCancelled at t=3 (checked isCancelled after 0 ticks of work).
        It finished at t=3 (returned early after seeing isCancelled).

        """)
    #expect(Why.orderIsOpen(d2, in: w))

    // Added and cancelled by the same thread, one call after the other: no race.
    var v = World()
    let r = try v.createQueue(name: "r")
    try v.run(until: 2)
    let e = try v.addOperation(OperationSpec(name: "e", duration: 2), to: r)
    v.cancel(e)
    #expect(v.runUntilIdle() == .idle)
    #expect(!Why.orderIsOpen(e, in: v))
    #expect(!Why.render(e, in: v).contains("one of several possible"))
  }

  @Test(
    "why says when OperationQueue.main dispatched an op to the main thread, and that a tap from before went first, whatever the priority (rule 42)")
  func mainThreadOrder() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let d = try w.addOperation(OperationSpec(name: "d", duration: 4), to: q)
    try w.addOperation(OperationSpec(name: "m", duration: 6), to: .main)
    let x = try w.addOperation(OperationSpec(name: "x", priority: .veryHigh), to: .main, dependencies: [d])
    try w.tap(at: 1)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      Why.render(x, in: w) == """
        x was created at t=0.
        It was added to main at t=0 (waits on 1 unfinished dependency).
        It became ready at t=4 (dependency d finished).
        OperationQueue.main dispatched it to the main thread at t=6, when it was ready and main's one operation slot was free: from then on it waited for the main thread behind the work that became runnable there before it (the main thread takes work in the order it became runnable).
        While it waited for the main thread, main.tap1 started at t=6 (the tap had waited for the main thread since t=1; x became runnable there only at t=6, when OperationQueue.main dispatched it, and the main thread takes work in the order it became runnable).
        It started at t=7 (the main thread was freed by main.tap1).
        It finished at t=8 (work done).

        """)
    let tap = try #require(w.operationID(named: "main.tap1"))
    #expect(
      Why.render(tap, in: w).contains(
        "The main thread took it at t=6 (freed by m; it became runnable on the main thread before x, whatever their priorities)."))
  }

  @Test("Linux: why says a removed finished dependency took a cancelled op's count below zero, and that only another cancel frees it (rule 9)")
  func countBelowZero() throws {
    var w = World(platform: .linux)
    let r = try w.createQueue(name: "r")
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    let a = try w.addOperation(OperationSpec(name: "a"), to: r)
    let b = try w.addOperation(OperationSpec(name: "b"), to: q, dependencies: [a])
    try w.run(until: 2)
    w.cancel(b)
    try w.removeDependency(b, on: a)
    try w.resume(q)
    #expect(
      Why.render(b, in: w) == """
        b was created at t=0.
        It was added to q at t=0 (waits on 1 unfinished dependency).
        It became ready at t=1 (dependency a finished).
        cancel() reached it at t=2.
        It stopped being ready at t=2 (removeDependency of a finished dependency from a cancelled operation: corelibs counts it off the unfinished count that cancel() zeroed, which is now −1, so isReady is false until cancel() is called again (rule 9)).
        Now: b is not ready: on Linux, removeDependency of a finished dependency took its unfinished count to −1 after cancel() had zeroed it (a corelibs bug); cancel() it again to set it back to 0.

        """)
  }

  /// The last line of `why OP`: what holds it now.
  static func now(_ op: String, in w: World) throws -> String {
    let id = try #require(w.operationID(named: op))
    return try #require(Why.render(id, in: w).split(separator: "\n").last.map(String.init))
  }

  @Test("why follows a wait down a chain of dependencies to the asynchronous operation that never calls finish()")
  func chainToForgottenFinish() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let fetch = try w.addOperation(OperationSpec(name: "fetch", duration: 2, kind: .async(forgetsFinish: true)), to: q)
    let parse = try w.addOperation(OperationSpec(name: "parse"), to: q, dependencies: [fetch])
    let show = try w.addOperation(OperationSpec(name: "show"), to: q, dependencies: [parse])
    guard case .stalled = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(
      Why.render(show, in: w) == """
        show was created at t=0.
        It was added to q at t=0 (waits on 1 unfinished dependency).
        Now: show waits on parse, which waits on fetch, which started at t=0 and never called finish() (async, forgets-finish).

        """)
    // The root itself keeps its own sentence.
    #expect(try Self.now("fetch", in: w) == "Now: fetch finished its work but never called finish(), so it holds its slot forever.")
  }

  @Test("While the chain's last operation still runs, why says so instead of 'has not finished'")
  func chainToRunningOperation() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let fetch = try w.addOperation(OperationSpec(name: "fetch", duration: 5), to: q)
    let parse = try w.addOperation(OperationSpec(name: "parse"), to: q, dependencies: [fetch])
    try w.addOperation(OperationSpec(name: "show"), to: q, dependencies: [parse])
    try w.step(2)
    #expect(try Self.now("show", in: w) == "Now: show waits on parse, which waits on fetch, which has been executing since t=0.")
    #expect(try Self.now("parse", in: w) == "Now: parse waits on fetch, which has been executing since t=0.")
  }

  @Test("why names each kind of root: a suspended queue, a cycle, an operation never added, a limit of 0")
  func chainRoots() throws {
    var w = World()
    let paused = try w.createQueue(name: "paused")
    try w.suspend(paused)
    let q = try w.createQueue(name: "q")
    let zero = try w.createQueue(name: "zero", maxConcurrent: 0)
    let ready = try w.addOperation(OperationSpec(name: "ready"), to: paused)
    try w.addOperation(OperationSpec(name: "afterPause"), to: q, dependencies: [ready])
    let a = try w.createOperation(OperationSpec(name: "a"))
    let b = try w.createOperation(OperationSpec(name: "b"), dependencies: [a])
    try w.addDependency(a, on: b)
    try w.enqueue(a, on: q)
    try w.enqueue(b, on: q)
    try w.addOperation(OperationSpec(name: "afterCycle"), to: q, dependencies: [b])
    let held = try w.createOperation(OperationSpec(name: "held"))
    let loose = try w.addOperation(OperationSpec(name: "loose"), to: q, dependencies: [held])
    try w.addOperation(OperationSpec(name: "afterLoose"), to: q, dependencies: [loose])
    let never = try w.addOperation(OperationSpec(name: "never"), to: zero)
    try w.addOperation(OperationSpec(name: "afterZero"), to: q, dependencies: [never])
    guard case .stalled = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(try Self.now("afterPause", in: w) == "Now: afterPause waits on ready, which is ready, but paused is suspended: resume it.")
    #expect(
      try Self.now("afterCycle", in: w)
        == "Now: afterCycle waits on b, which is in a dependency cycle (a → b → a): none of them can ever start; cancel one to break it.")
    #expect(
      try Self.now("afterLoose", in: w)
        == "Now: afterLoose waits on loose, which waits on held, which is in no queue, so it never starts (`add held` enqueues it; `start held` runs it by hand)."
    )
    #expect(
      try Self.now("afterZero", in: w)
        == "Now: afterZero waits on never, which is ready, but zero has maxConcurrentOperationCount 0, which runs nothing.")
  }

  @Test("why follows a full queue to the operation holding its only slot, cancelled before it started (rule 13)")
  func chainThroughHeldSlot() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "a", duration: 2), to: q)
    let j = try w.addOperation(OperationSpec(name: "j", duration: 2, kind: .async(forgetsFinish: true)), to: q)
    let k = try w.addOperation(OperationSpec(name: "k"), to: q)
    w.cancel(j)
    guard case .stalled = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(
      Why.render(k, in: w) == """
        k was created at t=0.
        It was added to q at t=0.
        It became ready at t=0 (no unfinished dependencies).
        While it waited for a slot, j was skipped at t=2: it was cancelled, so its own start() saw isCancelled and did not do the work (same priority, ahead in the line: first in, first out).
        Now: k is ready, but every slot of q is held by j, which was cancelled before it started, and its own start() at t=2 returned without calling finish() (async, forgets-finish).

        """)
  }

  @Test("why names the deadlock when a wait from main holds the main thread that its own work needs")
  func chainDeadlockOnMainThread() throws {
    var w = World()
    let work = try w.createQueue(name: "work", maxConcurrent: 1)
    let a = try w.addOperation(OperationSpec(name: "a", duration: 2), to: work)
    let m = try w.addOperation(OperationSpec(name: "m"), to: .main, dependencies: [a])
    try w.addOperation(OperationSpec(name: "later"), to: work, dependencies: [m])
    guard case .stalled = w.waitOnMainThread(work) else { Issue.record("expected a stall"); return }
    #expect(
      try Self.now("later", in: w)
        == "Now: later waits on m, which is ready, but every slot of main is held by main.wait1, which blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for later: a deadlock, so none of them can ever finish."
    )
    #expect(
      try Self.now("main.wait1", in: w)
        == "Now: main.wait1 blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for later, which waits on m, which is ready, but every slot of main is held by main.wait1: a deadlock, so none of them can ever finish."
    )
  }

  @Test("A long chain is told by its ends, the middle counted, in one short line")
  func longChainIsShortened() throws {
    var w = World()
    let paused = try w.createQueue(name: "paused")
    try w.suspend(paused)
    var previous = try w.addOperation(OperationSpec(name: "c0"), to: paused)
    for i in 1...10_000 { previous = try w.addOperation(OperationSpec(name: "c\(i)"), to: paused, dependencies: [previous]) }
    let line = try Self.now("c10000", in: w)
    #expect(
      line
        == "Now: c10000 waits on c9999, which waits on c9998, which waits on c9997, … 9,995 more …, which waits on c1, which waits on c0, which is ready, but paused is suspended: resume it."
    )
  }
}
