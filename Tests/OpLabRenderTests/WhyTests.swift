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
}
