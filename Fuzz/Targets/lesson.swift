// Fuzz target (c): the lesson-file parser.
//
// The whole input is a `.lesson` file, parsed with `LessonParser.parse(_:file:)`. When it
// parses, every command it would run (run:, reveal:, solution:) goes through the command
// parser too, as `oplab lesson check` would before running them, and the counts are taken.
//
// Property checked besides "does not crash": an error points at a line of the file (1 to
// the number of lines + 1) and a column of 1 or more.

import OpLabCore
import OpLabShell

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLesson(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = Fuzz.text(data, size)
  let lesson: Lesson
  do {
    lesson = try LessonParser.parse(text, file: "Lessons/07-fuzz.lesson")
  } catch {
    let lineCount = Fuzz.lines(text).count
    if error.line < 1 || error.line > lineCount + 1 || error.column < 1 {
      Fuzz.fail("error at \(error.line):\(error.column) in a file of \(lineCount) lines: \(error.message)", input: text)
    }
    _ = error.description
    return 0
  }
  _ = lesson.counts
  var commands: [SourceLine] = []
  for item in lesson.items {
    switch item {
    case .run(let lines): commands += lines
    case .predict(let p): commands += p.reveal
    case .task(let t): commands += t.solution
    case .text, .expect, .pause: break
    }
  }
  var context = ParseContext(operations: [], queues: ["main", "queue"])
  for line in commands {
    if let command = try? Parser.parse(line.text, context: context) { Fuzz.update(&context, after: command) }
  }
  return 0
}
