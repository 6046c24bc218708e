/// What pressing Tab does to the line: text to insert at the cursor, or a list to show.
///
/// Pure, so the editor's Tab key can be tested without a terminal.
struct CompletionEdit: Equatable, Sendable {
  /// Text to insert at the cursor (empty when there is nothing to insert).
  var insert: String
  /// Candidates to show under the line, or `nil`.
  var list: [String]?

  /// Nothing fits: the editor beeps.
  var isBeep: Bool { insert.isEmpty && list == nil }

  /// Works out the edit for Tab.
  ///
  /// The word being completed is the text after the last whitespace in `prefix`.
  /// Candidates that do not start with it are ignored (the editor only inserts, it
  /// never rewrites what was typed).
  /// - One match: the rest of the word plus a space.
  /// - Several: the rest of their longest common prefix; when that adds nothing,
  ///   the matches to list instead.
  /// - None: a beep.
  ///
  /// - Parameters:
  ///   - prefix: the line from its start up to the cursor.
  ///   - candidates: full words that could replace the last word, from a `Completer`.
  /// - Returns: the edit to apply.
  static func compute(prefix: String, candidates: [String]) -> CompletionEdit {
    let word = lastWord(of: prefix)
    var seen = Set<String>()
    let matches = candidates.filter { $0.hasPrefix(word) && seen.insert($0).inserted }
    switch matches.count {
    case 0:
      return CompletionEdit(insert: "", list: nil)
    case 1:
      return CompletionEdit(insert: String(matches[0].dropFirst(word.count)) + " ", list: nil)
    default:
      let common = longestCommonPrefix(matches)
      let rest = String(common.dropFirst(word.count))
      return rest.isEmpty
        ? CompletionEdit(insert: "", list: matches)
        : CompletionEdit(insert: rest, list: nil)
    }
  }

  /// The (possibly empty) word that ends `prefix`: everything after its last whitespace.
  static func lastWord(of prefix: String) -> Substring {
    guard let space = prefix.lastIndex(where: \.isWhitespace) else { return prefix[...] }
    return prefix[prefix.index(after: space)...]
  }

  /// The longest string that every word starts with, compared by `Character`.
  static func longestCommonPrefix(_ words: [String]) -> Substring {
    guard var common = words.first?[...] else { return "" }
    for word in words.dropFirst() {
      var end = common.startIndex
      var other = word.startIndex
      while end < common.endIndex, other < word.endIndex, common[end] == word[other] {
        end = common.index(after: end)
        other = word.index(after: other)
      }
      common = common[..<end]
    }
    return common
  }

  /// Whether showing `words` in ``columns(_:width:)`` needs more rows than the screen has
  /// (less the prompt's line and the question's): then readline first asks "Display all N
  /// possibilities? (y or n)", and so does the lab.
  static func needsConfirmation(_ words: [String], width: Int, rows: Int) -> Bool {
    columns(words, width: width).split(separator: "\n").count > max(1, rows - 2)
  }

  /// The question asked before a list taller than the screen.
  static func question(count: Int) -> String { "Display all \(count) possibilities? (y or n)" }

  /// Lays `words` out in columns, filled top to bottom, like a shell's completion list.
  ///
  /// - Parameters:
  ///   - words: the words, in order.
  ///   - width: the terminal width in columns.
  /// - Returns: the rows, each ending in a newline; trailing spaces are trimmed.
  static func columns(_ words: [String], width: Int) -> String {
    guard !words.isEmpty else { return "" }
    let cell = (words.map(\.count).max() ?? 0) + 2
    let columnCount = max(1, min(words.count, (width + 2) / cell))
    let rowCount = (words.count + columnCount - 1) / columnCount
    var text = ""
    for row in 0..<rowCount {
      var line = ""
      for column in 0..<columnCount {
        let index = column * rowCount + row
        guard index < words.count else { break }
        let word = words[index]
        line += word
        if column < columnCount - 1 { line += String(repeating: " ", count: cell - word.count) }
      }
      while line.last == " " { line.removeLast() }
      text += line + "\n"
    }
    return text
  }
}
