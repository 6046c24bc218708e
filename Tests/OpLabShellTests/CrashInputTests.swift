import Foundation
import OpLabCore
import OpLabRender
import Testing

@testable import OpLabShell

/// Every input the fuzzers ever broke the lab with (`Fuzz/crashes/`), replayed with the
/// same checks the interpreter fuzz target makes: the state invariants hold after every
/// line, and replaying the session's saved script rebuilds exactly the same world.
@Suite struct CrashInputTests {
  static var crashes: [String] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".oplab") }.sorted().map { folder.appendingPathComponent($0).path }
  }

  @Test("A fuzzer finding stays fixed", arguments: crashes)
  func replay(_ path: String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let interpreter = Interpreter()
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      _ = interpreter.execute(String(line))
      #expect(interpreter.world.invariantViolations() == [], "after \(line)")
    }
    let replay = Interpreter()
    for entry in interpreter.script {
      let reply = replay.execute(entry.text)
      #expect(reply.error == nil, "replaying \(entry.text): \(reply.error?.message ?? "")")
    }
    #expect(replay.world.now == interpreter.world.now)
    #expect(replay.world.trace == interpreter.world.trace)
    // As the fuzz target does: every timeline fits the width, at the narrowest one too.
    for width in [40, 57] {
      var options = ShellOptions()
      options.width = width
      options.widthGiven = true
      let narrow = Interpreter(options: options)
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let isTimeline =
          (try? Parser.parse(String(line), context: narrow.context)).map { command -> Bool in
            if case .timeline = command { return true }
            return false
          } ?? false
        let reply = narrow.execute(String(line))
        guard isTimeline else { continue }
        for row in reply.output.split(separator: "\n") {
          #expect(Names.width(String(row)) <= width, "\(path): \(row)")
        }
      }
    }
  }

  /// Crash files with this prefix, then the fuzzer's seeds for the same target.
  static func files(_ prefix: String, seeds target: String) -> [String] {
    let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fuzz")
    func list(_ folder: URL, _ keep: (String) -> Bool) -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter(keep).sorted()
        .map { folder.appendingPathComponent($0).path }
    }
    return list(fuzz.appendingPathComponent("crashes")) { $0.hasPrefix(prefix) }
      + list(fuzz.appendingPathComponent("seeds/\(target)")) { _ in true }
  }

  @Test("Parser and lesson-parser findings and seeds parse, or fail with an error located inside the input")
  func parserAndLessonFindings() throws {
    let context = ParseContext(operations: ["a", "b"], queues: ["main", "queue"])
    let parserFiles = Self.files("parser-", seeds: "parser")
    let lessonFiles = Self.files("lesson-", seeds: "lesson")
    #expect(!parserFiles.isEmpty && !lessonFiles.isEmpty)
    for path in parserFiles {
      let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let parsed = Result { try Parser.parse(String(line), context: context) }
        if let error = parsed.failure as? ParseError {
          // A missing argument is pointed at where it would go: one space after the line.
          #expect(error.column >= 1 && error.column <= line.count + 2, "\(path)")
        }
        // What `save` writes (the tokens joined by single spaces, quoted where they must be) reads back the same.
        let canonical = Lexer.canonical(String(line))
        let again = Result { try Parser.parse(canonical, context: context) }
        switch (parsed, again) {
        case (.success(let a), .success(let b)): #expect(a == b, "\(path): \(String(reflecting: line))")
        case (.failure, .failure): break
        default: Issue.record("\(path): \(String(reflecting: line)) and its canonical form \(String(reflecting: canonical)) do not agree")
        }
      }
    }
    for path in lessonFiles {
      let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
      if case .failure(let error) = Result(catching: { () throws(LessonError) -> Lesson in try LessonParser.parse(text, file: path) }) {
        #expect(error.line >= 1 && error.line <= text.split(separator: "\n", omittingEmptySubsequences: false).count, "\(path)")
      }
    }
  }

  @Test(
    "The canonical form quotes again what needs quotes, keeps a line with an open quote as typed (finding 13), and keeps a space typed after a comma (#32)",
    arguments: [
      ("export   events \"my run.jsonl\"  # a comment", "export events \"my run.jsonl\""),
      ("source 'a \"b\" c.oplab'", "source \"a \\\"b\\\" c.oplab\""),
      ("save my\\ run.oplab", "save \"my run.oplab\""),
      ("export events \"x#y\"", "export events \"x#y\""),
      ("save \"\"", "save \"\""),
      ("undepend f1 \"on d1", "undepend f1 \"on d1"),
      ("op a  takes 3", "op a takes 3"),
      // A comma typed with a space after it keeps one; a list typed tight stays tight.
      ("op x does read likes, compute 1, write likes", "op x does read likes, compute 1, write likes"),
      ("op x does  read likes ,compute 1 ,  write likes", "op x does read likes, compute 1, write likes"),
      ("op t1,t2 takes 2 after a,b", "op t1,t2 takes 2 after a,b"),
      ("depend f3 on d1, d2", "depend f3 on d1, d2"),
    ])
  func canonicalQuoting(line: String, canonical: String) {
    #expect(Lexer.canonical(line) == canonical)
    #expect(Lexer.tokens(Lexer.canonical(line)).map(\.text) == Lexer.tokens(line).map(\.text))
  }

  @Test("The findings so far: a Linux strand survives a switch to Darwin; undo forgets a declared queue")
  func specifics() {
    let i = Interpreter()
    for line in ["queue w", "op x on w takes 1 hold", "undo", "op x takes 1 hold", "add x"] { _ = i.execute(line) }
    let x = i.world.operationID(named: "x")
    #expect(x.flatMap { i.world.operation($0).queue } == i.world.queueID(named: "queue"))
  }
}

extension Result {
  var failure: Failure? {
    if case .failure(let e) = self { return e }
    return nil
  }
}
