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
