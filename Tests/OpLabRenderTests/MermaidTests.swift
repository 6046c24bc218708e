import OpLabCore
import Testing

@testable import OpLabRender

/// The Mermaid export: a section per queue, outcomes told apart, suspensions drawn, and
/// text Mermaid's gantt grammar reads as meant (#18).
@Suite struct MermaidTests {
  /// Problems Mermaid's gantt grammar (its `gantt.jison` lexer and `ganttDb` task data)
  /// would have with a chart: a line that is not a directive, a section or a task; a task
  /// name a keyword would swallow or a character would cut; tags not first or unknown; an
  /// id used twice; times that are not whole seconds in order; a milestone with a length.
  static func problems(_ chart: String) -> [String] {
    var problems: [String] = []
    var ids = Set<String>()
    let lines = chart.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard lines.first == "gantt", lines.last == "" else { return ["not a gantt chart ending in a newline"] }
    for line in lines.dropFirst().dropLast() {
      guard line.hasPrefix("  ") else { problems.append("not indented: \(line)"); continue }
      let body = line.dropFirst(2)
      if ["title OpLab timeline (1 tick = 1 s)", "dateFormat X", "axisFormat %s", "todayMarker off"].contains(String(body)) { continue }
      if body.hasPrefix("section ") {
        if body.contains(where: { ":#;%".contains($0) }) { problems.append("section name cut: \(line)") }
        continue
      }
      let parts = body.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].contains(where: { "#;%".contains($0) }) else { problems.append("not a task: \(line)"); continue }
      let name = parts[0].lowercased()
      if let word = Exporters.mermaidKeywords.first(where: { name.hasPrefix($0 + " ") || name.hasPrefix($0 + ".") }) {
        problems.append("'\(word)' starts a statement: \(line)")
      }
      var data = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      var tags: [String] = []
      while let first = data.first, ["active", "done", "crit", "milestone"].contains(first) { tags.append(first); data.removeFirst() }
      guard data.count == 3, let start = Int(data[1]), let end = Int(data[2]), start <= end else { problems.append("bad data: \(line)"); continue }
      if !ids.insert(data[0]).inserted { problems.append("id used twice: \(data[0])") }
      if !data[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { problems.append("bad id: \(data[0])") }
      if tags.contains("milestone") != (start == end) { problems.append("a milestone needs no length, a bar one: \(line)") }
    }
    return problems
  }

  /// A world with every outcome: work done, running, cancelled, skipped, failed, returned
  /// early, run on after cancel(); a queue suspended then resumed, and suspended again; an
  /// operation named like a Mermaid keyword; one cancelled in no queue.
  static func outcomes() throws -> World {
    var w = World()
    let downloads = try w.createQueue(name: "downloads", maxConcurrent: 1)
    let filters = try w.createQueue(name: "filters", maxConcurrent: 1)
    let paused = try w.createQueue(name: "paused")
    try w.suspend(paused)
    try w.addOperation(OperationSpec(name: "a", duration: 2), to: downloads)
    let b = try w.addOperation(OperationSpec(name: "b", duration: 3, cancellation: .every(1)), to: downloads)
    let c = try w.addOperation(OperationSpec(name: "c"), to: downloads)
    try w.addOperation(OperationSpec(name: "d", duration: 2, failsAt: 1), to: downloads)
    try w.addOperation(OperationSpec(name: "e", bailsIfDependencyCancelled: true), to: filters, dependencies: [c])
    let f = try w.addOperation(OperationSpec(name: "f", duration: 20), to: .main)
    try w.addOperation(OperationSpec(name: "title"), to: paused)
    let loose = try w.createOperation(OperationSpec(name: "loose"))
    w.cancel(c)
    w.cancel(loose)
    try w.step(1)
    w.cancel(f)
    try w.run(until: 3)
    w.cancel(b)
    try w.run(until: 5)
    try w.resume(paused)
    try w.run(until: 6)
    try w.suspend(paused)
    try w.run(until: 8)
    return w
  }

  @Test("One section per queue, a crit milestone naming each outcome that is not success, and suspensions as bars")
  func everyOutcome() throws {
    let text = Exporters.mermaid(try Self.outcomes())
    #expect(
      text == """
        gantt
          title OpLab timeline (1 tick = 1 s)
          dateFormat X
          axisFormat %s
          todayMarker off
          section main
          f executing :active, o5_0, 0, 1
          f executing, cancel requested :crit, active, o5_1, 1, 9
          section downloads
          a executing :done, o0_0, 0, 2
          b ready :o1_0, 0, 2
          b executing :crit, o1_1, 2, 3
          b cancelled :crit, milestone, o1_end, 3, 3
          c ready :o2_0, 0, 3
          c skipped (cancelled before it started) :crit, milestone, o2_end, 3, 3
          d ready :o3_0, 0, 3
          d executing :crit, o3_1, 3, 4
          d failed :crit, milestone, o3_end, 4, 4
          section filters
          e waiting :o4_0, 0, 3
          e returned early (a dependency was cancelled) :crit, milestone, o4_end, 3, 3
          section paused
          paused suspended :q3_s0, 0, 5
          paused suspended :q3_s1, 6, 9
          op title ready :o6_0, 0, 5
          op title executing :done, o6_1, 5, 6
          section in no queue
          loose cancelled :crit, milestone, o7_end, 0, 0

        """)
    #expect(Self.problems(text) == [])
  }

  @Test("A queue or an operation named like a Mermaid keyword is not read as that statement")
  func keywordNames() throws {
    var w = World()
    let title = try w.createQueue(name: "title")
    try w.suspend(title)
    try w.addOperation(OperationSpec(name: "gantt.2"), to: title)
    try w.addOperation(OperationSpec(name: "Section"), to: title)
    try w.addOperation(OperationSpec(name: "titles"), to: title)
    try w.step(1)
    let text = Exporters.mermaid(w)
    #expect(
      text.hasSuffix(
        """
          section title
          queue title suspended :q1_s0, 0, 2
          op gantt.2 ready :o0_0, 0, 2
          op Section ready :o1_0, 0, 2
          titles ready :o2_0, 0, 2

        """))
    #expect(Self.problems(text) == [])
  }

  @Test("Ids stay unique when names differ only in characters an id cannot hold")
  func uniqueIDs() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(OperationSpec(name: "a-b"), to: q)
    try w.addOperation(OperationSpec(name: "a_b"), to: q)
    try w.addOperation(OperationSpec(name: "a.b"), to: q)
    w.runUntilIdle()
    let text = Exporters.mermaid(w)
    #expect(
      text.hasSuffix(
        """
          section q
          a-b executing :done, o0_0, 0, 1
          a_b executing :done, o1_0, 0, 1
          a.b executing :done, o2_0, 0, 1

        """))
    #expect(Self.problems(text) == [])
  }

  @Test("The checker itself catches what Mermaid would misread")
  func checkerCatchesProblems() {
    #expect(Self.problems("gantt\n  title x :done, t1, 0, 1\n") == ["'title' starts a statement:   title x :done, t1, 0, 1"])
    #expect(Self.problems("gantt\n  a :t1, 0, 1\n  b :t1, 1, 2\n") == ["id used twice: t1"])
    #expect(Self.problems("gantt\n  a :milestone, t1, 0, 1\n") == ["a milestone needs no length, a bar one:   a :milestone, t1, 0, 1"])
  }
}
