import OpLabCore

/// What `lesson check` proves about a typed answer (a prediction without `choice:` lines):
/// a tick against the tick of the operation the question names, an order against the
/// order the world ran, anything else against its `verify:` lines — and what it cannot
/// check, it refuses.
extension LessonChecker {
  /// A problem found in a prediction, located at the condition it is about (else the `predict:` line).
  struct AnswerProblem: Equatable {
    var source: SourceLine?
    var message: String
    var hint: String?
  }

  /// Whether a question asks for a tick ("At which tick…?", "When…?"), not a length ("How many ticks…?").
  static func asksForATick(_ question: String) -> Bool {
    let q = question.lowercased()
    return
      (q.contains("which tick") || q.contains("what tick") || q.contains("what time") || q.contains("which time") || q.hasPrefix("when")
      || q.contains(". when") || q.contains("? when"))
      && !q.contains("how many") && !q.contains("how long")
  }

  /// Whether a question asks about finishing ("finish", "arrive", "end", "complete", "done")
  /// rather than starting.
  static func asksAboutFinishing(_ question: String) -> Bool {
    // By words, so that "depends" is not "ends".
    let words = question.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
    return words.contains { w in
      ["finish", "arriv", "complet"].contains(where: w.hasPrefix) || ["end", "ends", "ended", "done"].contains(w)
    }
  }

  /// The operations of `world` a text names, in the order it names them, each once. An
  /// aside in parentheses ("(type a number)") names none: its "a" is a word, not operation a.
  static func operations(namedIn text: String, in world: World) -> [String] {
    let byName = Dictionary(world.operationNames.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    var found: [String] = []
    var depth = 0
    let outside = String(
      text.filter { c in
        if c == "(" { depth += 1 } else if c == ")" { depth = max(0, depth - 1); return false }
        return depth == 0
      })
    for word in outside.split(whereSeparator: { " \t,;:!?()`'\"".contains($0) }) {
      var w = Substring(word.lowercased())
      while let last = w.last, last == "." { w.removeLast() }
      if let name = byName[String(w)], !found.contains(name) { found.append(name) }
    }
    return found
  }

  /// Checks a typed answer against the world after its reveal.
  /// - Returns: what is wrong, or nothing.
  static func typedAnswerProblems(_ p: Prediction, in world: World) -> [AnswerProblem] {
    guard p.choices.isEmpty else { return [] }
    let answer = Answers.normalize(p.answer)
    let finishing = asksAboutFinishing(p.question)
    let verb = finishing ? "finished" : "started"
    func tick(_ name: String) -> Tick? {
      finishing ? world.operationID(named: name).flatMap { world.operation($0).finishedAt } : Condition.startTick(name, in: world)
    }
    let ticks = p.verify.filter { $0.condition.tick != nil }
    if asksForATick(p.question) {
      guard let n = Tick(answer) else {
        return [
          AnswerProblem(
            message: "the question asks for a tick, and the answer '\(p.answer)' is not one", hint: "answer with a number, e.g. `answer: 7`")
        ]
      }
      let named = operations(namedIn: p.question, in: world)
      guard named.count == 1, let name = named.first else {
        // No one operation to read: the ticks the proof pins must agree.
        guard let first = ticks.first else {
          return [
            AnswerProblem(
              message:
                "the answer \(n) cannot be checked: the question names \(named.isEmpty ? "no operation" : "several operations (\(named.joined(separator: ", ")))") and no verify: line pins a tick",
              hint: "name the one operation the question is about, or add e.g. `verify: started d1 at \(n)`")
          ]
        }
        if !ticks.contains(where: { $0.condition.tick == n }) {
          return [
            AnswerProblem(
              source: first.source,
              message:
                "the answer says \(n), but the proof checks t=\(ticks.compactMap { $0.condition.tick.map(String.init) }.joined(separator: ", t=")): \(first.source.text)",
              hint: "make `answer:` and `verify:` agree")
          ]
        }
        return []
      }
      // The proof about the operation the question names must pin the answer's tick.
      let own = ticks.filter { c in
        switch c.condition {
        case .started(let x, _) where !finishing, .finished(let x, _) where finishing: x.lowercased() == name.lowercased()
        default: false
        }
      }
      if let wrong = own.first(where: { $0.condition.tick != n }) {
        return [
          AnswerProblem(
            source: wrong.source, message: "the answer says \(n), but the proof checks t=\(wrong.condition.tick ?? 0): \(wrong.source.text)",
            hint: "make `answer:` and `verify:` agree")
        ]
      }
      var problems: [AnswerProblem] = []
      if tick(name) != n {
        problems.append(
          AnswerProblem(
            message:
              "the answer says \(n), but the question asks about \(name), which \(tick(name).map { "\(verb) at t=\($0)" } ?? "had not \(verb)") after the reveal",
            hint: "the answer is the tick of the operation the question names"))
      }
      if own.isEmpty, !p.verify.isEmpty {  // no verify: at all is said on its own
        let pinned = ticks.first.map { " (\($0.source.text) is about another operation)" } ?? ""
        problems.append(
          AnswerProblem(
            message: "no verify: line pins the tick of \(name), the operation the question asks about\(pinned)",
            hint: "add `verify: \(verb) \(name) at \(tick(name).map(String.init) ?? String(n))`"))
      }
      return problems
    }
    // Operations in an order ("b d c a"): the world must have run them in that order.
    let words = answer.split(separator: " ").map(String.init)
    let names = words.compactMap { w in world.operationNames.first { $0.lowercased() == w } }
    if words.count >= 2, names.count == words.count {
      let order = Condition.order(started: !finishing, names)
      if !order.holds(in: world), order.tie(in: world) == nil {
        return [
          AnswerProblem(
            message: "the answer says \(names.joined(separator: " ")), but after the reveal they \(verb): "
              + names.map { "\($0) \(tick($0).map { "t=\($0)" } ?? "never")" }.joined(separator: ", "),
            hint: "the answer is the order the world ran them in")
        ]
      }
      return []
    }
    // Anything else is checked only when a verify: line states it.
    let stated = p.verify.contains { c in
      let (ops, queues) = c.condition.names
      return (ops + queues).contains { $0.lowercased() == answer } || c.source.text.lowercased().split(separator: " ").last.map(String.init) == answer
    }
    if !stated {
      return [
        AnswerProblem(
          message:
            "the typed answer '\(p.answer)' cannot be checked: the question does not ask \"At which tick…\" or \"When…\", the answer is not operations in an order, and no verify: line states it",
          hint:
            "give it `choice:` lines, ask \"At which tick…\", or add a verify: line that names the answer (`verify: outcome \(answer) cancelled`, `verify: value count \(answer)`)"
        )
      ]
    }
    return []
  }
}
