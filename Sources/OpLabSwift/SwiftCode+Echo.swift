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

  /// The echo of the pieces one line made: fitted to the width less the echo's indent, the
  /// clock's `sleep` left out, a class named rather than written out.
  static func echoText(_ pieces: [Piece], subject: String?) -> String {
    let lines = pieces.filter { !($0.lines.first?.hasPrefix("sleep(") ?? false) }
      .flatMap { fit(Array($0.inline.dropFirst()), width: columns + 4 - echoIndent.count) }
    var shown: [String] = []
    var inClass: String?
    for line in lines {
      if let type = inClass {
        if line == "}" {
          shown.append("// \(type): an Operation subclass (`swift \(subject ?? "")` shows it)")
          inClass = nil
        }
        continue
      }
      if line.hasPrefix("final class ") {
        inClass = String(line.dropFirst("final class ".count).prefix { $0 != ":" })
        continue
      }
      shown.append(line)
    }
    guard !shown.isEmpty else { return "" }
    return shown.enumerated().map { i, line in (i == 0 ? "  swift: " : echoIndent) + line + "\n" }.joined()
  }
}
