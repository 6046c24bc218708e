import OpLabCore

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
      // A misspelt name makes a positive condition fail, but a `not` one pass: check names.
      for c in cs {
        let (ops, queues) = c.condition.names
        let world = interpreter.world
        if let missing = ops.first(where: { world.operationID(named: $0) == nil }) {
          let guess = Suggest.closest(to: missing, in: world.operationNames)
          fail(c.source, "\(what) names '\(missing)', and there is no such operation: \(c.source.text)",
               hint: guess.map { "did you mean '\($0)'?" } ?? "at t=\(world.now)")
        } else if let missing = queues.first(where: { world.queueID(named: $0) == nil }) {
          let guess = Suggest.closest(to: missing, in: world.allQueueNames)
          fail(c.source, "\(what) names '\(missing)', and there is no such queue: \(c.source.text)",
               hint: guess.map { "did you mean '\($0)'?" } ?? "at t=\(world.now)")
        }
      }
      for c in cs where !c.condition.holds(in: interpreter.world) {
        guard c.condition.names.operations.allSatisfy({ interpreter.world.operationID(named: $0) != nil }),
          c.condition.names.queues.allSatisfy({ interpreter.world.queueID(named: $0) != nil })
        else { continue }  // said above
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
        if p.verify.isEmpty {
          failures.append(LessonError(
            file: lesson.file, line: p.line, column: 1, message: "the prediction has no verify: line, so nothing proves its answer",
            hint: "add a condition that holds after the reveal, e.g. `verify: started f1 at 3`"))
        }
        // An answer that is a tick ("At which tick…?", "When…?", not "How many ticks…?")
        // must agree with the ticks its proof pins.
        let question = p.question.lowercased()
        let asksForATick = (question.contains("which tick") || question.contains("what tick") || question.hasPrefix("when"))
          && !question.contains("how many") && !question.contains("how long")
        if asksForATick, let n = Tick(Answers.normalize(p.answer)) {
          let ticks = p.verify.compactMap { $0.condition.tick }
          if let first = p.verify.first(where: { $0.condition.tick != nil }), !ticks.contains(n) {
            fail(first.source, "the answer says \(n), but the proof checks t=\(ticks.map(String.init).joined(separator: ", t=")): \(first.source.text)",
                 hint: "make `answer:` and `verify:` agree")
          }
        }
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
