import OpLabCore

/// Builds `op`'s definition from what the line matched, refusing options that do not go
/// together (steps with `async`, a BlockOperation with `takes`, …): the grammar alone lets
/// any option follow any other.
enum OperationBuilder {
  static func build(_ m: Matches) throws(ParseError) -> Command {
    guard let names = try m.names(.name) else { throw m.missing(.name) }
    let name = names.first ?? ""
    let context = m.context
    // The names' check (`.newNames`) refused an operation's or a queue's name already; a
    // shared variable's or lock's is refused here (each lookup is a cache miss at a million
    // operations, #34).
    if let t = m.token(.name), names.count == 1, context.isShared(name) {
      throw ParseError(
        column: t.column, length: t.length, message: "the name '\(name)' is already taken",
        hint: "pick another name, or `reset` to start again")
    }
    var s = OperationSpec(name: name, duration: try m.number(.takes) ?? 1)
    s.priority = try m.priority(.priority)
    s.qualityOfService = try m.qos(.qos)
    if let every = try m.number(.every) { s.cancellation = .every(every) } else if m.has("start") { s.cancellation = .atStart }
    s.bailsIfDependencyCancelled = m.has("bail-if-dep-cancelled")
    s.bailsUnlessDependenciesSucceeded = m.has("only-if-deps-succeeded")
    s.failsAt = try m.number(.failsAt)
    s.completion = try m.number(.completion)
    if m.has("async") { s.kind = .async(forgetsFinish: m.has("forgets-finish")) }
    if let blocks = try m.numbers(.blocks) {
      if m.has("async"), let t = m.token(.blocks) {
        throw ParseError(column: t.column, length: t.length, message: "an operation is either async or a BlockOperation, not both")
      }
      s.kind = .blocks(blocks)
      // The blocks are the work: what describes an operation's own main() does not apply.
      let clashes: [(token: Token?, message: String, hint: String)] = [
        (
          m.token(.takes), "a BlockOperation's work is its blocks, so it takes no `takes`",
          "drop `takes`: the blocks' durations say how long each one works"
        ),
        (
          m.token(.failsAt), "a BlockOperation's blocks cannot fail in the lab",
          "drop `fails at`, or make a plain operation: op NAME takes N fails at F"
        ),
        (
          m.token(.every) ?? (m.has("start") ? m.tokens.last { $0.text.lowercased() == "start" } : nil),
          "a BlockOperation's blocks never check isCancelled: a cancel stops none of them",
          "drop `cancel-check`; for cooperative cancellation make a plain operation with `cancel-check every N`"
        ),
      ]
      for clash in clashes {
        if let t = clash.token { throw ParseError(column: t.column, length: t.length, message: clash.message, hint: clash.hint) }
      }
    }
    if let f = s.failsAt, f > s.duration, let t = m.token(.failsAt) {
      throw ParseError(
        column: t.column, length: t.length,
        message: "fails at \(f) is after the operation's \(s.duration) \(s.duration == 1 ? "tick" : "ticks") of work",
        hint: "use a tick from 0 to \(s.duration)")
    }
    if let t = m.token(.gate), m.token(.blocks) != nil {
      throw ParseError(
        column: t.column, length: t.length,
        message: "a gate goes in an Operation subclass's isReady: the lab gates plain and async operations, not a BlockOperation",
        hint: "make a plain operation: op NAME takes N gate \(t.text)")
    }
    if m.token(.does) != nil || m.has("touches") { try buildSteps(&s, m) }
    var definition = OperationDefinition(
      spec: s, queue: try m.name(.on), dependencies: try m.names(.after) ?? [], hold: m.has("hold"))
    if let block = try m.steps(.completionDoes), let first = m.token(.completionDoes) {
      // `op x completion does read c does write c` would give the block the first steps and
      // main() the last: the operation's own work must come first, so nothing reads both ways.
      if let own = m.token(.does), own.column > first.column {
        let word = m.tokens.lastIndex { $0.column < own.column }.map { m.tokens[$0] } ?? own
        throw ParseError(
          column: word.column, length: word.length,
          message: "the operation's own `does` comes after `completion does`, where it reads as more of the completion block",
          hint: "put the operation's own work first: op NAME does … completion does …")
      }
      definition.completionSteps = block
    }
    definition.gate = try m.name(.gate)
    definition.alike = Array(names.dropFirst())
    return .op(definition)
  }

  /// Makes `s` a step-by-step operation from `does` and `touches ui`, refusing what does not
  /// go with steps.
  private static func buildSteps(_ s: inout OperationSpec, _ m: Matches) throws(ParseError) {
    let anchor = m.token(.does) ?? m.tokens.last { $0.text.lowercased() == "touches" } ?? m.tokens[0]
    var steps = try m.steps(.does) ?? []
    if m.has("touches") { steps.insert(.touchUI, at: 0) }
    let clashes: [(given: Bool, message: String)] = [
      (m.has("async"), "an operation written as steps is synchronous: drop `async`"),
      (m.token(.blocks) != nil, "an operation written as steps is not a BlockOperation: drop `blocks`"),
      (m.token(.every) != nil || m.has("start"), "steps never check isCancelled: drop `cancel-check`"),
      (m.token(.failsAt) != nil, "steps cannot fail in the lab: drop `fails at`"),
    ]
    for clash in clashes where clash.given {
      throw ParseError(column: anchor.column, length: anchor.length, message: clash.message)
    }
    if let t = m.token(.takes), let n = try m.get(.takes, \.number) {
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
}
