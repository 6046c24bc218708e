import Testing

@testable import OpLabCore

/// Worlds far larger than lessons, to prove no path recurses on user-sized structures
/// (a stack overflow would crash the test process) and nothing is quadratic.
@Suite(.serialized) struct ScaleTests {
  /// Deep enough that a recursive walk would overflow any thread's stack (a frame takes at
  /// least 48 bytes: 9.6 MB against the main thread's 8 MB), and no deeper: a debug build
  /// takes most of a minute of a core for it (BENCHMARKS.md measures 1,000,000 in release).
  static let chainLength = 200_000
  static let fanIn = 100_000

  @Test("A 200,000-long dependency chain simulates, is diagnosed and explained without recursion")
  func longChain() throws {
    var w = World()
    var previous: OpID?
    for i in 0..<Self.chainLength {
      previous = try w.createOperation(OperationSpec(name: "c\(i)"), dependencies: previous.map { [$0] } ?? [])
    }
    // Close the chain into one huge cycle: the diagnosis must find it iteratively.
    try w.addDependency(OpID(0), on: OpID(Self.chainLength - 1))
    #expect(w.dependencyCycles().first?.count == Self.chainLength)
    for i in 0..<Self.chainLength { try w.enqueue(OpID(i), on: .main) }
    #expect(w.runUntilIdle() != .idle)  // the cycle stalls everything
    w.cancel(OpID(0))  // cancel breaks the cycle: the head is skipped and the chain runs
    #expect(w.runUntilIdle() == .idle)
    #expect(w.now == Self.chainLength - 1)
    #expect(w.operation(OpID(0)).outcome == .cancelled)
    let h = w.history(of: OpID(Self.chainLength - 1))
    #expect(h.finished != nil)
  }

  @Test("A 100,000-wide fan-in releases its dependent once, after the last dependency")
  func wideFanIn() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 8)
    let deps = try (0..<Self.fanIn).map { try w.addOperation(OperationSpec(name: "d\($0)", duration: 1 + $0 % 3), to: q) }
    let sink = try w.addOperation(OperationSpec(name: "sink"), to: q, dependencies: deps)
    #expect(w.runUntilIdle() == .idle)
    let ready = w.trace.filter { $0.op == sink && $0.kind == .ready }
    #expect(ready.count == 1)
    #expect(w.operation(sink).startedAt == deps.map { w.operation($0).finishedAt ?? 0 }.max())
    #expect(w.invariantViolations() == [])
  }
}
