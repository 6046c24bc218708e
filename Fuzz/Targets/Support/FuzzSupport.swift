// Shared by the three fuzz targets (compiled into each binary; see Fuzz/fuzz.sh).
// Nothing here is part of the OpLab package.

import OpLabCore
import OpLabShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum Fuzz {
  /// The input as text. Invalid UTF-8 becomes U+FFFD, as the lab's own file reading does
  /// (`String(decoding:as:)`).
  static func text(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  }

  /// Splits like the lab's script reader (`Shell.run(files:)`, `source`, `LessonParser`).
  static func lines(_ text: String) -> [String] {
    text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
  }

  /// Reports a broken property and crashes, so libFuzzer saves the input.
  static func fail(_ what: String, input: String) -> Never {
    let message = "\n==OPLAB-FUZZ== property violated: \(what)\n==OPLAB-FUZZ== input (Swift literal): \(String(reflecting: input))\n"
    _ = message.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    fatalError("property violated: \(what)")
  }

  /// Names the parser targets resolve before the input defines any: the two queues every
  /// world starts with, and names the lessons and the README use.
  static let baseContext = ParseContext(
    operations: ["d1", "d2", "f1", "f2", "a", "b", "later"],
    queues: ["main", "queue", "downloads", "work"])

  /// The context after a successfully parsed command: `op` and `queue` add their names,
  /// `reset` forgets everything but the fresh world's queues (a cheap model of the
  /// interpreter, so multi-line inputs such as lesson scripts parse meaningfully).
  static func update(_ context: inout ParseContext, after command: Command) {
    switch command {
    case .op(let def):
      if !context.operations.contains(def.spec.name) { context.operations.append(def.spec.name) }
    case .queue(let name, _, _):
      if !context.queues.contains(name) { context.queues.append(name) }
    case .reset:
      context = ParseContext(operations: [], queues: ["main", "queue"])
    default:
      break
    }
  }

  /// The line as the interpreter records it in a saved script (`Interpreter.canonical`).
  static func canonical(_ line: String) -> String {
    Lexer.canonical(line)
  }

  /// Whether a parse error points inside the line, or just after its end. A missing word
  /// is pointed at one column after the last token plus a space (`op` → column 4), so the
  /// bound is the line's length + 2.
  static func plausible(_ error: ParseError, in line: String) -> Bool {
    error.column >= 1 && error.column <= line.count + 2 && error.length >= 0
  }

  /// Exercises the two renderings of an error, as the shell shows it.
  static func show(_ error: ParseError, line: String) {
    let d = Diagnostic(column: error.column, length: error.length, message: error.message, hint: error.hint)
    _ = d.pointed(prompt: 12)
    _ = d.located(defaultFile: "<fuzz>", defaultLine: 1)
    var inFile = d
    inFile.file = "fuzz.oplab"
    inFile.line = 1
    inFile.source = line
    _ = inFile.pointed(prompt: 0)
  }
}
