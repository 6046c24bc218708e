import OpLabCore
import Testing

@testable import OpLabShell

/// Whatever a session did — time travel, undo, redo, forks, choices at open points,
/// Ctrl-C — what `save` writes, and what the crash journal keeps for `--recover`, replays
/// to the same bytes of `events` in a fresh lab.
@Suite struct ReplayPropertyTests {
  /// Stops a clock command after a given number of the interrupt's checks (Ctrl-C).
  final class CtrlC {
    var left: Int
    init(after checks: Int) { left = checks }
    func check() -> Bool {
      left -= 1
      return left < 0
    }
  }

  /// A random session on a world of shared state: three or four operations that read,
  /// compute and write one variable (some under a lock, some on a serial queue), then
  /// twenty commands that move the clock, choose, travel, undo, redo and fork.
  static func session(seed: UInt64) -> [(line: String, ctrlC: Int?)] {
    var rng = SplitMix64(seed: seed)
    func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    func number(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(rng.next() % UInt64(range.count)) }
    var lines: [(String, Int?)] = [("var c = 0", nil), ("lock m", nil), ("queue s max 1", nil)]
    let names = ["a", "b", "d", "e"].prefix(number(3...4))
    for name in names {
      let steps = pick(["read c, compute 1, write c", "lock m, read c, compute 2, write c, unlock m", "read c, write c"])
      lines.append(("op \(name)\(pick(["", " on s"])) does \(steps)", nil))
    }
    let moves = [
      "step 1", "step 3", "run until 4", "run", "choose 1", "choose 2,1", "choose 0,2,1", "choose back",
      "goto 1", "goto 3", "back 1", "back 2", "undo", "redo", "fork", "unfork", "order 1,2", "order 0", "cancel a",
    ]
    for _ in 0..<20 {
      let move = pick(moves)
      let isClock = move.hasPrefix("run") || move.hasPrefix("step") || move.hasPrefix("choose 0")
      lines.append((move, isClock && rng.next() % 4 == 0 ? number(0...3) : nil))
    }
    return lines
  }

  static func events(_ lines: [String]) -> String {
    let lab = Interpreter()
    for line in lines { _ = lab.execute(line) }
    return lab.execute("events").output
  }

  @Test("save and the crash journal replay to the same events after travel, undo, redo, forks and choose", arguments: 0..<120)
  func replaysToTheSameEvents(seed: UInt64) {
    let lab = Interpreter()
    lab.keepsJournal = true
    var journal: [String] = []
    for (line, ctrlC) in Self.session(seed: seed) {
      let stop = ctrlC.map { CtrlC(after: $0) }
      _ = lab.execute(line, interrupt: stop.map { s in { s.check() } })
      journal += lab.takeJournal()
    }
    let events = lab.execute("events").output
    let session = Self.session(seed: seed).map { $0.line + ($0.ctrlC.map { " (Ctrl-C after \($0) checks)" } ?? "") }
    #expect(Self.events(lab.script.map(\.text)) == events, "seed \(seed): the saved script \(lab.script.map(\.text)) of \(session)")
    #expect(Self.events(journal) == events, "seed \(seed): the crash journal \(journal) of \(session)")
  }

  @Test("A choose cut by goto is saved as the choices whose open points were reached")
  func chooseCutByTravel() {
    let lab = Interpreter()
    for line in [
      "var c = 0", "op a does read c, compute 1, write c", "op b does read c, compute 1, write c",
      "op d does read c, compute 1, write c", "choose 2,3,1",
    ] { _ = lab.execute(line) }
    // The open points' ticks are those their steps take: 0, 1 and 2.
    #expect(lab.execute("order").output.contains("made so far: 2 at t=0, 3 at t=1, 1 at t=2"))
    // At t=2 the steps of ticks 0 and 1 have run, the choices made for them with them.
    _ = lab.execute("goto 2")
    #expect(lab.script.map(\.text).last == "choose 2,3")
    #expect(lab.execute("order").output == "  made so far: 2 at t=0, 3 at t=1\n  `order 0` goes back to the normal order\n")
    #expect(Self.events(lab.script.map(\.text)) == lab.execute("events").output)
  }
}
