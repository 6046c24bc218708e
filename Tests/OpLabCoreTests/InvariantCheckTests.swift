import Testing

@testable import OpLabCore

/// The invariants checked as every action returns, in debug builds (`OPLAB_INVARIANTS`).
@Suite struct InvariantCheckTests {
  @Test("Debug builds check the invariants after every action; release builds never do")
  func test_checks_only_in_debug() {
    #if DEBUG
    #expect(World.checksInvariants)
    #else
    #expect(!World.checksInvariants)
    #endif
  }

  @Test("Small worlds are checked after every action, large ones once the actions since the last check are half their size")
  func test_check_schedule() {
    let small = World.invariantCheckSize
    #expect(World.isInvariantCheckDue(size: 0, actionsSinceCheck: 1))
    #expect(World.isInvariantCheckDue(size: small, actionsSinceCheck: 1))
    #expect(!World.isInvariantCheckDue(size: small + 2, actionsSinceCheck: 1))
    #expect(!World.isInvariantCheckDue(size: 400_000, actionsSinceCheck: 199_999))
    #expect(World.isInvariantCheckDue(size: 400_000, actionsSinceCheck: 200_000))
  }

  @Test("A broken invariant stops the program at the action after it, in debug builds")
  func test_violation_stops_the_program() async {
    // OPLAB_INVARIANTS is defined for the core's target, not this one: ask the core.
    guard World.checksInvariants else { return }
    await #expect(processExitsWith: .failure) {
      var w = World()
      let a = try w.createOperation(OperationSpec(name: "a"))
      _ = try w.createOperation(OperationSpec(name: "b"), dependencies: [a])
      w.readiness[a.slot].firstDependent = -1  // b lists a, but a no longer lists b
      w.setPlatform(.linux)
    }
  }

  @Test("A long session of actions keeps every invariant, checked as each action returns")
  func test_session_keeps_invariants() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    try w.setFrames(every: 3, until: 60)
    var previous: OpID?
    for i in 0..<40 {
      let op = try w.addOperation(OperationSpec(name: "o\(i)", duration: Tick(1 + i % 4)), to: q, dependencies: previous.map { [$0] } ?? [])
      if i % 7 == 0 { w.cancel(op) }
      if i % 5 == 0 { try w.tap(at: w.now + 1) }
      if i % 3 == 0 { try w.step(2) }
      previous = i % 2 == 0 ? op : previous
    }
    #expect(w.runUntilIdle() == .idle)
    #expect(w.invariantViolations() == [])
  }
}
