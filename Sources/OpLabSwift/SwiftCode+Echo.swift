extension SwiftCode {
  /// `set swift-echo on`: the Swift of the last step alone, as a line or two after the
  /// command's own output. An `Operation` subclass is named, not written out (`swift OP`
  /// shows it); the clock moving on has no echo.
  /// - Parameter source: the lines that made the world, the one to echo last.
  /// - Returns: the echo's lines, each ending in a newline; empty when the line has no code.
  public static func echo(_ source: SwiftSource) -> String {
    guard let last = source.entries.last else { return "" }
    var code = Program(world: source.world)
    for entry in source.entries.dropLast() { code.add(entry) }
    let before = code.pieces.count
    code.add(last)
    // Fitted to the width less the echo's indent.
    let lines = code.pieces[before...].filter { !($0.lines.first?.hasPrefix("sleep(") ?? false) }
      .flatMap { fit(Array($0.lines.dropFirst()), width: columns + 4 - echoIndent.count) }
    var shown: [String] = []
    var inClass: String?
    for line in lines {
      if let type = inClass {
        if line == "}" {
          shown.append("// \(type): an Operation subclass (`swift \(last.subject ?? "")` shows it)")
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

  /// The indent of an echo's lines after the first, under its `  swift: `.
  public static let echoIndent = "         "
}
