import OpLabRender

/// An error to show the learner: what went wrong, where, and what to try.
public struct Diagnostic: Error, Hashable, Sendable {
  /// The script file, when the error is inside one (`nil`: the line being run).
  public var file: String?
  /// The 1-based line in `file`.
  public var line: Int?
  /// The 1-based column of the bad token.
  public var column: Int
  /// How many characters to underline.
  public var length: Int
  /// What is wrong.
  public var message: String
  /// What to try, if anything.
  public var hint: String?
  /// The text of the line, for the caret display.
  public var source: String?

  /// Creates a diagnostic.
  public init(file: String? = nil, line: Int? = nil, column: Int, length: Int = 1, message: String, hint: String? = nil, source: String? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.length = length
    self.message = message
    self.hint = hint
    self.source = source
  }

  /// `FILE:LINE:COL: error: message` plus the hint on its own line, for batch mode, each
  /// wrapped to `width` (the first line keeps `FILE:LINE:COL: error:` whole, as editors read it).
  public func located(defaultFile: String, defaultLine: Int, width: Int = 80) -> String {
    let place = "\(Visible.escape(file ?? defaultFile)):\(line ?? defaultLine):\(column): error: "
    // A path too long to leave room for the message is not shortened: the line stays whole.
    var text =
      Names.width(place) > width - 8
      ? place + Visible.shown(message) + "\n" : Self.fitted(place, Visible.shown(message), width: width, hang: 2)
    if let hint { text += Self.fitted("  hint: ", Visible.shown(hint), width: width) }
    return text
  }

  /// `label` then `text`, wrapped to `width` with the continuation lines under the text
  /// (or `hang` columns in, when given).
  static func fitted(_ label: String, _ text: String, width: Int, hang: Int? = nil) -> String {
    Wrap.lines((label + text)[...], width: width, hang: hang ?? Names.width(label)).joined(separator: "\n") + "\n"
  }

  /// The caret display for interactive mode: the line, a caret under the bad token, the message.
  /// - Parameters:
  ///   - prompt: the display width of the prompt the line was typed after.
  ///   - typed: the line as typed, so the caret accounts for wide characters before the token.
  ///   - width: the terminal's columns: the message and the hint are wrapped to it.
  public func pointed(prompt: Int, typed: String? = nil, width: Int = 80) -> String {
    var text = ""
    if let file, let line, let source {
      text += Self.fitted("\(Visible.escape(file)):\(line):\(column): error: ", Visible.shown(message), width: width, hang: 2)
      let part = Self.excerpt(of: source, column: column, length: length, room: width - 2)
      text += "  \(part.text)\n  " + String(repeating: " ", count: part.caret) + String(repeating: "^", count: part.carets) + "\n"
    } else if let typed, prompt + Names.width(Visible.escape(typed)) > width {
      // The terminal wrapped the line as it was typed: a caret could not sit under it, so
      // the part with the bad token is shown again, as a script's line is.
      let part = Self.excerpt(of: typed, column: column, length: length, room: width - 2)
      text += "  \(part.text)\n  " + String(repeating: " ", count: part.caret) + String(repeating: "^", count: part.carets) + "\n"
      text += Self.fitted("error: ", Visible.shown(message), width: width)
    } else {
      let part = typed.map { Self.excerpt(of: $0, column: column, length: length, room: .max) }
      let at = part?.caret ?? max(0, column - 1)
      text += String(repeating: " ", count: max(0, prompt + at)) + String(repeating: "^", count: part?.carets ?? max(1, length)) + "\n"
      text += Self.fitted("error: ", Visible.shown(message), width: width)
    }
    if let hint { text += Self.fitted("hint: ", Visible.shown(hint), width: width) }
    return text
  }

  /// The part of `line` to show with carets under the bad token (at `column`, `length`
  /// characters), in `room` columns: all of it when it fits, else the token with as much
  /// on either side as fits, cut with `…`. Hidden characters are shown escaped.
  /// - Returns: the text, the caret's column in it, and how many carets (the token's width).
  static func excerpt(of line: String, column: Int, length: Int, room: Int) -> (text: String, caret: Int, carets: Int) {
    let start = max(0, column - 1)
    let before = Visible.escape(String(line.prefix(start)))
    var bad = Visible.escape(String(line.dropFirst(start).prefix(max(1, length))))
    let after = Visible.escape(String(line.dropFirst(start + max(1, length))))
    let (b, t, a) = (Names.width(before), Names.width(bad), Names.width(after))
    if b + t + a <= room { return (before + bad + after, b, max(1, bad.isEmpty ? length : t)) }
    if t > room - 2 { bad = Names.shorten(bad, to: max(3, room - 2)) }
    let context = max(0, room - Names.width(bad) - 2)
    // Room on the left first for what comes before, the rest for what follows.
    let left = min(b, max(context / 2, context - a))
    let right = min(a, context - left)
    var head = "", tail = ""
    var taken = 0
    for ch in before.reversed() {
      let w = Names.width(String(ch))
      if taken + w > left { break }
      head.insert(ch, at: head.startIndex)
      taken += w
    }
    taken = 0
    for ch in after {
      let w = Names.width(String(ch))
      if taken + w > right { break }
      tail.append(ch)
      taken += w
    }
    let lead = head.count < before.count ? "…" : ""
    let trail = tail.count < after.count ? "…" : ""
    return (lead + head + bad + tail + trail, Names.width(lead + head), max(1, Names.width(bad)))
  }
}

/// Makes text safe to print: control characters, escape sequences and invisible or
/// direction-changing characters are shown as `\u{…}` instead of acting on the terminal.
public enum Visible {
  /// The longest word a message shows whole; longer ones keep their start and end
  /// (`'xxxxxxxxxxxxxxxxxxxxxx…xxxxxxxxxxxxxxxxxxxx'`), as long names are shortened in a timeline.
  public static let longestWord = 64

  /// `text` escaped (see ``escape(_:)``) with every word longer than ``longestWord``
  /// columns shortened: an error about a 60,000-character token is one line, not a screenful.
  public static func shown(_ text: String) -> String {
    let escaped = escape(text)
    guard escaped.utf8.count > longestWord else { return escaped }
    var out = ""
    var word = ""
    func flush() {
      out += Names.width(word) > longestWord ? Names.shorten(word, to: longestWord) : word
      word = ""
    }
    for ch in escaped {
      if ch == " " || ch == "\n" {
        flush()
        out.append(ch)
      } else {
        word.append(ch)
      }
    }
    flush()
    return out
  }

  public static func escape(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isHidden) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      if isHidden(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  static func isHidden(_ s: Unicode.Scalar) -> Bool {
    switch s.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x200B...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
    default: return false
    }
  }
}
