import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// The pager on a real terminal of 80 columns and 24 rows (#31, #29): Ctrl-C leaves it and
/// the lab goes on; its last page offers no next page; a pager that cannot run leaves the
/// text printed, with a line saying why; and keys typed before it opens, or into it, never
/// run as less's dangerous commands nor, after it, as the lab's.
///
/// Each step waits for the text it needs (`<NEXT TEXT>`, up to 30 s), so a busy machine
/// only makes the tests slower.
extension TerminalTests {
  @Test("Ctrl-C leaves the pager: the view is not printed again, and the lab goes on")
  func pagerInterrupt() throws {
    let out = try pagedSession(
      [
        try sourceOps(40), "<NEXT o40 started on queue>", "events\\r", "<NEXT q: done>", "\\x03", "<NEXT oplab t=0> >",
        "why o40\\r", "<NEXT o40 was created>", "\\x04",
      ], pager: nil)
    let events = try #require(out.range(of: "oplab t=0> events"), "\(out.suffix(500))")
    let after = out[events.upperBound...]
    #expect(after.contains("o40 was created at t=0."), "the lab did not go on after Ctrl-C: \(after.suffix(600))")
    #expect(!after.contains("o40 started on queue"), "the view was printed after the pager: \(after.suffix(600))")
    #expect(!after.contains("printed above"), "\(after.suffix(600))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }

  @Test("Ctrl-C in a lesson's pager leaves the pager, not the lesson")
  func lessonPagerInterrupt() throws {
    let folder = stateFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let lesson = folder.appendingPathComponent("tall.lesson")
    let paragraphs = (1...12).map { "Paragraph \($0) of a page taller than the screen." }
    try (["title: Tall", "", "run:", "  op a takes 3", "  run", ""] + paragraphs.flatMap { [$0, ""] } + ["---", "", "A short page."])
      .joined(separator: "\n").write(to: lesson, atomically: true, encoding: .utf8)
    let out = try pagedSession(
      ["<NEXT q: done>", "\\x03", "<NEXT lesson 0> >", "\\r", "<NEXT A short page.>", "quit\\r"],
      pager: nil, arguments: ["lesson", lesson.path])
    #expect(out.contains("A short page."), "the lesson did not go on after Ctrl-C: \(out.suffix(600))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }

  @Test("On its last page the pager's prompt offers no next page")
  func pagerLastPage() throws {
    // 10 operations: 42 lines of events, two pages of 23 lines.
    let out = try pagedSession(
      [
        try sourceOps(10), "<NEXT o10 started on queue>", "events\\r", "<NEXT q: done>", " ", "<NEXT q: done>", "q",
        "<NEXT oplab t=0> >", "\\x04",
      ], pager: nil)
    let events = try #require(out.range(of: "oplab t=0> events"), "\(out.suffix(500))")
    let first = try #require(out[events.upperBound...].range(of: "q: done"), "\(out.suffix(800))")
    #expect(out[events.upperBound..<first.upperBound].contains("space: next page  b: back  q: done"), "\(out.suffix(800))")
    let last = try #require(out[first.upperBound...].range(of: "o10 started on queue"), "\(out.suffix(800))")
    let prompt = try #require(out[last.upperBound...].range(of: "q: done"), "\(out.suffix(800))")
    let lastPrompt = out[last.upperBound..<prompt.upperBound]
    #expect(lastPrompt.contains("b: back  q: done"), "\(lastPrompt)")
    #expect(!lastPrompt.contains("space: next page"), "the last page offers a next page: \(lastPrompt)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }

  @Test(
    "A pager that cannot run (not found: exit 127; false: exit 1) leaves the view printed, with a line saying why",
    arguments: [
      ("no-such-pager", "(the pager `no-such-pager` could not run: exit 127; printed above)"),
      ("false", "(the pager `false` failed: exit 1; printed above)"),
    ])
  func pagerFailure(pager: String, note: String) throws {
    let out = try pagedSession(["help\\r", "<NEXT printed above>", "\\x04"], pager: pager)
    let help = try #require(out.range(of: "oplab t=0> help"), "\(out.suffix(500))")
    let after = out[help.upperBound...]
    // Its first and last lines: the whole view is there.
    #expect(after.contains("Commands (help COMMAND for more; Tab completes):"), "\(after.prefix(300))")
    #expect(after.contains("qos: background utility default userInitiated userInteractive\r\n\(note)\r\n"), "\(after.suffix(400))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }

  @Test("Keys typed ahead of the pager are dropped; `status` typed into it saves no file `tatus`; keys left in it do not run in the lab")
  func pagerTypedKeys() throws {
    let folder = stateFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let out = try pagedSession(
      [
        try sourceOps(40), "<NEXT o40 started on queue>",
        "events\\rstatus\\rG",  // typed ahead: in less, `s` saves its input to a file, G goes to the end
        "<NEXT q: done>", "status\\r",  // into less
        "qstatus\\r",  // q leaves less; the rest is left unread in the terminal
        "<NEXT oplab t=0> >", "why o40\\r", "<NEXT o40 was created>", "\\x04",
      ], pager: nil, directory: folder)
    let events = try #require(out.range(of: "oplab t=0> events"), "\(out.suffix(500))")
    let after = out[events.upperBound...]
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "less saved a file")
    #expect(!after.contains("o40 started on queue"), "the G typed ahead reached less: \(after.suffix(600))")
    #expect(!after.contains("executing since"), "a `status` typed at the pager ran in the lab: \(after.suffix(600))")
    #expect(after.contains("o40 was created at t=0."), "the lab did not go on after the pager: \(after.suffix(600))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }
}
