/// A word of a command line, with where it stands.
public struct Token: Hashable, Sendable {
  /// The text (without the quotes or backslashes that grouped it).
  public var text: String
  /// 1-based column (in characters) of its first character.
  public var column: Int
  /// How many characters of the line it spans, quotes included.
  public var length: Int

  /// Creates a token.
  public init(_ text: String, column: Int, length: Int? = nil) {
    self.text = text
    self.column = column
    self.length = length ?? text.count
  }
}

/// Splits a command line into tokens.
///
/// Tokens are separated by white space; `#` starts a comment that runs to the end of
/// the line; a comma list may have spaces after its commas (`after a, b` is `after a,b`).
/// A word that starts with a double or single quote runs to the matching quote, spaces and
/// `#` included (`export events "my run.jsonl"`); outside quotes a backslash keeps a space,
/// a quote, `#` or a backslash as part of the word (`my\ run.jsonl`). A quote inside a word
/// (`don't`) and any other backslash (`C:\x`) are plain characters.
public enum Lexer {
  /// The tokens of `line`, comments dropped.
  public static func tokens(_ line: String) -> [Token] { scan(line).tokens }

  /// `line` as a saved script and the crash journal keep it: its words joined by single
  /// spaces, comments dropped, each word quoted again when it needs quotes to stay one word
  /// with the same text (`"my run.oplab"`). A comma typed with space around it is written
  /// `, ` (`does read likes, compute 1`), one typed tight stays tight (`after a,b`): both read
  /// back as the same word. A line with a quote left open is kept as typed, so it fails
  /// again as it failed.
  public static func canonical(_ line: String) -> String {
    isCanonicalPlain(line) ? line : canonicalScanned(line)
  }

  /// ``canonical(_:)`` made from the line's words, for any line.
  static func canonicalScanned(_ line: String) -> String {
    let (tokens, unclosed, joins) = scanWithJoins(line)
    guard unclosed == nil else { return line }
    return zip(tokens, joins).map { token, joins in
      let quoted = quotedIfNeeded(token.text)
      guard !joins.isEmpty, quoted == token.text else { return quoted }
      // A word made of words joined at commas: a space after each of those commas.
      let text = Array(token.text)
      let commas = Set(joins.compactMap { j in j > 0 && text[j - 1] == "," ? j - 1 : j < text.count && text[j] == "," ? j : nil })
      var out = ""
      for (i, ch) in text.enumerated() {
        out.append(ch)
        if commas.contains(i) { out.append(" ") }
      }
      return out
    }.joined(separator: " ")
  }

  /// Whether `line` is its own canonical form, checked on its bytes without splitting it
  /// (nearly every line of a script, #34): words of printable ASCII without a quote, a
  /// backslash or `#`, separated by single spaces, no space at either end, and no space
  /// beside a comma (where words would be joined).
  static func isCanonicalPlain(_ line: String) -> Bool {
    let plain = line.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return false }
      var previous: UInt8 = 0
      for b in bytes {
        guard b >= 0x20, b < 0x7F, b != 0x22, b != 0x27, b != 0x5C, b != 0x23 else { return false }
        if b == 0x20, previous == 0x20 || previous == 0x2C { return false }
        if b == 0x2C, previous == 0x20 { return false }
        previous = b
      }
      return true
    }
    return plain ?? false
  }

  /// `word` as it must be typed to be read back as one word with this text.
  static func quotedIfNeeded(_ word: String) -> String {
    // A word of printable ASCII without a quote, a backslash or `#` (nearly every word of a
    // script) needs no quotes: checked on its bytes, without Character breaking.
    if !word.isEmpty, word.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x27 && $0 != 0x5C && $0 != 0x23 }) {
      return word
    }
    let special: Set<Character> = ["\"", "'", "\\", "#"]
    let needs = word.isEmpty || word.contains { $0.isWhitespace || special.contains($0) || $0.unicodeScalars.contains { $0.properties.isWhitespace } }
    guard needs else { return word }
    var out = "\""
    for ch in word {
      if ch == "\"" || ch == "\\" { out.append("\\") }
      out.append(ch)
    }
    return out + "\""
  }

  /// The tokens of `line`, and the column of a quote left open (the parser refuses the line).
  public static func scan(_ line: String) -> (tokens: [Token], unclosedQuote: Int?) {
    let (tokens, unclosed, _) = scanWithJoins(line)
    return (tokens, unclosed)
  }

  /// ``scan(_:)``, and for each token where words separated by white space were joined at a
  /// comma: the offsets, in characters of its text, where each joined word begins.
  static func scanWithJoins(_ line: String) -> (tokens: [Token], unclosedQuote: Int?, joins: [[Int]]) {
    if let plain = line.utf8.withContiguousStorageIfAvailable(scanPlain), let plain { return plain }
    return scanGeneral(line)
  }

  /// ``scanWithJoins(_:)`` Character by Character, for any line.
  static func scanGeneral(_ line: String) -> (tokens: [Token], unclosedQuote: Int?, joins: [[Int]]) {
    var tokens: [Token] = []
    var joins: [[Int]] = []
    var current = ""
    var start = 0
    var column = 0
    var end = 0
    /// The quote being read to its match, and where it opened.
    var quote: (character: Character, column: Int)?
    /// Whether the word being read had quotes (so `""` is a word, an empty one).
    var quoted = false
    /// Whether the last token had quotes: a quoted word is whole, never merged with the next
    /// (`export events "a," b` is two words, not `a,b`).
    var lastQuoted = false
    var escaping = false
    func flush() {
      guard !current.isEmpty || quoted else { return }
      if let last = tokens.last, tokens.count > 1, !quoted, !lastQuoted, last.text.hasSuffix(",") || current.hasPrefix(",") {
        joins[joins.count - 1].append(last.text.count)
        tokens[tokens.count - 1].text += current
        tokens[tokens.count - 1].length = tokens[tokens.count - 1].text.count
      } else {
        tokens.append(Token(current, column: start, length: end - start + 1))
        joins.append([])
        lastQuoted = quoted
      }
      current = ""
      quoted = false
    }
    func begin() {
      if current.isEmpty, !quoted { start = column }
      end = column
    }
    for ch in line {
      column += 1
      if let open = quote {
        end = column
        if escaping {  // in double quotes a backslash keeps only a quote or a backslash
          escaping = false
          if ch != "\"" && ch != "\\" { current.append("\\") }
          current.append(ch)
        } else if ch == open.character {
          quote = nil
        } else if open.character == "\"", ch == "\\" {
          escaping = true
        } else {
          current.append(ch)
        }
        continue
      }
      if escaping {
        escaping = false
        if ch == " " || ch == "\t" || ch == "\"" || ch == "'" || ch == "#" || ch == "\\" {
          current.append(ch)
          end = column
          continue
        }
        current.append("\\")
      }
      if ch == "#" { break }
      if ch == "\\" {
        begin()
        escaping = true
        continue
      }
      if ch == "\"" || ch == "'", current.isEmpty, !quoted {
        begin()
        quote = (ch, column)
        quoted = true
        continue
      }
      // Whitespace splits tokens scalar by scalar, not Character by Character: a space can
      // share a Character with the marks after it (" \u{301}") or with a prepended mark
      // before it ("\u{6DD} "), and either way it must still separate two words, or a
      // line and its saved form ("op\tx" and "op x") would read differently.
      for scalar in ch.unicodeScalars {
        if Self.isWhitespace(scalar) {
          flush()
        } else {
          begin()
          current.unicodeScalars.append(scalar)
        }
      }
    }
    if escaping { current.append("\\") }
    flush()
    return (tokens, quote?.column, joins)
  }

  /// ``scanWithJoins(_:)`` of a line whose bytes up to its comment are printable ASCII,
  /// spaces and tabs, without a quote or a backslash — nearly every line of a script — read
  /// from its bytes; `nil` for any other line, which the general scan reads. In such a line
  /// a byte is a Character, words are runs of bytes between spaces and tabs, and the only
  /// rules left are the comment and the joins at commas, as the general scan applies them.
  static func scanPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> (tokens: [Token], unclosedQuote: Int?, joins: [[Int]])? {
    var stop = bytes.count
    for (i, b) in bytes.enumerated() {
      if b == UInt8(ascii: "#") {
        stop = i
        break
      }
      guard (b >= 0x20 && b < 0x7F) || b == 0x09, b != 0x22, b != 0x27, b != 0x5C else { return nil }
    }
    // At most one word more than the blanks: room made once, not grown word by word.
    var blanks = 0
    for i in 0..<stop where bytes[i] == 0x20 || bytes[i] == 0x09 { blanks += 1 }
    var tokens: [Token] = []
    var joins: [[Int]] = []
    tokens.reserveCapacity(blanks + 1)
    joins.reserveCapacity(blanks + 1)
    var i = 0
    // Where the last word read ends: the token before ends with its last byte.
    var previousEnd = 0
    while i < stop {
      if bytes[i] == 0x20 || bytes[i] == 0x09 {
        i += 1
        continue
      }
      let start = i
      while i < stop, bytes[i] != 0x20, bytes[i] != 0x09 { i += 1 }
      let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
      if tokens.count > 1, bytes[start] == UInt8(ascii: ",") || bytes[previousEnd - 1] == UInt8(ascii: ",") {
        joins[joins.count - 1].append(tokens[tokens.count - 1].text.utf8.count)
        tokens[tokens.count - 1].text += word
        tokens[tokens.count - 1].length = tokens[tokens.count - 1].text.utf8.count
      } else {
        tokens.append(Token(word, column: start + 1, length: i - start))
        joins.append([])
      }
      previousEnd = i
    }
    return (tokens, nil, joins)
  }

  /// Unicode's White_Space, without the property tables for ASCII (tab to carriage
  /// return, and space): a script of many lines is mostly ASCII.
  static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
    return scalar.properties.isWhitespace
  }
}

/// Edit distance, for "did you mean".
public enum Suggest {
  /// The edit distance between two strings, ignoring case.
  public static func distance(_ a: String, _ b: String) -> Int {
    distance(Array(a.lowercased()), Array(b.lowercased()))
  }

  /// Optimal string alignment: a swap of two neighbours counts as one edit ("stpe" → "step").
  /// Keeps three rows of the table, not the whole table.
  static func distance(_ x: [Character], _ y: [Character]) -> Int {
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    let n = y.count
    var before = [Int](repeating: 0, count: n + 1)
    var previous = Array(0...n)
    var current = [Int](repeating: 0, count: n + 1)
    for i in 1...x.count {
      current[0] = i
      for j in 1...n {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        var d = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = Swift.min(d, before[j - 2] + 1) }
        current[j] = d
      }
      (before, previous, current) = (previous, current, before)
    }
    return previous[n]
  }

  /// The closest candidate, when it is close enough to be a likely typo.
  public static func closest(to word: String, in candidates: [String]) -> String? {
    // Typos are short: comparing long words would cost (length × length) for nothing.
    let typed = Array(word.lowercased())
    guard typed.count <= 64 else { return nil }
    var best: (candidate: String, distance: Int)?
    var prefixed: [String] = []
    for candidate in candidates {
      let lowered = Array(candidate.lowercased())
      let isPrefixed = lowered.starts(with: typed)
      if isPrefixed { prefixed.append(candidate) }
      guard lowered.count <= 64 ? abs(lowered.count - typed.count) <= 3 || isPrefixed : isPrefixed else { continue }
      let d = lowered.count <= 64 ? distance(typed, lowered) : Int.max
      // The first of the closest wins a tie, unless a later one sorts before it.
      if let b = best, !(d < b.distance || (d == b.distance && candidate < b.candidate)) { continue }
      best = (candidate, d)
    }
    guard let best else { return nil }
    // Short words are too easy to match by accident ("c" is one edit from "a").
    let limit: Int
    switch word.count {
    case 0, 1: limit = 0
    case 2: limit = best.candidate.first?.lowercased() == word.first?.lowercased() ? 1 : 0  // "d9" → "d1", not "c" → "a"
    default: limit = Swift.max(1, Swift.min(3, word.count / 3))
    }
    if best.distance <= limit { return best.candidate }
    // A unique candidate that starts with the word is a good guess too.
    return prefixed.count == 1 ? prefixed[0] : nil
  }
}
