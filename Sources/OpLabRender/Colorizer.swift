/// Colour for a terminal, added at the very edge: renderers produce plain text, and this
/// maps a drawing's glyphs to ANSI colours. Exports never pass through it.
public enum Colorizer {
  /// Colours the glyphs of a timeline drawing (Unicode or ASCII glyph sets alike).
  public static func timeline(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count * 2)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      // Only lane cells are coloured: labels and notes keep the terminal's colour.
      var colored = ""
      for ch in line {
        if let code = code(for: ch) { colored += "\u{1B}[\(code)m\(ch)\u{1B}[0m" } else { colored.append(ch) }
      }
      out += colored + "\n"
    }
    out.removeLast()
    return out
  }

  /// Red "error:" and yellow "hint:" prefixes.
  public static func diagnostic(_ text: String) -> String {
    text.replacingPrefix("error:", with: "\u{1B}[1;31merror:\u{1B}[0m")
      .replacingOccurrences("\nerror:", with: "\n\u{1B}[1;31merror:\u{1B}[0m")
      .replacingOccurrences("hint:", with: "\u{1B}[33mhint:\u{1B}[0m")
  }

  static func code(for ch: Character) -> String? {
    switch ch {
    case "█": "32"  // executing: green
    case "▓": "33"  // executing, cancel requested: yellow
    case "░": "36"  // ready, waiting for a slot: cyan
    case "·": "2"  // waiting on dependencies: dim
    case "✓": "1;32"
    case "✗": "1;31"
    case "!": "1;31"
    case "↩": "35"
    case "‖": "1;34"
    default: nil
    }
  }
}

extension String {
  fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }

  fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var out = ""
    var rest = self[...]
    while let range = rest.firstRange(of: target) {
      out += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return out + rest
  }
}
