import OpLabCore

extension Matcher {
  /// Validates one token as a value; returns a complaint and hint when it is not one.
  func check(_ kind: ValueKind, _ t: Token) -> (String, String?)? {
    let s = t.text
    func didYouMean(_ candidates: [String]) -> String? {
      Suggest.closest(to: s, in: candidates).map { "did you mean '\($0)'?" }
    }
    switch kind {
    case .gateName:
      if World.isValidName(s) { return nil }
      return ("'\(s)' is not a valid gate name", "names use letters, digits, '-', '_' and '.', and start with a letter")
    case .dispatchQueue:
      if context.dispatchQueues.contains(s) { return nil }
      if context.isQueue(s) { return ("'\(s)' is an OperationQueue, not a dispatch queue", "make one with `dispatch NAME`, e.g. dispatch \(s)-dq") }
      return ("there is no dispatch queue named '\(s)'", didYouMean(context.dispatchQueues) ?? "make it first: dispatch \(s)")
    case .gate:
      if context.gates.contains(s) { return nil }
      return (
        "there is no gate named '\(s)'", didYouMean(context.gates) ?? "a gate is made by the first operation that waits for it: op NAME gate \(s)"
      )
    case .newNames where !s.isEmpty && !s.utf8.contains(0x2C):
      // One name (nearly every `op` line): the list's checks without splitting it.
      if let problem = check(.newName, t) { return problem }
      if context.isOperation(s) || context.isQueue(s) { return ("the name '\(s)' is already taken", "pick another name, or `reset` to start again") }
      return nil
    case .newNames:
      var seen = Set<String>()
      for name in Self.commaItems(s) {
        if name.isEmpty { return ("an empty name in the list '\(s)'", "separate names with single commas") }
        if let problem = check(.newName, Token(name, column: t.column)) { return problem }
        if context.isOperation(name) || context.isQueue(name) {
          return ("the name '\(name)' is already taken", "pick another name, or `reset` to start again")
        }
        if !seen.insert(name).inserted { return ("'\(name)' is named twice in the list '\(s)'", "give each operation its own name") }
      }
      return nil
    case .newName:
      if World.isValidName(s) { return nil }
      if World.reservedNames.contains(s.lowercased()) {
        return ("'\(s)' is a reserved word (as in `cancel all`, `max q default`)", "pick another name")
      }
      return ("'\(s)' is not a valid name", "names use letters, digits, '-', '_' and '.', and start with a letter")
    case .op where s.utf8.contains(0x2C), .opOrQueue where s.utf8.contains(0x2C):
      return (
        "this takes one name, not the list '\(s)'",
        "give one name: lists go to `add` (`add \(s) wait` waits for them all), `depend … on` and `op … after`"
      )
    case .op:
      if context.isOperation(s) { return nil }
      if context.isQueue(s) { return ("'\(s)' is a queue, not an operation", nil) }
      if let shared = sharedName(s, expected: "an operation") { return shared }
      return ("there is no operation named '\(s)'", didYouMean(context.operations) ?? "define it first: op \(s)")
    case .queue:
      if context.isQueue(s) { return nil }
      if context.isOperation(s) { return ("'\(s)' is an operation, not a queue", nil) }
      if let shared = sharedName(s, expected: "a queue") { return shared }
      return ("there is no queue named '\(s)'", didYouMean(context.queues) ?? "create it first: queue \(s)")
    case .opOrQueue:
      if context.isOperation(s) || context.isQueue(s) { return nil }
      if let shared = sharedName(s, expected: "an operation or a queue") { return shared }
      return (
        "there is no operation or queue named '\(s)'", didYouMean(context.operations + context.queues) ?? "create it first: queue \(s), or op \(s)"
      )
    case .opList where !s.utf8.contains(0x2C) && !s.isEmpty && context.isOperation(s):
      return nil  // one name, an operation's
    case .opList:
      for name in Self.commaItems(s) {
        if name.isEmpty { return ("an empty name in the list '\(s)'", "separate names with single commas") }
        if !context.isOperation(name) {
          let guess = Suggest.closest(to: name, in: context.operations)
          return ("there is no operation named '\(name)'", guess.map { "did you mean '\($0)'?" } ?? "define it first: op \(name)")
        }
      }
      return nil
    case .count:
      // -1 is OperationQueue.defaultMaxConcurrentOperationCount: the same as `default`.
      if s == "-1" { return nil }
      if let n = Int(s), n < 0 { return ("\(s) is too small: use 0 or more, or -1 (the default: no limit)", nil) }
      return Self.checkNumber(s, minimum: 0)
    case .positive:
      return Self.checkNumber(s, minimum: 1)
    case .duration:
      return Self.checkNumber(s, minimum: 0, maximum: OperationSpec.maxDuration)
    case .plusDuration:
      guard s.hasPrefix("+") else {
        return (
          "'\(s)' does not start with +", "write the new block's ticks after a plus sign, as in: blocks \(tokens.dropFirst().first?.text ?? "OP") +3"
        )
      }
      return Self.checkNumber(String(s.dropFirst()), minimum: 0, maximum: OperationSpec.maxDuration)
    case .tick, .ticks:
      return Self.checkNumber(s, minimum: 0, maximum: World.maxTick)
    case .runTarget:
      return Self.checkNumber(s, minimum: 0, maximum: Tick.max)
    case .durations, .choices:
      for part in s.split(separator: ",", omittingEmptySubsequences: false) {
        if let problem = Self.checkNumber(String(part), minimum: 0, maximum: OperationSpec.maxDuration) { return problem }
      }
      return nil
    case .priority:
      return QueuePriority(name: s) != nil
        ? nil
        : ("'\(s)' is not a priority", didYouMean(QueuePriority.allCases.map(\.description)) ?? "use veryLow, low, normal, high or veryHigh")
    case .qos:
      return QualityOfService(name: s) != nil
        ? nil
        : (
          "'\(s)' is not a quality of service",
          didYouMean(QualityOfService.allCases.map(\.description)) ?? "use background, utility, default, userInitiated or userInteractive"
        )
    case .platform:
      return Platform(rawValue: s.lowercased()) != nil ? nil : ("'\(s)' is not a platform", "use apple or linux")
    case .file:
      if s.contains("\u{0}") {
        return (
          "the path '\(s.replacingOccurrences(of: "\u{0}", with: "\\0"))' holds a NUL byte (shown as \\0), which no file name can",
          "retype the path: a NUL usually comes from pasted binary text"
        )
      }
      return s.isEmpty ? ("an empty path names no file", "give a file name, e.g. pipeline.oplab") : nil
    case .integer:
      return Self.checkNumber(s, minimum: Int.min)
    case .steps:
      return nil  // matched by matchSteps
    case .command:
      if CommandTable.spec(named: s) != nil { return nil }
      // The queue every world starts with, not a keyword of one command.
      if s.lowercased() == "main" {
        return (
          "'main' is not a command: it is the main queue (OperationQueue.main), serial, whose work runs on the main thread",
          "see `help tap`, `help frames` and `help wait` (`wait … from main`); `op NAME on main` puts work there"
        )
      }
      // A keyword of a command (`help async`): the help is that command's.
      let owners = CommandTable.all.filter { $0.keywords.contains(s.lowercased()) }.map(\.name)
      if !owners.isEmpty {
        return (
          "'\(s)' is not a command: it is a word of \(owners.map { "`\($0)`" }.joined(separator: ", "))",
          "see " + owners.map { "`help \($0)`" }.joined(separator: ", ")
        )
      }
      return ("there is no command '\(s)'", didYouMean(CommandTable.names))
    }
  }

  /// The items of a comma list, empty ones kept: `s.split(separator: ",",
  /// omittingEmptySubsequences: false)` as strings. An ASCII list (nearly every one) is cut
  /// at its comma bytes, where `Collection.split` took about 6,000 instructions for
  /// `op3,op7` (#34); any other is split by Characters, where a comma with a combining mark
  /// after it is one Character and no separator.
  static func commaItems(_ s: String) -> [String] {
    guard s.utf8.allSatisfy({ $0 < 0x80 }) else { return s.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    var items: [String] = []
    var rest = Substring(s)
    while let comma = rest.utf8.firstIndex(of: 0x2C) {
      items.append(String(rest[..<comma]))
      rest = rest[rest.utf8.index(after: comma)...]
    }
    items.append(String(rest))
    return items
  }

  static func checkNumber(_ s: String, minimum: Int, maximum: Int = Int.max) -> (String, String?)? {
    if let n = Int(s) {
      if n < minimum { return ("\(s) is too small: use \(minimum) or more", nil) }
      if n > maximum { return ("\(s) is too large (the largest is \(maximum))", nil) }
      return nil
    }
    let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
    if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
      return s.hasPrefix("-")
        ? ("\(s) is too small: use \(minimum) or more", nil)
        : ("\(s) is too large (the largest is \(maximum))", nil)
    }
    return ("'\(s)' is not a whole number", nil)
  }

  /// The typed value of a token ``check(_:_:)`` accepted; `nil` only if the two disagree.
  func value(_ kind: ValueKind, _ t: Token) -> Value? {
    let s = t.text
    func numbers() -> [Int]? {
      let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
      return parts.contains(nil) ? nil : parts.compactMap { $0 }
    }
    switch kind {
    case .newName, .op, .queue, .opOrQueue, .gateName, .gate, .file, .dispatchQueue: return .name(s)
    case .command: return CommandTable.spec(named: s).map { .name($0.name) }
    case .newNames, .opList: return .names(s.isEmpty || s.utf8.contains(0x2C) ? Self.commaItems(s).filter { !$0.isEmpty } : [s])
    case .count, .positive, .duration, .tick, .ticks, .runTarget, .integer: return Int(s).map { .number($0) }
    case .plusDuration: return Int(s.dropFirst()).map { .number($0) }
    case .durations, .choices: return numbers().map { .numbers($0) }
    case .priority: return QueuePriority(name: s).map { .priority($0) }
    case .qos: return QualityOfService(name: s).map { .qos($0) }
    case .platform: return Platform(rawValue: s.lowercased()).map { .platform($0) }
    case .steps: return nil  // several tokens: read by matchSteps
    }
  }

  /// A shared variable's or lock's name where `expected` was wanted: what it is, and where
  /// it shows (`swift likes` said "create it first: queue likes" of an existing variable).
  func sharedName(_ s: String, expected: String) -> (String, String?)? {
    let kind = context.variables.contains(s) ? "a shared variable" : context.locks.contains(s) ? "a lock" : nil
    guard let kind else { return nil }
    let shows = tokens.first?.text.lowercased() == "swift" ? "`swift` alone shows its declaration" : "`status` shows it"
    return ("'\(s)' is \(kind), not \(expected)", shows)
  }
}
