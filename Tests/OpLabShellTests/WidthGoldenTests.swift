import Foundation
import OpLabRender
import TestSupport
import Testing

@testable import OpLabShell

/// Every view and message of the lab, as a learner sees it at 40, 80 and 120 columns:
/// golden files (`Snapshots/views-W.txt`, `Snapshots/lesson-W.txt`; re-record with
/// `make snapshots`), and the rule that no line is wider than the terminal.
@Suite("Width goldens")
struct WidthGoldenTests {
  static let widths = [40, 80, 120]

  /// A world that shows every kind of line: long names, cancellation, a failure, a
  /// completion block, suspension, a stall (an async operation that never calls finish()
  /// holding a chain), a cycle, and a wait from main that can never end.
  static let session = [
    "queue downloads max 2",
    "queue filters max 1 qos userInitiated",
    "op fetch-thumbnail-for-the-very-long-photo-name-in-the-album takes 3 on downloads",
    "op d2 takes 3 on downloads cancel-check every 1",
    "op d3 takes 4 on downloads fails at 2",
    "op f1 takes 2 on filters after fetch-thumbnail-for-the-very-long-photo-name-in-the-album,d2",
    "op f2 takes 2 on filters after d3 completion 1",
    "cancel d2",
    "step 2",
    "suspend filters",
    "step 2",
    "resume filters",
    "op fetch on downloads async forgets-finish",
    "op parse after fetch",
    "op show after parse",
    "run",
    "status",
    "why f1",
    "why f2",
    "why show",
    "narrate f2",
    "slots downloads",
    "graph",
    "events f1",
    "depend f1 on f1",
    "op a hold",
    "op b hold after a",
    "depend a on b",
    "add a",
    "add b",
    "graph",
    "op m on main takes 2 after show",
    "wait downloads from main",
    "status",
    "op takes 3",
    "why fech",
    "queue downloads max many",
    "help",
    "help op",
    "help wait",
  ]

  /// The session at `width`: each line as typed, then what the lab printed, errors shown
  /// under the line as at the prompt.
  static func transcript(width: Int) -> String {
    var options = ShellOptions()
    options.width = width
    let interpreter = Interpreter(options: options)
    var out = ""
    for line in session {
      out += "oplab> \(line)\n"
      let reply = interpreter.execute(line)
      out += reply.output
      if let error = reply.error { out += error.pointed(prompt: 7, typed: line, width: width) }
    }
    return out
  }

  @Test("Every view and message at 40, 80 and 120 columns matches its golden file", arguments: widths)
  func views(width: Int) {
    assertSnapshot(Self.transcript(width: width), named: "views-\(width)")
  }

  @Test("No line the lab prints is wider than the terminal, at any width from 40 to 130", arguments: Array(stride(from: 40, through: 130, by: 3)))
  func nothingOverflows(width: Int) {
    let text = Self.transcript(width: width)
    for line in text.split(separator: "\n") where !line.hasPrefix("oplab> ") {
      #expect(Names.width(String(line)) <= width, "\(width) columns: \(line)")
    }
  }

  @Test("Batch errors keep FILE:LINE:COL: error: whole on their first line and wrap the rest under it")
  func batchErrors() throws {
    var options = ShellOptions()
    options.width = 40
    let error = try #require(Interpreter(options: options).execute("queue downloads max many").error)
    let text = error.located(defaultFile: "setup.oplab", defaultLine: 3, width: 40)
    let lines = text.split(separator: "\n")
    #expect(lines.first?.hasPrefix("setup.oplab:3:21: error: ") == true, "\(text)")
    #expect(lines.allSatisfy { Names.width(String($0)) <= 40 }, "\(text)")
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "\(text)")
    // A path too long to share its line with the message is not shortened.
    let path = String(repeating: "folder/", count: 8) + "setup.oplab"
    let long = error.located(defaultFile: path, defaultLine: 3, width: 40)
    #expect(long.hasPrefix(path + ":3:21: error: "), "\(long)")
  }

  @Test("A typed line the terminal wrapped is shown again around the bad token, carets under it; a short one is pointed at in place")
  func longTypedLine() throws {
    let line = "op fetch-the-thumbnail-image on downloads takes 3 cancel-check every 1 priority high"
    let error = try #require(Interpreter().execute(line).error)
    #expect(
      error.pointed(prompt: 11, typed: line, width: 60) == """
          …the-thumbnail-image on downloads takes 3 cancel-check ev…
                                  ^^^^^^^^^
        error: there is no queue named 'downloads'
        hint: create it first: queue downloads

        """)
    let short = "why nosuch"
    let other = try #require(Interpreter().execute(short).error)
    #expect(other.pointed(prompt: 11, typed: short, width: 60).hasPrefix(String(repeating: " ", count: 15) + "^^^^^^\nerror: "))
    // In a script, a line wider than the terminal is cut the same way.
    var located = error
    located.file = "s.oplab"
    located.line = 4
    located.source = line
    let shown = located.pointed(prompt: 0, width: 40).split(separator: "\n")
    #expect(shown.allSatisfy { Names.width(String($0)) <= 40 }, "\(shown)")
    #expect(shown.contains { $0.hasSuffix("^^^^^^^^^") })
  }

  /// The first lesson, walked through with Enter, `skip` at every prediction and task, at `width`.
  static func lessonWalk(width: Int) throws -> String {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons/01-frozen-ui.lesson").path
    let lesson = try LessonParser.parse(try String(contentsOfFile: file, encoding: .utf8), file: file)
    var inputs = Array(repeating: ["skip", ""], count: 40).flatMap { $0 }[...]
    var options = ShellOptions()
    options.width = width
    var out = ""
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { inputs.popFirst() }, options: options, progress: ProgressStore(path: nil)
    ) { out += $0 }
    runner.run()
    return out
  }

  @Test("A lesson's text, prompts, commands and replies at 40, 80 and 120 columns match their golden files", arguments: widths)
  func lesson(width: Int) throws {
    let text = try Self.lessonWalk(width: width)
    assertSnapshot(text, named: "lesson-\(width)")
    // Code (`swift OP`, up to its first blank line) is laid out for 80 columns and never
    // re-wrapped like prose: narrower, the terminal folds it. Everything else fits.
    var inCode = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.isEmpty { inCode = false }
      #expect(inCode || Names.width(String(line)) <= width, "\(width) columns: \(line)")
      if line.contains("oplab> swift") { inCode = true }
    }
  }
}
