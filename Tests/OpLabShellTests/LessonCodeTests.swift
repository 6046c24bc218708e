import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// Code a lesson shows as written (`code:` blocks: the Swift the lab does not simulate,
/// such as lesson 18's async/await), and comments for the lessons' writers (`# …`).
@Suite struct LessonCodeTests {
  static let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Lessons")

  static let sample = """
    title: Code as written

    # TODO exercise: never shown
    Narrative.

    code:
      func f() {
        print("kept as written, never wrapped")
      }

    task: Make an operation a.
      hint: op a; `restart` starts again
      check: exists a
      else: there is no a yet.
      solution: op a
    """

  /// The lessons' `code:` blocks, in order, by lesson file: each lesson's make one Swift file.
  static func codeByLesson() throws -> [(file: String, code: String)] {
    let files = try FileManager.default.contentsOfDirectory(atPath: lessons.path).filter { $0.hasSuffix(".lesson") }.sorted()
    return try files.compactMap { file in
      let lesson = try LessonParser.parse(String(contentsOf: lessons.appendingPathComponent(file), encoding: .utf8), file: file)
      let blocks = lesson.items.compactMap { item -> String? in
        guard case .code(let lines) = item else { return nil }
        return lines.map(\.text).joined(separator: "\n")
      }
      return blocks.isEmpty ? nil : (file, blocks.joined(separator: "\n") + "\n")
    }
  }

  @Test("A code: block keeps its lines' indentation under a common margin, a # line is a comment, and the runner shows the code as written")
  func codeBlocksAndComments() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "01-code.lesson")
    guard case .text(let text) = lesson.items[0], case .code(let code) = lesson.items[1] else {
      Issue.record("unexpected items \(lesson.items)")
      return
    }
    #expect(text == "Narrative.")
    #expect(code.map(\.text) == ["func f() {", "  print(\"kept as written, never wrapped\")", "}"])
    #expect(code.map(\.line) == [7, 8, 9])
    var out = ""
    var options = ShellOptions()
    options.width = 40
    let inputs = ["op a"][...]
    var queue = inputs
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { queue.popFirst() }, options: options, progress: ProgressStore(path: nil)
    ) { out += $0 }
    runner.run()
    // At 40 columns the lesson's indent is gone, and the 41-column line is not wrapped.
    #expect(out.contains("\nfunc f() {\n  print(\"kept as written, never wrapped\")\n}\n"), "\(out)")
    #expect(!out.contains("TODO"))
    #expect(LessonChecker.check(lesson).ok)
  }

  @Test("A line of code wider than 76 columns, and a code: block with nothing under it, are refused where they are")
  func codeThatDoesNotFit() throws {
    let wide = "title: Wide\n\ncode:\n  let x = 1  // " + String(repeating: "w", count: 70) + "\n"
    #expect(throws: LessonError.self) { try LessonParser.parse(wide, file: "w.lesson") }
    do {
      _ = try LessonParser.parse(wide, file: "w.lesson")
    } catch {
      #expect(error.line == 4 && error.column == 79, "\(error)")
      #expect(error.message.contains("84 columns wide"), "\(error.message)")
    }
    do {
      _ = try LessonParser.parse("title: Empty\n\ncode:\n\nNarrative.\n", file: "e.lesson")
      Issue.record("an empty code: block was accepted")
    } catch {
      #expect(error.line == 3 && error.message == "code: has no lines", "\(error)")
    }
  }

  @Test(
    "Every lesson's code: blocks, in order, make a Swift file that builds with plain swiftc without a warning and under Swift 6 with complete checking and warnings as errors; lesson 18's covers Task cancellation, task groups, an actor and the main actor, and prints what its comments say"
  )
  func lessonCodeCompiles() throws {
    let all = try Self.codeByLesson()
    #expect(all.map(\.file).contains("18-swift-concurrency.lesson"), "\(all.map(\.file))")
    for (file, code) in all {
      let dir = try Swiftc.scratchFolder()
      defer { try? FileManager.default.removeItem(at: dir) }
      try code.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
      let plain = try Swiftc.plain(["main.swift", "-o", "plain"], in: dir)
      #expect(plain.status == 0 && !plain.said.contains("warning:"), "\(file), plain swiftc: \(plain.said)")
      let strict = try Swiftc.plain(Swiftc.strict + ["main.swift", "-o", "strict"], in: dir)
      #expect(strict.status == 0, "\(file), swiftc \(Swiftc.strict.joined(separator: " ")): \(strict.said)")
      guard file.hasPrefix("18-"), strict.status == 0 else { continue }
      for needle in ["Task.checkCancellation()", "withTaskGroup", "withThrowingTaskGroup", "actor Likes", "@MainActor", "OperationQueue.main"] {
        #expect(code.contains(needle), "lesson 18's code lacks \(needle)")
      }
      // What the comments claim: a cancelled job fails with CancellationError, four
      // photos, five thumbnails two at a time, two likes; the main actor's hop prints.
      let ran = try Programs.run(dir.appendingPathComponent("strict").path, in: dir)
      let lines = ran.output.split(separator: "\n").map(String.init)
      #expect(ran.status == 0, "\(ran.output)")
      #expect(Array(lines.prefix(4)) == ["failure(Swift.CancellationError())", "4", "5", "2"], "\(ran.output)")
      #expect(lines.dropFirst(4).contains("loaded"), "\(ran.output)")
    }
  }
}
