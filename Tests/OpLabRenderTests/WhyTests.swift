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
    #expect(Why.render(d4, in: w) == """
      d4 was created at t=0.
      It was added to downloads at t=0.
      It became ready at t=0 (no unfinished dependencies).
      While it waited for a slot, d3 was skipped at t=2: it was cancelled, so start() returned without running main() (same priority, ahead in the line: first in, first out).
      It started at t=2 (slot freed by d3).
      It finished at t=3 (work done).

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
    #expect(Why.render(show, in: w) == """
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
    #expect(try Self.now("show", in: w) == "Now: show waits on parse, which waits on fetch, which is executing since t=0.")
    #expect(try Self.now("parse", in: w) == "Now: parse waits on fetch, which is executing since t=0.")
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
    #expect(try Self.now("afterCycle", in: w)
      == "Now: afterCycle waits on b, which is in a dependency cycle (a → b → a): none of them can ever start; cancel one to break it.")
    #expect(try Self.now("afterLoose", in: w)
      == "Now: afterLoose waits on loose, which waits on held, which is in no queue, so it never starts (`add held` enqueues it; `start held` runs it by hand).")
    #expect(try Self.now("afterZero", in: w)
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
    #expect(Why.render(k, in: w) == """
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
    #expect(try Self.now("later", in: w)
      == "Now: later waits on m, which is ready, but every slot of main is held by main.wait1, which blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for later: a deadlock, so none of them can ever finish.")
    #expect(try Self.now("main.wait1", in: w)
      == "Now: main.wait1 blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for later, which waits on m, which is ready, but every slot of main is held by main.wait1: a deadlock, so none of them can ever finish.")
  }

  @Test("A long chain is told by its ends, the middle counted, in one short line")
  func longChainIsShortened() throws {
    var w = World()
    let paused = try w.createQueue(name: "paused")
    try w.suspend(paused)
    var previous = try w.addOperation(OperationSpec(name: "c0"), to: paused)
    for i in 1...10_000 { previous = try w.addOperation(OperationSpec(name: "c\(i)"), to: paused, dependencies: [previous]) }
    let line = try Self.now("c10000", in: w)
    #expect(line == "Now: c10000 waits on c9999, which waits on c9998, which waits on c9997, … 9,995 more …, which waits on c1, which waits on c0, which is ready, but paused is suspended: resume it.")
  }
}
