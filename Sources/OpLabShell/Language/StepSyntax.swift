import OpLabCore

/// A verb of the steps sub-language (`does read count, compute 1, write count`): the one
/// table that checks a step's argument and builds its ``Step``.
enum StepVerb: String, CaseIterable, Sendable {
  case read, compute, write, lock, unlock, touch, add

  /// Why `argument` cannot follow this verb, if it cannot.
  func check(_ argument: String, context: ParseContext) -> (String, String?)? {
    switch self {
    case .read, .write:
      if context.variables.contains(argument) { return nil }
      let guess = Suggest.closest(to: argument, in: context.variables)
      return ("there is no shared variable named '\(argument)'", guess.map { "did you mean '\($0)'?" } ?? "create it first: var \(argument) = 0")
    case .lock, .unlock:
      if context.locks.contains(argument) { return nil }
      let guess = Suggest.closest(to: argument, in: context.locks)
      return ("there is no lock named '\(argument)'", guess.map { "did you mean '\($0)'?" } ?? "create it first: lock \(argument)")
    case .compute:
      guard let problem = Matcher.checkNumber(argument, minimum: -(1 << 40), maximum: 1 << 40) else { return nil }
      return (problem.0, "compute N adds N to the operation's register, e.g. compute 1")
    case .add:
      guard context.isOperation(argument) else {
        let guess = Suggest.closest(to: argument, in: context.operations)
        return (
          "there is no operation named '\(argument)'",
          guess.map { "did you mean '\($0)'?" } ?? "define it first, in no queue: op \(argument) on main touches ui hold"
        )
      }
      if context.isHeld(argument) { return nil }
      return (
        "\(argument) " + (context.whyNotAddable(argument) ?? "was added before, and an operation can be added only once"),
        "define the one to add with `hold` (op \(argument)2 … hold), so this step is what adds it"
      )
    case .touch:
      return argument.lowercased() == "ui" ? nil : ("'touch' takes 'ui', not '\(argument)'", "write: touch ui")
    }
  }

  /// The step this verb makes with an argument ``check(_:context:)`` accepted; `add OP`
  /// adds it to the queue it was defined for. `nil` only if the two disagree.
  func step(_ argument: String, context: ParseContext) -> Step? {
    switch self {
    case .read: .read(argument)
    case .write: .write(argument)
    case .compute: Int(argument).map { .compute($0) }
    case .lock: .lock(argument)
    case .unlock: .unlock(argument)
    case .touch: .touchUI
    case .add: .add(argument, to: context.declaredQueue(of: argument) ?? "queue")
    }
  }
}

/// The words of `does`: each step is a verb and what it acts on.
enum StepSyntax {
  /// The verbs, in the order help lists them.
  static let verbs = StepVerb.allCases.map(\.rawValue)
  static let hint = "steps are: read VAR, compute N, write VAR, lock L, unlock L, touch ui, add OP (separated by commas)"

  /// A word of a steps list and where it stands.
  struct Piece {
    var text: String
    var token: Int
    var offset: Int
  }

  /// Why `argument` cannot follow `verb`, if it cannot.
  static func check(verb: String, argument: String, context: ParseContext) -> (String, String?)? {
    guard let verb = StepVerb(rawValue: verb.lowercased()) else { return ("'\(verb)' is not a step", hint) }
    return verb.check(argument, context: context)
  }

  /// The steps of a `does` list the matcher accepted, each with its verb's token.
  static func read(_ tokens: ArraySlice<Token>, context: ParseContext) -> [(step: Step, token: Token)] {
    var words: [(String, Token)] = []
    for t in tokens {
      for part in t.text.split(separator: ",") where !part.isEmpty { words.append((String(part), t)) }
    }
    var steps: [(step: Step, token: Token)] = []
    var k = 0
    while k + 1 < words.count {
      let (verb, t) = words[k]
      if let step = StepVerb(rawValue: verb.lowercased())?.step(words[k + 1].0, context: context) { steps.append((step, t)) }
      k += 2
    }
    return steps
  }
}
