import OpLabCore

/// What `lesson check` proves about a multiple-choice prediction whose choices say what
/// they claim (`means:`): after the reveal the answer's claim holds and no other's does.
extension LessonChecker {
  /// Whether every condition a choice claims holds in `world`.
  static func claimHolds(_ choice: Choice, in world: World) -> Bool {
    !choice.means.isEmpty && choice.means.allSatisfy { $0.condition.holds(in: world) }
  }

  /// The problems of a prediction's choices' claims after its reveal: the answer's claim
  /// does not hold (then the answer is wrong, and the choice that holds is named), or
  /// another choice's holds too.
  static func choiceProblems(_ p: Prediction, in world: World) -> [AnswerProblem] {
    guard let answer = p.answerChoice, !answer.means.isEmpty else { return [] }
    let others = p.options.filter { !Answers.matches($0.text, answer.text) }
    let holding = others.filter { claimHolds($0, in: world) }
    var problems: [AnswerProblem] = []
    if let failed = answer.means.first(where: { !$0.condition.holds(in: world) }) {
      let seen = failed.condition.observed(in: world).map { "; \($0)" } ?? ""
      let instead =
        switch holding.count {
        case 0: "and no choice's does: none of them is what happened"
        case 1: "and the choice '\(holding[0].text)' is what happened (its means: holds)"
        default: "and the choices " + holding.map { "'\($0.text)'" }.joined(separator: ", ") + " hold"
        }
      problems.append(
        AnswerProblem(
          source: p.answerSource ?? failed.source,
          message:
            "answer '\(p.answer)' is wrong: its choice's means: does not hold after the reveal (\(failed.source.text), line \(failed.source.line)), \(instead)",
          hint: "at t=\(world.now)\(seen); fix the answer, or the means: line, or the reveal"))
      return problems
    }
    for other in holding {
      let at = other.means.first?.source ?? other.source
      problems.append(
        AnswerProblem(
          source: at,
          message:
            "choice '\(other.text)' is true too: its means: holds after the reveal (\(other.means.map(\.source.text).joined(separator: "; "))), as the answer's does, so a learner who picks it is right",
          hint: "write what each choice claims so that only one can hold at t=\(world.now)"))
    }
    return problems
  }
}

/// The course's standards (`lesson check` from the command line holds every lesson to them).
extension LessonChecker {
  /// The fewest words an answer has (after a leading "yes" or "no") for `lesson check` to
  /// look for it in what the learner was shown before the question: shorter answers ("3",
  /// "yes", "d2") are everywhere.
  static let wordsOfAGivenAwayAnswer = 3

  /// What a prediction lacks by the course's standards: a wrong choice without its own
  /// feedback; an answer whose words the learner was shown (`shown`: the pages and the
  /// lab's replies since the last question) before the question is asked.
  static func standardProblems(_ p: Prediction, _ what: String, shown: String, file: String) -> [LessonError] {
    var problems: [LessonError] = []
    for choice in p.options where choice.feedback.isEmpty && !Answers.matches(choice.text, p.answer) {
      problems.append(
        LessonError(
          file: file, line: choice.source.line, column: choice.source.column,
          message: "the \(what)'s wrong choice '\(choice.text)' has no feedback: line, so a learner who picks it is told only the answer",
          hint: "under it, write `feedback:` the belief that leads to this choice and what the timeline shows instead"))
    }
    // "yes, its dependents still run": the words after a yes or a no are what it says.
    var answer = Answers.normalize(p.answer).split(separator: " ")
    if let first = answer.first, first == "yes" || first == "no" { answer.removeFirst() }
    let page = Answers.normalize(shown.replacing("\n", with: " ")).split(separator: " ")
    if answer.count >= wordsOfAGivenAwayAnswer, page.count >= answer.count,
      (0...(page.count - answer.count)).contains(where: { page[$0..<($0 + answer.count)].elementsEqual(answer) })
    {
      let at = p.answerSource ?? SourceLine(text: p.answer, line: p.line, column: 1)
      problems.append(
        LessonError(
          file: file, line: at.line, column: at.column,
          message:
            "the \(what)'s answer '\(p.answer)' is shown before the question is asked: the page, or the lab's reply, before it says \"\(answer.joined(separator: " "))\"",
          hint: "reword the text before the question, or move it after the reveal (into explain:)"))
    }
    return problems
  }
}
