import Foundation
import Testing

@testable import OpLabShell

/// A lesson taken at a real terminal (a pseudo-terminal, as ``TerminalTests`` drives the lab).
@Suite(.serialized) struct LessonTerminalTests {
  @Test("At a terminal, `cancel all filters` in a task that needs `not cancelled f3` says at once that it can no longer succeed, with `undo` (#35)")
  func notCancelledFailsForGood() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-lesson-tty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("01-filters.lesson")
    try """
    title: Filters

    run:
      queue filters max 1
      op f1 on filters takes 2
      op f2 on filters takes 2
      op f3 on filters takes 2

    task: Cancel f2, and only f2.
      hint: `restart` puts the world back as the task found it.
      check: skipped f2
      else: f2 was not skipped: it started {started f2}.
      check: not cancelled f3
      else: f3 was cancelled at {cancelled f3}: leave it alone.
      solution: cancel f2
      solution: run

    """.write(to: file, atomically: true, encoding: .utf8)
    let out = try TerminalTests().session(
      ["<WAIT task>", "cancel all filters\\r", "<WAIT returns to>", "quit\\r"], state: folder.appendingPathComponent("state"),
      arguments: ["lesson", file.path], environment: ["PTY_ROWS": "40", "PTY_COLS": "100"])
    let flat = out.replacingOccurrences(of: "\r", with: "").split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(
      flat.contains(
        "✗ This can no longer succeed: f3 was cancelled at t=0: leave it alone. `undo` takes back `cancel all filters` and returns to t=0."), "\(out)"
    )
  }
}

extension LessonTerminalTests {
  @Test(
    "At 80x24 a lesson whose first page is taller than the screen opens with its title and controls at the top of the pager's first screen, and its prompt keeps a history shared with the lab's (Up finds a command; the lesson's own words stay out)"
  )
  func titleOnScreenAndHistory() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-lesson-tty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // A first page of about 30 rows: the narrative, then a world's events.
    let paragraphs = (1...6).map { "Paragraph \($0) of the opening page, long enough to fill a line of the screen or two." }
    let file = folder.appendingPathComponent("01-tall.lesson")
    try """
    title: A tall first page

    \(paragraphs.joined(separator: "\n\n"))

    run:
      queue net max 1
      op download on net takes 3
      op sepia takes 2 after download

    ---

    The end.

    """.write(to: file, atomically: true, encoding: .utf8)
    let state = folder.appendingPathComponent("state")
    let out = try TerminalTests().session(
      [
        "<WAIT next page>", "q", "<WAIT lesson 1>", "why download\\r", "<WAIT It was added>", "hint\\r", "<NEXT lesson 1>",
        "\\x1b[A\\r", "<NEXT lesson 1>", "quit\\r",
      ],
      state: state, arguments: ["lesson", file.path],
      environment: ["PTY_ROWS": "24", "PTY_COLS": "80", "PAGER": Pager.lessCommand])
    let screen = TerminalTests.screenLines(out)
    // What the pager showed first: its screen ends with its prompt naming the keys.
    let prompt = try #require(screen.firstIndex(where: { $0.contains("next page") }), "\(out)")
    let first = screen[..<prompt].suffix(23)
    #expect(first.contains { $0.hasPrefix("━━ Lesson 1:") }, "the title is off the pager's first screen: \(first)")
    #expect(first.contains { $0.hasPrefix("(Enter or `next` goes on") }, "\(first)")
    // Up found `why download`, not `hint` (a lesson word): it ran again.
    #expect(out.components(separatedBy: "It was added to net").count - 1 == 2, "\(out)")
    // The lab's history file has the command, not the lesson's words.
    let history = try String(contentsOf: state.appendingPathComponent("oplab/history"), encoding: .utf8)
    #expect(history.contains("why\\040download") || history.contains("why download"), "\(history)")
    #expect(!history.contains("hint") && !history.contains("quit"), "\(history)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }
}
