import Foundation
import OpLabCore
import OpLabRender
import TestSupport
import Testing

@testable import OpLabShell

/// What a learner meets in the first hour (#32): views whose counts add up, marks that say
/// what a dependent saw, and words that read.
@Suite struct FirstHourTests {
  func run(_ lines: [String], _ interpreter: Interpreter = Interpreter()) -> String {
    lines.map { interpreter.execute($0).output }.joined()
  }

  /// Each queue's section of a `status`, by the queue's name.
  func sections(_ status: String) -> [String: [String]] {
    var out: [String: [String]] = [:]
    var current: String?
    for line in status.split(separator: "\n").map(String.init) {
      if !line.hasPrefix(" "), let colon = line.firstIndex(of: ":"), !line.hasPrefix("t=") {
        current = String(line[..<colon])
        out[current!] = []
      } else if let c = current, line.hasPrefix("  ") {
        out[c]?.append(line)
      }
    }
    return out
  }

  /// Checks that a queue's counts are those of the operations it lists: what is unfinished
  /// is operationCount, and each finished one is listed.
  func expectCountsAddUp(_ status: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for (queue, lines) in sections(status) where queue != "in no queue" {
      // A queue that never had an operation is one line that says so, with nothing to count.
      if lines.isEmpty {
        let header = status.split(separator: "\n").first { $0.hasPrefix("\(queue): ") }
        #expect(header?.hasSuffix("; no operations yet") == true, "\(queue): \(status)", sourceLocation: sourceLocation)
        continue
      }
      let counts = lines.first { $0.hasPrefix("  operations: ") }
      let match = counts?.firstMatch(of: /executing (\d+), ready (\d+), pending (\d+), finished (\d+)/)
      guard let match, let e = Int(match.1), let r = Int(match.2), let p = Int(match.3), let f = Int(match.4) else {
        Issue.record("\(queue): no operation counts in \(lines)", sourceLocation: sourceLocation)
        continue
      }
      let listed = lines.first { $0.hasPrefix("  operationCount ") }?.firstMatch(of: /operationCount (\d+)/).flatMap { Int($0.1) }
      #expect(listed == e + r + p, "\(queue): \(lines)", sourceLocation: sourceLocation)
      let finished = lines.filter { $0.firstMatch(of: /^  [^ .]+  finished at t=/) != nil }.count
      #expect(finished == f, "\(queue): \(lines)", sourceLocation: sourceLocation)
    }
  }

  @Test("status counts operations apart from the main thread's taps, frames and calls, and sums those up in a line of their own (lesson 1)")
  func statusCountsAddUp() {
    let i = Interpreter()
    let start = run(["op download on main takes 4", "op sepia on main takes 3 after download", "frames every 2", "status"], i)
    let main = sections(start)["main"] ?? []
    #expect(
      main.prefix(2) == ["  operations: executing 1, ready 0, pending 1, finished 0", "  operationCount 2, operations [download, sepia]"], "\(start)")
    #expect(main.contains("  main thread, besides operations: 1 frame (waiting)"), "\(start)")
    expectCountsAddUp(start)
    let end = run(["tap at 1", "tap at 3", "run", "status"], i)
    let final = end.components(separatedBy: "idle at t=10: every operation has finished\n").last ?? ""
    let after = sections(final)
    #expect(after["main"]?.first == "  operations: executing 0, ready 0, pending 0, finished 2", "\(end)")
    #expect(after["main"]?.contains("  main thread, besides operations: 2 taps, 5 frames (none left)") == true, "\(end)")
    expectCountsAddUp(final)
  }

  @Test("status lists the main thread's calls under their summary, and counts a barrier block apart from the operations")
  func statusCallsAndBarriers() {
    let i = Interpreter()
    let out = run(
      ["queue q max 1", "op a on q takes 3", "barrier q", "op b on q takes 1", "op c takes 2 hold", "step", "wait q from main", "start c", "status"],
      i)
    let last = sections(out.components(separatedBy: "t=5  platform apple").last ?? "")
    #expect(
      last["main"] == [
        "  operations: executing 0, ready 0, pending 0, finished 0",
        "  operationCount 0, operations []",
        "  main thread, besides operations: 1 wait, 1 start() (1 running, 1 finished)",
        "  main.wait1  finished at t=5: succeeded",
        "  main.start1  blocking the main thread since t=5 in start(), running c",
      ], "\(out)")
    #expect(last["q"]?.first == "  operations: executing 0, ready 0, pending 0, finished 2", "\(out)")
    #expect(last["q"]?.contains("  barrier blocks, not operations: 1 (finished)") == true, "\(out)")
    expectCountsAddUp(out.components(separatedBy: "t=5  platform apple").last ?? "")
  }

  @Test("No status line ends with a separator left dangling when it wraps at 80 columns")
  func statusNoDanglingBar() {
    let out = run(["op download on main takes 4", "frames every 2", "queue downloads", "status"])
    let lines = Wrap.text(out, width: 80, ascii: false).split(separator: "\n")
    #expect(!lines.contains { $0.hasSuffix("|") || $0.hasSuffix("| ") }, "\(out)")
  }

  @Test("graph marks a dependency cancelled while it ran as cancelled, and the dependent that returned early as returned early")
  func graphMarksWhatTheDependentSaw() {
    let out = run([
      "queue downloads", "queue filters max 1", "op d3 on downloads takes 3",
      "op f3 on filters takes 2 after d3 bail-if-dep-cancelled", "op h3 on filters after f3", "step", "cancel d3", "run", "graph",
    ])
    let graph = out.components(separatedBy: "idle at t=4: every operation has finished\n").last ?? ""
    #expect(
      graph.hasPrefix(
        """
        d3 [downloads] ✓ (isCancelled is true)
        f3 [filters] ↩ ← d3 ✗
        h3 [filters] ✓ ← f3 ↩

        """), "\(graph)")
  }

  @Test("Events with no operation and no queue read without a 'world' subject; the default queue is named as such")
  func worldEventsRead() {
    let out = run(["var likes", "lock L", "platform linux", "events"])
    #expect(out.contains("t=0  shared variable likes = 0 created\n"), "\(out)")
    #expect(out.contains("t=0  lock L created (an NSLock)\n"), "\(out)")
    #expect(out.contains("t=0  platform set to linux\n"), "\(out)")
    #expect(out.contains("t=0 #1 the default queue 'queue' created (max default)\n"), "\(out)")
    #expect(!out.contains("world ") && !out.contains("queue queue"), "\(out)")
  }

  @Test("narrate reads as prose: whole sentences in the past tense")
  func narrateProse() {
    let out = run(["queue dl", "op b on dl takes 2 hold", "add b", "run", "narrate"])
    let story = out.components(separatedBy: "idle at t=2: every operation has finished\n").last ?? ""
    #expect(
      story.hasPrefix(
        """
        At tick 0, the default queue 'queue' was created (max default).
        Then the dl queue was created (max default).
        Then b was created.
        Then b was enqueued on dl.
        Then b became ready: no unfinished dependencies.
        Then b started on dl: a slot was free when it was enqueued.
        At tick 2, b finished (succeeded): work done.

        """), "\(story)")
  }

  @Test("The possessive of a name ending in s is an apostrophe alone: downloads' threads")
  func possessive() {
    #expect(World.possessive("downloads") == "downloads'")
    #expect(World.possessive("d1") == "d1's")
    let out = run(["queue downloads", "op d on downloads takes 3", "status"])
    #expect(unwrapped(Wrap.text(out, width: 80, ascii: false)).contains("runs on one of downloads' threads, not the main thread"), "\(out)")
  }

  @Test("The lab says forever, never for ever")
  func forever() throws {
    let out = run([
      "lock L1", "lock L2", "op a does lock L1, lock L2, unlock L2, unlock L1", "op b does lock L2, lock L1, unlock L1, unlock L2", "run", "why a",
    ])
    #expect(unwrapped(out).contains("each waits for the next forever"), "\(out)")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-self-\(UUID().uuidString).oplab")
    defer { try? FileManager.default.removeItem(at: file) }
    try "source \(file.path)\n".write(to: file, atomically: true, encoding: .utf8)
    let error = Interpreter().execute("source \(file.path)").error
    #expect(error?.hint?.hasSuffix("or the scripts would run forever") == true, "\(String(describing: error))")
  }

  @Test("A does list keeps its spaces after commas when saved and echoed, and the saved script replays to the same world")
  func doesListSpacing() throws {
    let i = Interpreter()
    let line = "op inc does read likes, compute 1, write likes"
    _ = run(["var likes", line, "run"], i)
    #expect(i.script.map(\.text).contains(line), "\(i.script.map(\.text))")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-does-\(UUID().uuidString).oplab")
    defer { try? FileManager.default.removeItem(at: file) }
    _ = i.execute("save \(file.path)")
    let saved = try String(contentsOf: file, encoding: .utf8)
    #expect(saved.contains("\n\(line)\n"), "\(saved)")
    let replayed = Interpreter()
    #expect(replayed.execute("source \(file.path)").error == nil)
    #expect(replayed.world.trace == i.world.trace)
    #expect(run(["undo", "undo"], i).contains("took back `\(line)`"))
  }

  @Test(
    "An error about a tick points at the number typed for it, not at the command's first word (#32)",
    arguments: [
      ("tap at 3", "3"), ("frames every 2 from 1", "1"), ("run until 2", "2"), ("goto 9", "9"),
      ("wait from main until 1", "1"),
    ])
  func tickErrorPointsAtTheTick(line: String, number: String) throws {
    let i = Interpreter()
    #expect(i.execute("step 4").error == nil)
    let error = try #require(i.execute(line).error, "\(line) should be refused at t=4")
    let column = try #require(Lexer.tokens(line).last { $0.text == number }?.column)
    #expect(error.column == column, "\(line): \(error.message)")
    #expect(error.length == number.count)
  }
}
