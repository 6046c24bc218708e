import OpLabCore

/// A command line that could not be parsed: where, what was wrong, and a hint.
public struct ParseError: Error, Hashable, Sendable {
  /// 1-based column of the bad token.
  public var column: Int
  /// How many characters to underline.
  public var length: Int
  /// What is wrong.
  public var message: String
  /// A suggestion ("did you mean …"), if any.
  public var hint: String?

  /// Creates an error.
  public init(column: Int, length: Int, message: String, hint: String? = nil) {
    self.column = column
    self.length = length
    self.message = message
    self.hint = hint
  }
}

/// The names a line may refer to: the parser checks references and suggests corrections.
///
/// Made from a world, it asks the world's name indexes, so checking a name costs O(1)
/// however big the world (a script of n lines parses in O(n)); only completion and "did
/// you mean" list every name. Made from lists (tests, the fuzz targets), it searches them.
public struct ParseContext: Sendable {
  private enum Source: Sendable {
    case lists(operations: [String], queues: [String])
    case world(World)
  }
  private var source: Source
  /// Shared variables and locks of a context made from lists (a world's come from the world).
  private var listedVariables: [String] = []
  private var listedLocks: [String] = []

  /// Operation names, in creation order: O(operations) to list. Setting them turns a
  /// world's context into one made from lists.
  public var operations: [String] {
    get {
      switch source {
      case .lists(let operations, _): operations
      case .world(let world): world.operationNames
      }
    }
    set { source = .lists(operations: newValue, queues: queues) }
  }
  /// Queue names, in creation order.
  public var queues: [String] {
    get {
      switch source {
      case .lists(_, let queues): queues
      case .world(let world): world.allQueueNames
      }
    }
    set { source = .lists(operations: operations, queues: newValue) }
  }

  /// Creates a context from lists of names.
  public init(operations: [String] = [], queues: [String] = []) {
    source = .lists(operations: operations, queues: queues)
  }

  /// The names of `world`. Make one for each parse: kept while the world changes, the
  /// copy it holds would make the world copy its storage on the next change.
  public init(world: World) {
    source = .world(world)
  }

  /// Shared variable names (`var`), in creation order.
  public var variables: [String] {
    get {
      switch source {
      case .lists: listedVariables
      case .world(let world): world.shared?.variableNames ?? []
      }
    }
    set { listedVariables = newValue }
  }
  /// Lock names (`lock`), in creation order.
  public var locks: [String] {
    get {
      switch source {
      case .lists: listedLocks
      case .world(let world): world.shared?.lockNames ?? []
      }
    }
    set { listedLocks = newValue }
  }
  /// Whether a shared variable or a lock has this name.
  public func isShared(_ name: String) -> Bool { variables.contains(name) || locks.contains(name) }

  /// The queue each operation was defined for with `on`, where that is not `queue`: the
  /// queue a step `add OP` adds it to.
  public var declaredQueues: [String: String] = [:]

  /// Whether the operation with this name is in no queue yet (defined with `hold`); a
  /// context made from lists takes every operation it names for one.
  public func isHeld(_ name: String) -> Bool {
    switch source {
    case .lists(let operations, _): operations.contains(name)
    case .world(let world): world.operationID(named: name).map { world.operation($0).phase == .created } ?? false
    }
  }

  /// Whether an operation has this name.
  public func isOperation(_ name: String) -> Bool {
    switch source {
    case .lists(let operations, _): operations.contains(name)
    case .world(let world): world.operationID(named: name) != nil
    }
  }

  /// Gate names, in creation order (none for a context made from lists).
  public var gates: [String] {
    switch source {
    case .lists: []
    case .world(let world): world.gates.map(\.name)
    }
  }

  /// Whether a queue has this name.
  public func isQueue(_ name: String) -> Bool {
    switch source {
    case .lists(_, let queues): queues.contains(name)
    case .world(let world): world.queueID(named: name) != nil
    }
  }
}

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
    guard let spec = CommandTable.spec(named: first.text) else {
      let guess = Suggest.closest(to: first.text, in: CommandTable.names)
      throw ParseError(
        column: first.column, length: first.text.count, message: "unknown command '\(first.text)'",
        hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "Type 'help' for the list of commands.")
    }
    var matcher = Matcher(tokens: tokens, context: context)
    let bag = try matcher.matchCommand(spec)
    return try build(spec, bag, tokens: tokens, context: context)
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
    case .newName, .newNames, .count, .positive, .duration, .tick, .ticks, .runTarget, .durations, .file, .plusDuration, .integer, .choices: []
    case .steps: StepSyntax.verbs
    }
  }

  // MARK: - Building typed commands

  /// Makes `s` a step-by-step operation from `does` and `touches ui`, refusing what does not
  /// go with steps.
  private static func buildSteps(_ s: inout OperationSpec, _ bag: Bag, tokens: [Token], context: ParseContext) throws(ParseError) {
    let anchor = bag.values["does"]?.first ?? tokens.last { $0.text.lowercased() == "touches" } ?? tokens[0]
    var steps = StepSyntax.read(bag.values["does"] ?? [], context: context).map(\.step)
    if bag.words.contains("touches") { steps.insert(.touchUI, at: 0) }
    let clashes: [(String, String)] = [
      ("async", "an operation written as steps is synchronous: drop `async`"),
      ("blocks", "an operation written as steps is not a BlockOperation: drop `blocks`"),
      ("every", "steps never check isCancelled: drop `cancel-check`"),
      ("start", "steps never check isCancelled: drop `cancel-check`"),
      ("failsAt", "steps cannot fail in the lab: drop `fails at`"),
    ]
    for (key, message) in clashes where bag.values[key] != nil || bag.words.contains(key) {
      throw ParseError(column: anchor.column, length: anchor.length, message: message)
    }
    if let t = bag.values["takes"]?.first, let n = Int(t.text) {
      if n < steps.count {
        throw ParseError(
          column: t.column, length: t.length,
          message: "\(steps.count) steps take \(steps.count) ticks (one a tick), more than takes \(n)",
          hint: "use takes \(steps.count) or more, or leave `takes` out")
      }
    } else {
      s.duration = Tick(steps.count)
    }
    s.kind = .steps(steps)
  }

  private static func build(_ spec: CommandSpec, _ bag: Bag, tokens: [Token], context: ParseContext) throws(ParseError) -> Command {
    func text(_ key: String) -> String? { bag.values[key]?.first?.text }
    func int(_ key: String) -> Int? { text(key).flatMap { Int($0) } }
    func list(_ key: String) -> [String] { text(key).map { $0.split(separator: ",").map(String.init) } ?? [] }
    func has(_ word: String) -> Bool { bag.words.contains(word) }
    let name = text("name") ?? ""

    switch spec.name {
    case "queue":
      if context.isOperation(name) || context.isShared(name), let t = bag.values["name"]?.first {
        throw ParseError(
          column: t.column, length: t.length,
          message: "the name '\(name)' is already taken by \(context.isOperation(name) ? "an operation" : "a shared variable or lock")",
          hint: "pick another name for the queue")
      }
      let max: MaxSetting? = has("default") || int("max") == -1 ? .default : int("max").map { .count($0) }
      return .queue(name: name, max: max, qos: text("qos").flatMap { QualityOfService(name: $0) })
    case "op":
      let names = list("name")
      if let t = bag.values["name"]?.first, names.count == 1, context.isOperation(name) || context.isQueue(name) || context.isShared(name) {
        throw ParseError(
          column: t.column, length: t.length, message: "the name '\(name)' is already taken",
          hint: "pick another name, or `reset` to start again")
      }
      var s = OperationSpec(name: names.first ?? name, duration: int("takes") ?? 1)
      s.priority = text("priority").flatMap { QueuePriority(name: $0) }
      s.qualityOfService = text("qos").flatMap { QualityOfService(name: $0) }
      if let every = int("every") { s.cancellation = .every(every) } else if has("start") { s.cancellation = .atStart }
      s.bailsIfDependencyCancelled = has("bail-if-dep-cancelled")
      s.bailsUnlessDependenciesSucceeded = has("only-if-deps-succeeded")
      s.failsAt = int("failsAt")
      s.completion = int("completion")
      if has("async") { s.kind = .async(forgetsFinish: has("forgets-finish")) }
      if bag.values["blocks"] != nil {
        if has("async"), let t = bag.values["blocks"]?.first {
          throw ParseError(column: t.column, length: t.length, message: "an operation is either async or a BlockOperation, not both")
        }
        s.kind = .blocks(list("blocks").compactMap { Int($0) })
        // The blocks are the work: what describes an operation's own main() does not apply.
        let clashes: [(token: Token?, message: String, hint: String)] = [
          (bag.values["takes"]?.first, "a BlockOperation's work is its blocks, so it takes no `takes`",
           "drop `takes`: the blocks' durations say how long each one works"),
          (bag.values["failsAt"]?.first, "a BlockOperation's blocks cannot fail in the lab",
           "drop `fails at`, or make a plain operation: op NAME takes N fails at F"),
          (bag.values["every"]?.first ?? (has("start") ? tokens.last { $0.text.lowercased() == "start" } : nil),
           "a BlockOperation's blocks never check isCancelled: a cancel stops none of them",
           "drop `cancel-check`; for cooperative cancellation make a plain operation with `cancel-check every N`"),
        ]
        for clash in clashes {
          if let t = clash.token { throw ParseError(column: t.column, length: t.length, message: clash.message, hint: clash.hint) }
        }
      }
      if let f = s.failsAt, f > s.duration, let t = bag.values["failsAt"]?.first {
        throw ParseError(
          column: t.column, length: t.length,
          message: "fails at \(f) is after the operation's \(s.duration) \(s.duration == 1 ? "tick" : "ticks") of work",
          hint: "use a tick from 0 to \(s.duration)")
      }
      if let t = bag.values["gate"]?.first, bag.values["blocks"] != nil {
        throw ParseError(
          column: t.column, length: t.length, message: "a gate goes in an Operation subclass's isReady: the lab gates plain and async operations, not a BlockOperation",
          hint: "make a plain operation: op NAME takes N gate \(t.text)")
      }
      if bag.values["does"] != nil || has("touches") { try buildSteps(&s, bag, tokens: tokens, context: context) }
      var definition = OperationDefinition(spec: s, queue: text("on"), dependencies: list("after"), hold: has("hold"))
      if let block = bag.values["completionDoes"] {
        // `op x completion does read c does write c` would give the block the first steps and
        // main() the last: the operation's own work must come first, so nothing reads both ways.
        if let own = bag.values["does"]?.first, let first = block.first, own.column > first.column {
          let word = tokens.lastIndex { $0.column < own.column }.map { tokens[$0] } ?? own
          throw ParseError(
            column: word.column, length: word.length,
            message: "the operation's own `does` comes after `completion does`, where it reads as more of the completion block",
            hint: "put the operation's own work first: op NAME does … completion does …")
        }
        definition.completionSteps = StepSyntax.read(block, context: context).map(\.step)
      }
      definition.gate = text("gate")
      definition.alike = Array(names.dropFirst())
      return .op(definition)
    case "add":
      return .add(ops: list("op"), queue: text("to"), wait: has("wait") ? WaitCaller(fromMain: has("main"), until: int("until")) : nil)
    case "start": return .start(op: text("op") ?? "")
    case "open": return .open(gate: text("gate") ?? "")
    case "blocks": return .blocks(op: text("op") ?? "", adding: Int(text("block")?.dropFirst() ?? "") ?? 0)
    case "depend": return .depend(op: text("op") ?? "", on: list("deps"))
    case "undepend": return .undepend(op: text("op") ?? "", on: text("dep") ?? "")
    case "priority": return .priority(op: text("op") ?? "", QueuePriority(name: text("priority") ?? "") ?? .normal)
    case "qos": return .qos(target: text("target") ?? "", QualityOfService(name: text("qos") ?? "") ?? .default)
    case "max": return .max(queue: text("queue") ?? "", has("default") || int("max") == -1 ? .default : .count(int("max") ?? 0))
    case "cancel": return has("all") ? .cancelAll(queue: text("queue")) : .cancel(op: text("op") ?? "")
    case "suspend": return .suspend(queue: text("queue") ?? "")
    case "resume": return .resume(queue: text("queue") ?? "")
    case "barrier": return .barrier(queue: text("queue") ?? "", takes: int("takes") ?? 1)
    case "wait":
      if let t = bag.values["until"]?.first, !has("main") {
        let word = tokens.first { $0.text.lowercased() == "until" } ?? t
        throw ParseError(
          column: word.column, length: word.length, message: "`until` goes with `from main`",
          hint: "a wait from the lab's own thread leaves nothing behind: `run until \(t.text)` stops there")
      }
      return .wait(target: text("target"), fromMain: has("main"), until: int("until"))
    case "machine":
      if has("unlimited") { return .machine(cores: .some(nil)) }
      return .machine(cores: int("cores").map { .some($0) })
    case "tap": return .tap(at: int("at"))
    case "frames":
      if has("off") { return .frames(every: nil, from: nil, to: nil) }
      return .frames(every: int("every"), from: int("from"), to: int("to"))
    case "step": return .step(int("ticks") ?? 1)
    case "run":
      if let t = int("tick") { return .run(.tick(t)) }
      if let op = text("op") { return .run(.op(op)) }
      return .run(.idle)
    case "back": return .back(int("ticks") ?? 1)
    case "goto": return .goto(int("tick") ?? 0)
    case "undo": return .undo
    case "redo": return .redo
    case "clear": return .clear
    case "fork": return .fork
    case "unfork": return .unfork
    case "timeline":
      return .timeline(queues: bag.values["queues"]?.map(\.text) ?? [], from: int("from"), to: int("to"))
    case "events": return .events(op: text("op"))
    case "why": return .why(op: text("op") ?? "")
    case "slots": return .slots(queue: text("queue") ?? "")
    case "narrate": return .narrate(op: text("op"))
    case "status": return .status
    case "graph": return .graph
    case "swift": return .swift(target: text("target"))
    case "real": return .real(msPerTick: int("ms"))
    case "set": return .set(swiftEcho: has("swift-echo") ? has("on") : nil)
    case "export":
      let kind = ExportKind.allCases.first { has($0.rawValue) } ?? .timeline
      return .export(kind, file: text("file") ?? "")
    case "save": return .save(file: text("file") ?? "")
    case "source": return .source(file: text("file") ?? "")
    case "reset": return .reset
    case "platform": return .platform(text("platform").flatMap { Platform(rawValue: $0.lowercased()) })
    case "help": return .help(command: text("command").flatMap { CommandTable.spec(named: $0)?.name })
    case "races": return .races
    case "explore": return .explore(limit: int("limit"))
    case "order": return .order(list("choices").compactMap { Int($0) })
    case "choose": return has("back") ? .chooseBack : .choose(list("choices").compactMap { Int($0) })
    case "var", "lock":
      if let t = bag.values["name"]?.first, context.isOperation(name) || context.isQueue(name) || context.isShared(name) {
        throw ParseError(
          column: t.column, length: t.length, message: "the name '\(name)' is already taken",
          hint: "pick another name, or `reset` to start again")
      }
      if let t = bag.values["name"]?.first, name.lowercased() == "ui" {
        throw ParseError(column: t.column, length: t.length, message: "'ui' is the user interface (as in `touch ui`)", hint: "pick another name")
      }
      return spec.name == "var" ? .variable(name: name, initial: int("value") ?? 0) : .lock(name: name)
    default: return .quit
    }
  }
}

/// Matched values (by key) and literal words.
struct Bag {
  var values: [String: [Token]] = [:]
  var words: Set<String> = []
}

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

  init(tokens: [Token], context: ParseContext) {
    self.tokens = tokens
    self.context = context
  }

  mutating func matchCommand(_ spec: CommandSpec) throws(ParseError) -> Bag {
    var bag = Bag()
    var i = 1
    for pattern in spec.arguments {
      guard let next = match(pattern, at: i, bag: &bag) else { throw error(spec) }
      i = next
    }
    var unused = spec.options
    while true {
      var progressed = false
      for (k, option) in unused.enumerated() {
        if let next = match(option, at: i, bag: &bag) {
          i = next
          unused.remove(at: k)
          progressed = true
          break
        }
      }
      if !progressed { break }
    }
    if i < tokens.count {
      if furthest > i || (furthest == i && !complaints.isEmpty) { throw error(spec) }
      let t = tokens[i]
      // Words an optional part could have started with here (`run until`), then unused options.
      let optionalWords = furthest == i ? expected.compactMap { e -> String? in if case .word(let w) = e { w } else { nil } } : []
      let optionKeywords = unused.compactMap(\.leadingWord)
      // Options keep their table order; optional words (`until`) come first only when no option starts with them.
      let keywords = optionalWords.filter { !optionKeywords.contains($0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
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
    return bag
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
    let numeric = Int(t.text) != nil || (t.text.dropFirst(t.text.first == "-" || t.text.first == "+" ? 1 : 0).allSatisfy(\.isNumber) && !t.text.isEmpty)
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

  mutating func match(_ p: Pattern, at i: Int, bag: inout Bag) -> Int? {
    switch p {
    case .word(let w):
      guard i < tokens.count, tokens[i].text.lowercased() == w else {
        fail(i, .word(w))
        return nil
      }
      bag.words.insert(w)
      return i + 1
    case .value(.steps, let key):
      return matchSteps(at: i, key: key, bag: &bag)
    case .value(let kind, let key):
      guard i < tokens.count else {
        fail(i, .value(kind))
        return nil
      }
      if let (message, hint) = check(kind, tokens[i]) {
        fail(i, .value(kind), complaint: message, hint: hint, span: refusedItem(kind, tokens[i]))
        return nil
      }
      bag.values[key, default: []].append(tokens[i])
      return i + 1
    case .seq(let parts):
      var j = i
      var trial = bag
      for part in parts {
        guard let next = match(part, at: j, bag: &trial) else { return nil }
        j = next
      }
      bag = trial
      return j
    case .choice(let options):
      for option in options {
        var trial = bag
        if let next = match(option, at: i, bag: &trial) {
          bag = trial
          return next
        }
      }
      return nil
    case .optional(let inner):
      var trial = bag
      if let next = match(inner, at: i, bag: &trial) {
        bag = trial
        return next
      }
      return i
    case .many(let kind, let key):
      var j = i
      while j < tokens.count {
        if let (message, hint) = check(kind, tokens[j]) {
          fail(j, .value(kind), complaint: message, hint: hint, span: refusedItem(kind, tokens[j]))
          break
        }
        bag.values[key, default: []].append(tokens[j])
        j += 1
      }
      if j == tokens.count { expectedAtEnd.append(.value(kind)) }
      return j
    }
  }

  /// Steps from token `i` on: `VERB ARG` pairs separated by commas (the lexer joins a comma
  /// and the word after it into one token, so a token may hold the end of one step and the
  /// start of the next). The list ends at a token that follows a whole step without a comma.
  private mutating func matchSteps(at i: Int, key: String, bag: inout Bag) -> Int? {
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
            fail(j, .value(.steps), complaint: "a step needs its word and what it acts on before the comma", hint: StepSyntax.hint,
                 span: offset - 1..<offset)
            return nil
          }
          complete = false
        }
        if !part.isEmpty {
          let piece = StepSyntax.Piece(text: part, token: j, offset: offset)
          if pieces.count % 2 == 0, key == "completionDoes", ["lock", "unlock"].contains(part.lowercased()) {
            fail(j, .value(.steps), complaint: "a completion block in the lab takes no locks",
                 hint: "take the lock in an operation's own work (`does`); a completion block's steps are read, compute, write, touch ui and add",
                 span: offset..<offset + part.count)
            return nil
          }
          if pieces.count % 2 == 0, !StepSyntax.verbs.contains(part.lowercased()) {
            let guess = Suggest.closest(to: part, in: StepSyntax.verbs)
            fail(j, .value(.steps), complaint: "'\(part)' is not a step", hint: guess.map { "did you mean '\($0)'?" } ?? StepSyntax.hint,
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
    bag.values[key, default: []] += tokens[i..<j]
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
      let refused = kind == .opList
        ? text.isEmpty || !context.isOperation(text)
        : Self.checkNumber(text, minimum: 0, maximum: OperationSpec.maxDuration) != nil
      if refused { return offset..<(offset + max(1, text.count)) }
      offset += text.count + 1
    }
    return nil
  }

  /// Validates one token as a value; returns a complaint and hint when it is not one.
  private func check(_ kind: ValueKind, _ t: Token) -> (String, String?)? {
    let s = t.text
    func didYouMean(_ candidates: [String]) -> String? {
      Suggest.closest(to: s, in: candidates).map { "did you mean '\($0)'?" }
    }
    switch kind {
    case .gateName:
      if World.isValidName(s) { return nil }
      return ("'\(s)' is not a valid gate name", "names use letters, digits, '-', '_' and '.', and start with a letter")
    case .gate:
      if context.gates.contains(s) { return nil }
      return ("there is no gate named '\(s)'", didYouMean(context.gates) ?? "a gate is made by the first operation that waits for it: op NAME gate \(s)")
    case .newNames:
      var seen = Set<String>()
      for name in s.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
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
    case .op where s.contains(","), .opOrQueue where s.contains(","):
      return ("this takes one name, not the list '\(s)'", "give one name: lists go to `add` (`add \(s) wait` waits for them all), `depend … on` and `op … after`")
    case .op:
      if context.isOperation(s) { return nil }
      if context.isQueue(s) { return ("'\(s)' is a queue, not an operation", nil) }
      return ("there is no operation named '\(s)'", didYouMean(context.operations) ?? "define it first: op \(s)")
    case .queue:
      if context.isQueue(s) { return nil }
      if context.isOperation(s) { return ("'\(s)' is an operation, not a queue", nil) }
      return ("there is no queue named '\(s)'", didYouMean(context.queues) ?? "create it first: queue \(s)")
    case .opOrQueue:
      if context.isOperation(s) || context.isQueue(s) { return nil }
      return ("there is no operation or queue named '\(s)'", didYouMean(context.operations + context.queues) ?? "create it first: queue \(s), or op \(s)")
    case .opList:
      for name in s.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
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
        return ("'\(s)' does not start with +", "write the new block's ticks after a plus sign, as in: blocks \(tokens.dropFirst().first?.text ?? "OP") +3")
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
      return QueuePriority(name: s) != nil ? nil
        : ("'\(s)' is not a priority", didYouMean(QueuePriority.allCases.map(\.description)) ?? "use veryLow, low, normal, high or veryHigh")
    case .qos:
      return QualityOfService(name: s) != nil ? nil
        : ("'\(s)' is not a quality of service",
           didYouMean(QualityOfService.allCases.map(\.description)) ?? "use background, utility, default, userInitiated or userInteractive")
    case .platform:
      return Platform(rawValue: s.lowercased()) != nil ? nil : ("'\(s)' is not a platform", "use apple or linux")
    case .file:
      if s.contains("\u{0}") {
        return ("the path '\(s.replacingOccurrences(of: "\u{0}", with: "\\0"))' holds a NUL byte (shown as \\0), which no file name can",
                "retype the path: a NUL usually comes from pasted binary text")
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
        return ("'main' is not a command: it is the main queue (OperationQueue.main), serial, whose work runs on the main thread",
                "see `help tap`, `help frames` and `help wait` (`wait … from main`); `op NAME on main` puts work there")
      }
      // A keyword of a command (`help async`): the help is that command's.
      let owners = CommandTable.all.filter { $0.keywords.contains(s.lowercased()) }.map(\.name)
      if !owners.isEmpty {
        return ("'\(s)' is not a command: it is a word of \(owners.map { "`\($0)`" }.joined(separator: ", "))",
                "see " + owners.map { "`help \($0)`" }.joined(separator: ", "))
      }
      return ("there is no command '\(s)'", didYouMean(CommandTable.names))
    }
  }

  static func checkNumber(_ s: String, minimum: Int, maximum: Int = Int.max) -> (String, String?)? {
    if let n = Int(s) {
      if n < minimum { return ("\(s) is too small: use \(minimum) or more", nil) }
      if n > maximum { return ("\(s) is too large (the largest is \(maximum))", nil) }
      return nil
    }
    let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
    if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
      return s.hasPrefix("-") ? ("\(s) is too small: use \(minimum) or more", nil)
        : ("\(s) is too large (the largest is \(maximum))", nil)
    }
    return ("'\(s)' is not a whole number", nil)
  }
}

/// The words of `does`: each step is a verb and what it acts on.
enum StepSyntax {
  /// The verbs, in the order help lists them.
  static let verbs = ["read", "compute", "write", "lock", "unlock", "touch", "add"]
  static let hint = "steps are: read VAR, compute N, write VAR, lock L, unlock L, touch ui, add OP (separated by commas)"

  /// A word of a steps list and where it stands.
  struct Piece {
    var text: String
    var token: Int
    var offset: Int
  }

  /// Why `argument` cannot follow `verb`, if it cannot.
  static func check(verb: String, argument: String, context: ParseContext) -> (String, String?)? {
    switch verb.lowercased() {
    case "read", "write":
      if context.variables.contains(argument) { return nil }
      let guess = Suggest.closest(to: argument, in: context.variables)
      return ("there is no shared variable named '\(argument)'", guess.map { "did you mean '\($0)'?" } ?? "create it first: var \(argument) = 0")
    case "lock", "unlock":
      if context.locks.contains(argument) { return nil }
      let guess = Suggest.closest(to: argument, in: context.locks)
      return ("there is no lock named '\(argument)'", guess.map { "did you mean '\($0)'?" } ?? "create it first: lock \(argument)")
    case "compute":
      guard let problem = Matcher.checkNumber(argument, minimum: -(1 << 40), maximum: 1 << 40) else { return nil }
      return (problem.0, "compute N adds N to the operation's register, e.g. compute 1")
    case "add":
      guard context.isOperation(argument) else {
        let guess = Suggest.closest(to: argument, in: context.operations)
        return ("there is no operation named '\(argument)'", guess.map { "did you mean '\($0)'?" } ?? "define it first, in no queue: op \(argument) on main touches ui hold")
      }
      if context.isHeld(argument) { return nil }
      return ("\(argument) is already in a queue, and an operation can be added only once",
              "define the one to add with `hold` (op \(argument)2 … hold), so this step is what adds it")
    default:
      return argument.lowercased() == "ui" ? nil : ("'touch' takes 'ui', not '\(argument)'", "write: touch ui")
    }
  }

  /// The steps of a `does` list the matcher accepted; `add OP` adds it to the queue it was
  /// defined for.
  static func read(_ tokens: [Token], context: ParseContext) -> [(step: Step, token: Token)] {
    var words: [(String, Token)] = []
    for t in tokens {
      for part in t.text.split(separator: ",") where !part.isEmpty { words.append((String(part), t)) }
    }
    var steps: [(step: Step, token: Token)] = []
    var k = 0
    while k + 1 < words.count {
      let (verb, t) = words[k]
      let argument = words[k + 1].0
      let step: Step
      switch verb.lowercased() {
      case "read": step = .read(argument)
      case "write": step = .write(argument)
      case "compute": step = .compute(Int(argument) ?? 0)
      case "lock": step = .lock(argument)
      case "unlock": step = .unlock(argument)
      case "add": step = .add(argument, to: context.declaredQueues[argument] ?? "queue")
      default: step = .touchUI
      }
      steps.append((step, t))
      k += 2
    }
    return steps
  }
}
