import OpLabCore

/// A lab lesson: narrative, commands the lab runs, predictions, tasks and checkpoints,
/// read from a plain-text `.lesson` file (see `Lessons/README.md`).
public struct Lesson: Sendable {
  /// A short stable name, e.g. `frozen-ui` (from the file name or an `id:` line).
  public var id: String
  /// The course position, from the file name's leading number (`01-…`), or 0.
  public var number: Int
  /// The title shown to the learner.
  public var title: String
  /// The file it was read from.
  public var file: String
  /// Everything in order.
  public var items: [Item]
  /// The line in the file where each narrative paragraph (`.text` item) begins, by item index.
  public var paragraphLines: [Int: Int] = [:]

  /// One element of a lesson.
  public enum Item: Sendable {
    /// A paragraph of narrative.
    case text(String)
    /// Lab commands the lesson runs and shows.
    case run([SourceLine])
    /// Lab commands the lesson runs without showing them or their output (`quiet:`): the
    /// plumbing that builds a world. Only an error is shown.
    case quiet([SourceLine])
    /// A question the learner answers before the lab shows the truth.
    case predict(Prediction)
    /// Something the learner does with lab commands, checked against the simulator.
    case task(LessonTask)
    /// Swift the learner writes, built and run on the real queue (see ``Exercise``).
    case exercise(Exercise)
    /// Conditions that must hold here (the lesson's own tests).
    case expect([CheckedCondition])
    /// A pause: the learner reads, then goes on with `next`.
    case pause
    /// Code shown as written, never wrapped (`code:`): Swift the lab does not simulate,
    /// such as the async/await a lesson compares with operations.
    case code([SourceLine])
  }

  /// How many Swift exercises the lesson has.
  public var exerciseCount: Int { items.filter { if case .exercise = $0 { true } else { false } }.count }

  /// How many predictions, tasks and checkpoints the lesson has.
  public var counts: (predictions: Int, tasks: Int, checkpoints: Int) {
    var p = 0, t = 0, c = 0
    for item in items {
      switch item {
      case .predict: p += 1
      case .task: t += 1
      case .expect(let cs): c += cs.count
      default: break
      }
    }
    return (p, t, c)
  }
}

/// A line of a lesson file, with where it came from.
public struct SourceLine: Hashable, Sendable {
  /// The text (a command or a condition).
  public var text: String
  /// 1-based line in the file.
  public var line: Int
  /// 1-based column where `text` starts.
  public var column: Int
}

/// A condition with its source line.
public struct CheckedCondition: Hashable, Sendable {
  public var condition: Condition
  public var source: SourceLine
  /// What the learner is told when this task condition fails, in the lesson's words
  /// (`else:` under its `check:`), with `{…}` facts from the trace (see ``LessonText``).
  public var message: SourceLine?

  public init(condition: Condition, source: SourceLine, message: SourceLine? = nil) {
    self.condition = condition
    self.source = source
    self.message = message
  }
}

/// One option of a multiple-choice prediction (`choice:`), with what it claims about the
/// world (`means:`, proved by `lesson check`: the answer's holds after the reveal, no other
/// does) and the diagnosis shown to a learner who picks it (`feedback:`).
public struct Choice: Sendable {
  /// The words shown, and compared with what the learner types.
  public var text: String
  /// What the choice claims, as conditions that all hold when it is true (empty: none stated).
  public var means: [CheckedCondition] = []
  /// The belief behind the choice and what the timeline shows instead (empty: none).
  public var feedback: String = ""
  /// Where the `choice:` line is.
  public var source: SourceLine

  public init(text: String, means: [CheckedCondition] = [], feedback: String = "", source: SourceLine) {
    self.text = text
    self.means = means
    self.feedback = feedback
    self.source = source
  }
}

/// `predict:` — the learner commits to an answer, then the lab reveals the truth.
public struct Prediction: Sendable {
  /// The question.
  public var question: String
  /// Multiple-choice options, with their claims and feedback (empty: a typed answer).
  public var options: [Choice]
  /// The options' words (empty: a typed answer).
  public var choices: [String] { options.map(\.text) }
  /// The right answer.
  public var answer: String
  /// Commands that show the truth.
  public var reveal: [SourceLine]
  /// Conditions that prove the answer right after `reveal` (checked by `lesson check`).
  public var verify: [CheckedCondition]
  /// What to say after the reveal.
  public var explain: String
  /// Where it starts in the file.
  public var line: Int
  /// Where the `answer:` line is.
  public var answerSource: SourceLine? = nil
  /// A second, similar case offered after a wrong prediction (`again:`), played in a
  /// what-if branch so the lesson's world goes on unchanged.
  public var again: SecondCase?
}

/// `again:` — a second case to predict after a wrong answer: commands that set it up (in a
/// what-if branch of the world as the first reveal left it), then a question like `predict:`'s.
public struct SecondCase: Sendable {
  /// The question.
  public var question: String
  /// Commands shown before the question (`setup:`).
  public var setup: [SourceLine]
  public var options: [Choice]
  public var answer: String
  public var reveal: [SourceLine]
  public var verify: [CheckedCondition]
  public var explain: String
  public var line: Int
  public var answerSource: SourceLine? = nil

  /// The case as a prediction (without a further second case).
  public var prediction: Prediction {
    Prediction(
      question: question, options: options, answer: answer, reveal: reveal, verify: verify, explain: explain, line: line, answerSource: answerSource)
  }
}

extension Prediction {
  /// The option the `answer:` names, if the prediction is multiple choice.
  public var answerChoice: Choice? { options.first { Answers.matches($0.text, answer) } }
}

/// `task:` — a goal the learner reaches with lab commands; any path that makes the checks hold passes.
public struct LessonTask: Sendable {
  /// What to do.
  public var goal: String
  /// Hints, shown one at a time.
  public var hints: [String]
  /// Conditions that say the task is done.
  public var checks: [CheckedCondition]
  /// One way to do it (shown and run by `skip`; run by `lesson check`).
  public var solution: [SourceLine]
  /// Where it starts in the file.
  public var line: Int
}

/// A lesson file that cannot be read, located at `file:line:column`.
public struct LessonError: Error, Hashable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int
  public var message: String
  public var hint: String?

  public var description: String {
    "\(file):\(line):\(column): error: \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
  }

  /// The same, as a warning (it does not fail `lesson check`).
}
