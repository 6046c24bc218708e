import Foundation
import OpLabCore
import OpLabRender
import OpLabSwift

/// The commands that read and write files: `export`, `save`, `source`, and the paths they take.
extension Interpreter {
  /// `export KIND FILE`, written whole or not at all; `export swift DIR`, a package.
  func export(_ kind: ExportKind, to file: String, line: String) throws -> Reply {
    let world = world, options = options
    let at = Lexer.tokens(line).last ?? Token(file, column: 1)
    try Self.refuseCommentInPath(line, at)
    if kind == .swift, Self.writesPackage(file) { return try exportPackage(to: file, at: at) }
    let program = kind == .swift ? SwiftCode.export(swiftSource()) : ""
    let outcome: FileIO.WriteOutcome
    do {
      outcome = try FileIO.writeAtomically(to: file, interrupted: interrupt) { out in
        switch kind {
        case .timeline: out.write(Timeline.render(world, width: options.width, ascii: options.ascii))
        case .events: Exporters.eventsJSONLines(world, to: &out)
        case .trace: Exporters.chromeTrace(world, to: &out)
        case .mermaid: Exporters.mermaid(world, to: &out)
        case .swift: out.write(program)
        }
      }
    } catch {
      throw Diagnostic(error, column: at.column, length: at.length)
    }
    return Reply(output: "  wrote \(kind.rawValue) to \(outcome.destination(file))\(outcome.note)\n")
  }

  /// `save FILE`: the commands that made the present world, as a script.
  func save(to file: String, line: String) throws -> Reply {
    let at = Lexer.tokens(line).last ?? Token(file, column: 1)
    try Self.refuseCommentInPath(line, at)
    let header =
      "# OpLab session saved at t=\(world.now); replay with `oplab run \(Self.shellQuoted(file))`"
      + " or `source \(Self.quotedIfNeeded(file))`\n"
    let text = header + script.map { $0.text + "\n" }.joined()
    let outcome: FileIO.WriteOutcome
    do {
      outcome = try FileIO.writeAtomically(to: file) { $0.write(text) }
    } catch {
      throw Diagnostic(error, column: at.column, length: at.length)
    }
    return Reply(output: "  saved \(script.count) \(script.count == 1 ? "command" : "commands") to \(outcome.destination(file))\(outcome.note)\n")
  }

  /// `source FILE`: runs a script's lines as if typed.
  func sourceCommand(_ file: String, line: String) throws -> Reply {
    let at = Lexer.tokens(line).last ?? Token(file, column: 1)
    try Self.refuseCommentInPath(line, at)
    // Each line's output was fitted (or laid out, as code) as it ran: not again.
    var reply = try source(file, at: at)
    reply.preformatted = true
    return reply
  }

  /// A path as a command would take it: in double quotes when it holds a space, a quote,
  /// `#` or a backslash (`source "my run.oplab"`).
  static func quotedIfNeeded(_ path: String) -> String {
    guard path.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "#" || $0 == "\\" }) else { return path }
    return "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  /// A path as a POSIX shell takes it, for the replay line of a saved script: as it is
  /// when it holds only characters no shell treats specially, else in single quotes, a `'`
  /// written `'\''` (`oplab run 'it'\''s $HOME.oplab'`).
  static func shellQuoted(_ path: String) -> String {
    let plain =
      !path.isEmpty
      && path.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_./-+:,=@%".unicodeScalars.contains($0)
      }
    return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// Refuses a file argument glued to a `#` (`export events report#1.jsonl`): the `#`
  /// starts a comment wherever it stands, as on every line, so the path would silently stop
  /// before it.
  static func refuseCommentInPath(_ line: String, _ path: Token) throws {
    let characters = Array(line)
    let next = path.column - 1 + path.length
    guard path.column >= 1, next < characters.count, characters[next] == "#" else { return }
    let typed = path.text + String(characters[next...].prefix { !$0.isWhitespace })
    throw Diagnostic(
      column: next + 1, length: 1, message: "`#` starts a comment, so the file name would stop at '\(path.text)'",
      hint: "quote the name to keep the `#` in it: \(Lexer.quotedIfNeeded(typed))")
  }

  /// Runs `body` with `file` (opened from `path`, as the learner `named` it) as the script
  /// being run: `oplab run` runs each of its files inside this.
  func running<T>(_ file: ScriptFile, path: String, named: String, _ body: () -> T) -> T {
    scripts.append((named, path, file.identity, file.inFolder))
    defer { scripts.removeLast() }
    return body()
  }

  /// Where `source FILE` looks: a relative path inside a script is beside that script; typed
  /// at the prompt, or inside a script that is a stream (stdin, a pipe, a FIFO: in no
  /// folder of its own), in the current folder.
  func sourcePath(_ file: String) -> String {
    guard !file.hasPrefix("/"), let including = scripts.last, including.inFolder else { return file }
    let folder = FileIO.folder(of: including.path)
    return folder == "." ? file : (folder == "/" ? "/" : folder + "/") + file
  }

  private func source(_ file: String, at token: Token) throws -> Reply {
    guard sourceDepth < Self.maxSourceDepth else {
      throw Diagnostic(
        column: token.column, length: token.length, message: "scripts nested more than \(Self.maxSourceDepth) deep",
        hint: "a chain of scripts sourcing scripts this long: run some of them one after another instead")
    }
    let path = sourcePath(file)
    let script: ScriptFile
    do {
      script = try FileIO.openScript(path)
    } catch {
      throw Diagnostic(error, column: token.column, length: token.length)
    }
    if let first = scripts.firstIndex(where: { $0.identity == script.identity }) {
      let cycle = (scripts[first...].map(\.named) + [file]).joined(separator: " → ")
      throw Diagnostic(
        column: token.column, length: token.length,
        message: first == scripts.count - 1 ? "the script sources itself: \(cycle)" : "these scripts source each other in a cycle: \(cycle)",
        hint: "remove one of the `source` lines, or the scripts would run forever")
    }
    sourceDepth += 1
    defer { sourceDepth -= 1 }
    return running(script, path: path, named: file) {
      var out = ""
      var number = 0
      while let item = script.next() {
        number += 1
        guard case .line(let line) = item else {
          if case .tooLong(let start, let bytes) = item {
            let error = Diagnostic(
              file: path, line: number, column: 1, message: LineInput.tooLongMessage(start: start, bytes: bytes),
              hint: "a command fits on one short line; is \(file) a script?")
            return Reply(output: out, error: error)
          }
          continue
        }
        // Ctrl-C (or a signal to a batch run) stops a sourced script between two lines too.
        if interrupt?() == true {
          let said = "  interrupted before \(path):\(number); the lines from there on did not run\n"
          return Reply(output: out + Wrap.text(said, width: options.width, ascii: options.ascii))
        }
        let reply = execute(line)
        if let streamOutput { streamOutput(reply.output) } else { out += reply.output }
        if var error = reply.error {
          if error.file == nil {
            error.file = path
            error.line = number
            error.source = line
          }
          return Reply(output: out, error: error)
        }
        if reply.quit { return Reply(output: out, quit: true) }
      }
      return Reply(output: out)
    }
  }
}
