import OpLabCore
import Testing

@testable import OpLabRender

/// Dependency cycles are reported once wherever they are printed, and long ones are
/// shortened by one helper (``Chains``): a 10,000-long cycle used to print the whole cycle
/// once per member in a stall report (991 MB).
@Suite struct CycleTextTests {
  /// Operations c1…cN on a suspended queue, each after the one before, the loop closed by
  /// `c1` depending on `cN`; then the queue is resumed and the world run until it stalls.
  static func cycle(_ n: Int) throws -> (World, Diagnosis) {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    var previous: OpID?
    var first: OpID?
    for i in 1...n {
      let op = try w.addOperation(OperationSpec(name: "c\(i)"), to: q, dependencies: previous.map { [$0] } ?? [])
      first = first ?? op
      previous = op
    }
    if let first, let previous { try w.addDependency(first, on: previous) }
    try w.resume(q)
    guard case .stalled(let d) = w.runUntilIdle() else { throw CycleTextError.noStall }
    return (w, d)
  }
  enum CycleTextError: Error { case noStall }

  @Test("A short cycle is named in full, once: in the stall report, in graph and in why")
  func shortCycle() throws {
    let (w, d) = try Self.cycle(4)
    #expect(
      Diagnoses.render(d, in: w) == """
          cycle: c1 → c2 → c3 → c4 → c1 — none of these can ever start; cancel one to break it

        """)
    #expect(Graph.render(w).hasSuffix("cycle 1: c1 → c2 → c3 → c4 → c1 — none of these can ever start; cancel one to break it\n"))
    #expect(
      Why.render(OpID(2), in: w).hasSuffix(
        "Now: c3 is in a dependency cycle (c1 → c2 → c3 → c4 → c1): none of them can ever start; cancel one to break it.\n"))
  }

  @Test("A 10,000-long cycle takes one short line in the stall report, in graph's summary and in why")
  func longCycle() throws {
    let (w, d) = try Self.cycle(10_000)
    let line = "c1 → c2 → c3 → … 9,994 more … → c9998 → c9999 → c10000 → c1"
    #expect(Diagnoses.render(d, in: w) == "  cycle: \(line) — none of these can ever start; cancel one to break it\n")
    // graph: one line per operation (the full view), then the cycle once, shortened.
    let graph = Graph.render(w)
    #expect(graph.split(separator: "\n").count == 10_001)
    #expect(graph.hasSuffix("cycle 1: \(line) — none of these can ever start; cancel one to break it\n"))
    let why = Why.render(OpID(4), in: w)
    #expect(why.hasSuffix("Now: c5 is in a dependency cycle (\(line)): none of them can ever start; cancel one to break it.\n"))
    #expect(why.utf8.count < 400)
  }

  @Test("A stall report is bounded: operations waiting on a long cycle are counted past the first lines, and many cycles too")
  func stuckListIsBounded() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    // 30 two-member cycles, and 1,000 operations each waiting on the one before, the first
    // on the first cycle.
    var pairs: [OpID] = []
    for i in 1...30 {
      let a = try w.addOperation(OperationSpec(name: "a\(i)"), to: q)
      let b = try w.addOperation(OperationSpec(name: "b\(i)"), to: q, dependencies: [a])
      try w.addDependency(a, on: b)
      pairs.append(a)
    }
    var previous = pairs[0]
    for i in 1...1_000 { previous = try w.addOperation(OperationSpec(name: "w\(i)"), to: q, dependencies: [previous]) }
    try w.resume(q)
    guard case .stalled(let d) = w.runUntilIdle() else { throw CycleTextError.noStall }
    let text = Diagnoses.render(d, in: w)
    let lines = text.split(separator: "\n")
    #expect(lines.count == Diagnoses.stuckShown + 2)
    #expect(lines.first == "  cycle: a1 → b1 → a1 — none of these can ever start; cancel one to break it")
    #expect(lines[1] == "  cycle: a2 → b2 → a2 — none of these can ever start; cancel one to break it")
    // 20 cycles shown (40 operations): 10 more cycles' 20 members and the 1,000 waiting.
    #expect(lines[Diagnoses.stuckShown] == "  … and 1,020 more stuck operations (status lists them all; why OP says what holds one)")
    #expect(lines[Diagnoses.stuckShown + 1] == "  … and 10 more cycles (graph lists them all)")
  }

  @Test("Chains shortens past eight members and groups thousands")
  func chains() {
    #expect(Chains.arrows(count: 8) { "o\($0)" } == "o0 → o1 → o2 → o3 → o4 → o5 → o6 → o7")
    #expect(Chains.arrows(count: 9) { "o\($0)" } == "o0 → o1 → o2 → … 3 more … → o6 → o7 → o8")
    #expect(Chains.list(count: 8, limit: 6) { "o\($0)" } == "o0, o1, o2, o3, o4, o5 and 2 more")
    #expect(Chains.grouped(0) == "0")
    #expect(Chains.grouped(999) == "999")
    #expect(Chains.grouped(1_000) == "1,000")
    #expect(Chains.grouped(1_234_567) == "1,234,567")
  }
}
