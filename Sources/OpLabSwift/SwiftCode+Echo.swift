import OpLabCore

extension SwiftCode {
  /// `set swift-echo on`: the Swift of the last step alone, as a line or two after the
  /// command's own output. An `Operation` subclass is named, not written out (`swift OP`
  /// shows it); the clock moving on has no echo.
  /// - Parameter source: the lines that made the world, the one to echo last.
  /// - Returns: the echo's lines, each ending in a newline; empty when the line has no code.
  /// - Complexity: lowers every line; a session echoes each command with ``Echo``, which
  ///   lowers only the new one.
  public static func echo(_ source: SwiftSource) -> String {
    guard let last = source.entries.last else { return "" }
    var echo = Echo(world: source.world)
    echo.catchUp(source.entries.dropLast(), world: source.world)
    return echo.echo(last, world: source.world)
  }

  /// The indent of an echo's lines after the first, under its `  swift: `.
  public static let echoIndent = "         "

  /// The widest line an echo shows after its indent, within 80 columns.
  public static let echoColumns = columns + 4 - echoIndent.count

  /// The program lowered so far, for echoing each new line as it is typed: each line is
  /// lowered once (what names it declared, which kinds of operation have a class), so an
  /// echo costs the new line's actions, not the whole script's.
  public struct Echo {
    private var code: Program

    /// An echo of a session that has typed nothing yet.
    /// - Parameter world: the world the lines make (their names).
    public init(world: World) { code = Program(world: world) }

    /// Lowers `entries` without echoing them (the lines before the one to echo, once).
    /// - Parameter world: a world that has every name the entries refer to (the present one).
    public mutating func catchUp(_ entries: some Sequence<SwiftSource.Entry>, world: World) {
      code.world = world
      for entry in entries { code.add(entry) }
      code.pieces.removeAll(keepingCapacity: true)
    }

    /// Lowers `entry`, the line just typed, and returns its echo.
    /// - Parameter world: the world after it (its names).
    /// - Returns: the echo's lines, each ending in a newline; empty when the line has no code.
    /// - Complexity: the line's actions.
    public mutating func echo(_ entry: SwiftSource.Entry, world: World) -> String {
      code.world = world
      code.add(entry)
      defer { code.pieces.removeAll(keepingCapacity: true) }
      return SwiftCode.echoText(code.pieces, subject: entry.subject)
    }
  }

  /// The echo of the pieces one line made: its lines as `main.swift` has them, its
  /// file-scope declarations first, a class named rather than written out, the clock's
  /// `sleep` left out. A line too wide for the echo's indent is laid out again within
  /// 80 columns (a trailing comment above it, a long comment broken).
  static func echoText(_ pieces: [Piece], subject: String?) -> String {
    let room = echoColumns
    var shown: [String] = []
    for piece in pieces where !(piece.lines.first?.hasPrefix("sleep(") ?? false) {
      var inClass = false
      for line in fit(fit(piece.declarations), width: room) {
        if inClass {
          inClass = line != "}"
        } else if line.hasPrefix("final class ") {
          let type = line.dropFirst("final class ".count).prefix { $0 != ":" }
          shown.append("// \(type): an Operation subclass (`swift \(subject ?? "")` shows it)")
          inClass = true
        } else if !line.isEmpty {
          shown.append(line)
        }
      }
      shown += fit(fit(Array(piece.lines.dropFirst()), width: statementColumns), width: room)
    }
    guard !shown.isEmpty else { return "" }
    return shown.enumerated().map { i, line in (i == 0 ? "  swift: " : echoIndent) + line + "\n" }.joined()
  }
}
