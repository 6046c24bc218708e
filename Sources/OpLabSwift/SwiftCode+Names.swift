/// Swift names and literals for the lab's names and numbers.
extension SwiftCode {
  /// `maxConcurrentOperationCount`'s value in Swift; `nil` is the default.
  static func max(_ count: Int?) -> String {
    count.map { "\($0)" } ?? "OperationQueue.defaultMaxConcurrentOperationCount"
  }

  /// A Swift variable for a lab name: `fetch-image` → `fetchImage`, `2x` → `op2x`, a
  /// keyword in backquotes.
  public static func variable(_ name: String) -> String {
    let words = name.split { !($0.isLetter || $0.isNumber || $0 == "_") }
    var text = words.enumerated().map { i, w in i == 0 ? String(w) : w.prefix(1).uppercased() + w.dropFirst() }.joined()
    if text.isEmpty || text.first?.isNumber == true { text = "op" + text }
    return keywords.contains(text) ? "`\(text)`" : text
  }

  /// A Swift type for an operation: `fetch-image` → `FetchImageOperation`.
  public static func typeName(_ name: String) -> String {
    let v = variable(name).filter { $0 != "`" }
    return v.prefix(1).uppercased() + v.dropFirst() + "Operation"
  }

  /// A string literal for `text`: its backslashes and quotes escaped.
  public static func literal(_ text: String) -> String {
    var out = "\""
    for c in text {
      if c == "\\" || c == "\"" { out.append("\\") }
      out.append(c)
    }
    return out + "\""
  }

  static let keywords: Set<String> = [
    "as", "break", "case", "catch", "class", "continue", "default", "defer", "do", "else", "enum", "extension",
    "fallthrough", "false", "for", "func", "guard", "if", "import", "in", "init", "inout", "internal", "is", "let",
    "nil", "operator", "private", "protocol", "public", "repeat", "return", "self", "static", "struct", "super",
    "switch", "throw", "throws", "true", "try", "typealias", "var", "where", "while",
  ]
}
