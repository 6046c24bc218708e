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

  /// `FILE:LINE:COL: error: message` plus the hint on its own line, for batch mode.
  public func located(defaultFile: String, defaultLine: Int) -> String {
    var text = "\(file ?? defaultFile):\(line ?? defaultLine):\(column): error: \(message)\n"
    if let hint { text += "  hint: \(hint)\n" }
    return text
  }

  /// The caret display for interactive mode: the line, a caret under the bad token, the message.
  public func pointed(prompt: Int) -> String {
    var text = ""
    if let file, let line, let source {
      text += "\(file):\(line):\(column): error: \(message)\n  \(source)\n  "
        + String(repeating: " ", count: max(0, column - 1)) + String(repeating: "^", count: max(1, length)) + "\n"
    } else {
      text += String(repeating: " ", count: max(0, prompt + column - 1)) + String(repeating: "^", count: max(1, length)) + "\n"
      text += "error: \(message)\n"
    }
    if let hint { text += "hint: \(hint)\n" }
    return text
  }
}
