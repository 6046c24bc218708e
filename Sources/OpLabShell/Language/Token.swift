/// A word of a command line, with where it stands.
public struct Token: Hashable, Sendable {
  /// The text.
  public var text: String
  /// 1-based column (in characters) of its first character.
  public var column: Int

  /// Creates a token.
  public init(_ text: String, column: Int) {
    self.text = text
    self.column = column
  }
}

/// Splits a command line into tokens.
///
/// Tokens are separated by white space; `#` starts a comment that runs to the end of
/// the line; a comma list may have spaces after its commas (`after a, b` is `after a,b`).
public enum Lexer {
  /// The tokens of `line`, comments dropped.
  public static func tokens(_ line: String) -> [Token] {
    var tokens: [Token] = []
    var current = ""
    var start = 0
    var column = 0
    func flush() {
      guard !current.isEmpty else { return }
      if let last = tokens.last, tokens.count > 1, last.text.hasSuffix(",") || current.hasPrefix(",") {
        tokens[tokens.count - 1].text += current
      } else {
        tokens.append(Token(current, column: start))
      }
      current = ""
    }
    for ch in line {
      column += 1
      if ch == "#" { break }
      if ch.isWhitespace {
        flush()
      } else {
        if current.isEmpty { start = column }
        current.append(ch)
      }
    }
    flush()
    return tokens
  }
}

/// Edit distance, for "did you mean".
public enum Suggest {
  /// The edit distance between two strings, ignoring case.
  public static func distance(_ a: String, _ b: String) -> Int {
    // Optimal string alignment: a swap of two neighbours counts as one edit ("stpe" → "step").
    let x = Array(a.lowercased()), y = Array(b.lowercased())
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { d[i][0] = i }
    for j in 0...y.count { d[0][j] = j }
    for i in 1...x.count {
      for j in 1...y.count {
        let cost = x[i - 1] == y[j - 1] ? 0 : 1
        d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
        if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1) }
      }
    }
    return d[x.count][y.count]
  }

  /// The closest candidate, when it is close enough to be a likely typo.
  public static func closest(to word: String, in candidates: [String]) -> String? {
    // Typos are short: comparing long words would cost (length × length) for nothing.
    guard word.count <= 64 else { return nil }
    let scored = candidates.filter { $0.count <= 64 && abs($0.count - word.count) <= 3 || $0.lowercased().hasPrefix(word.lowercased()) }
      .map { ($0, $0.count <= 64 ? distance(word, $0) : Int.max) }
    guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
    // Short words are too easy to match by accident ("c" is one edit from "a").
    let limit: Int
    switch word.count {
    case 0, 1: limit = 0
    case 2: limit = best.0.first?.lowercased() == word.first?.lowercased() ? 1 : 0  // "d9" → "d1", not "c" → "a"
    default: limit = Swift.max(1, Swift.min(3, word.count / 3))
    }
    if best.1 <= limit { return best.0 }
    // A unique candidate that starts with the word is a good guess too.
    let prefixed = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
    return prefixed.count == 1 ? prefixed[0] : nil
  }
}
