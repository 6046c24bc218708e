import OpLabCore

/// `swift [OP|QUEUE]`: the Swift, on Foundation's `OperationQueue`, behind what was typed.
///
/// A pure function of the journal's actions that made the present world, each typed line
/// with the tick it ran at (``SwiftSource``): every action becomes the API calls it stands
/// for, under a `// command` line that names the line, and the clock's passing becomes
/// `sleep(untilTick:)`. `work(ticks:)` stands for the operation's real work. What has no code
/// (taps, frames, cores: the lab plays the user and the machine) is said in a comment. The
/// code is laid out to be read and copied, so it is not wrapped like prose.
public enum SwiftCode {
  /// The widest line of generated code. Code is laid out, never wrapped like prose, so
  /// it is made to fit an 80-column terminal even where a lesson indents it by four.
  public static let columns = 76

  /// A piece of the program: its lines, and the names of the operations and queues it is about.
  struct Piece {
    var lines: [String]
    var names: Set<String>
    /// What the piece declares at file scope, before the program's function: an
    /// `Operation` subclass, a `Mutex` (a closure cannot capture one: it cannot be copied).
    var declarations: [String] = []
    /// The piece as one, its declarations where they were made: a view of one name, an echo.
    var inline: [String] = []
  }

  /// The name of the function the program's statements are in. Its locals are the
  /// world's queues and operations: in a function, swiftc's lookups walk back one scope
  /// a local (top-level code in main.swift walks back one a statement), so a big world
  /// type-checks in a fraction of the time it takes as top-level code.
  public static let programFunction = "program"

  /// The whole program's text after its declarations: each piece's file-scope
  /// declarations, then its statements in ``programFunction``, called from top-level code
  /// between `before` and `after` (the export's harness hooks).
  static func programText(_ pieces: [Piece], before: String = "", after: String = "") -> String {
    var out = ""
    for piece in pieces where !piece.declarations.isEmpty {
      out += fit(piece.declarations).joined(separator: "\n") + "\n\n"
    }
    out += "/// The world, command by command, on the main thread.\n"
    out += "func \(programFunction)() {\n"
    out +=
      pieces.map { piece in
        fit(piece.lines, width: columns - 2).map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
      }
      .joined(separator: "\n\n") + "\n}\n\n"
    return out + before + "\(programFunction)()\n" + after
  }

  /// The program for `source`; with `focus`, only the pieces about that operation or queue.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - focus: an operation's or a queue's name.
  /// - Returns: the code, one line a line, ending in a newline.
  public static func render(_ source: SwiftSource, focus: String? = nil) -> String {
    var code = Program(world: source.world)
    // Only the whole program counts completion blocks: a view of one operation or queue
    // (or an echo) shows the lines about it, and the count is about them all.
    code.tracksCompletionBlocks = focus == nil && source.entries.contains(where: \.waitsForTheWork)
    for entry in source.entries { code.add(entry) }
    let pieces = focus.map { name in code.pieces.filter { $0.names.contains(name) } } ?? code.pieces
    if pieces.isEmpty {
      return focus == nil
        ? "// nothing typed yet: `queue`, `op` and the other commands that change the\n// world become Swift here\n"
        : "// nothing typed is about \(focus ?? "") yet\n"
    }
    var out = ""
    if focus == nil {
      out += "// The Swift behind this world, on Foundation's OperationQueue. From the\n"
      out += "// harness (`export swift` writes it): work(ticks:) is an operation's real\n"
      out += "// work, startWork(ticks:then:) work that calls back when done (with\n"
      out += "// failing: true, back with its error), sleep(untilTick:) the main thread\n"
      out += "// idling until the lab's clock reads that tick, and WorkError.failed the\n"
      out += "// error of work that fails.\n"
      out += "import Foundation\n" + (code.needsSynchronization ? "import Synchronization\n" : "") + "\n"
      out += code.declarations(mainLoop: true)
    }
    guard focus == nil else {
      // A view of one name: its pieces, each declaration where the command made it.
      return out + pieces.map { fit($0.inline).joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }
    return out + programText(pieces)
  }
}

extension SwiftCode.Program {
  /// The stand-ins and helpers the program's pieces use, each followed by a blank line;
  /// the main loop only where the program waits with it (the export ends its own way).
  func declarations(mainLoop: Bool) -> String {
    var out = ""
    if needsAsyncBase { out += SwiftCode.asyncBase.joined(separator: "\n") + "\n\n" }
    if needsRacyBox { out += SwiftCode.racyBox.joined(separator: "\n") + "\n\n" }
    if needsSucceeded {
      out += SwiftCode.succeededHelper.joined(separator: "\n") + "\n\n"
      for (type, test) in didItsWork {
        out += "extension \(type): DidItsWork {\n  var didItsWork: Bool { \(test) }\n}\n\n"
      }
    }
    if needsGate { out += SwiftCode.gateBase.joined(separator: "\n") + "\n\n" }
    if needsUserInterface { out += SwiftCode.userInterfaceStandIn.joined(separator: "\n") + "\n\n" }
    if needsOffMainTouch { out += SwiftCode.offMainTouchStandIn.joined(separator: "\n") + "\n\n" }
    guard mainLoop else { return out }
    if needsCompletionGroup { out += SwiftCode.completionGroup.joined(separator: "\n") + "\n\n" }
    if needsMainLoop {
      out += SwiftCode.mainLoop(countingCompletionBlocks: needsCompletionGroup).joined(separator: "\n") + "\n\n"
    }
    return out
  }
}
