import OpLabCore

/// `oplab lesson preview FILE [--width N]`: a lesson as a student sees it, page after
/// page, for its teacher. The lesson runs in the learner's own runner, answered by a
/// student who types what the preview shows after each prompt: `next` at a pause; at a
/// prediction, the first wrong choice (so its feedback and any second case show; `skip`
/// for a typed answer); at a task, every hint, then a typical wrong attempt (`run`, doing
/// nothing the task teaches), `restart` and `skip`. Before each task, every `else:`
/// message is shown filled in from the world that attempt leaves.
public enum LessonPreview {
  /// The lesson's pages, as a student sees them at `options.width`.
  public static func render(_ lesson: Lesson, options: ShellOptions) -> String {
    var out = ""
    let student = Student { out += $0 }
    let runner = LessonRunner(lesson: lesson, reader: student, options: options, progress: ProgressStore(path: nil)) { out += $0 }
    runner.preview = student
    runner.run()
    return out
  }

  /// What a student types at each prompt of a preview, written after the prompt as if typed.
  final class Student: LineReader {
    let write: (String) -> Void
    /// What is left to type at the task or the prediction at hand.
    var script: [String] = []
    /// A bound on the lines typed, should a broken lesson keep asking.
    var typed = 0

    init(write: @escaping (String) -> Void) { self.write = write }

    /// The runner asks a prediction: the first wrong choice, or `skip` for a typed answer.
    func asked(_ p: Prediction) {
      let letters = Array("abcdefgh")
      if let wrong = p.options.indices.first(where: { !Answers.matches(p.options[$0].text, p.answer) }), wrong < letters.count {
        script = [String(letters[wrong])]
      } else {
        script = ["skip"]
      }
    }

    /// The runner sets a task: its hints, a typical wrong attempt, then the way back and a solution.
    func set(_ t: LessonTask) {
      script = Array(repeating: "hint", count: t.hints.count) + [LessonPreview.typicalWrongAttempt, "restart", "skip"]
    }

    /// The runner sets an exercise: its hints, then a solution (which goes on).
    func set(_ e: Exercise) {
      script = Array(repeating: "hint", count: e.hints.count) + ["skip"]
    }

    func readLine(prompt: String) -> LineInput {
      typed += 1
      guard typed < 10_000 else { return .endOfInput }
      let line: String
      if prompt.hasPrefix("lesson ") {
        line = "next"
      } else if script.isEmpty {
        return .endOfInput  // a task its solution does not finish: the preview ends there
      } else {
        line = script.removeFirst()
      }
      write(prompt + line + "\n")
      return .line(line)
    }

    func addHistory(_ line: String) {}
    func saveHistory() -> String? { nil }
  }

  /// The pages of a lesson taller than a screen of `rows` rows at `options.width`, as the
  /// preview's student meets them: where each begins and how many rows it has.
  static func tallPages(_ lesson: Lesson, options: ShellOptions, rows: Int) -> [(item: Int, rows: Int)] {
    var found: [(Int, Int)] = []
    let student = Student { _ in }
    let runner = LessonRunner(lesson: lesson, reader: student, options: options, progress: ProgressStore(path: nil)) { _ in }
    runner.preview = student
    runner.screenRows = rows
    runner.tallPage = { found.append(($0, $1)) }
    runner.run()
    return found
  }

  /// The attempt whose world fills in a task's messages: doing nothing the task teaches.
  static let typicalWrongAttempt = "run"

  /// Each check of `t` with its `else:` message filled in from the world a typical wrong
  /// attempt (``typicalWrongAttempt``) leaves, tried in a what-if branch of `interpreter`.
  static func messages(_ t: LessonTask, _ interpreter: Interpreter) -> [(check: String, message: String?)] {
    guard interpreter.execute("fork").error == nil else { return [] }
    defer { _ = interpreter.execute("unfork") }
    _ = interpreter.execute(typicalWrongAttempt)
    return t.checks.map { c in
      (c.source.text, c.condition.holds(in: interpreter.world) ? nil : c.message.map { LessonText.fill($0.text, world: interpreter.world) })
    }
  }
}
