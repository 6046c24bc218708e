/// Swift names and literals for the lab's names and numbers.
extension SwiftCode {
  /// `maxConcurrentOperationCount`'s value in Swift; `nil` is the default.
  static func max(_ count: Int?) -> String {
    count.map { "\($0)" } ?? "OperationQueue.defaultMaxConcurrentOperationCount"
  }

  /// A Swift identifier for a lab name, alone: `fetch-image` → `fetchImage`, `2x` → `op2x`,
  /// a letter outside ASCII as its code (`ⸯ` → `u2E2F`), and a Swift keyword, a name of the
  /// harness or one of Foundation's that the program uses given `Op` (`async` → `asyncOp`).
  /// A program gives each name one identifier through ``SwiftNames``, which also keeps two
  /// names that fold to one (`fetch-image`, `fetchImage`; `a`, `A`) apart.
  public static func variable(_ name: String) -> String {
    var text = ""
    var upperNext = false
    for scalar in name.unicodeScalars {
      if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" {
        text += upperNext && !text.isEmpty ? String(scalar).uppercased() : String(scalar)
        upperNext = false
      } else if scalar.isASCII {
        upperNext = true  // a separator: the next word starts with a capital
      } else {
        text += (text.isEmpty ? "u" : "U") + String(scalar.value, radix: 16, uppercase: true)
        upperNext = false
      }
    }
    if text.allSatisfy({ $0 == "_" }) { text = "op" + text.count.description }
    if text.first?.isNumber == true { text = "op" + text }
    if reserved.contains(text.lowercased()) || reservedTypes.contains(typeName(of: text).lowercased()) { text += "Op" }
    return text
  }

  /// A Swift type for an operation: `fetch-image` → `FetchImageOperation`.
  public static func typeName(_ name: String) -> String { typeName(of: variable(name)) }

  /// The operation type for an identifier already made.
  static func typeName(of identifier: String) -> String {
    identifier.prefix(1).uppercased() + identifier.dropFirst() + "Operation"
  }

  /// A name without its trailing number and separators, for the kind of operation it is
  /// one of: `row3` → `row`, `fetch-2` → `fetch`; the name itself when nothing is left.
  static func stem(_ name: String) -> String {
    var text = Substring(name)
    while let last = text.last, last.isNumber || last == "-" || last == "_" || last == "." { text = text.dropLast() }
    return text.isEmpty ? name : String(text)
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

  /// Names no identifier of the world may take, folded to lower case: Swift's keywords,
  /// contextual ones too, the standard library's and Foundation's names the program and the
  /// harness use, the harness's own, and the locals of the code the generator writes.
  static let reserved: Set<String> = Set(
    [
      // Keywords used in declarations, statements, expressions and types.
      "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
      "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "precedencegroup",
      "private", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break",
      "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in",
      "repeat", "return", "throw", "switch", "where", "while", "any", "as", "await", "false", "is", "nil", "self",
      "super", "throws", "true", "try", "_",
      // Contextual keywords.
      "actor", "async", "associativity", "consume", "convenience", "copy", "didset", "discard", "distributed",
      "dynamic", "each", "final", "get", "indirect", "infix", "isolated", "lazy", "left", "macro", "mutating",
      "none", "nonmutating", "optional", "override", "postfix", "precedence", "prefix", "protocol", "required",
      "right", "sending", "set", "some", "then", "type", "unowned", "weak", "willset",
      // The standard library's, Foundation's and Synchronization's names the code uses.
      "swift", "foundation", "synchronization", "int", "double", "bool", "string", "error", "never", "void",
      "sendable", "print", "min", "max", "abs", "exit", "stride", "operation", "blockoperation", "operationqueue",
      "thread", "date", "runloop", "timer", "dispatchqueue", "dispatchtime", "dispatchgroup", "nslock", "mutex",
      "processinfo", "mainactor", "qualityofservice", "queuepriority",
      // The harness's names and the stand-ins'.
      "lab", "work", "startwork", "sleep", "workerror", "ending", "reporting", "asyncoperation", "gate",
      "updateuserinterface", "userinterfacetouchedoffmain", "succeeded", "completionblocks", "runmainloop",
      "racyint", "diditswork", "locked",
      "main", "program",
      // Locals and members of the generated code.
      "register", "done", "gate", "error", "bailed", "stopped", "state", "lock", "name", "isready",
    ].map { $0 })

  /// Type names an operation's type must not take.
  static let reservedTypes: Set<String> = ["operation", "blockoperation", "asyncoperation"]
}

/// One Swift identifier for each of a world's names, kept apart: two names that fold to one
/// identifier (`fetch-image` and `fetchImage`, `a` and `A`) get a number, and so does a type
/// that folds to a name or another type (`a` and `A` with their own classes).
final class SwiftNames {
  private var assigned: [String: String] = [:]
  /// Identifiers and type names taken, folded to lower case.
  private var taken: Set<String> = []

  /// The identifier of the operation or queue `name`, the same every time it is asked.
  func variable(_ name: String) -> String { identifier(name, key: name) }

  /// The identifier of the gate `name` (a gate may be named like an operation).
  func gate(_ name: String) -> String { identifier(name, key: "gate\u{0}" + name) }

  /// The identifier of the shared variable or lock `name`.
  func shared(_ name: String) -> String { identifier(name, key: "shared\u{0}" + name) }

  private func identifier(_ name: String, key: String) -> String {
    if let known = assigned[key] { return known }
    let base = SwiftCode.variable(name)
    var candidate = base
    var n = 2
    while taken.contains(candidate.lowercased()) {
      candidate = base + "\(n)"
      n += 1
    }
    taken.insert(candidate.lowercased())
    assigned[key] = candidate
    return candidate
  }

  /// A type for a kind of operation named after `stem`, kept apart from every name.
  /// When that type is taken (by another kind of operation), `name`'s own comes next.
  func kindType(_ stem: String, name: String? = nil) -> String {
    let base = SwiftCode.typeName(of: SwiftCode.variable(stem))
    var candidate = base
    if taken.contains(candidate.lowercased()), let name {
      let own = SwiftCode.typeName(of: SwiftCode.variable(name))
      if !taken.contains(own.lowercased()) { candidate = own }
    }
    var n = 2
    while taken.contains(candidate.lowercased()) {
      candidate = base.dropLast("Operation".count) + "\(n)Operation"
      n += 1
    }
    taken.insert(candidate.lowercased())
    return candidate
  }

  /// The operation type of `name`, its own (an asynchronous operation's, a gated block
  /// operation's), the same every time it is asked.
  func typeName(_ name: String) -> String {
    let key = "type\u{0}" + name
    if let known = assigned[key] { return known }
    let type = kindType(name)
    assigned[key] = type
    return type
  }
}
