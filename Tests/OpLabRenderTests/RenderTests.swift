import Foundation
import OpLabCore
import TestSupport
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

  @Test("Timeline of the pipeline, Unicode and ASCII, narrow and wide", arguments: [(false, 40), (false, 80), (false, 120), (true, 40), (true, 80)])
  func timeline(ascii: Bool, width: Int) throws {
    let text = Timeline.render(try Self.pipeline(), width: width, ascii: ascii)
    #expect(text.split(separator: "\n").allSatisfy { $0.count <= width })
    if ascii {
      let plain = text.unicodeScalars.allSatisfy(\.isASCII)
      #expect(plain)
    }
    assertSnapshot(text, named: "timeline-\(ascii ? "ascii" : "unicode")-\(width)")
  }

  @Test("A long run is compressed with its scale stated, and long names are shortened the same way")
  func timelineCompressed() throws {
    var w = World()
    let q = try w.createQueue(name: "a-rather-long-queue-name", maxConcurrent: 1)
    for i in 1...3 { try w.addOperation(OperationSpec(name: "download-image-number-\(i)", duration: 60), to: q) }
    try w.suspend(q)
    try w.step(10)
    try w.resume(q)
    w.runUntilIdle()
    let text = Timeline.render(w, width: 60)
    #expect(text.contains("1 column = 5 ticks"))
    #expect(text.contains("downloa…-number-1"))
    #expect(text.split(separator: "\n").allSatisfy { $0.count <= 60 })
    assertSnapshot(text, named: "timeline-compressed")
  }

  @Test("Far along the clock, a narrow window's title still fits: one tick a line when the range does not")
  func farWindowTitleFits() throws {
    var w = World()
    try w.run(until: World.maxTick)
    let q = try w.createQueue(name: "renders")
    try w.addOperation(OperationSpec(name: "w1", duration: 8), to: q)
    w.runUntilIdle()
    let text = Timeline.render(w, queues: [q], from: World.maxTick, width: 40)
    let rows = text.split(separator: "\n").map(String.init)
    #expect(rows.prefix(2) == ["from t=\(World.maxTick)", "to t=\(World.maxTick + 8)"], "\(rows)")
    #expect(rows.allSatisfy { Names.width($0) <= 40 }, "\(rows)")
  }

  @Test("An operation held behind a running barrier block holds a slot: drawn ▒ (ASCII %), with its legend item, not as waiting for one")
  func heldBehindBarrier() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    try w.addBarrier(to: q, duration: 3)
    try w.step(1)
    try w.addOperation(OperationSpec(name: "b", duration: 1), to: q)
    w.runUntilIdle()
    for (ascii, row, item) in [
      (false, "  b           ▒▒█✓", "▒ holds a slot, behind a barrier"), (true, "  b           %%#v", "% holds a slot, behind a barrier"),
    ] {
      let text = Timeline.render(w, width: 80, ascii: ascii)
      let rows = text.split(separator: "\n").map(String.init)
      #expect(rows.contains(row), "\(text)")
      #expect(text.contains(item), "\(text)")
    }
    // Without such an operation the legend does not list it.
    var plain = World()
    try plain.addOperation(OperationSpec(name: "a", duration: 1), to: try plain.createQueue(name: "q"))
    plain.runUntilIdle()
    #expect(!Timeline.render(plain, width: 80).contains("behind a barrier"))
  }

  @Test("A completion block is drawn whole, just after its operation's finish mark, beside a dependent that starts as it does (rule 36)")
  func completionColumns() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let a = try w.addOperation(OperationSpec(name: "a", duration: 2, completion: 3), to: q)
    try w.addOperation(OperationSpec(name: "b", duration: 2), to: q, dependencies: [a])
    try w.addOperation(OperationSpec(name: "one", duration: 1, completion: 1), to: q)
    w.runUntilIdle()
    let rows = Timeline.render(w, width: 40).split(separator: "\n").map(String.init)
    // a finishes at t=2 (✓) and its completion runs t=2-5: the mark takes column 2, and the
    // block, drawn just after it so that none of it is hidden, columns 3 to 5 (its steps'
    // marks, if any, move with it); b runs t=2-4. A one-tick block likewise.
    #expect(rows.contains("  a      ██✓ccc"), "\(rows)")
    #expect(rows.contains("  b      ··██✓"), "\(rows)")
    #expect(rows.contains("  one    █✓c"), "\(rows)")
  }

  @Test("why says a priority change sent the operation to the tail of its level's line (rule 23)")
  func whyAfterPriorityChange() throws {
    var w = World()
    let q = try w.createQueue(name: "printer", maxConcurrent: 1)
    try w.suspend(q)
    let x1 = try w.addOperation(OperationSpec(name: "x1", duration: 1), to: q)
    try w.addOperation(OperationSpec(name: "x2", duration: 1, priority: .high), to: q)
    try w.addOperation(OperationSpec(name: "x3", duration: 1, priority: .high), to: q)
    w.setPriority(x1, to: .high)
    try w.resume(q)
    w.runUntilIdle()
    let lines = Why.render(x1, in: w).split(separator: "\n").map(String.init)
    #expect(lines.contains("Its queuePriority became high at t=0."), "\(lines)")
    #expect(
      lines.contains(
        "While it waited for a slot, x3 started at t=1 (same priority, ahead in the line: x1's priority change at t=0 put it at the tail)."),
      "\(lines)")
  }

  @Test("A timeline window shows only the ticks asked for")
  func timelineWindow() throws {
    assertSnapshot(Timeline.render(try Self.pipeline(), from: 3, to: 7, width: 80), named: "timeline-window")
  }

  @Test("Lanes read for a window keep exactly the full lanes' segments overlapping it and marks inside it (and every cancel request)")
  func windowedLanes() throws {
    let w = try Self.pipeline()
    let full = Lanes(w)
    for window in [0...0, 0...3, 1...1, 2...5, 3...7, 6...20, 9...9, 40...50] {
      let part = Lanes(w, window: window)
      #expect(part.window == window && part.now == full.now)
      for op in w.operationIDs {
        let segments = (full.segments[op] ?? []).filter { $0.from <= window.upperBound && $0.to > window.lowerBound }
        let marks = (full.marks[op] ?? []).filter { window.contains($0.tick) || $0.kind == .cancelRequested }
        #expect((part.segments[op] ?? []) == segments, "\(w.name(op)) in \(window)")
        #expect((part.marks[op] ?? []) == marks, "\(w.name(op)) in \(window)")
        #expect(part.hasAnything(of: op, in: window) == full.hasAnything(of: op, in: window))
      }
    }
  }

  @Test("A window shows only operations that did something in it, labelled as wide as their names")
  func windowRowsAndLabels() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "a-long-operation-name", duration: 3), to: q)
    try w.addOperation(OperationSpec(name: "b", duration: 3), to: q)
    w.runUntilIdle()
    let whole = Timeline.render(w, width: 80)
    let window = Timeline.render(w, from: 4, to: 6, width: 80)
    #expect(whole.contains("a-long-operation-name") && !window.contains("a-long-operation-name"))
    #expect(window.contains("  b "))
    // Rows start their lanes after the label column: narrower when the long name is not shown.
    func laneStart(_ text: String) -> Int? {
      text.split(separator: "\n").first { $0.hasPrefix("  b ") }.map { $0.count - $0.drop { $0 != "b" }.dropFirst().drop { $0 == " " }.count }
    }
    #expect((laneStart(window) ?? 0) < (laneStart(whole) ?? 0))
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

  @Test("why names every dependency it waited for, not only the last to finish")
  func whyNamesEveryDependency() throws {
    var w = World()
    let dl = try w.createQueue(name: "dl", maxConcurrent: 1)
    let d1 = try w.addOperation(OperationSpec(name: "d1", duration: 2), to: dl)
    let d3 = try w.addOperation(OperationSpec(name: "d3", duration: 3), to: dl)
    let f1 = try w.createOperation(OperationSpec(name: "f1", duration: 1), dependencies: [d1])
    try w.enqueue(f1, on: dl)
    let f3 = try w.createOperation(OperationSpec(name: "f3", duration: 2), dependencies: [f1, d3])
    try w.enqueue(f3, on: dl)
    w.runUntilIdle()
    #expect(
      Why.render(f3, in: w).split(separator: "\n").map(String.init) == [
        "f3 was created at t=0.",
        "It was added to dl at t=0 (waits on 2 unfinished dependencies).",
        "Its dependencies finished while it waited: d3 at t=5, f1 at t=6.",
        "It became ready at t=6 (dependency f1 finished).",
        "It started at t=6 (slot freed by f1).",
        "It finished at t=8 (work done).",
      ])
    // One dependency: the ready sentence says it all.
    #expect(!Why.render(f1, in: w).contains("Its dependencies finished"))
  }

  @Test("status keeps isCancelled on an operation that finished its work all the same")
  func statusKeepsTheCancelledFlag() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let plain = try w.addOperation(OperationSpec(name: "plain", duration: 4), to: q)  // never checks
    let waiting = try w.addOperation(OperationSpec(name: "waiting", duration: 1), to: q)
    try w.step(1)
    w.cancel(plain)
    w.cancel(waiting)
    let all = { Status.render(w).split(separator: "\n").map(String.init) }
    let lines = {
      all().filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") && !$0.hasPrefix("  operationCount") && !$0.hasPrefix("  operations:") }
    }
    let flags = { all().filter { $0.hasPrefix("    isReady") } }
    #expect(lines() == ["  plain  executing since t=0 — cancelled", "  waiting  ready, waiting for a slot — cancelled"])
    #expect(
      flags() == [
        "    isReady true, isExecuting true, isFinished false, isCancelled true; no dependencies; runs on one of q's threads, not the main thread: OperationQueue.current is q",
        "    isReady true, isExecuting false, isFinished false, isCancelled true; no dependencies",
      ])
    w.runUntilIdle()
    #expect(lines() == ["  plain  finished at t=4: succeeded — isCancelled is true", "  waiting  finished at t=4: cancelled"])
    // Finished, both read only what can still differ: isFinished and isCancelled.
    #expect(
      all().filter { $0.hasPrefix("    is") } == [
        "    isFinished true, isCancelled true; no dependencies",
        "    isFinished true, isCancelled true; no dependencies",
      ])
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

  @Test("slots says a cancelled operation the queue skipped was skipped, not that it worked t=2-2")
  func slotsSkipped() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "a", duration: 2), to: q)
    let b = try w.addOperation(OperationSpec(name: "b", duration: 3), to: q)
    try w.addOperation(OperationSpec(name: "c", duration: 1), to: q)
    w.cancel(b)
    w.runUntilIdle()
    #expect(
      Slots.render(w, queue: q) == """
        q: max 1, 1 slot used so far
          slot 1: a t=0-2, b skipped at t=2, c t=2-3

        """)
  }

  @Test("Slots and narration")
  func slotsAndNarrate() throws {
    let w = try Self.pipeline()
    assertSnapshot(Slots.render(w, queue: w.queueID(named: "downloads")!) + "---\n" + Narrate.render(w), named: "slots-narrate")
  }

  @Test("Mermaid gantt: one section per queue, states tagged, each outcome that is not success a crit milestone")
  func mermaid() throws {
    let text = Exporters.mermaid(try Self.pipeline())
    #expect(MermaidTests.problems(text) == [])
    assertSnapshot(text, named: "mermaid")
  }

  @Test("Chrome trace JSON parses, names every queue and op, and keeps each op on its own lane")
  func chromeTrace() throws {
    let w = try Self.pipeline()
    let trace = Exporters.chromeTrace(w)
    assertSnapshot(trace, named: "chrome-trace")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any])
    let events = try #require(json["traceEvents"] as? [[String: Any]])
    let threadNames = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
    #expect(threadNames == ["d1", "d2", "d3", "f1", "f2", "f3"])
    let processNames = events.filter { $0["name"] as? String == "process_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
    #expect(processNames == ["queue main", "queue downloads", "queue filters"])
    // No two X events overlap on one (pid, tid) lane.
    var lanes: [String: [(Int, Int)]] = [:]
    for e in events where e["ph"] as? String == "X" {
      let key = "\(e["pid"] ?? 0)/\(e["tid"] ?? 0)"
      lanes[key, default: []].append((e["ts"] as? Int ?? 0, (e["ts"] as? Int ?? 0) + (e["dur"] as? Int ?? 0)))
    }
    for (lane, spans) in lanes {
      let sorted = spans.sorted { $0.0 < $1.0 }
      for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(a.1 <= b.0, "overlap on \(lane)") }
    }
    let d1 = events.first { $0["ph"] as? String == "X" && $0["name"] as? String == "executing" && $0["tid"] as? Int == 1 }
    #expect(d1?["ts"] as? Int == 0)
    #expect(d1?["dur"] as? Int == 4_000)
  }

  @Test("Events as JSON Lines: one object per event, keys in order, parsed back field by field")
  func eventsJSONLines() throws {
    let w = try Self.pipeline()
    let text = Exporters.eventsJSONLines(w)
    let lines = text.split(separator: "\n")
    #expect(lines.count == w.trace.count)
    for (seq, line) in lines.enumerated() {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let e = w.trace[seq]
      #expect(object["t"] as? Int == e.tick)
      #expect(object["seq"] as? Int == seq)
      #expect((object["op"] as? String) == e.op.map { w.name($0) })
      #expect((object["queue"] as? String) == e.queue.map { w.name($0) })
      #expect((object["from"] as? String) == e.from?.description)
      #expect((object["to"] as? String) == e.to?.description)
      #expect(object["reason"] is String)
      let keys = line.split(separator: ",").compactMap { part -> String? in
        guard let colon = part.firstIndex(of: ":"), part.first == "\"" || part.first == "{" else { return nil }
        return String(part[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "{\""))
      }
      #expect(Array(keys.prefix(8)) == ["t", "seq", "event", "op", "queue", "from", "to", "reason"])
    }
    let finished = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
      .filter { $0["event"] as? String == "finished" }
    #expect(
      finished.map { "\($0["op"] ?? "")=\($0["outcome"] ?? "")" } == [
        "d2=cancelled", "f2=bailed", "d3=failed", "d1=success", "f3=success", "f1=success",
      ])
    assertSnapshot(text, named: "events-jsonl")
  }

  @Test("Names with control characters and quotes are escaped in JSON")
  func jsonEscaping() {
    #expect(Exporters.json("a\"b\\c\n\u{1B}[31m") == #""a\"b\\c\n\u001b[31m""#)
  }

  @Test("--ascii folds every view's symbols: status, graph, why")
  func asciiViews() throws {
    let w = try Self.pipeline()
    var cyclic = World()
    let a = try cyclic.createOperation(OperationSpec(name: "a"))
    _ = try cyclic.createOperation(OperationSpec(name: "b"), dependencies: [a])
    try cyclic.addDependency(a, on: OpID(1))
    let text = ASCIIFold.fold(Status.render(w) + Graph.render(w) + Graph.render(cyclic) + Why.render(OpID(4), in: w))
    let plain = text.unicodeScalars.allSatisfy(\.isASCII)
    #expect(plain)
    assertSnapshot(text, named: "views-ascii")
  }

  @Test("The ASCII fold replaces each drawing symbol, keeps ASCII and other text as it is, and leaves a symbol carrying a mark")
  func asciiFold() {
    #expect(ASCIIFold.fold("✓ ✗ ← → ⟲ — … ‖ ↩ ░ █ ▓ ·") == "v x <- -> @ - ... | r - # = .")
    #expect(ASCIIFold.fold("plain ascii, untouched") == "plain ascii, untouched")
    #expect(ASCIIFold.fold("café → naïve") == "café -> naïve")  // only the arrow is a symbol of the views
    #expect(ASCIIFold.fold("\u{2713}\u{301}x→") == "\u{2713}\u{301}x->")  // ✓ with an accent is another character
    #expect(ASCIIFold.fold("") == "")
    #expect(ASCIIFold.fold("x\u{387}") == "x.")  // U+0387 is canonically U+00B7, as a Character compares it
  }

  @Test("Colour marks only the timeline's glyphs, and never reaches plain text")
  func colour() {
    #expect(Colorizer.timeline("  d1 ██✓") == "  d1 \u{1B}[32m█\u{1B}[0m\u{1B}[32m█\u{1B}[0m\u{1B}[1;32m✓\u{1B}[0m")
    #expect(Colorizer.timeline("tick 0") == "tick 0")
    #expect(Colorizer.diagnostic("error: bad\nhint: try") == "\u{1B}[1;31merror:\u{1B}[0m bad\n\u{1B}[33mhint:\u{1B}[0m try")
  }
}

/// Rendering and exporting a large world: no recursion, and linear work. Slow by design (about
/// half a minute of a core in a debug build): 200,000 operations, as deep as ScaleTests' chain.
@Suite(.serialized) struct RenderScaleTests {
  @Test("A 200,000-op chain renders, exports, explains and graphs without recursion")
  func bigChain() throws {
    var w = World()
    var previous: OpID?
    for i in 0..<200_000 {
      previous = try w.addOperation(OperationSpec(name: "c\(i)"), to: .main, dependencies: previous.map { [$0] } ?? [])
    }
    w.runUntilIdle()
    let last = OpID(199_999)
    #expect(Why.render(last, in: w).contains("It finished at t=200000"))
    #expect(Timeline.render(w, from: 199_990, to: 200_000, width: 80).contains("now t=200000"))
    #expect(Exporters.eventsJSONLines(w).count > 0)
    #expect(Graph.render(w).split(separator: "\n").count == 200_000 + 1)  // and the legend of the marks
  }
}
