import OpLabCore
import Testing

@testable import OpLabRender

/// A step is given one tick everywhere: the event log stamps it with the tick it takes, and
/// the timeline draws it in that tick's column (#29: `r` was drawn in column 0 while the
/// event said t=1).
@Suite struct StepTickTests {
  /// Two unsynchronised increments (a lost update), a lock held across a call into the
  /// user interface off main, and an operation that waits for that lock, then reads.
  static func world() throws -> World {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "count", initial: 0)
    try w.createLock(name: "L")
    let increment: [Step] = [.read("count"), .compute(1), .write("count")]
    try w.addOperation(OperationSpec(name: "a", duration: 3, kind: .steps(increment)), to: q)
    try w.addOperation(OperationSpec(name: "b", duration: 4, kind: .steps(increment)), to: q)
    try w.addOperation(OperationSpec(name: "c", duration: 3, kind: .steps([.lock("L"), .touchUI, .unlock("L")])), to: q)
    try w.addOperation(OperationSpec(name: "d", duration: 3, kind: .steps([.lock("L"), .read("count"), .unlock("L")])), to: q)
    #expect(w.runUntilIdle() == .idle)
    return w
  }

  /// The timeline's lane of each operation, one character a tick (from t=0).
  static func lanes(_ w: World, ascii: Bool = false) -> [String: [Character]] {
    let rows = Timeline.render(w, width: 80, ascii: ascii).split(separator: "\n").map { Array(String($0)) }
    var lanes: [String: [Character]] = [:]
    for name in ["a", "b", "c", "d"] {
      // "  NAME   cells": every operation here starts at t=0, so its lane begins at the
      // first character after the name's padding.
      guard let row = rows.first(where: { $0.starts(with: Array("  \(name) ")) }),
        let start = row.indices.dropFirst(name.count + 2).first(where: { row[$0] != " " })
      else { continue }
      lanes[name] = Array(row[start...])
    }
    return lanes
  }

  @Test("Each step's event tick is the column the timeline draws it in, and the event log says that tick")
  func eventTickIsTimelineColumn() throws {
    let w = try Self.world()
    let log = EventLog.render(w).split(separator: "\n").map(String.init)
    let report = w.raceReport()
    let raced = Set(report.races.flatMap { [$0.first.event, $0.second.event] } + report.offMainThread.map(\.event))
    for ascii in [false, true] {
      let g = ascii ? Timeline.Glyphs.ascii : Timeline.Glyphs.unicode
      let lanes = Self.lanes(w, ascii: ascii)
      #expect(lanes.count == 4, "\(Timeline.render(w, width: 80, ascii: ascii))")
      var checked = 0
      for (i, e) in w.trace.enumerated() where e.kind.isStep {
        let name = w.name(try #require(e.op))
        let lane = try #require(lanes[name])
        let cell = lane[Int(e.tick)]
        #expect(log[i].hasPrefix("t=\(e.tick) #\(i) "), "\(log[i])")
        switch e.kind {
        case .variableRead: #expect(cell == (raced.contains(i) ? g.race : g.read), "\(name) read at t=\(e.tick): \(String(lane))")
        case .variableWritten: #expect(cell == (raced.contains(i) ? g.race : g.write), "\(name) wrote at t=\(e.tick): \(String(lane))")
        case .touchedUI: #expect(cell == (raced.contains(i) ? g.race : g.touchedUI), "\(name) touched ui at t=\(e.tick): \(String(lane))")
        case .lockWaiting: #expect(cell == g.waitingForLock, "\(name) waits from t=\(e.tick): \(String(lane))")
        case .lockAcquired where e.reason.isLockHandoff:
          // Handed over as the unlock's tick ends: waited for through it, the next step after it.
          #expect(cell == g.waitingForLock && lane[Int(e.tick) + 1] != g.waitingForLock, "\(name) takes L at t=\(e.tick): \(String(lane))")
        case .lockAcquired, .lockReleased, .computed: #expect(cell == g.executing, "\(name) at t=\(e.tick): \(String(lane))")
        default: Issue.record("unexpected step event \(w.describe(e))")
        }
        checked += 1
      }
      #expect(checked == 13)  // 3 + 3 + 3, and d's lock (a wait, then a hand-over), read and unlock
    }
  }

  @Test("The whole trace: every step in the tick it takes, the wait and the hand-over, the finishes after")
  func wholeTrace() throws {
    let w = try Self.world()
    let lines = EventLog.render(w).split(separator: "\n").map { line -> String in
      // "t=N #i text": the tick and the text.
      let parts = line.split(separator: " ", maxSplits: 2)
      return parts[0] + " " + parts[2]
    }
    #expect(
      Array(lines.suffix(17)) == [
        "t=0 a read count = 0 into its register: step 1 of 3 (read count)",
        "t=0 b read count = 0 into its register: step 1 of 3 (read count)",
        "t=0 c took lock L: step 1 of 3 (lock L)",
        "t=0 d waits for lock L, keeping its slot: c holds it",
        "t=1 a computed: register + 1 = 1: step 2 of 3 (compute 1)",
        "t=1 b computed: register + 1 = 1: step 2 of 3 (compute 1)",
        "t=1 c touched the user interface OFF the main thread: step 2 of 3 (touch ui)",
        "t=2 a wrote count = 1: step 3 of 3 (write count)",
        "t=2 b wrote count = 1: step 3 of 3 (write count)",
        "t=2 c unlocked L: step 3 of 3 (unlock L)",
        "t=2 d took lock L: c unlocked it; it had waited longest (NSLock promises no order)",
        "t=3 a finished (succeeded): work done",
        "t=3 c finished (succeeded): work done",
        "t=3 d read count = 1 into its register: step 2 of 3 (read count)",
        "t=4 b finished (succeeded): work done",
        "t=4 d unlocked L: step 3 of 3 (unlock L)",
        "t=5 d finished (succeeded): work done",
      ], "\(lines.joined(separator: "\n"))")
  }

  @Test("races and the timeline's notes give a race the ticks its accesses took")
  func racesSayTheColumns() throws {
    let w = try Self.world()
    let report = w.raceReport()
    let race = try #require(report.races.first)
    let text = Races.render(w)
    #expect(text.contains("read it at t=\(race.first.tick)") || text.contains("wrote it at t=\(race.first.tick)"), "\(text)")
    let lanes = Self.lanes(w)
    for access in [race.first, race.second] {
      #expect(lanes[w.name(access.op)]?[Int(access.tick)] == Timeline.Glyphs.unicode.race)
    }
    let touch = try #require(report.offMainThread.first)
    #expect(touch.tick == 1)
    #expect(Timeline.render(w, width: 80).contains("ui off main at t=1"))
  }

  @Test(
    "A completion block of steps gets a row under its operation, each step in the column of the tick its event says; the finish mark stays, and a plain block is drawn after it"
  )
  func completionStepsInTheirColumns() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "count", initial: 0)
    let a = try w.createOperation(OperationSpec(name: "a", duration: 2))
    try w.setCompletionSteps(a, [.read("count"), .compute(1), .write("count"), .touchUI])
    try w.enqueue(a, on: q)
    try w.addOperation(OperationSpec(name: "b", duration: 3, kind: .steps([.read("count"), .compute(1), .write("count")])), to: q)
    try w.addOperation(OperationSpec(name: "p", duration: 1, completion: 2), to: q)
    #expect(w.runUntilIdle() == .idle)
    let rows = Timeline.render(w, width: 80).split(separator: "\n").map(String.init)
    let lane = { (label: String) -> String? in rows.first { $0.hasPrefix(label + " ") }.map { String($0.dropFirst(16)) } }
    // a finishes at t=2; its block reads at 2 (racing b's write at 2), computes at 3,
    // writes at 4 and touches the user interface off main at 5; p's plain block follows its ✓.
    #expect(lane("  a") == "██✓", "\(rows.joined(separator: "\n"))")
    #expect(lane("   ↳ completion") == "  ↯cw↯  race at t=2; ui off main at t=5", "\(rows.joined(separator: "\n"))")
    #expect(lane("  b") == "r█↯✓  race at t=2", "\(rows.joined(separator: "\n"))")
    #expect(lane("  p") == "█✓cc", "\(rows.joined(separator: "\n"))")
    let steps = w.trace.filter { $0.op == a && $0.kind.isStep }.map(\.tick)
    #expect(steps == [2, 3, 4, 5])
    #expect(rows.contains { $0.hasPrefix("↯ race or ui off main") || $0.contains("c completion block") })
  }
}
