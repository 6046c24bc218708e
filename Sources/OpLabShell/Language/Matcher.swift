import OpLabCore

/// What the parser expected at some position.
enum Expectation: Hashable {
  case word(String)
  case value(ValueKind)
}

/// A small PEG-style matcher over a line's tokens, with furthest-failure error reporting.
struct Matcher {
  let tokens: [Token]
  let context: ParseContext
  /// The furthest token index where matching failed, and what was expected there.
  var furthest = -1
  var expected: [Expectation] = []
  /// Specific complaints at the furthest position (e.g. an unknown name), with hints.
  var complaints: [(message: String, hint: String?, span: Range<Int>?)] = []
  /// What could come at the end of the input (for completion).
  var expectedAtEnd: [Expectation] = []

  /// Each token's text in lower case, for keywords (made once: most words are lower case already).
  let lowered: [String]
  /// Whether to skip recording what was expected where: a pass that only needs the match
  /// (``Parser/parse(_:context:)`` matches a failed line again without it).
  let quiet: Bool

  init(tokens: [Token], context: ParseContext, quiet: Bool = false) {
    self.tokens = tokens
    self.context = context
    self.quiet = quiet
    lowered = tokens.map { t in Self.mayHaveCapitals(t.text) ? t.text.lowercased() : t.text }
  }

  /// Whether `text` has an ASCII capital or a byte that is not ASCII (so lowering it may
  /// change it), checked on its contiguous bytes where it has them (a native string does).
  static func mayHaveCapitals(_ text: String) -> Bool {
    let found = text.utf8.withContiguousStorageIfAvailable { bytes in bytes.contains { $0 &- 0x41 < 26 || $0 >= 0x80 } }
    return found ?? text.utf8.contains { (0x41...0x5A).contains($0) || $0 >= 0x80 }
  }

  /// Matches the line against `spec`.
  /// - Parameter optionWords: each option's ``Pattern/leadingWord``, when the caller has
  ///   them (``CommandTable/optionWords``).
  mutating func matchCommand(_ spec: CommandSpec, optionWords: [String?]? = nil) throws(ParseError) -> Matches {
    var matches = Matches(tokens: tokens, context: context)
    var i = 1
    for pattern in spec.arguments {
      guard let next = match(pattern, at: i, matches: &matches) else { throw error(spec) }
      i = next
    }
    // Options not given yet, in table order (a mask: the table's array is not copied).
    var used = [Bool](repeating: false, count: spec.options.count)
    while true {
      var progressed = false
      for k in spec.options.indices where !used[k] {
        // The quick pass skips an option whose keyword is not the next word.
        if quiet, let word = optionWords.map({ $0[k] }) ?? spec.options[k].leadingWord, i >= tokens.count || lowered[i] != word { continue }
        if let next = match(spec.options[k], at: i, matches: &matches) {
          i = next
          used[k] = true
          progressed = true
          break
        }
      }
      if !progressed { break }
    }
    if i < tokens.count {
      let unused = spec.options.indices.filter { !used[$0] }.map { spec.options[$0] }
      if furthest > i || (furthest == i && !complaints.isEmpty) { throw error(spec) }
      let t = tokens[i]
      // Words an optional part could have started with here (`run until`), then unused options.
      let optionalWords = furthest == i ? expected.compactMap { e -> String? in if case .word(let w) = e { w } else { nil } } : []
      let optionKeywords = unused.compactMap(\.leadingWord)
      // Options keep their table order; optional words (`until`) come first only when no option starts with them.
      let keywords =
        optionalWords.filter { !optionKeywords.contains($0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        + optionKeywords
      let guess = Suggest.closest(to: t.text, in: keywords)
      let already = spec.options.compactMap(\.leadingWord).filter { !keywords.contains($0) }
      var message = "unexpected '\(t.text)'"
      if already.contains(t.text.lowercased()) {
        message = "'\(t.text)' was already given"
      } else if !keywords.isEmpty {
        message += "; expected " + Self.orList(keywords.map { "'\($0)'" })
      } else {
        message += "; '\(spec.name)' takes nothing more"
      }
      throw ParseError(
        column: t.column, length: t.length, message: message,
        hint: guess.map { "did you mean '\($0)'?" } ?? Self.usageHint(spec))
    }
    return matches
  }

  private func error(_ spec: CommandSpec) -> ParseError {
    let usage = Self.usageHint(spec)
    guard furthest >= 0, furthest < tokens.count else {
      let end = tokens.last.map { $0.column + $0.length + 1 } ?? 1
      let what = Self.orList(Self.unique(expected).map(Self.describe))
      return ParseError(column: end, length: 1, message: "'\(spec.name)' needs more: expected \(what)", hint: usage)
    }
    let t = tokens[furthest]
    // A keyword the token nearly spells beats any other suggestion (`cancel al` → `all`).
    let words = expected.compactMap { e -> String? in if case .word(let w) = e { w } else { nil } }
    if let word = Suggest.closest(to: t.text, in: words), word != t.text.lowercased() {
      let what = Self.orList(Self.unique(expected).map(Self.describe))
      return ParseError(
        column: t.column, length: t.length, message: "unexpected '\(t.text)'; expected \(what)", hint: "did you mean '\(word)'?")
    }
    // A number where a number or a name may stand: the number's complaint is the useful one.
    let numeric =
      Int(t.text) != nil || (t.text.dropFirst(t.text.first == "-" || t.text.first == "+" ? 1 : 0).allSatisfy(\.isNumber) && !t.text.isEmpty)
    if numeric, let c = complaints.first(where: { $0.message.contains("too large") || $0.message.contains("too small") }) {
      return ParseError(column: t.column, length: t.length, message: c.message, hint: c.hint ?? usage)
    }
    if complaints.count == 1 || (!complaints.isEmpty && expected.count <= 1) {
      let c = complaints[0]
      // A complaint about one item of a list points at that item.
      let span = c.span ?? 0..<t.length
      return ParseError(column: t.column + span.lowerBound, length: span.count, message: c.message, hint: c.hint ?? usage)
    }
    let what = Self.orList(Self.unique(expected).map(Self.describe))
    let hint = complaints.compactMap(\.hint).first ?? usage
    return ParseError(column: t.column, length: t.length, message: "unexpected '\(t.text)'; expected \(what)", hint: hint)
  }

  /// The usage line, or a pointer to `help` when the line is too long to read as a hint.
  static func usageHint(_ spec: CommandSpec) -> String {
    spec.usage.count <= 72 ? "usage: \(spec.usage)" : "see `help \(spec.name)` for everything '\(spec.name)' takes"
  }

  static func unique(_ xs: [Expectation]) -> [Expectation] {
    var seen: Set<Expectation> = []
    return xs.filter { seen.insert($0).inserted }
  }

  static func describe(_ e: Expectation) -> String {
    switch e {
    case .word(let w): "'\(w)'"
    case .value(let kind): kind.phrase
    }
  }

  static func orList(_ items: [String]) -> String {
    switch items.count {
    case 0: "nothing"
    case 1: items[0]
    default: items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }
  }

  private mutating func fail(_ i: Int, _ e: Expectation, complaint: String? = nil, hint: String? = nil, span: Range<Int>? = nil) {
    if quiet { return }
    if i == tokens.count { expectedAtEnd.append(e) }
    if i > furthest {
      furthest = i
      expected = []
      complaints = []
    }
    if i == furthest {
      expected.append(e)
      if let complaint { complaints.append((complaint, hint, span)) }
    }
  }

  mutating func match(_ p: Pattern, at i: Int, matches: inout Matches) -> Int? {
    switch p {
    case .word(let w):
      guard i < tokens.count, lowered[i] == w else {
        fail(i, .word(w))
        return nil
      }
      matches.words.append(w)
      return i + 1
    case .value(.steps, let key):
      return matchSteps(at: i, key: key, matches: &matches)
    case .value(let kind, let key):
      guard i < tokens.count else {
        fail(i, .value(kind))
        return nil
      }
      if let (message, hint) = check(kind, tokens[i]) {
        fail(i, .value(kind), complaint: message, hint: hint, span: refusedItem(kind, tokens[i]))
        return nil
      }
      guard let value = value(kind, tokens[i]) else {
        fail(i, .value(kind), complaint: "'\(tokens[i].text)' is not \(kind.phrase)")
        return nil
      }
      matches.append(value, token: tokens[i], under: key)
      return i + 1
    case .seq(let parts):
      var j = i
      let mark = matches.mark
      for part in parts {
        guard let next = match(part, at: j, matches: &matches) else {
          matches.rewind(to: mark)
          return nil
        }
        j = next
      }
      return j
    case .choice(let options):
      let mark = matches.mark
      for option in options {
        if let next = match(option, at: i, matches: &matches) { return next }
        matches.rewind(to: mark)
      }
      return nil
    case .optional(let inner):
      let mark = matches.mark
      if let next = match(inner, at: i, matches: &matches) { return next }
      matches.rewind(to: mark)
      return i
    case .many(let kind, let key):
      var j = i
      while j < tokens.count {
        if let (message, hint) = check(kind, tokens[j]) {
          fail(j, .value(kind), complaint: message, hint: hint, span: refusedItem(kind, tokens[j]))
          break
        }
        guard let value = value(kind, tokens[j]) else {
          fail(j, .value(kind), complaint: "'\(tokens[j].text)' is not \(kind.phrase)")
          break
        }
        matches.append(value, token: tokens[j], under: key)
        j += 1
      }
      if j == tokens.count, !quiet { expectedAtEnd.append(.value(kind)) }
      return j
    }
  }

  /// Steps from token `i` on: `VERB ARG` pairs separated by commas (the lexer joins a comma
  /// and the word after it into one token, so a token may hold the end of one step and the
  /// start of the next). The list ends at a token that follows a whole step without a comma.
  private mutating func matchSteps(at i: Int, key: ArgumentKey, matches: inout Matches) -> Int? {
    var j = i
    var pieces: [StepSyntax.Piece] = []
    var complete = false  // the last step has its argument
    scan: while j < tokens.count {
      let parts = tokens[j].text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      var offset = 0
      for (k, part) in parts.enumerated() {
        if k == 0, complete, !part.isEmpty { break scan }  // a whole step, then no comma: the list is over
        if k > 0 {
          guard complete else {
            fail(
              j, .value(.steps), complaint: "a step needs its word and what it acts on before the comma", hint: StepSyntax.hint,
              span: offset - 1..<offset)
            return nil
          }
          complete = false
        }
        if !part.isEmpty {
          let piece = StepSyntax.Piece(text: part, token: j, offset: offset)
          if pieces.count % 2 == 0, key == .completionDoes, ["lock", "unlock"].contains(part.lowercased()) {
            fail(
              j, .value(.steps), complaint: "a completion block in the lab takes no locks",
              hint: "take the lock in an operation's own work (`does`); a completion block's steps are read, compute, write, touch ui and add",
              span: offset..<offset + part.count)
            return nil
          }
          if pieces.count % 2 == 0, !StepSyntax.verbs.contains(part.lowercased()) {
            let guess = Suggest.closest(to: part, in: StepSyntax.verbs)
            fail(
              j, .value(.steps), complaint: "'\(part)' is not a step", hint: guess.map { "did you mean '\($0)'?" } ?? StepSyntax.hint,
              span: offset..<offset + part.count)
            return nil
          }
          if pieces.count % 2 == 1, let (message, hint) = StepSyntax.check(verb: pieces[pieces.count - 1].text, argument: part, context: context) {
            fail(j, .value(.steps), complaint: message, hint: hint, span: offset..<offset + part.count)
            return nil
          }
          pieces.append(piece)
          complete = pieces.count % 2 == 0
        }
        offset += part.count + 1
      }
      j += 1
    }
    guard complete else {
      if pieces.count % 2 == 0 { for verb in StepSyntax.verbs { fail(j, .word(verb)) } } else { fail(j, .value(.steps)) }
      if j == tokens.count, pieces.count % 2 == 0 {
        fail(j, .value(.steps), complaint: "`does` needs a step after it", hint: StepSyntax.hint)
      }
      return nil
    }
    matches.append(.steps(StepSyntax.read(tokens[i..<j], context: context).map(\.step)), token: tokens[i], under: key)
    return j
  }

  /// In a comma-separated list that ``check(_:_:)`` refused, the characters of the first
  /// item it refused (so the error points at `bx` in `a,bx`); `nil` for other values.
  private func refusedItem(_ kind: ValueKind, _ t: Token) -> Range<Int>? {
    guard kind == .opList || kind == .durations || kind == .newNames || kind == .choices else { return nil }
    if kind == .newNames {
      var offset = 0, seen = Set<String>()
      for item in t.text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
        if item.isEmpty || !World.isValidName(item) || context.isOperation(item) || context.isQueue(item) || !seen.insert(item).inserted {
          return offset..<(offset + max(1, item.count))
        }
        offset += item.count + 1
      }
      return nil
    }
    var offset = 0
    for item in t.text.split(separator: ",", omittingEmptySubsequences: false) {
      let text = String(item)
      let refused =
        kind == .opList
        ? text.isEmpty || !context.isOperation(text)
        : Self.checkNumber(text, minimum: 0, maximum: OperationSpec.maxDuration) != nil
      if refused { return offset..<(offset + max(1, text.count)) }
      offset += text.count + 1
    }
    return nil
  }
}
