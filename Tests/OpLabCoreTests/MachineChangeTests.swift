import Testing

@testable import OpLabCore

/// Changing the cores between two limits while work runs takes effect at once.
@Suite struct MachineChangeTests {
  @Test("Three 4-tick operations on 2 cores for one tick, then on 1 core: each has 10/3 ticks of work left, shared three ways, so all finish at t=11")
  func limitLoweredWhileRunning() throws {
    var w = World()
    try w.setCores(2)
    let q = try w.createQueue(name: "q")
    let ops = try ["a", "b", "c"].map { try w.addOperation(OperationSpec(name: $0, duration: 4), to: q) }
    try w.step(1)
    try w.setCores(1)
    w.runUntilIdle()
    let finishes = w.trace.compactMap { event -> (OpID, Tick)? in
      if case .finished = event.kind, let op = event.op { return (op, event.tick) }
      return nil
    }
    #expect(finishes.map(\.0) == ops && finishes.allSatisfy { $0.1 == 11 })
    #expect(w.invariantViolations() == [])
  }
}
