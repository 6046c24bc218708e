import Testing

@testable import OpLabCore

/// Lock-order deadlocks join the stall diagnosis with their wait-for cycle (#22).
@Suite struct LockDeadlockTests {
  @Test("A holds L1 and wants L2, B holds L2 and wants L1: the run stalls with the wait-for cycle")
  func lockOrder() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createLock(name: "L1")
    try w.createLock(name: "L2")
    let mark = w.trace.count
    let a = try w.addOperation(SharedStateTests.stepped("a", [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]), to: q)
    let b = try w.addOperation(SharedStateTests.stepped("b", [.lock("L2"), .lock("L1"), .unlock("L1"), .unlock("L2")]), to: q)
    let verdict = w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started",
        "0 a locked:L1", "0 b locked:L2",
        "1 a waitsFor:L2", "1 b waitsFor:L1",
      ])
    #expect(
      verdict
        == .stalled(
          Diagnosis(
            stuck: [StuckOperation(op: a, cause: .waitingForLock(1, heldBy: b)), StuckOperation(op: b, cause: .waitingForLock(0, heldBy: a))],
            cycles: [], lockCycles: [[a, b]])))
    #expect(w.waitChain(of: b).map(\.op) == [b, a])
  }

  @Test("Three operations in a ring of locks form one cycle; an operation that only waits is not in it")
  func ring() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    for l in ["L0", "L1", "L2"] { try w.createLock(name: l) }
    var ids: [OpID] = []
    for i in 0..<3 {
      ids.append(try w.addOperation(SharedStateTests.stepped("o\(i)", [.lock("L\(i)"), .lock("L\((i + 1) % 3)")]), to: q))
    }
    let late = try w.addOperation(SharedStateTests.stepped("late", [.compute(0), .compute(0), .lock("L0")]), to: q)
    guard case .stalled(let d) = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(d.lockCycles == [ids])
    #expect(d.stuck.contains(StuckOperation(op: late, cause: .waitingForLock(0, heldBy: ids[0]))))
  }

  @Test("Locks taken in the same order never deadlock")
  func sameOrder() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createLock(name: "L1")
    try w.createLock(name: "L2")
    let steps: [Step] = [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]
    try w.addOperation(SharedStateTests.stepped("a", steps), to: q)
    try w.addOperation(SharedStateTests.stepped("b", steps), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.lockCycles().isEmpty)
  }
}
