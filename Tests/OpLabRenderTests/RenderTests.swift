import Foundation
import OpLabCore
import Testing

@testable import OpLabRender

/// Renderers are pure functions of a world's trace and a width: golden files pin their text.
@Suite struct RenderTests {
  /// The classic photo pipeline: downloads then filters, one download cancelled, one failing.
  static func pipeline() throws -> World {
    var w = World()
    let downloads = try w.createQueue(name: "downloads", maxConcurrent: 2)
    let filters = try w.createQueue(name: "filters", maxConcurrent: 1)
    let d1 = try w.addOperation(OperationSpec(name: "d1", duration: 4), to: downloads)
    let d2 = try w.addOperation(OperationSpec(name: "d2", duration: 3, cancellation: .every(1)), to: downloads)
    let d3 = try w.addOperation(OperationSpec(name: "d3", duration: 5, failsAt: 2), to: downloads)
    try w.addOperation(OperationSpec(name: "f1", duration: 2, completion: 1), to: filters, dependencies: [d1])
    try w.addOperation(OperationSpec(name: "f2", duration: 2, bailsIfDependencyCancelled: true), to: filters, dependencies: [d2])
    try w.addOperation(OperationSpec(name: "f3", duration: 2), to: filters, dependencies: [d3])
    try w.step(1)
    w.cancel(d2)
    w.runUntilIdle()
    return w
  }

  @Test("Timeline of the pipeline, Unicode, 80 columns")
  func timelineUnicode() throws {
    assertSnapshot(Timeline.render(try Self.pipeline(), width: 80), named: "timeline-unicode")
  }

  @Test("Timeline of the pipeline, ASCII only")
  func timelineASCII() throws {
    let text = Timeline.render(try Self.pipeline(), width: 80, ascii: true)
    let ascii = text.unicodeScalars.allSatisfy(\.isASCII)
    #expect(ascii)
    assertSnapshot(text, named: "timeline-ascii")
  }

  @Test("A timeline window shows only the ticks asked for")
  func timelineWindow() throws {
    assertSnapshot(Timeline.render(try Self.pipeline(), from: 3, to: 7, width: 80), named: "timeline-window")
  }

  @Test("Event log with reasons")
  func events() throws {
    assertSnapshot(EventLog.render(try Self.pipeline()), named: "events")
  }

  @Test("why explains waiting, cancellation and bailing")
  func why() throws {
    let w = try Self.pipeline()
    let text = ["d2", "f2", "f3"].map { Why.render(w.operationID(named: $0)!, in: w) }.joined(separator: "---\n")
    assertSnapshot(text, named: "why")
  }

  @Test("Status and graph")
  func statusAndGraph() throws {
    let w = try Self.pipeline()
    assertSnapshot(Status.render(w) + "---\n" + Graph.render(w), named: "status-graph")
  }

  @Test("Graph marks a dependency cycle")
  func graphCycle() throws {
    var w = World()
    let a = try w.createOperation(OperationSpec(name: "a"))
    let b = try w.createOperation(OperationSpec(name: "b"), dependencies: [a])
    try w.addDependency(a, on: b)
    assertSnapshot(Graph.render(w), named: "graph-cycle")
  }

  @Test("Exports: Mermaid gantt and Chrome trace JSON that parses")
  func exports() throws {
    let w = try Self.pipeline()
    assertSnapshot(Exporters.mermaid(w), named: "mermaid")
    let trace = Exporters.chromeTrace(w)
    assertSnapshot(trace, named: "chrome-trace")
    let json = try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any]
    let events = json?["traceEvents"] as? [[String: Any]] ?? []
    #expect(events.contains { $0["ph"] as? String == "X" && $0["name"] as? String == "d1" && $0["dur"] as? Int == 4000 })
  }

  @Test("Names with control characters and quotes are escaped in JSON")
  func jsonEscaping() {
    #expect(Exporters.json("a\"b\\c\n\u{1B}[31m") == #""a\"b\\c\n\u001b[31m""#)
  }
}
