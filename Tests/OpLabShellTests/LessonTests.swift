import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// The lesson format, the checker that keeps lessons honest, and the interactive runner.
@Suite struct LessonTests {
  static let sample = """
    title: A tiny lesson

    Some narrative
    on two lines.

    run:
      queue q max 1
      op a on q takes 2
    ---
    predict: Which op starts at t=2?
      choice: a
      choice: b
      answer: b
      reveal: op b on q takes 1
      reveal: run
      verify: started b at 2
      explain: a held the slot.

    task: Add an op c after b and run it.
      hint: op c after b
      hint: then run; `restart` starts again
      check: finished c
      else: c has not finished ({state c}): run.
      solution: op c on q after b
      solution: run

    expect: order finished a b c
    """

  @Test("A lesson file parses into narrative, commands, predictions, tasks and checkpoints")
  func parses() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "Lessons/07-tiny.lesson")
    #expect(lesson.id == "tiny")
    #expect(lesson.number == 7)
    #expect(lesson.title == "A tiny lesson")
    #expect(lesson.items.count == 6)
    guard case .text(let t) = lesson.items[0], case .run(let run) = lesson.items[1], case .pause = lesson.items[2],
      case .predict(let p) = lesson.items[3], case .task(let task) = lesson.items[4], case .expect(let e) = lesson.items[5]
    else {
      Issue.record("unexpected items \(lesson.items)")
      return
    }
    #expect(t == "Some narrative on two lines.")
    #expect(run.map(\.text) == ["queue q max 1", "op a on q takes 2"])
    #expect(run.map(\.line) == [7, 8])
    #expect(p.choices == ["a", "b"])
    #expect(p.answer == "b")
    #expect(p.reveal.map(\.text) == ["op b on q takes 1", "run"])
    #expect(p.verify.map(\.condition) == [.started("b", at: 2)])
    #expect(task.hints.count == 2)
    #expect(task.checks.map(\.condition) == [.finished("c", at: nil)])
    #expect(e.map(\.condition) == [.order(started: false, ["a", "b", "c"])])
    #expect(lesson.counts == (1, 1, 1))
  }

  struct BadCase: Sendable, CustomTestStringConvertible {
    var text: String
    var line: Int
    var column: Int
    var message: String
    var testDescription: String { message }
  }

  static let bad: [BadCase] = [
    BadCase(text: "Just text.\n", line: 1, column: 1, message: "the lesson has no title: line"),
    BadCase(text: "title: T\n  indented\n", line: 2, column: 1, message: "an indented line outside a block"),
    BadCase(text: "title: T\npredikt: Q?\n  choice: a\n", line: 2, column: 1, message: "'predikt:' is not a kind of block"),
    BadCase(text: "title: T\npredict: Q?\n  answr: b\n", line: 3, column: 3, message: "'answr' does not belong under predict:"),
    BadCase(text: "title: T\npredict: Q?\n  choice: a\n  answer: z\n", line: 4, column: 11, message: "the answer 'z' is not one of the choices"),
    BadCase(text: "title: T\npredict: Q?\n  choice: a\n", line: 2, column: 1, message: "predict: needs an answer: line"),
    BadCase(text: "title: T\ntask: Do it\n  solution: run\n", line: 2, column: 1, message: "task: needs at least one check: line"),
    BadCase(text: "title: T\ntask: Do it\n  check: idle\n", line: 2, column: 1, message: "task: needs a solution: line"),
    BadCase(text: "title: T\nexpect: finishd a\n", line: 2, column: 9, message: "unknown condition 'finishd'"),
    BadCase(text: "title: T\nexpect:\n  outcome a great\n", line: 3, column: 13, message: "'great' is not an outcome"),
    BadCase(text: "title: T\nexpect: started a at soon\n", line: 2, column: 22, message: "'soon' is not a tick"),
    BadCase(text: "title: T\ntitle: U\n", line: 2, column: 1, message: "a second title: line"),
    BadCase(text: "title: T\ntask: Do it\n  solution: run\ncheck: idle\n", line: 4, column: 1, message: "'check:' belongs inside a task: block"),
    BadCase(text: "title: T\npredict Which?\n  answer: a\n", line: 2, column: 8, message: "'predict' needs a colon to start a block"),
    BadCase(
      text: "title: T\ntask: Do it\n  check: idle\n\n  solution: run\n", line: 4, column: 1,
      message: "a blank line ends a block, so the indented line after it has no block"),
  ]

  @Test("A broken lesson file is refused with a located error", arguments: bad)
  func locatedErrors(_ c: BadCase) {
    do {
      _ = try LessonParser.parse(c.text, file: "x.lesson")
      Issue.record("parsed")
    } catch {
      #expect(error.message == c.message)
      #expect(error.line == c.line)
      #expect(error.column == c.column)
      #expect(error.description.hasPrefix("x.lesson:\(c.line):\(c.column): error: "))
    }
  }

  @Test("lesson check passes a sound lesson")
  func checkPasses() throws {
    let report = LessonChecker.check(try LessonParser.parse(Self.sample, file: "t.lesson"))
    #expect(report.failures == [])
    #expect(report.summary == "lesson 0 t: ok (1 prediction, 1 task, 1 checkpoint)")
  }

  @Test("lesson check catches a wrong proof, a task already done, and a broken command, each located")
  func checkFails() throws {
    let text = """
      title: Broken
      run:
        op a takes 2
      predict: When does a finish?
        answer: 3
        reveal: run
        verify: finished a at 3
      task: Make a finish.
        check: finished a
        solution: run
      run:
        op b takes x
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "b.lesson"))
    #expect(
      report.failures.map { "\($0.line):\($0.column) \($0.message)" } == [
        "7:11 the prediction's proof does not hold: finished a at 3",
        "4:1 the answer says 3, but the question asks about a, which finished at t=2 after the reveal",
        "8:1 the task is already done before the learner does anything",
        "9:1 this check: has no else: message, so a learner who misses it would see the condition's raw words",
        "8:1 no hint says how to get back to the task's starting state",
        "12:14 'x' is not a whole number",
      ])
  }

  @Test(
    "lesson check refuses `real` in a lesson's commands, before it runs: what it prints changes from run to run; the lesson's Swift views (`swift OP`) are fine"
  )
  func checkRefusesReal() throws {
    let text = """
      title: Real
      run:
        op a takes 2
        swift a
      predict: When does a finish?
        answer: 2
        reveal: real 20
        verify: finished a at 2
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "r.lesson"))
    #expect(
      report.failures.map { "\($0.line):\($0.column) \($0.message)" } == [
        "7:11 a lesson cannot run `real`: it plays the world in real time, so what it prints changes from run to run"
      ])
  }

  @Test("lesson check catches an answer that disagrees with its proof's tick, and names no one can find, even under not")
  func checkCatchesAnswerAndNames() throws {
    let text = """
      title: Names
      run:
        queue cache max 1
        op a on cache takes 2
        op b on cache takes 2
      predict: At which tick does b start?
        answer: 3
        reveal: run
        verify: started b at t=2
      expect:
        not overlap a bb
        not suspended cachee at 1
        max cache -1
        max cache 1
      predict: How many ticks does b take?
        answer: 2
        verify: finished b at 4
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "n.lesson"))
    #expect(
      report.failures.map { "\($0.line):\($0.column) \($0.message)" } == [
        "9:11 the answer says 3, but the proof checks t=2: started b at t=2",
        "11:3 the checkpoint names 'bb', and there is no such operation: not overlap a bb",
        "12:3 the checkpoint names 'cachee', and there is no such queue: not suspended cachee at 1",
        "13:3 the checkpoint does not hold: max cache -1",
        // "How many ticks" is no tick question; with no proof that names 2, nothing checks it.
        "15:1 the typed answer '2' cannot be checked: the question does not ask \"At which tick…\" or \"When…\", the answer is not operations in an order, and no verify: line states it",
        "1:1 the lesson has no task: a learner never does what it teaches",
      ])
    #expect(report.failures[1].hint == "did you mean 'b'?")
    #expect(report.failures[2].hint == "did you mean 'cache'?")
  }

  @Test("lesson check fails a prediction that nothing proves")
  func checkWantsAProof() throws {
    let text = "title: P\nrun: op a takes 2\npredict: When does a finish?\n  answer: 2\n  reveal: run\n"
    let report = LessonChecker.check(try LessonParser.parse(text, file: "p.lesson"))
    #expect(
      report.failures.map { "\($0.line):\($0.column) \($0.message)" } == [
        "3:1 the prediction has no verify: line, so nothing proves its answer",
        "1:1 the lesson has no task: a learner never does what it teaches",
      ])
  }

  @Test("A checkpoint that does not hold says what the simulation shows instead")
  func checkSaysWhatHappened() throws {
    let text = """
      title: Seen
      run:
        queue q max 1
        op a on q takes 3
        op b on q takes 2
        run
      expect: started b at 2
      expect: order finished b a
      expect: overlap a b
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "s.lesson"))
    #expect(
      report.failures.map { $0.hint ?? "" } == [
        "at t=5: b started at t=3; `events` in the lesson's world shows why",
        "at t=5: finished: b t=5, a t=3; `events` in the lesson's world shows why",
        "at t=5: a ran t=0-t=3, b ran t=3-t=5; `events` in the lesson's world shows why",
        "add a `task:` with its `check:` lines, or fold this into a lesson that has one",
      ])
  }

  /// Runs a lesson with scripted input; returns everything it showed.
  func walk(_ lesson: Lesson, _ inputs: [String], progress: ProgressStore = ProgressStore(path: nil)) -> (String, Bool) {
    var lines = inputs[...]
    let reader = StdinLineReader { lines.popFirst() }
    var out = ""
    let runner = LessonRunner(lesson: lesson, reader: reader, options: ShellOptions(), progress: progress) { out += $0 }
    let finished = runner.run()
    return (out, finished)
  }

  @Test("The runner asks, reveals and judges a prediction, checks a task after each command, and finishes")
  func runnerWalksALesson() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, finished) = walk(lesson, ["", "a.", "hint", "status", "op c on q after b", "run"])
    #expect(finished)
    #expect(out.contains("? Which op starts at t=2?\n   a) a\n   b) b\n  (type a or b; `skip` shows the answer)\n"), "\(out)")
    #expect(out.contains("✗ You predicted a; the simulation shows b.\na held the slot.\n"))
    #expect(out.contains("hint 1/2: op c after b\n"))
    #expect(out.contains("✓ Task done."))
    #expect(out.contains("✓ Lesson 0 complete."))
  }

  @Test("skip shows and runs a solution; quit keeps the place and a second run resumes there")
  func runnerSkipQuitResume() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-progress-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (first, done1) = walk(lesson, ["quit"], progress: ProgressStore(path: path))
    #expect(!done1)
    #expect(first.contains("Your place is kept"))
    #expect(ProgressStore(path: path).entries["t"]?.status == .started)
    #expect(ProgressStore(path: path).entries["t"]?.position == 2)
    let (second, done2) = walk(lesson, ["b)", "skip"], progress: ProgressStore(path: path))
    #expect(done2)
    #expect(second.contains("Resuming where you left off."))
    #expect(second.contains("✓ You predicted b, and that is what happened."))
    #expect(second.contains("One solution:\n  oplab> op c on q after b\n"))
    #expect(ProgressStore(path: path).status(of: "t") == .done)
  }

  @Test("Resuming a lesson gives the learner back their own world, not the lesson's solution; finishing forgets it")
  func resumeKeepsTheLearnersWorld() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-progress-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    // In the task, the learner adds their own operation, then leaves.
    let (_, done1) = walk(lesson, ["", "b", "op mine on q takes 4", "quit"], progress: ProgressStore(path: path))
    #expect(!done1)
    let kept = dir.appendingPathComponent("lessons/t.oplab").path
    let print = ProgressStore.fingerprint(of: lesson.title)  // its file is not on disk: the title stands in
    #expect(
      try String(contentsOfFile: kept, encoding: .utf8) == """
        # oplab lesson t at position 4 of \(print)
        # the lesson's own: 4
        queue q max 1
        op a on q takes 2
        op b on q takes 1
        run
        op mine on q takes 4

        """)
    let (again, done2) = walk(lesson, ["status", "op c on q after b", "run"], progress: ProgressStore(path: path))
    #expect(done2)
    #expect(again.contains("(Your world is as you left it, your own commands included.)"), "\(again)")
    #expect(again.contains("  mine  executing since t=3"), "\(again)")
    #expect(again.contains("mine finished"), "\(again)")
    #expect(!FileManager.default.fileExists(atPath: kept))
    // A kept world that no longer replays (the lesson changed) gives way to the lesson's own.
    let other = dir.appendingPathComponent("other/progress").path
    _ = walk(lesson, ["", "b", "quit"], progress: ProgressStore(path: other))
    let otherKept = dir.appendingPathComponent("other/lessons/t.oplab").path
    try "# oplab lesson t at position 4 of \(print)\nop a takes 1\nop a takes 1\n".write(toFile: otherKept, atomically: true, encoding: .utf8)
    let (third, _) = walk(lesson, ["quit"], progress: ProgressStore(path: other))
    #expect(third.contains("(Your own commands could not be replayed here, so the lesson rebuilt its world.)"), "\(third)")
    // Kept for another text of the lesson (edited since): it starts again.
    try "# oplab lesson t at position 4 of 0\nop mine takes 1\n".write(toFile: otherKept, atomically: true, encoding: .utf8)
    let (fourth, _) = walk(lesson, ["quit"], progress: ProgressStore(path: other))
    #expect(fourth.contains("The lesson has changed since you left it, so it starts again from the beginning."), "\(fourth)")
    #expect(fourth.contains("Some narrative on two lines."), "\(fourth)")
  }

  @Test("Tab completes at a lesson's prompts: lab commands, the lesson's words, and the lesson world's names")
  func completionInALesson() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    var lines = ["", "b", "quit"][...]
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { lines.popFirst() }, options: ShellOptions(), progress: ProgressStore(path: nil)
    ) { _ in }
    #expect(runner.completions(for: "gra") == ["graph"])
    #expect(runner.completions(for: "s") == ["save", "set", "skip", "slots", "source", "start", "status", "step", "suspend", "swift"])
    #expect(runner.completions(for: "rest") == ["restart"])
    runner.run()
    #expect(runner.completions(for: "why ") == ["a", "b"])
  }

  @Test("In a task, undo takes back the learner's commands only; skip stops at a solution line that fails")
  func undoStopsAtTheLessonsCommands() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    // The learner adds an op and takes it back, then undo has nothing of theirs to take.
    // Then `op c on q` makes the solution's first line fail: skip stops there and does not
    // run, and the task is finished by hand.
    let (shown, finished) = walk(
      lesson,
      [
        "", "b", "op x on q takes 1", "undo", "undo", "op c on q takes 1", "skip", "undo", "undo", "op c on q after b", "run",
      ])
    #expect(finished)
    let out = unwrapped(shown)
    #expect(out.contains("  took back `op x on q takes 1`; the clock is at t=3\n"), "\(out)")
    // Piped input shows no line to point at: the column is said.
    #expect(out.contains("error: column 1: there is nothing of yours to undo: the commands before yours are the lesson's\nhint: `back N`"), "\(out)")
    #expect(out.contains("One solution:\n  oplab> op c on q after b\n    error: the name 'c' is already taken\n(That solution"), "\(out)")
    // `run` is shown once, by the prediction's reveal: not by the skipped solution.
    #expect(out.components(separatedBy: "oplab> run").count - 1 == 1, "skip ran on after the failing line: \(out)")
    #expect(out.contains("  took back `op c on q takes 1`; the clock is at t=3\n"), "\(out)")
    // After the skip, as before it, undo stops at the lesson's commands.
    #expect(out.components(separatedBy: "there is nothing of yours to undo").count - 1 == 2, "\(out)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("At a prediction, a command that looks runs, one that would change the world waits, and only a choice is an answer")
  func predictionPromptTakesLooksAndChoices() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, _) = walk(lesson, ["", "status", "run", "e", "op x on nowhere", "hint", "B", "quit"])
    #expect(out.contains("your prediction> ") == false)  // piped: no prompt is echoed
    #expect(out.contains("q: max 1"), "status ran: \(out)")
    #expect(out.contains("That would change the world the question is about"), "\(out)")
    #expect(out.contains("Pick one of a, b (a letter, or words of one choice; `skip` shows the answer).\n"), "\(out)")
    #expect(out.contains("error: column 9: there is no queue named 'nowhere'"), "\(out)")
    #expect(out.contains("A prediction has no hints"), "\(out)")
    #expect(out.contains("✓ You predicted b, and that is what happened."), "\(out)")
    // `run` waited: the reveal's own run is the first, so b starts at t=2 as predicted.
    #expect(!out.contains("You predicted status") && !out.contains("You predicted run") && !out.contains("You predicted e"))
  }

  @Test("At a task, `back` alone returns to the previous step and rebuilds its world")
  func backAtATask() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, finished) = walk(lesson, ["", "b", "back", "", "b", "op c on q after b", "run"])
    #expect(finished)
    // The prediction is asked twice: once before `back`, once after it.
    #expect(out.components(separatedBy: "? Which op starts at t=2?").count - 1 == 2, "\(out)")
    #expect(!out.contains("back at t="), "bare back is not time travel here: \(out)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("Time travel past the lesson's own commands says so, and how to rebuild")
  func timeTravelPastTheLesson() throws {
    let text = """
      title: Late
      run:
        op early takes 1
        step 2
        op late takes 1
      task: Run it all.
        check: idle
        check: finished late
        solution: run
      """
    let lesson = try LessonParser.parse(text, file: "l.lesson")
    // Going back to t=0 takes `late` (made at t=2) away: the task can no longer be done
    // as written, and the learner is told how to get the lesson's world back.
    let (out, finished) = walk(lesson, ["goto 0", "back", "run"])
    #expect(out.contains("  back at t=0; cut `step 2` short (kept as `run until 0`) and dropped `op late"), "\(out)")
    #expect(out.contains(": `redo` brings them back\n(That went back past the lesson's own commands"), "\(out)")
    #expect(finished)
    #expect(out.contains("✓ Task done."))
  }

  @Test("An error at a lesson prompt points at the column as typed, leading spaces included")
  func errorColumnAsTyped() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, _) = walk(lesson, ["", "b", "   op c on q takes soon", "quit"])
    // `soon` is at column 20 of the line as typed (17 without the three spaces).
    #expect(out.contains("error: column 20: "), "\(out)")
  }

  @Test("Time travel into a lesson's command keeps its cut form the lesson's: undo does not take it back")
  func backIntoTheLessonsRun() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    // The reveal's `run` ends at t=3; `back 1` cuts it to `run until 2`, which is still the
    // lesson's. (A branch in between, so that `undo` is not right after the travel, which it
    // would take back.)
    let (out, finished) = walk(lesson, ["", "b", "back 1", "fork", "unfork", "undo", "op c on q after b", "run"])
    #expect(finished)
    #expect(out.contains("  back at t=2; cut `run` short (kept as `run until 2`): `redo` brings it back\n"), "\(out)")
    #expect(out.contains("there is nothing of yours to undo"), "\(out)")
    #expect(!out.contains("took back"), "\(out)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("Typed answers are judged by their words: case, commas, end punctuation and a tick's t= do not count")
  func answersMatchLoosely() {
    #expect(Answers.matches("t=7", "7"))
    #expect(Answers.matches("B, D, C, A.", "b d c a"))
    #expect(Answers.matches("  D2,d1 ", "d2 d1"))
    #expect(Answers.matches("at t=7, when both are done", "at 7 when both are done"))
    #expect(!Answers.matches("t=8", "7"))
    #expect(!Answers.matches("d1 d2", "d2 d1"))  // order still counts
    #expect(!Answers.matches("t=", "7"))
  }

  @Test("A choice is named by its words: in full, or any run of them that only it holds")
  func choicesByTheirWords() {
    let choices = ["when w2 finishes (t=11)", "at once (t=8)", "only s1, which was already running", "s1 and s3"]
    #expect(Answers.choice(named: "when w2 finishes", among: choices) == 0)
    #expect(Answers.choice(named: "t=11", among: choices) == 0)
    #expect(Answers.choice(named: "11", among: choices) == 0)
    #expect(Answers.choice(named: "At once.", among: choices) == 1)
    #expect(Answers.choice(named: "s1 and s3", among: choices) == 3)
    #expect(Answers.choice(named: "s1", among: choices) == nil)  // in two choices
    #expect(Answers.choice(named: "s3 and s1", among: choices) == nil)  // not in a row
    #expect(Answers.choice(named: "finishes at once", among: choices) == nil)
    #expect(Answers.choice(named: "", among: choices) == nil)
  }

  @Test("`suspended QUEUE at T` reads the queue's past; `suspended QUEUE` its present")
  func suspendedAt() throws {
    let i = Interpreter()
    for line in ["queue q", "step 5", "suspend q", "step 8", "resume q", "step 2"] { #expect(i.execute(line).error == nil) }
    func holds(_ text: String) throws -> Bool { try Condition.parse(text).holds(in: i.world) }
    #expect(try !holds("suspended q at 4"))
    #expect(try holds("suspended q at 5"))
    #expect(try holds("suspended q at 12"))
    #expect(try !holds("suspended q at 13"))
    #expect(try !holds("suspended q"))
    #expect(try !holds("suspended nowhere at 6"))
  }

  @Test("A task whose world has nothing left to do says which check does not hold")
  func taskSaysWhatIsMissing() throws {
    let text = """
      title: M
      run:
        op b takes 2
      task: Add c after b and run.
        check: depends c on b
        else: c does not wait for b: make it with `after b`.
        check: finished c
        else: c has not finished ({state c}).
        solution: op c takes 1 after b
        solution: run
      """
    let lesson = try LessonParser.parse(text, file: "m.lesson")
    let (out, finished) = walk(lesson, ["op c takes 1", "run", "status", "undo", "undo", "op c takes 1 after b", "run"])
    #expect(finished)
    // `op c takes 1` leaves work scheduled: nothing is said until the run ends, and not
    // again after `status`, which changes nothing.
    #expect(out.components(separatedBy: "Not done yet:").count - 1 == 1, "\(out)")
    #expect(
      unwrapped(out).contains(
        "idle at t=2: every operation has finished\nNot done yet: c does not wait for b: make it with `after b`. (`hint` helps.)\n"), "\(out)")
    #expect(!out.contains("depends c on b"), "\(out)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("A prediction after a task the learner solved another way is not judged by the lesson's world")
  func predictionInTheLearnersWorld() throws {
    let text = """
      title: W
      run:
        op r takes 2 hold
      task: Add r and run until it is done.
        check: finished r
        solution: add r
        solution: run
      predict: At which tick did r finish?
        answer: 2
        verify: finished r at 2
      """
    let lesson = try LessonParser.parse(text, file: "w.lesson")
    let (theirs, _) = walk(lesson, ["step 3", "add r", "run", "5"])
    #expect(theirs.contains("You predicted 5. In the lesson's world the answer is 2; your world went another"), "\(theirs)")
    #expect(!theirs.contains("✗"))
    let (lessons, _) = walk(lesson, ["add r", "run", "2"])
    #expect(lessons.contains("✓ You predicted 2, and that is what happened."), "\(lessons)")
  }

  @Test("An answer is not taken for a command: typed words that start like one, and a choice named by a command's word")
  func answersAreNotCommands() throws {
    let text = """
      title: A
      run:
        op a takes 1
        op b takes 2
      predict: In which order do they finish? (type the names)
        answer: a b
        reveal: run
        verify: order finished a b
      predict: And then?
        choice: they wait forever
        choice: they run again
        answer: they wait forever
        verify: idle
      predict: One more?
        choice: yes
        choice: no
        choice: maybe
        choice: never
        choice: always
        choice: sometimes
        choice: rarely
        choice: often
        answer: yes
        verify: idle
      """
    let lesson = try LessonParser.parse(text, file: "a.lesson")
    // `b` is `back`'s alias and `wait` a command, but here they are answers.
    let (out, _) = walk(lesson, ["b a", "wait", "a"])
    #expect(out.contains("✗ You predicted b a; the simulation shows a b."), "\(out)")
    #expect(out.contains("✓ You predicted they wait forever, and that is what happened."), "\(out)")
    #expect(out.contains("  (type a, b, c, d, e, f, g or h; `skip` shows the answer)\n"), "\(out)")
    let nine = text + "    choice: ninth\n"
    #expect(throws: LessonError.self) { try LessonParser.parse(nine, file: "n.lesson") }
    // Narrative may start with a block line's word, capitalised.
    #expect(throws: Never.self) { try LessonParser.parse("title: N\nHint: the timeline shows it.\nCheck: the events too.\n", file: "h.lesson") }
  }

  @Test("After a resume, undo takes back the learner's own commands from before they left, not the lesson's")
  func undoAfterResume() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-progress-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    _ = walk(lesson, ["", "b", "op mine on q takes 4", "quit"], progress: ProgressStore(path: path))
    let (out, done) = walk(lesson, ["undo", "undo", "op c on q after b", "run"], progress: ProgressStore(path: path))
    #expect(done)
    #expect(out.contains("took back `op mine on q takes 4`"), "\(out)")
    #expect(out.contains("there is nothing of yours to undo"), "\(out)")
    // A world kept at another place is not mistaken for an edited lesson.
    let store = ProgressStore(path: path)
    #expect(store.saveWorld("x", commands: ["op a takes 1"], position: 12, fingerprint: "f", lessonsOwn: 1) == nil)
    #expect(store.loadWorld("x", position: 1, fingerprint: "f") == .none)
    #expect(store.loadWorld("x", position: 12, fingerprint: "g") == .lessonChanged)
    #expect(store.loadWorld("x", position: 12, fingerprint: "f") == .kept(["op a takes 1"], lessonsOwn: 1))
  }

  @Test("A typed answer is echoed without its end punctuation")
  func typedAnswerEcho() throws {
    let text = """
      title: E
      run:
        op a takes 3
      predict: When does a finish?
        answer: 3
        reveal: run
      """
    let lesson = try LessonParser.parse(text, file: "e.lesson")
    let (right, _) = walk(lesson, ["t=3.", ""])
    #expect(right.contains("? When does a finish?\n  (type your answer; `skip` shows it)\n"), "\(right)")
    #expect(right.contains("✓ You predicted t=3, and that is what happened."), "\(right)")
    let (wrong, _) = walk(lesson, ["at 4!", ""])
    #expect(wrong.contains("✗ You predicted at 4; the simulation shows 3."), "\(wrong)")
  }

  @Test("A lesson's own undo takes back the lesson's command, as lesson check runs it")
  func lessonsOwnUndo() throws {
    let text = """
      title: U
      run:
        op a takes 2
      ---
      run:
        undo
        op b takes 1
      expect: not exists a
      """
    let lesson = try LessonParser.parse(text, file: "u.lesson")
    #expect(LessonChecker.check(lesson).failures.map(\.message) == ["the lesson has no task: a learner never does what it teaches"])
    let (out, finished) = walk(lesson, ["", ""])
    #expect(finished)
    #expect(out.contains("  oplab> undo\n      took back `op a takes 2`; the clock is at t=0\n"), "\(out)")
  }

  @Test("A corrupt progress file is moved aside with a warning, never lost")
  func corruptProgress() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-progress-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    try "garbage without tabs\n".write(toFile: path, atomically: true, encoding: .utf8)
    let store = ProgressStore(path: path)
    #expect(store.warning?.contains("moved to") == true)
    #expect(store.entries.isEmpty)
    let aside = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("progress.corrupt-") }
    #expect(aside.count == 1)
  }

  @Test("A folder with two lessons of one id or one number keeps the first and names the other as broken")
  func duplicateIDsAndNumbers() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-dup-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for name in ["06-deps.lesson", "14-deps.lesson", "06-other.lesson", "07-fine.lesson"] {
      try Self.sample.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let library = LessonLibrary(folder: dir.path)
    #expect(library.lessons.map { ($0.file as NSString).lastPathComponent } == ["06-deps.lesson", "07-fine.lesson"])
    #expect(
      library.errors.map { "\(($0.file as NSString).lastPathComponent): \($0.message)" } == [
        "06-other.lesson: the number 6 is also 06-deps.lesson's",
        "14-deps.lesson: the id 'deps' is also 06-deps.lesson's",
      ])
  }

  @Test("Each example lesson in Lessons/README.md (the first lesson and the format's) passes lesson check, held to the course's standards")
  func readmeExample() throws {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons/README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    var examples: [String] = []
    var from = text.startIndex
    while let start = text.range(of: "```\ntitle: ", range: from..<text.endIndex) {
      let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
      examples.append(String(text[text.index(start.lowerBound, offsetBy: 4)..<end.lowerBound]) + "\n")
      from = end.upperBound
    }
    #expect(examples.count == 2)
    for (i, example) in examples.enumerated() {
      let report = LessonChecker.check(try LessonParser.parse(example, file: "README-example-\(i + 1).lesson"), standards: true)
      #expect(report.failures == [])
    }
  }

  @Test(
    "Every lesson shows the Swift behind its key commands: one or two `swift` views on its own path (second cases may add theirs), or the Swift echoed in a task"
  )
  func everyLessonShowsSwift() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons").path
    let library = LessonLibrary(folder: folder)
    #expect(library.lessons.count == 18)
    for lesson in library.lessons {
      var views = 0
      var echo = false
      for item in lesson.items {
        guard case .run(let commands) = item else { continue }
        views += commands.filter { $0.text == "swift" || $0.text.hasPrefix("swift ") }.count
        echo = echo || commands.contains { $0.text == "set swift-echo on" }
      }
      #expect((1...2).contains(views) || (views == 0 && echo), "\(lesson.file): \(views) swift views")
    }
  }

  @Test(
    "A find-the-bug item, driven: lesson 10 shows stuck's Swift with the error path that never calls finish(), a wrong prediction is answered by the lab's run, and the second case shows the fixed callback and is judged"
  )
  func findTheBug() throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons/10-async-operations.lesson").path
    let lesson = try LessonParser.parse(try String(contentsOfFile: file, encoding: .utf8), file: file)
    // Enter at four pauses, the right answer to the first prediction, Enter three times, a
    // wrong answer to the bug, the second case's answer.
    var inputs = ["", "", "", "", "b", "", "", "", "a", "a", "quit"][...]
    var options = ShellOptions()
    options.width = 200
    var out = ""
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { inputs.popFirst() }, options: options, progress: ProgressStore(path: nil)
    ) { out += $0 }
    runner.run()
    let code = try #require(out.range(of: "oplab> swift stuck\n"))
    let bug = try #require(out.range(of: "? stuck starts at t=4, and its upload fails at t=6. What happens to save?"))
    // The code comes before the question, with the error path that returns without finish().
    let shown = out[code.upperBound..<bug.lowerBound]
    #expect(shown.contains("startWork(ticks: 2, failing: true) { [self] error in"))
    #expect(shown.contains("return  // ← forgets-finish: this error path never calls finish()"))
    #expect(out.contains("✗ You predicted it starts at t=6; the simulation shows it never starts."))
    let second = try #require(out.range(of: "oplab> swift retry\n"))
    let fixed = out[second.upperBound...]
    #expect(fixed.contains("          self.error = error\n          finish()\n"))
    #expect(fixed.contains("✓ You predicted at t=7, when the upload fails, and that is what happened."))
  }

  @Test(
    "Every lesson of the course parses and passes lesson check, held to the course's standards (#29: each wrong choice has its own feedback; no answer shown before its question)"
  )
  func theCourse() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons").path
    let library = LessonLibrary(folder: folder)
    #expect(library.errors == [])
    #expect(library.lessons.count >= 1)
    for lesson in library.lessons {
      let report = LessonChecker.check(lesson, standards: true)
      #expect(report.failures == [], "\(lesson.file)")
      let c = lesson.counts
      #expect(c.predictions >= 1 && c.tasks >= 1, "\(lesson.file) needs a prediction and a task")
    }
    // A lesson is found by number, id, the start of its id, or its file's name.
    for key in ["5", "priorities", "prio", "05-priorities", "05-Priorities.lesson"] {
      #expect(library.lesson(key)?.file.hasSuffix("05-priorities.lesson") == true, "\(key)")
    }
    #expect(library.lesson("06-priorities") == nil)
    #expect(library.lesson("99") == nil)
  }
}
