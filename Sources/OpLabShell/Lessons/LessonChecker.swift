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
      let seconds = lesson.items.filter { if case .predict(let p) = $0 { p.again != nil } else { false } }.count
      let again = seconds == 0 ? "" : ", \(seconds) second case\(seconds == 1 ? "" : "s")"
      let e = lesson.exerciseCount
      let exercises = e == 0 ? "" : ", \(e) Swift exercise\(e == 1 ? "" : "s")"
      let what =
        "\(c.predictions) prediction\(c.predictions == 1 ? "" : "s")\(again), \(c.tasks) task\(c.tasks == 1 ? "" : "s")\(exercises), \(c.checkpoints) checkpoint\(c.checkpoints == 1 ? "" : "s")"
      return "lesson \(lesson.number) \(lesson.id): " + (ok ? "ok (\(what))" : "FAILED (\(failures.count) problem\(failures.count == 1 ? "" : "s"))")
    }
  }

  /// Whether a hint says how to get back to the task's starting state: it names
  /// `restart`, or lab commands that go back (`goto T`, `undo`, `back N`), which the
  /// checker runs after the solution to see that they do.
  static func recovers(_ hint: String) -> Bool {
    commands(in: hint).contains { $0 == "restart" || $0.hasPrefix("goto ") || $0 == "undo" || $0.hasPrefix("back ") }
  }

  /// The `code` spans of a text.
  static func commands(in text: String) -> [String] {
    text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  /// Checks one lesson in a fresh world.
  /// - Parameter standards: also hold the lesson to the course's standards (see
  ///   ``standardProblems``): each wrong choice has its own feedback, and nothing shown before
  ///   a question holds its answer's words. `oplab lesson check` does.
  /// - Parameter buildExercises: also build each Swift exercise's reference solution and its
  ///   starting file with `swiftc`, run them on the real queue, and require the solution to
  ///   pass and the starting file to fail as its `fails:` line says (`lesson check --build`).
  public static func check(
    _ lesson: Lesson, options: ShellOptions = ShellOptions(), standards: Bool = false, buildExercises: Bool = false
  ) -> Report {
    var interpreter = Interpreter(options: options)
    var failures: [LessonError] = []
    // What the learner has been shown since the last question was asked (pages, the lab's replies, reveals).
    var shown = ""
    // The rows each run: block prints at the screen's width, by item index.
    var printed: [Int: Int] = [:]
    var rows = 0
    func fail(_ s: SourceLine, _ message: String, column: Int? = nil, hint: String? = nil) {
      failures.append(LessonError(file: lesson.file, line: s.line, column: column ?? s.column, message: message, hint: hint))
    }
    func run(_ commands: [SourceLine], shownToTheLearner: Bool = true) -> Bool {
      for c in commands {
        // `real` plays the world on the real queue in real time: its drawing and its drift
        // change from run to run, so a lesson may only tell the learner when to type it.
        if c.text.split(separator: " ").first == "real" {
          fail(
            c, "a lesson cannot run `real`: it plays the world in real time, so what it prints changes from run to run",
            hint: "say in the narrative when to type `real`, and prove the answer with `verify:` on the lab's world")
          return false
        }
        let reply = interpreter.execute(c.text)
        if shownToTheLearner {
          shown += "\n" + c.text + "\n" + reply.output
          rows += 1 + LessonChecker.rows(of: reply.output)
        }
        if let e = reply.error {
          fail(c, e.message, column: c.column + e.column - 1, hint: e.hint)
          return false
        }
      }
      return true
    }
    /// Whether every name the conditions use is in the world; each one that is not is said.
    @discardableResult
    func named(_ cs: [CheckedCondition], _ what: String) -> Bool {
      let before = failures.count
      for c in cs {
        let (ops, queues) = c.condition.names
        let world = interpreter.world
        if let missing = ops.first(where: { world.operationID(named: $0) == nil }) {
          let guess = Suggest.closest(to: missing, in: world.operationNames)
          fail(
            c.source, "\(what) names '\(missing)', and there is no such operation: \(c.source.text)",
            hint: guess.map { "did you mean '\($0)'?" } ?? "at t=\(world.now)")
        } else if let missing = queues.first(where: { world.queueID(named: $0) == nil }) {
          let guess = Suggest.closest(to: missing, in: world.allQueueNames)
          fail(
            c.source, "\(what) names '\(missing)', and there is no such queue: \(c.source.text)",
            hint: guess.map { "did you mean '\($0)'?" } ?? "at t=\(world.now)")
        }
      }
      return failures.count == before
    }
    func holds(_ cs: [CheckedCondition], _ what: String) {
      // A misspelt name makes a positive condition fail, but a `not` one pass: check names.
      named(cs, what)
      for c in cs where !c.condition.holds(in: interpreter.world) {
        guard c.condition.names.operations.allSatisfy({ interpreter.world.operationID(named: $0) != nil }),
          c.condition.names.queues.allSatisfy({ interpreter.world.queueID(named: $0) != nil })
        else { continue }  // said above
        let seen = c.condition.observed(in: interpreter.world).map { ": \($0)" } ?? ""
        fail(
          c.source, "\(what) does not hold: \(c.source.text)", hint: "at t=\(interpreter.world.now)\(seen); `events` in the lesson's world shows why")
      }
      // The real queue leaves the order of a same-tick tie unspecified: nothing may grade one.
      for c in cs {
        guard let (a, b, tick) = c.condition.tie(in: interpreter.world) else { continue }
        guard case .order(let started, _) = c.condition.positive else { continue }
        fail(
          c.source,
          "\(what) grades a tie: \(a) and \(b) both \(started ? "started" : "finished") at t=\(tick), and the real queue leaves their order unspecified: \(c.source.text)",
          hint: "compare operations that \(started ? "start" : "finish") at different ticks, or make this an aside in the narrative")
      }
    }
    /// A prediction (or its second case): its reveal, proof, and the tick its answer names.
    func prediction(_ p: Prediction, _ what: String) -> Bool {
      if !run(p.reveal) { return false }
      holds(p.verify, "the \(what)'s proof")
      // Each choice's claim (means:): the answer's holds after the reveal, and no other's.
      if named(p.options.flatMap(\.means), "a choice's means: line") {
        for problem in LessonChecker.choiceProblems(p, in: interpreter.world) {
          failures.append(
            LessonError(
              file: lesson.file, line: problem.source?.line ?? p.line, column: problem.source?.column ?? 1,
              message: "the \(what)'s " + problem.message, hint: problem.hint))
        }
      }
      if p.verify.isEmpty, p.answerChoice?.means.isEmpty ?? true {
        failures.append(
          LessonError(
            file: lesson.file, line: p.line, column: 1, message: "the \(what) has no verify: line, so nothing proves its answer",
            hint: "add a condition that holds after the reveal, e.g. `verify: started f1 at 3`"))
      }
      // A typed answer is checked against the world: a tick against the tick of the
      // operation the question names, an order against the order that ran.
      for problem in LessonChecker.typedAnswerProblems(p, in: interpreter.world) {
        failures.append(
          LessonError(
            file: lesson.file, line: problem.source?.line ?? p.line, column: problem.source?.column ?? 1,
            message: problem.message, hint: problem.hint))
      }
      let question = p.question.lowercased()
      // An answer that names one operation as "first" or "last" among choices that are
      // operations must not rest on a same-tick tie.
      if question.contains("first") || question.contains("last"), !p.choices.isEmpty,
        p.choices.allSatisfy({ interpreter.world.operationID(named: Answers.normalize($0)) != nil }),
        let answer = p.choices.first(where: { Answers.matches($0, p.answer) })
      {
        let world = interpreter.world
        let finishing = question.contains("finish")
        func tick(_ name: String) -> Tick? {
          finishing ? world.operationID(named: name).flatMap { world.operation($0).finishedAt } : Condition.startTick(name, in: world)
        }
        let name = Answers.normalize(answer)
        if let t = tick(name), let other = p.choices.map(Answers.normalize).first(where: { $0 != name && tick($0) == t }) {
          failures.append(
            LessonError(
              file: lesson.file, line: p.line, column: 1,
              message:
                "the \(what)'s answer rests on a tie: \(name) and \(other) both \(finishing ? "finished" : "started") at t=\(t), and the real queue leaves their order unspecified",
              hint: "ask about operations that \(finishing ? "finish" : "start") at different ticks"))
        }
      }
      // An answer that lists operations in order ("b d c a") must not order a same-tick tie.
      let listed = Answers.normalize(p.answer).split(separator: " ").map(String.init)
      let world = interpreter.world
      let byName = Dictionary(world.operationNames.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
      if listed.count >= 2, listed.allSatisfy({ byName[$0] != nil }) {
        let finishing = question.contains("finish")
        let names = listed.compactMap { byName[$0] }
        let ticks = names.map {
          finishing ? world.operationID(named: $0).flatMap { world.operation($0).finishedAt } : Condition.startTick($0, in: world)
        }
        outer: for i in names.indices {
          for j in names.indices where j > i {
            if let a = ticks[i], a == ticks[j] {
              failures.append(
                LessonError(
                  file: lesson.file, line: p.line, column: 1,
                  message:
                    "the \(what)'s answer orders a tie: \(names[i]) and \(names[j]) both \(finishing ? "finished" : "started") at t=\(a), and the real queue leaves their order unspecified",
                  hint: "ask about operations that \(finishing ? "finish" : "start") at different ticks"))
              break outer
            }
          }
        }
      }
      return true
    }
    /// Whether the lab's world is as it was: the same clock and the same commands.
    func state() -> (Tick, [String]) { (interpreter.world.now, interpreter.script.map(\.text)) }
    /// Placeholders in prose must name what the world has where the text is shown.
    func prose(_ text: String, line: Int, column: Int = 1) {
      for problem in LessonChecker.placeholderProblems(in: text, world: interpreter.world) {
        failures.append(LessonError(file: lesson.file, line: line, column: column, message: problem.message, hint: problem.hint))
      }
    }
    /// What a question's choices and answer cannot hold, and the question's own placeholders.
    func asked(_ p: Prediction, _ what: String) {
      prose(p.question, line: p.line)
      for (text, kind) in p.choices.map({ ($0, "a choice") }) + [(p.answer, "an answer")] {
        if let problem = LessonChecker.placeholderRefused(in: text, what: kind) {
          failures.append(LessonError(file: lesson.file, line: p.line, column: 1, message: "in the \(what), " + problem.message, hint: problem.hint))
        }
      }
    }
    // The last run: block since the learner last answered or acted, and the world before it.
    var lastRun: (line: Int, events: Int)?
    var eventsAtLastQuestion = 0
    for (index, item) in lesson.items.enumerated() {
      switch item {
      case .pause: break
      case .code(let lines):
        shown += "\n" + lines.map(\.text).joined(separator: "\n")
      case .text(let paragraph):
        prose(paragraph, line: lesson.paragraphLines[index] ?? 1)
        shown += "\n" + LessonText.fillProse(paragraph, world: interpreter.world)
      case .run(let commands), .quiet(let commands):
        // A quiet: block shows nothing, but the world it leaves is the learner's to look at.
        let loud = if case .run = item { true } else { false }
        rows = 0
        if !run(commands, shownToTheLearner: loud) { return Report(lesson: lesson, failures: failures) }
        if loud { printed[index] = rows }
        if let first = commands.first, interpreter.world.trace.count > eventsAtLastQuestion {
          lastRun = (first.line, interpreter.world.trace.count)
        }
      case .predict(let p):
        // A run: before the question that already played what it asks gives the answer away.
        if let shown = lastRun, let what = LessonChecker.answerShown(p, in: interpreter.world) {
          failures.append(
            LessonError(
              file: lesson.file, line: shown.line, column: 1,
              message: "this run: shows the answer to the prediction at line \(p.line) before it is asked (\(what))",
              hint: "stop the run: before what the question asks about happens, and let the prediction's reveal: play it"))
        }
        asked(p, "prediction")
        if standards { failures += LessonChecker.standardProblems(p, "prediction", shown: shown, file: lesson.file) }
        shown = ""
        if !prediction(p, "prediction") { return Report(lesson: lesson, failures: failures) }
        prose(p.explain, line: p.line)
        shown += "\n" + LessonText.fillProse(p.explain, world: interpreter.world)
        let shownBeforeAgain = shown
        for choice in p.options { prose(choice.feedback, line: choice.source.line) }
        lastRun = nil
        eventsAtLastQuestion = interpreter.world.trace.count
        if let again = p.again {
          // Played in a what-if branch, as the runner does, so the lesson's world goes on unchanged.
          let before = state()
          _ = interpreter.execute("fork")
          asked(again.prediction, "second case")
          if !run(again.setup) { return Report(lesson: lesson, failures: failures) }
          if standards { failures += LessonChecker.standardProblems(again.prediction, "second case", shown: shown, file: lesson.file) }
          if !prediction(again.prediction, "second case") { return Report(lesson: lesson, failures: failures) }
          prose(again.explain, line: again.line)
          for choice in again.options { prose(choice.feedback, line: choice.source.line) }
          _ = interpreter.execute("unfork")
          if state() != before {
            failures.append(
              LessonError(
                file: lesson.file, line: again.line, column: 1, message: "the second case changed the lesson's world",
                hint: "its setup: and reveal: run in a what-if branch, which `unfork` must leave"))
          }
          shown = shownBeforeAgain
        }
      case .task(let t):
        prose(t.goal, line: t.line)
        if standards { failures += LessonChecker.hintProblems(t, file: lesson.file) }
        lastRun = nil
        defer { shown = "" }
        if TaskCoach.done(t, in: interpreter.world) {
          failures.append(
            LessonError(
              file: lesson.file, line: t.line, column: 1, message: "the task is already done before the learner does anything",
              hint: "its checks must fail until the learner acts"))
        } else if let (move, tick) = LessonChecker.doNothingSolves(t, interpreter) {
          failures.append(
            LessonError(
              file: lesson.file, line: t.line, column: 1,
              message: "the task is done by `\(move)` alone, at t=\(tick): a learner who does nothing it teaches passes",
              hint: "add a check that only what the task teaches makes hold (e.g. `check: cancelled b`)"))
        }
        let namesBefore = Set(interpreter.world.operationNames + interpreter.world.allQueueNames)
        for c in t.checks where c.message == nil {
          fail(
            c.source, "this check: has no else: message, so a learner who misses it would see the condition's raw words",
            column: 1, hint: "write, on the next line, `else:` and what went wrong and the way out, in the lesson's words")
        }
        if !t.hints.contains(where: LessonChecker.recovers) {
          failures.append(
            LessonError(
              file: lesson.file, line: t.line, column: 1, message: "no hint says how to get back to the task's starting state",
              hint: "add one, e.g. hint: To start the task again from its starting state, type `restart`."))
        }
        let start = state()
        if !run(t.solution) { return Report(lesson: lesson, failures: failures) }
        holds(t.checks, "after the solution, the task's check")
        // A hint may name what the learner makes: it must exist once the task is solved.
        for hint in t.hints { prose(hint, line: t.line) }
        // A `not` check is met only once it can no longer change (`not skipped c` before c ran is not).
        for c in TaskCoach.unsettled(t, in: interpreter.world) {
          fail(
            c.source, "after the solution, the task's check holds only for now, and could still change: \(c.source.text)",
            hint:
              "at t=\(interpreter.world.now) the operation has not finished; a `not` check counts once it can no longer change, so the solution must run on (e.g. `run`)"
          )
        }
        for (verb, name) in LessonChecker.actsOnWhatOnlyTheSolutionMakes(t.goal, before: namesBefore, after: interpreter.world) {
          failures.append(
            LessonError(
              file: lesson.file, line: t.line, column: 1,
              message: "the task asks to \(verb) \(name), which its world does not have: only its solution makes \(name)",
              hint: "make \(name) in a run: block before the task, or ask the learner to make it"))
        }
        // The messages' placeholders name what the world has.
        for c in t.checks {
          guard let m = c.message, let found = try? LessonText.placeholders(in: m.text) else { continue }
          for p in found where !p.name.isEmpty {
            let world = interpreter.world
            let known = p.namesQueue ? world.queueID(named: p.name) != nil : world.operationID(named: p.name) != nil
            if !known {
              let guess = Suggest.closest(to: p.name, in: p.namesQueue ? world.allQueueNames : world.operationNames)
              fail(
                m, "the message names '\(p.name)', and there is no such \(p.namesQueue ? "queue" : "operation")",
                column: m.column + p.offset, hint: guess.map { "did you mean '\($0)'?" })
            }
          }
        }
        // A hint that goes back with lab commands (`goto 8`, `undo`) must really reach the start.
        if !t.hints.contains(where: { LessonChecker.commands(in: $0).contains("restart") }), let hint = t.hints.first(where: LessonChecker.recovers) {
          let back = LessonChecker.commands(in: hint).filter { $0.hasPrefix("goto") || $0 == "undo" || $0.hasPrefix("back") }
          let after = state()
          for command in back { _ = interpreter.execute(command) }
          if state() != start {
            failures.append(
              LessonError(
                file: lesson.file, line: t.line, column: 1,
                message:
                  "the hint's \(back.map { "`\($0)`" }.joined(separator: ", ")) does not bring back the task's starting state after the solution (t=\(start.0), \(start.1.count) commands; it leaves t=\(interpreter.world.now), \(interpreter.script.count))",
                hint: "`restart` always does"))
          }
          // Back to where the solution left the world, for what follows.
          if state() != after {
            interpreter = Interpreter(options: options)
            for command in after.1 { _ = interpreter.execute(command) }
          }
        }
      case .expect(let cs):
        holds(cs, "the checkpoint")
      case .exercise(let e):
        lastRun = nil
        shown = ""
        failures += LessonChecker.exerciseProblems(e, in: lesson, options: options, build: buildExercises)
      }
    }
    // A page taller than the screen is read through the pager, a screen at a time, with its
    // question off screen: the course's standards refuse it.
    if standards, failures.isEmpty { failures += LessonChecker.tallPageProblems(lesson, options: options, printed: printed) }
    if lesson.counts.tasks == 0, !lesson.items.contains(where: { if case .exercise = $0 { true } else { false } }) {
      failures.append(
        LessonError(
          file: lesson.file, line: 1, column: 1, message: "the lesson has no task: a learner never does what it teaches",
          hint: "add a `task:` with its `check:` lines, or fold this into a lesson that has one"))
    }
    return Report(lesson: lesson, failures: failures)
  }
}
