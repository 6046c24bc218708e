/// Fitting text to the terminal's width, as every view and message of the lab is fitted.
///
/// A line that is too long is broken between words. Its continuation lines hang under
/// where its text starts, so the columns a reader scans stay clear: an event line's
/// `t=N`, a help table's command names, a status table's operation names. A word is never
/// split: one longer than the room a line has is shortened as the timeline shortens names
/// (start and end kept, joined by `…`). A mark or a number alone (`✓`, `—`, `executing 0`)
/// stays with the word before it. Lines that fit are left exactly as they are.
public enum Wrap {
  /// A space the wrapper never breaks at (U+00A0), for words that belong together, such as
  /// `[on QUEUE]` in a usage line. It is printed as a plain space.
  public static let glue: Character = "\u{A0}"

  /// The narrowest width the lab draws at (`--width` takes 40 to 1000).
  public static let narrowest = 40

  /// `text` with every line fitted to `width` columns (see ``Wrap``).
  /// - Parameters:
  ///   - text: any number of lines; a final newline is kept.
  ///   - width: the columns of the terminal; less than ``narrowest`` counts as ``narrowest``.
  ///   - ascii: shortened words end in `~` rather than `…`.
  public static func text(_ text: String, width: Int, ascii: Bool = false) -> String {
    let width = max(width, narrowest)
    // Most output fits as it is: keep it untouched and cheap. (A line's UTF-8 length is
    // never less than its display width.) First on the bytes, without splitting: no line
    // longer than the width in bytes (a CR sends the text to the check below, where CR LF
    // is one Character and so does not end a line).
    // Text all ASCII has no glue either: one pass over the bytes, not two.
    var allASCII = true
    let shortLines = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      var run = 0
      var high: UInt8 = 0
      for b in bytes {
        high |= b
        if b == 0x0A {
          run = 0
        } else {
          run &+= 1
          if run > width || b == 0x0D { return false }
        }
      }
      allASCII = high < 0x80
      return true
    }
    if shortLines == true, allASCII || !hasGlue(text[...]) { return text }
    let fits =
      !hasGlue(text[...])
      && !text.split(separator: "\n").contains { $0.utf8.count > width && columns($0) > width }
    if fits { return text }
    var out: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      out.append(lines(line, width: width, ascii: ascii).joined(separator: "\n"))
    }
    return out.joined(separator: "\n")
  }

  /// One line fitted to `width` columns: the line itself when it fits, else its pieces.
  /// - Parameter hang: the continuation lines' indent; `nil` works it out from the line
  ///   (see ``hangingIndent(of:width:)``).
  public static func lines(_ line: Substring, width: Int, hang: Int? = nil, ascii: Bool = false) -> [String] {
    let width = max(width, narrowest)
    if !hasGlue(line), columns(line) <= width { return [String(line)] }
    let hang = min(hang ?? hangingIndent(of: line, width: width), width / 2)
    let margin = String(repeating: " ", count: hang)
    // A row of two parts, `what | counts`, breaks at its bar first.
    if let bar = line.firstRange(of: " | ") {
      let head = lines(line[..<bar.lowerBound] + " |", width: width, hang: hang, ascii: ascii)
      return head + lines((margin + line[bar.upperBound...])[...], width: width, hang: hang, ascii: ascii)
    }
    var pieces: [String] = []
    var current = String(line.prefix { $0 == " " })
    var currentWidth = current.count
    var hasWord = false

    func place(_ word: Substring, gap: Int) {
      let w = columns(word)
      if hasWord, currentWidth + gap + w <= width {
        current += String(repeating: " ", count: gap)
        current += word
        currentWidth += gap + w
        return
      }
      // A word too long for any line is shortened where it is, if there is fair room,
      // rather than left for a line of its own.
      if hasWord, w > width - hang, !word.contains(glue), width - currentWidth - gap >= 12 {
        let shown = Names.shorten(String(word), to: width - currentWidth - gap, ascii: ascii)
        current += String(repeating: " ", count: gap)
        current += shown
        currentWidth += gap + columns(shown[...])
        return
      }
      if hasWord {
        pieces.append(current)
        current = margin
        currentWidth = hang
      }
      let room = max(width - currentWidth, 8)
      if w > room, word.contains(glue) {
        // A group that fits on no line is broken at its own spaces after all.
        var isFirst = true
        for part in word.split(separator: glue, omittingEmptySubsequences: false) {
          place(part, gap: isFirst ? 0 : 1)
          isFirst = false
        }
        return
      }
      let shown: String = w > room ? Names.shorten(String(word), to: room, ascii: ascii) : String(word)
      current += shown
      currentWidth += columns(shown[...])
      hasWord = true
    }

    for (gap, word) in words(of: line) { place(word, gap: gap) }
    pieces.append(current)
    return pieces.map(unglued)
  }

  /// The words of `line` with the number of spaces before each (the indent not counted);
  /// a word that ``clings(_:)`` is joined to the one before it by glue.
  static func words(of line: Substring) -> [(gap: Int, word: Substring)] {
    // Spaces are ASCII, so the line is cut on its bytes: a cut never falls inside a character.
    let bytes = line.utf8
    var words: [(gap: Int, word: Substring)] = []
    var gap = 0
    var index = bytes.startIndex
    while index < bytes.endIndex, bytes[index] == 0x20 { index = bytes.index(after: index) }
    while index < bytes.endIndex {
      if bytes[index] == 0x20 {
        gap += 1
        index = bytes.index(after: index)
        continue
      }
      let end = bytes[index...].firstIndex(of: 0x20) ?? bytes.endIndex
      let word: Substring = line[index..<end]
      if let last = words.last, clings(word) {
        var joined = String(last.word)
        joined += String(repeating: String(glue), count: gap)
        joined += word
        words[words.count - 1].word = joined[...]
      } else {
        words.append((gap, word))
      }
      gap = 0
      index = end
    }
    return words
  }

  /// The columns `text` takes on a terminal: its length when it is ASCII (most of what the
  /// lab prints, counted without decoding), else ``Names/width(_:)``.
  static func columns(_ text: Substring) -> Int {
    let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
      var high: UInt8 = 0
      for byte in bytes { high |= byte }
      return high < 0x80
    }
    if ascii == true { return text.utf8.count }
    return Names.width(String(text))
  }

  /// Whether `word` is kept on the line of the word before it: a short mark (`|`, `—`,
  /// `✓`) or a short number (`0,`).
  static func clings(_ word: Substring) -> Bool {
    guard word.utf8.count <= 12, word.count <= 3 else { return false }
    if word.allSatisfy({ !$0.isLetter && !$0.isNumber }) { return true }
    return word.allSatisfy { (ch: Character) -> Bool in ch.isASCII && (ch.isNumber || ch == "," || ch == ".") }
  }

  /// Where a long line's continuation lines start, from the line's own shape:
  /// - an event line, `t=12  …` or `t=12 #40 …`: under the text after the tick;
  /// - a list item, `- …`, `• …` or `a) …`: under the text after the bullet;
  /// - a labelled line, `usage: …`, `error: …`, `hint: …`, `swift: …` (swift-echo): under the text after the label;
  /// - a table row, a first word then two or more spaces: under the second column;
  /// - anything else: two columns in from the line's own indent.
  /// An indent past half the width is cut back to two columns in.
  public static func hangingIndent(of line: Substring, width: Int) -> Int {
    let leading = line.prefix { $0 == " " }.count
    let rest = line.dropFirst(leading)
    var candidate = leading + 2
    if let tick = eventPrefix(rest) {
      candidate = leading + tick
    } else if rest.hasPrefix("- ") || rest.hasPrefix("• ") || rest.hasPrefix("* ") {
      candidate = leading + 2
    } else if let marker = rest.prefix(4).firstIndex(of: ")"), rest[marker...].hasPrefix(") "),
      rest[..<marker].allSatisfy({ $0.isLetter || $0.isNumber })
    {
      candidate = leading + rest.distance(from: rest.startIndex, to: marker) + 2  // `a) …`, `12) …`
    } else if let label = labels.first(where: { rest.hasPrefix($0) }) {
      candidate = leading + label.count
    } else if let space = rest.firstIndex(of: " "), rest[space...].hasPrefix("  ") {
      let gap = rest[space...].prefix { $0 == " " }.count
      candidate = leading + Names.width(String(rest[..<space])) + gap
    }
    return candidate <= width / 2 ? candidate : min(leading + 2, width / 2)
  }

  static let labels = ["usage: ", "error: ", "hint: ", "warning: ", "swift: "]

  /// The width of `t=N ` or `t=N #S ` (with the spaces after it) at the start of `text`.
  static func eventPrefix(_ text: Substring) -> Int? {
    guard text.hasPrefix("t=") else { return nil }
    var rest = text.dropFirst(2)
    let digits = rest.prefix { $0.isASCII && $0.isNumber }.count
    guard digits > 0 else { return nil }
    rest = rest.dropFirst(digits)
    let spaces = rest.prefix { $0 == " " }.count
    guard spaces > 0 else { return nil }
    var length = 2 + digits + spaces
    rest = rest.dropFirst(spaces)
    if rest.hasPrefix("#") {
      let seq = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }.count
      let after = rest.dropFirst(1 + seq).prefix { $0 == " " }.count
      if seq > 0, after > 0 { length += 1 + seq + after }
    }
    return length
  }

  /// A paragraph of prose (its lines joined, then wrapped) indented by `indent` columns.
  public static func paragraph(_ text: String, width: Int, indent: Int = 0, ascii: Bool = false) -> String {
    let words: String = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    let line: String = String(repeating: " ", count: indent) + words
    return lines(line[...], width: width, hang: indent, ascii: ascii).joined(separator: "\n")
  }

  private static func unglued(_ text: String) -> String {
    hasGlue(text[...]) ? String(text.map { $0 == glue ? " " : $0 }) : text
  }

  /// Whether `text` holds ``glue`` (looked for in its bytes, C2 A0, for speed).
  static func hasGlue(_ text: Substring) -> Bool {
    let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard bytes.count > 1 else { return false }
      for i in 0..<(bytes.count - 1) where bytes[i] == 0xC2 && bytes[i + 1] == 0xA0 { return true }
      return false
    }
    return found ?? text.contains(glue)
  }
}
