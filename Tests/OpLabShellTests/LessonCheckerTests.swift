import Foundation
import OpLabCore
import Testing

@testable import OpLabShell

/// What `lesson check` refuses since #35, each shown by a broken lesson under
/// `Fixtures/lessons/`, and the runner's word on a task failed for good by any check.
@Suite struct LessonCheckerTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/lessons")

  /// The failures `lesson check` reports for a fixture, as `FILE:LINE: message`.
  func failures(_ name: String) throws -> [String] {
    let url = Self.fixtures.appendingPathComponent(name + ".lesson")
    let lesson = try LessonParser.parse(String(contentsOf: url, encoding: .utf8), file: name + ".lesson")
    return LessonChecker.check(lesson).failures.map { "\($0.file):\($0.line): \($0.message)" }
  }

  func walk(_ lesson: Lesson, _ inputs: [String]) -> String {
    var lines = inputs[...]
    let reader = StdinLineReader { lines.popFirst() }
    var out = ""
    var options = ShellOptions()
    options.width = 200
    let runner = LessonRunner(lesson: lesson, reader: reader, options: options, progress: ProgressStore(path: nil)) { out += $0 }
    runner.run()
    return out
  }

  /// The text with every run of spaces and line breaks as one space (prose is wrapped).
  func flat(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
  }

  static let noTask = "the lesson has no task: a learner never does what it teaches"

  // MARK: Typed answers

  @Test("A tick answer is checked against the tick of the operation the question names, not another's")
  func tickOfAnotherOperation() throws {
    #expect(
      try failures("tick-of-another-operation") == [
        "tick-of-another-operation.lesson:9: the answer says 2, but the question asks about d5, which started at t=5 after the reveal",
        "tick-of-another-operation.lesson:9: no verify: line pins the tick of d5, the operation the question asks about (started d3 at 2 is about another operation)",
        "tick-of-another-operation.lesson:1: " + Self.noTask,
      ])
  }

  @Test("A typed answer that is not a tick, an order or stated by a verify: line is refused: nothing could check it")
  func typedAnswerUnchecked() throws {
    #expect(
      try failures("typed-answer-unchecked") == [
        "typed-answer-unchecked.lesson:6: the typed answer 'short' cannot be checked: the question does not ask \"At which tick…\" or \"When…\", the answer is not operations in an order, and no verify: line states it",
        "typed-answer-unchecked.lesson:1: " + Self.noTask,
      ])
  }

  @Test("A question asks about finishing by its words: \"depends\" is not \"ends\"; an aside in parentheses names no operation")
  func questionWords() throws {
    #expect(!LessonChecker.asksAboutFinishing("When does f3, which depends on f1, start?"))
    #expect(LessonChecker.asksAboutFinishing("At which tick does row6 arrive?"))
    #expect(LessonChecker.asksAboutFinishing("When does a end?"))
    #expect(LessonChecker.asksForATick("At what time does d5 start?"))
    #expect(!LessonChecker.asksForATick("How many ticks does d5 take? When it starts, d4 is done."))
    let i = Interpreter()
    for line in ["op a takes 1", "op b takes 1"] { #expect(i.execute(line).error == nil) }
    #expect(LessonChecker.operations(namedIn: "When does b start? (type a number)", in: i.world) == ["b"])
  }

  // MARK: Tasks

  @Test("A task a plain `run` solves is refused")
  func taskSolvedByRun() throws {
    #expect(
      try failures("task-solved-by-run") == [
        "task-solved-by-run.lesson:8: the task is done by `run` alone, at t=4: a learner who does nothing it teaches passes"
      ])
  }

  @Test("By the course's standards, a hint before the last that hands over a solution command word for word is refused; as the last hint it passes")
  func hintGivesSolution() throws {
    let url = Self.fixtures.appendingPathComponent("hint-gives-solution.lesson")
    let text = try String(contentsOf: url, encoding: .utf8)
    let lesson = try LessonParser.parse(text, file: "hint-gives-solution.lesson")
    #expect(LessonChecker.check(lesson).ok, "only the course's standards count hints")
    #expect(
      LessonChecker.check(lesson, standards: true).failures.map { "\($0.line): \($0.message)" } == [
        "8: the task's hint 1 of 2 hands over the solution's `max q 2` before the last hint"
      ])
    // The same hints the other way round: a direction first, the command last.
    let swapped = text.replacingOccurrences(
      of: "  hint: `max q 2`, then run.\n  hint: `restart` puts the world back as the task found it.",
      with: "  hint: `restart` puts the world back as the task found it.\n  hint: `max q 2`, then run.")
    #expect(swapped != text)
    #expect(LessonChecker.check(try LessonParser.parse(swapped, file: "swapped.lesson"), standards: true).ok)
  }

  @Test("A `not skipped` check is met only once it can no longer change: a solution that stops before is refused")
  func notSkippedTooEarly() throws {
    #expect(
      try failures("task-not-skipped-too-early") == [
        "task-not-skipped-too-early.lesson:14: after the solution, the task's check holds only for now, and could still change: not skipped c"
      ])
  }

  @Test("A task that asks to cancel an operation only its solution makes is refused")
  func actsOnWhatTheSolutionMakes() throws {
    #expect(
      try failures("task-acts-on-what-the-solution-makes") == [
        "task-acts-on-what-the-solution-makes.lesson:6: the task asks to cancel b, which its world does not have: only its solution makes b"
      ])
  }

  @Test("A `not` check is done only once settled, unless another check pins that operation's state now")
  func notChecksSettle() throws {
    let i = Interpreter()
    for line in ["queue q max 1", "op a on q takes 2", "op c on q takes 1", "cancel c"] { #expect(i.execute(line).error == nil) }
    let lesson = try LessonParser.parse(
      "title: T\ntask: Keep c.\n  check: not skipped c\n  else: no.\n  solution: run\ntask: Keep c waiting.\n  check: not skipped c\n  else: no.\n  check: state c ready\n  else: no.\n  solution: run\n",
      file: "t.lesson")
    let tasks = lesson.items.compactMap { item -> LessonTask? in if case .task(let t) = item { t } else { nil } }
    #expect(!TaskCoach.done(tasks[0], in: i.world))  // c is skipped at t=2
    #expect(TaskCoach.unsettled(tasks[0], in: i.world).map(\.source.text) == ["not skipped c"])
    #expect(Condition.cancelled("c").settled(in: i.world))
    #expect(!Condition.cancelled("a").settled(in: i.world))
    #expect(i.execute("run").error == nil)
    #expect(Condition.cancelled("a").settled(in: i.world))  // finished: cancel() does nothing now
  }

  @Test("At rest with every check holding but a `not` that could still change, the learner hears why it is not done")
  func notDoneWhileUnsettled() throws {
    let i = Interpreter()
    for line in ["queue q max 1", "suspend q", "op a on q takes 2", "op c on q takes 1", "cancel c"] { #expect(i.execute(line).error == nil) }
    let lesson = try LessonParser.parse(
      "title: T\ntask: Keep c.\n  check: not skipped c\n  else: c was skipped.\n  solution: run\n", file: "t.lesson")
    let t = try #require(lesson.items.compactMap { item -> LessonTask? in if case .task(let t) = item { t } else { nil } }.first)
    i.undoFloor = i.script.count
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(i))
    #expect(i.execute("run").error == nil)  // q is suspended: nothing can happen
    #expect(!TaskCoach.done(t, in: i.world))
    #expect(
      coach.judge(in: TaskCoach.Lab(i), clockMoved: true) == [
        .notDoneYet("Not done yet: c has not finished, so `not skipped c` could still change. (`hint` helps.)")
      ])
  }

  // MARK: Lints

  @Test("Placeholders work in prose, but one naming nothing is refused, and none may stand in a choice or an answer")
  func placeholders() throws {
    #expect(
      try failures("placeholders-that-cannot-be-filled") == [
        "placeholders-that-cannot-be-filled.lesson:10: the placeholder {finished bb} names 'bb', and the world has no such operation where the text is shown",
        "placeholders-that-cannot-be-filled.lesson:16: in the prediction, a placeholder cannot be filled in a choice: it is compared with what the learner types, as written",
        "placeholders-that-cannot-be-filled.lesson:16: in the prediction, a placeholder cannot be filled in an answer: it is compared with what the learner types, as written",
        "placeholders-that-cannot-be-filled.lesson:1: " + Self.noTask,
      ])
  }

  @Test("Placeholders in narrative and explain: are filled from the learner's world; Swift's braces stay as written")
  func placeholdersFilled() throws {
    let text = """
      title: Filled

      run:
        op a takes 2
        run

      a finished at {finished a}; the clock is at {now}. In Swift: addOperation { }.

      predict: When does b finish? (type a number)
        answer: 5
        reveal: op b takes 3
        reveal: run
        verify: finished b at 5
        explain: b finished at {finished b}, {state b}.
      """
    let out = flat(walk(try LessonParser.parse(text, file: "p.lesson"), ["5"]))
    #expect(out.contains("a finished at t=2; the clock is at t=2. In Swift: addOperation { }."), "\(out)")
    #expect(out.contains("b finished at t=5, finished."), "\(out)")
  }

  @Test("A run: before a prediction that has already played what it asks is refused, at the run:")
  func runShowsTheAnswer() throws {
    #expect(
      try failures("run-shows-the-answer") == [
        "run-shows-the-answer.lesson:4: this run: shows the answer to the prediction at line 9 before it is asked (b started at t=2)",
        "run-shows-the-answer.lesson:1: " + Self.noTask,
      ])
  }

  @Test("A lesson with no task is refused")
  func noTask() throws {
    #expect(try failures("no-task") == ["no-task.lesson:1: " + Self.noTask])
  }

  // MARK: The runner

  @Test("A `not cancelled` check failed for good gets the immediate way out, like `not started`")
  func notCancelledFailsForGood() throws {
    let text = """
      title: Filters

      run:
        queue filters max 1
        op f1 on filters takes 2
        op f2 on filters takes 2
        op f3 on filters takes 2

      task: Cancel f2, and only f2.
        hint: `restart` puts the world back as the task found it.
        check: skipped f2
        else: f2 was not skipped: it started {started f2}.
        check: not cancelled f3
        else: f3 was cancelled at {cancelled f3}: leave it alone.
        solution: cancel f2
        solution: run
      """
    let lesson = try LessonParser.parse(text, file: "f.lesson")
    #expect(LessonChecker.check(lesson).ok)
    let out = walk(lesson, ["cancel all filters", "undo", "cancel f2", "run"])
    #expect(
      flat(out).contains(
        "✗ This can no longer succeed: f3 was cancelled at t=0: leave it alone. `undo` takes back `cancel all filters` and returns to t=0."), "\(out)"
    )
    #expect(out.contains("✓ Task done."), "\(out)")
    #expect(out.components(separatedBy: "can no longer succeed").count == 2, "said once: \(out)")
    #expect(out.contains("Back at t=0: nothing the task checks has failed for good yet."), "\(out)")
    #expect(!out.contains("Not done yet"), "\(out)")
  }
}
