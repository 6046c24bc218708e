import OpLabCore

/// `swift [OP|QUEUE]`: the Swift, on Foundation's `OperationQueue`, behind what was typed.
///
/// A pure function of the journal's actions that made the present world, each typed line
/// with the tick it ran at (``SwiftSource``): every action becomes the API calls it stands
/// for, under a `// command` line that names the line, and the clock's passing becomes
/// `sleep(untilTick:)`. `work(ticks:)` stands for the operation's real work; the user's taps
/// and the display's frames are the harness's (`Lab.tap`, `Lab.frames`), and what has no
/// code (cores, a platform) is said in a comment. It is the program `export swift` writes,
/// so it runs and can disagree with the lab. The code is laid out to be read and copied,
/// so it is not wrapped like prose.
public enum SwiftCode {
  /// The widest line of generated code. Code is laid out, never wrapped like prose, so
  /// it is made to fit an 80-column terminal even where a lesson indents it by four.
  public static let columns = 76

  /// The widest statement of the program, before the two columns of ``programFunction``'s
  /// indent.
  public static let statementColumns = columns - 2

  /// A piece of the program: its lines, and the names of the operations and queues it is about.
  struct Piece {
    var lines: [String]
    var names: Set<String>
    /// What the piece declares at file scope, before the program's function: an
    /// `Operation` subclass, a `Mutex` (a closure cannot capture one: it cannot be copied).
    var declarations: [String] = []
  }

  /// The name of the function the program's statements are in. Its locals are the
  /// world's queues and operations: in a function, swiftc's lookups walk back one scope
  /// a local (top-level code in main.swift walks back one a statement), so a big world
  /// type-checks in a fraction of the time it takes as top-level code.
  public static let programFunction = "program"

  /// The whole program's text after its declarations: each piece's file-scope
  /// declarations, then its statements in ``programFunction``, called from top-level code
  /// between `before` and `after` (the harness's hooks).
  static func programText(_ pieces: [Piece], before: String = "", after: String = "") -> String {
    var out = ""
    for piece in pieces where !piece.declarations.isEmpty {
      out += fit(piece.declarations).joined(separator: "\n") + "\n\n"
    }
    out += "/// The world, command by command, on the main thread.\n"
    out += "func \(programFunction)() {\n"
    out +=
      pieces.map { piece in
        fit(piece.lines, width: statementColumns).map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
      }
      .joined(separator: "\n\n") + "\n}\n\n"
    return out + before + "\(programFunction)()\n" + after
  }

  /// The program lowered from `source`: every line's pieces, the variables the lab finds
  /// a data race on (its `races`) written as the racy code a learner would write.
  static func lowered(_ source: SwiftSource, recordingCalls: Bool = false) -> Program {
    var code = Program(world: source.world)
    code.recordsCalls = recordingCalls
    if let shared = source.world.shared {
      code.racy = Set(source.world.raceReport().races.map { shared.variableNames[Int($0.variable)] })
    }
    for entry in source.entries { code.add(entry) }
    return code
  }

  /// The calls on `OperationQueue` and its kin that the program (``render(_:focus:)``,
  /// ``export(_:tickSeconds:)``) makes, at the ticks of their lines, named as the lowering
  /// names them (``SwiftSource/lowered(playingOn:)``): for checking that the program prints
  /// the calls `real` plays. A wait from the lab's own thread is no call here, as `real`
  /// lets the clock run on.
  public static func calls(_ source: SwiftSource) -> [TimedAction] { lowered(source, recordingCalls: true).calls }

  /// `swift`: the program, exactly the `main.swift` that `export swift DIR` writes (and the
  /// text before the harness's marker in `export swift FILE.swift`): one form of it, the one
  /// that runs, so what the learner reads is what plays the world on the real queue. With
  /// `focus`, only the pieces about that operation or queue, each line as it is in
  /// `main.swift`: the command's comment, the declarations it made as at file scope, then
  /// its statements without ``programFunction``'s indent.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - focus: an operation's or a queue's name.
  /// - Returns: the code, one line a line, ending in a newline.
  public static func render(_ source: SwiftSource, focus: String? = nil) -> String {
    let code = lowered(source)
    guard let focus else {
      if code.pieces.isEmpty {
        return "// nothing typed yet: `queue`, `op` and the other commands that change the\n// world become Swift here\n"
      }
      return mainSwift(code, source: source).text
    }
    let pieces = code.pieces.filter { $0.names.contains(focus) }
    if pieces.isEmpty { return "// nothing typed is about \(focus) yet\n" }
    return pieces.map { piece in
      let statements = fit(piece.lines, width: statementColumns)
      guard !piece.declarations.isEmpty, let first = piece.lines.first else { return statements.joined(separator: "\n") }
      let command = fit([first], width: statementColumns).count  // its comment, maybe on more lines
      return (statements.prefix(command) + fit(piece.declarations) + statements.dropFirst(command)).joined(separator: "\n")
    }
    .joined(separator: "\n\n") + "\n"
  }
}

extension SwiftCode.Program {
  /// The stand-ins and helpers the program's pieces use, each followed by a blank line.
  func declarations() -> String {
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
    return out
  }
}
