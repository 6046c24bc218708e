import OpLabCore

/// Turns a line into a ``Command`` or a located ``ParseError``, reading ``CommandTable``.
public enum Parser {
  /// Parses one line.
  /// - Returns: `nil` for a blank or comment-only line.
  /// - Throws: ``ParseError`` pointing at the bad token.
  public static func parse(_ line: String, context: ParseContext) throws(ParseError) -> Command? {
    let (tokens, unclosedQuote) = Lexer.scan(line)
    if let column = unclosedQuote {
      let quote = line.dropFirst(column - 1).first.map(String.init) ?? "\""
      throw ParseError(
        column: column, length: 1, message: "this quote (\(quote)) is not closed",
        hint: "end the quoted text with another \(quote), as in: export events \(quote)my run.jsonl\(quote)")
    }
    guard let first = tokens.first else { return nil }
    guard let k = CommandTable.index(named: first.text) else {
      let guess = Suggest.closest(to: first.text, in: CommandTable.names)
      throw ParseError(
        column: first.column, length: first.text.count, message: "unknown command '\(first.text)'",
        hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "Type 'help' for the list of commands.")
    }
    let spec = CommandTable.all[k]
    // A first pass keeps no record of what it expected where (a script's lines nearly all
    // parse); a line that fails is matched again by a pass that does, for its error.
    var quick = Matcher(tokens: tokens, context: context, quiet: true)
    let matches: Matches
    do {
      matches = try quick.matchCommand(spec, optionWords: CommandTable.optionWords[k])
    } catch {
      var matcher = Matcher(tokens: tokens, context: context)
      matches = try matcher.matchCommand(spec)
    }
    return try spec.build(matches)
  }

  /// What could come next at the end of `prefix`: candidate words for Tab completion.
  /// - Parameter prefix: the line up to the cursor.
  /// - Returns: full candidate words for the last (partial) word, sorted.
  public static func completions(for prefix: String, context: ParseContext) -> [String] {
    // Inside a comment there is nothing to complete.
    if prefix.contains("#") { return [] }
    var tokens = Lexer.tokens(prefix)
    let endsInSpace = prefix.last.map(\.isWhitespace) ?? true
    let partial = endsInSpace ? "" : (tokens.popLast()?.text ?? "")
    guard let first = tokens.first else {
      return CommandTable.all.map(\.name).filter { $0.hasPrefix(partial.lowercased()) }.sorted()
    }
    guard let spec = CommandTable.spec(named: first.text) else { return [] }
    var matcher = Matcher(tokens: tokens, context: context)
    _ = try? matcher.matchCommand(spec)
    // A comma list completes its last element.
    var listHead = ""
    var word = partial
    if let comma = partial.lastIndex(of: ",") {
      listHead = String(partial[...comma])
      word = String(partial[partial.index(after: comma)...])
    }
    var candidates: Set<String> = []
    for expectation in matcher.expectedAtEnd {
      switch expectation {
      case .word(let w): if listHead.isEmpty { candidates.insert(w) }
      case .value(let kind):
        let listed = Set(listHead.split(separator: ",").map(String.init))
        for c in values(of: kind, context: context) where !listed.contains(c) { candidates.insert(listHead + c) }
      }
    }
    return candidates.filter { c in
      let tail = listHead.isEmpty ? c : String(c.dropFirst(listHead.count))
      return tail.lowercased().hasPrefix(word.lowercased())
    }.sorted()
  }

  static func values(of kind: ValueKind, context: ParseContext) -> [String] {
    switch kind {
    case .op, .opList: context.operations
    case .queue: context.queues
    case .opOrQueue: context.operations + context.queues
    case .priority: QueuePriority.allCases.map(\.description)
    case .qos: QualityOfService.allCases.map(\.description)
    case .platform: Platform.allCases.map(\.rawValue)
    case .command: CommandTable.all.map(\.name)
    case .gateName, .gate: context.gates
    case .dispatchQueue: context.dispatchQueues
    case .newName, .newNames, .count, .positive, .duration, .tick, .ticks, .runTarget, .durations, .file, .plusDuration, .integer, .choices: []
    case .steps: StepSyntax.verbs
    }
  }
}
