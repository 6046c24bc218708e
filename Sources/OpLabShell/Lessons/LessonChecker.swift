/// `oplab lesson check`: runs a lesson without a learner — its commands, each prediction's
/// reveal and proof, each task's solution — and reports every broken checkpoint.
public enum LessonChecker {
  /// What checking one lesson found.
  public struct Report: Sendable {
    public var lesson: Lesson
    public var failures: [LessonError]
    public var ok: Bool { failures.isEmpty }

    /// One line for the summary.
    public var summary: String {
      let c = lesson.counts
      let what = "\(c.predictions) prediction\(c.predictions == 1 ? "" : "s"), \(c.tasks) task\(c.tasks == 1 ? "" : "s"), \(c.checkpoints) checkpoint\(c.checkpoints == 1 ? "" : "s")"
      return "lesson \(lesson.number) \(lesson.id): " + (ok ? "ok (\(what))" : "FAILED (\(failures.count) problem\(failures.count == 1 ? "" : "s"))")
    }
  }

  /// Checks one lesson in a fresh world.
  public static func check(_ lesson: Lesson, options: ShellOptions = ShellOptions()) -> Report {
    let interpreter = Interpreter(options: options)
    var failures: [LessonError] = []
    func fail(_ s: SourceLine, _ message: String, column: Int? = nil, hint: String? = nil) {
      failures.append(LessonError(file: lesson.file, line: s.line, column: column ?? s.column, message: message, hint: hint))
    }
    func run(_ commands: [SourceLine]) -> Bool {
      for c in commands {
        let reply = interpreter.execute(c.text)
        if let e = reply.error {
          fail(c, e.message, column: c.column + e.column - 1, hint: e.hint)
          return false
        }
      }
      return true
    }
    func holds(_ cs: [CheckedCondition], _ what: String) {
      for c in cs where !c.condition.holds(in: interpreter.world) {
        let seen = c.condition.observed(in: interpreter.world).map { ": \($0)" } ?? ""
        fail(c.source, "\(what) does not hold: \(c.source.text)", hint: "at t=\(interpreter.world.now)\(seen); `events` in the lesson's world shows why")
      }
    }
    for item in lesson.items {
      switch item {
      case .text, .pause: break
      case .run(let commands):
        if !run(commands) { return Report(lesson: lesson, failures: failures) }
      case .predict(let p):
        if !run(p.reveal) { return Report(lesson: lesson, failures: failures) }
        holds(p.verify, "the prediction's proof")
      case .task(let t):
        if t.checks.allSatisfy({ $0.condition.holds(in: interpreter.world) }) {
          failures.append(LessonError(
            file: lesson.file, line: t.line, column: 1, message: "the task is already done before the learner does anything",
            hint: "its checks must fail until the learner acts"))
        }
        if !run(t.solution) { return Report(lesson: lesson, failures: failures) }
        holds(t.checks, "after the solution, the task's check")
      case .expect(let cs):
        holds(cs, "the checkpoint")
      }
    }
    return Report(lesson: lesson, failures: failures)
  }
}
