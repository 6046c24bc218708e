import Testing

@testable import OpLabCore

/// Every stall report counts the same operations: a diagnosis lists exactly
/// ``World/unfinishedOperations()``, whichever wait or run stalled and where it began (#18).
@Suite struct DiagnosisCountTests {
  @Test("A wait from main that stalls lists every unfinished operation, its own chain first, as run does after it")
  func waitFromMainCountsEverything() throws {
    var w = World()
    let work = try w.createQueue(name: "work", maxConcurrent: 1)
    try w.suspend(work)
    let a = try w.addOperation(OperationSpec(name: "a", duration: 2), to: work)
    let h = try w.createOperation(OperationSpec(name: "h"))
    let c = try w.addOperation(OperationSpec(name: "c"), to: work, dependencies: [h])
    guard case .stalled(let waited) = w.waitOnMainThread(nil) else { Issue.record("expected a stall"); return }
    let wait = try #require(w.operationID(named: "main.wait1"))
    #expect(
      waited.stuck == [
        StuckOperation(op: wait, cause: .mainThreadWaitingFor(a)),
        StuckOperation(op: a, cause: .queueSuspended(work)),
        StuckOperation(op: c, cause: .dependencyNotInQueue(h)),
        StuckOperation(op: h, cause: .notInQueue),
      ])
    guard case .stalled(let ran) = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(
      ran.stuck == [
        StuckOperation(op: a, cause: .queueSuspended(work)),
        StuckOperation(op: c, cause: .dependencyNotInQueue(h)),
        StuckOperation(op: wait, cause: .mainThreadWaitingFor(a)),
        StuckOperation(op: h, cause: .notInQueue),
      ])
    #expect(w.unfinishedOperations() == [a, c, wait, h])
  }

  @Test("An operation in no queue that nothing waits on is unfinished too, listed after those in queues")
  func operationInNoQueueIsCounted() throws {
    var w = World()
    let held = try w.createOperation(OperationSpec(name: "held"))
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    let a = try w.addOperation(OperationSpec(name: "a"), to: q)
    guard case .stalled(let d) = w.run(untilFinished: a) else { Issue.record("expected a stall"); return }
    #expect(d.stuck == [StuckOperation(op: a, cause: .queueSuspended(q)), StuckOperation(op: held, cause: .notInQueue)])
  }

  @Test("In random worlds, with waits from main, every diagnosis lists each unfinished operation once", arguments: Sweep.seeds(quick: 100, long: 300))
  func diagnosisListsTheUnfinished(seed: UInt64) {
    let (sim, _, _) = RandomSweepTests.play(seed: seed, machine: true, cores: Int(seed % 3) + 1)
    let w = sim.world
    let unfinished = w.unfinishedOperations()
    #expect(Set(unfinished).count == unfinished.count, "seed \(seed)")
    #expect(Set(unfinished) == Set(w.operationIDs.filter { !w.operation($0).isFinished }), "seed \(seed)")
    for scope in [[], Array(unfinished.suffix(1)), Array(unfinished.prefix(2))] {
      let listed = w.diagnose(startingWith: scope).stuck.map(\.op)
      #expect(listed.count == unfinished.count && Set(listed) == Set(unfinished), "seed \(seed), from \(scope)")
      #expect(Array(listed.prefix(scope.count)) == scope, "seed \(seed): the scope comes first")
    }
  }
}
