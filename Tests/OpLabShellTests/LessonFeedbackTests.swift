import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// Lessons, second edition (#23): conditions that read the trace as the real queue
/// defines it, task feedback in the lesson's words at predictable moments, impossible
/// tasks with their way out, second cases, held warnings, and what `lesson check` refuses.
@Suite struct LessonFeedbackTests {
  func world(_ lines: [String]) -> Interpreter {
    let i = Interpreter()
    for line in lines { #expect(i.execute(line).error == nil, "\(line)") }
    return i
  }

  func holds(_ text: String, _ i: Interpreter) throws -> Bool { try Condition.parse(text).holds(in: i.world) }

  func walk(_ lesson: Lesson, _ inputs: [String]) -> String {
    var lines = inputs[...]
    let reader = StdinLineReader { lines.popFirst() }
    var out = ""
    var options = ShellOptions()
    options.width = 80
    let runner = LessonRunner(lesson: lesson, reader: reader, options: options, progress: ProgressStore(path: nil)) { out += $0 }
    runner.run()
    return out
  }

  /// The text with every run of spaces and line breaks as one space: what it says, for
  /// prose the runner wraps at 80 columns without a hanging indent.
  func flat(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
  }

  static let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Lessons")

  // MARK: Conditions

  @Test("A cancelled operation the queue only skipped never started: started, order and overlap say so")
  func skippedNeverStarted() throws {
    // q has one slot: a runs 0-2; b, cancelled while it waits, is skipped at t=2; c starts at 2.
    let i = world(["queue q max 1", "op a on q takes 2", "op b on q takes 1", "op c on q takes 3", "cancel b", "run"])
    #expect(try holds("skipped b", i))
    #expect(try holds("finished b at 2", i))
    #expect(try !holds("started b", i))
    #expect(try !holds("started b at 2", i))
    #expect(try !holds("order started a b", i))
    #expect(try !holds("order started b c", i))
    #expect(try holds("order started a c", i))
    #expect(try !holds("overlap b c", i))
    #expect(Condition.started("b", at: nil).observed(in: i.world) == "b never started: it was cancelled, and the queue skipped it at t=2")
    #expect(Condition.order(started: true, ["a", "b"]).observed(in: i.world) == "started: a t=0, b never")
    // Settled for good: nothing going forward can make b start.
    #expect(Condition.started("b", at: nil).settled(in: i.world))
    #expect(Condition.order(started: true, ["a", "b"]).settled(in: i.world))
  }

  @Test("An order condition grades only different ticks: a same-tick tie is no order, and tie(in:) names it")
  func tiesAreNoOrder() throws {
    let i = world(["op x takes 1", "op y takes 2", "op z takes 1 after x"])
    #expect(try !holds("order started x y", i))
    #expect(try !holds("order started y x", i))
    #expect(try holds("not order started x y", i))
    #expect(Condition.order(started: true, ["x", "y"]).tie(in: i.world).map { "\($0.0) \($0.1) \($0.2)" } == "x y 0")
    #expect(Condition.not(.order(started: true, ["y", "x"])).tie(in: i.world) != nil)
    _ = i.execute("run")
    #expect(try holds("order started x z", i))
    #expect(try holds("order started y z", i))  // y at 0, z at 1
    #expect(try !holds("order finished z y", i))  // both finished at t=2: a tie
    #expect(Condition.order(started: true, ["x", "z"]).tie(in: i.world) == nil)
    #expect(Condition.order(started: false, ["z", "y"]).tie(in: i.world).map { "\($0.0) \($0.1) \($0.2)" } == "z y 2")
  }

  @Test("settled: what happened stays happened, and what has not happened yet is open")
  func settledConditions() throws {
    let i = world(["queue q max 1", "op a on q takes 3", "op b on q takes 1", "step 1"])
    func settled(_ text: String) throws -> Bool { try Condition.parse(text).settled(in: i.world) }
    #expect(try !settled("started b"))
    #expect(try !settled("not started b at 3"))
    #expect(try !settled("finished a at 3"))
    #expect(try !settled("now 4"))
    #expect(try settled("started a at 0"))
    #expect(try settled("order started b a"))  // a started, b not yet: b can only start later
    _ = i.execute("run until 4")
    #expect(try settled("not started b at 3"))  // b started at 3: for good
    #expect(try settled("finished a at 3"))
    #expect(try settled("now 2"))
    #expect(try !settled("idle") && !settled("suspended q"))
    #expect(try settled("not overlap a b"))  // a finished before b started
    #expect(try settled("overlap later a"))  // an operation made from now on starts after a finished
  }

  // MARK: Messages

  @Test("Message placeholders are filled from the trace; a malformed one is refused where it is")
  func placeholders() throws {
    let i = world(["queue q max 1", "op a on q takes 2", "op b on q takes 1", "cancel b", "suspend q", "step 3"])
    let text =
      "now {now}: a started {started a}, finished {finished a}; b skipped {skipped b}, cancelled {cancelled b}, {state b}, {outcome b}; q suspended {suspended q}, resumed {resumed q}."
    #expect(
      LessonText.fill(text, world: i.world)
        == "now t=3: a started t=0, finished t=2; b skipped never, cancelled t=0, ready, not finished; q suspended t=0, resumed never.")
    #expect(throws: LessonTextError.self) { try LessonText.placeholders(in: "{strated a}") }
    #expect(throws: LessonTextError.self) { try LessonText.placeholders(in: "{now a}") }
    #expect(throws: LessonTextError.self) { try LessonText.placeholders(in: "{started}") }
    #expect(throws: LessonTextError.self) { try LessonText.placeholders(in: "a } b") }
    do {
      _ = try LessonParser.parse("title: T\ntask: Do\n  check: idle\n  else: at {strated a} it was\n  solution: run\n", file: "x.lesson")
      Issue.record("parsed")
    } catch {
      #expect("\(error.line):\(error.column) \(error.message)" == "4:12 unknown placeholder '{strated a}'")
      #expect(error.hint == "did you mean '{started…}'?")
    }
  }

  @Test("else: belongs to the check: above it; consecutive else: lines are one message")
  func elseLines() throws {
    let lesson = try LessonParser.parse(
      """
      title: T
      task: Do
        check: idle
        else: first line,
        else: second line.
        check: now 3
        else: other.
        solution: run
      """, file: "x.lesson")
    guard case .task(let t) = lesson.items.first else {
      Issue.record("no task")
      return
    }
    #expect(t.checks.map { $0.message?.text } == ["first line, second line.", "other."])
    for (text, line, message) in [
      ("title: T\ntask: Do\n  else: why\n  check: idle\n  solution: run\n", 3, "else: comes after the check: it explains"),
      ("title: T\ntask: Do\n  check: idle\n  else: a\n  hint: h\n  else: b\n  solution: run\n", 6, "this check: has an else: already"),
      ("title: T\nagain: Q?\n  answer: a\n  verify: idle\n", 2, "again: must follow its predict: block"),
    ] {
      do {
        _ = try LessonParser.parse(text, file: "x.lesson")
        Issue.record("parsed: \(text)")
      } catch {
        #expect(error.message == message)
        #expect(error.line == line)
      }
    }
  }

  // MARK: lesson check

  static let checked = """
    title: C
    run:
      queue q max 1
      op a on q takes 2
      op b on q takes 1
    predict: Which starts at t=2?
      choice: a
      choice: b
      answer: b
      reveal: run
      verify: started b at 2
    again: Two more on q: which starts at t=4?
      setup: op c on q takes 1
      setup: op d on q takes 1
      choice: c
      choice: d
      answer: c
      reveal: run
      verify: started c at 4
    task: Run e after everything.
      hint: op e on q takes 1, then run.
      check: finished e
      else: e has not finished ({state e}); {started nobody}.
      solution: op e on q takes 1
      solution: run
    task: Make f and g start together.
      hint: `goto 3` goes back.
      check: order started f g
      else: f started {started f}, g {started g}.
      solution: op f takes 1
      solution: op g takes 1
      solution: run
    """

  @Test("lesson check refuses a wrong second case, a tie graded, a message naming nothing, and a hint that does not recover")
  func checkerRefuses() throws {
    let report = LessonChecker.check(try LessonParser.parse(Self.checked, file: "c.lesson"))
    #expect(
      report.failures.map { "\($0.line):\($0.column) \($0.message)" } == [
        // c finds q's slot free at t=3 and starts at once: the second case's answer is wrong.
        "19:11 the second case's proof does not hold: started c at 4",
        "20:1 no hint says how to get back to the task's starting state",
        "23:41 the message names 'nobody', and there is no such operation",
        "28:10 after the solution, the task's check does not hold: order started f g",
        "28:10 after the solution, the task's check grades a tie: f and g both started at t=4, and the real queue leaves their order unspecified: order started f g",
        "26:1 the hint's `goto 3` does not bring back the task's starting state after the solution (t=4, 6 commands; it leaves t=3, 6)",
      ], "\(report.failures)")
  }

  @Test("lesson check refuses a 'first' question whose answer ties with another choice")
  func checkerRefusesAFirstTie() throws {
    let text = """
      title: F
      run:
        queue q max 1
        op a on q takes 2
      predict: Which of b and c starts first?
        choice: b
        choice: c
        answer: b
        reveal: op b takes 1
        reveal: op c takes 1
        reveal: run
        verify: started b at 0
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "f.lesson"))
    #expect(
      report.failures.map(\.message) == [
        "the prediction's answer rests on a tie: b and c both started at t=0, and the real queue leaves their order unspecified",
        "the lesson has no task: a learner never does what it teaches",
      ])
  }

  @Test("lesson check refuses a typed order whose answer puts a same-tick tie in order")
  func checkerRefusesATypedTie() throws {
    let text = """
      title: O
      predict: In which order do a and b finish? (type the names)
        answer: a b
        reveal: op a takes 2
        reveal: op b takes 2
        reveal: run
        verify: finished a at 2
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "o.lesson"))
    #expect(
      report.failures.map(\.message) == [
        "the prediction's answer orders a tie: a and b both finished at t=2, and the real queue leaves their order unspecified",
        "the lesson has no task: a learner never does what it teaches",
      ])
  }

  @Test("Every lesson of the course passes lesson check, with a message for every task check and a second case in at least four")
  func courseIsChecked() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.lessons.path).filter { $0.hasSuffix(".lesson") }.sorted()
    #expect(files.count == 18)
    var withSecondCases = 0
    for file in files {
      let path = Self.lessons.appendingPathComponent(file).path
      let lesson = try LessonParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
      let report = LessonChecker.check(lesson)
      #expect(report.ok, "\(report.failures)")
      var seconds = 0
      for item in lesson.items {
        if case .task(let t) = item { #expect(t.checks.allSatisfy { $0.message != nil }) }
        if case .predict(let p) = item, p.again != nil { seconds += 1 }
      }
      if seconds > 0 {
        withSecondCases += 1
        #expect(report.summary.contains(", \(seconds) second case"), "\(report.summary)")
      }
    }
    #expect(withSecondCases >= 4)
  }

  // MARK: The runner

  @Test("Lesson 8 through a wrong answer and its second case, an impossible task, its way out, and the goal")
  func lessonEightTranscript() throws {
    let path = Self.lessons.appendingPathComponent("08-suspend-resume.lesson").path
    let lesson = try LessonParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
    let raw = walk(
      lesson,
      [
        "", "",  // the first two pauses
        "a",  // wrong: "they stop at once"
        "b",  // the second case, right
        "", "b", "", "8", "", "",  // the next two predictions, right
        "help", "run until 11", "timeline", "undo", "why d6", "suspend downloads", "run until 13", "status", "resume downloads", "run",
        "", "",
      ])
    let out = flat(raw)
    func after(_ a: String, _ b: String) -> Bool {
      guard let r = out.range(of: a) else { return false }
      return out[r.upperBound...].contains(b)
    }
    // The wrong answer, then a second case in a what-if branch, then the lesson's world again.
    #expect(out.contains("✗ You predicted they stop at once; the simulation shows they run on and finish at t=4."), "\(raw)")
    #expect(
      after("✗ You predicted they stop at once", "Try a second case like it. It runs in a what-if branch: the lesson's world comes back after it."))
    #expect(out.contains("oplab> suspend uploads"))
    #expect(out.contains("✓ You predicted it runs on and finishes at t=9, and that is what happened."))
    #expect(out.contains("(Back in the lesson's world, at t=6.)"))
    #expect(!after("(Back in the lesson's world", "uploads"), "the branch is gone: \(raw)")
    // `help` says nothing about the task; `run until 11` makes it impossible, said at once with the way out.
    let task = String(out[(out.range(of: "★ Task:")?.lowerBound ?? out.startIndex)...])
    let impossible =
      "✗ This can no longer succeed: d6 started at t=11, when d3 finished and freed its slot: downloads was not suspended then (last suspended t=2). Suspend downloads before t=11. `undo` takes back `run until 11` and returns to t=8."
    #expect(task.components(separatedBy: impossible).count - 1 == 1, "\(raw)")
    #expect(task.contains("d6 started on downloads: slot freed by d3 now t=11 " + impossible), "said right after the command: \(raw)")
    #expect(!task.contains("can no longer succeed") || after("returns to t=8.", "took back `run until 11`"), "not repeated after `timeline`: \(raw)")
    // The way out works, and the lab says so; then the next stop says what is missing, in the lesson's words.
    #expect(task.contains("took back `run until 11`; the clock is at t=8 Back at t=8: nothing the task checks has failed for good yet."))
    #expect(task.components(separatedBy: "Not done yet:").count - 1 == 1, "\(raw)")
    #expect(
      task.contains(
        "now t=13 Not done yet: d6 has not finished (it is ready): `resume downloads` when the scrolling stops, then `run`. (`hint` helps.)"),
      "\(raw)")
    #expect(out.contains("✓ Task done."))
    #expect(out.contains("✓ Lesson 8 complete."))
    // No condition syntax reaches the learner.
    for words in ["not started d6 at 11", "suspended downloads at 11", "outcome d6 success", "does not hold"] {
      #expect(!out.contains(words), "\(words)")
    }
  }

  @Test("The way out of an impossible task is undo, else the latest goto that works; restart puts the world back as the task found it")
  func restartRebuildsTheStart() throws {
    let text = """
      title: R
      run:
        queue q max 1
        op a on q takes 2
        op b on q takes 2
      task: Cancel b before it starts, then run.
        hint: `restart` starts again.
        check: skipped b
        else: b started at {started b}: cancel it before t=2.
        solution: cancel b
        solution: run
      """
    let lesson = try LessonParser.parse(text, file: "r.lesson")
    let raw = walk(lesson, ["run until 3", "tap", "restart", "status", "cancel b", "run", "restart"])
    let out = flat(raw)
    #expect(
      out.contains(
        "now t=3 ✗ This can no longer succeed: b started at t=2: cancel it before t=2. `undo` takes back `run until 3` and returns to t=0."), "\(raw)"
    )
    // After a second command one undo is not enough: the latest tick that works.
    #expect(
      out.contains("✗ This can no longer succeed: b started at t=2: cancel it before t=2. `goto 1` goes back to t=1, from where it can."), "\(raw)")
    #expect(out.contains("The world is back as the task found it, at t=0."))
    #expect(raw.contains("  b  ready, waiting for a slot\n"), "\(raw)")
    // Where there is no task, `restart` is not taken for a command (`reset` would wipe the world).
    #expect(out.contains("`restart` starts a task again, and there is no task here"), "\(raw)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("A task that asks to go back in time: its way out is a goto before the task's start")
  func wayOutBeforeTheStart() throws {
    let text = """
      title: G
      run:
        queue q max 1
        suspend q
        op a on q takes 2
        op b on q takes 1
        step 1
        resume q
        run
      task: From t=0, make b start before a.
        hint: `restart` puts the world back as the task found it.
        check: order started b a
        else: a started at {started a} and b at {started b}: b must go first.
        solution: goto 0
        solution: priority b high
        solution: resume q
        solution: run
      """
    let lesson = try LessonParser.parse(text, file: "g.lesson")
    #expect(LessonChecker.check(lesson).ok)
    let out = flat(walk(lesson, ["priority b high", "goto 0", "priority b high", "resume q", "run"]))
    #expect(
      out.contains("✗ This can no longer succeed: a started at t=1 and b at t=3: b must go first. `goto 0` goes back to t=0, from where it can."),
      "\(out)")
    // (The lab's own note about going back past the lesson's commands comes between.)
    #expect(
      out.contains(
        "back at t=0; cut `step 1` short (kept as `run until 0`) and dropped `resume q`, `run` and `priority b high`: "
          + "`redo` brings them back (That went back past the lesson's own commands"), "\(out)")
    #expect(out.contains("rebuilds it.) Back at t=0: nothing the task checks has failed for good yet."), "\(out)")
    #expect(out.contains("✓ Task done."))
  }

  @Test("A typed answer that names only some of the order is asked again, not graded")
  func incompleteAnswers() throws {
    let text = """
      title: I
      run:
        queue q max 1
        suspend q
        op a on q takes 1
        op b on q takes 1 priority high
        op c on q takes 1 priority veryHigh
      predict: After resume, in which order do they start?
        answer: c b a
        reveal: resume q
        reveal: run
        verify: order started c b a
      """
    let lesson = try LessonParser.parse(text, file: "i.lesson")
    let raw = walk(lesson, ["c b", "c, b, a."])
    let out = flat(raw)
    #expect(out.contains("That names 2 of the 3 the question asks for: type all 3, in order (or `skip` to see the answer)."), "\(raw)")
    #expect(out.components(separatedBy: "You predicted").count - 1 == 1)
    #expect(out.contains("✓ You predicted c, b, a, and that is what happened."), "\(raw)")
  }

  @Test("A number asked for: an answer with no number in it is asked again, not graded")
  func numberAnswers() throws {
    let text = """
      title: N
      run:
        op a takes 3
      predict: At which tick does a finish? (type a number)
        answer: 3
        reveal: run
        verify: finished a at 3
      """
    let lesson = try LessonParser.parse(text, file: "n.lesson")
    let raw = walk(lesson, ["t=", "soon", "t=3"])
    let out = flat(raw)
    #expect(out.components(separatedBy: "The answer is a number (a tick such as 8, or t=8): type one").count - 1 == 2, "\(raw)")
    #expect(out.components(separatedBy: "You predicted").count - 1 == 1, "\(raw)")
    #expect(out.contains("✓ You predicted t=3"), "\(raw)")
  }

  @Test("The lab's warnings from a prediction's setup wait for the reveal")
  func warningsWait() throws {
    let text = """
      title: W
      run:
        op save takes 1 hold
        op verify takes 1 after save hold
        depend save on verify
        add save
        add verify

      ---

      predict: What happens to save?
        choice: it runs
        choice: it waits forever
        answer: it waits forever
        reveal: run
        verify: stalled
        verify: not started save
      """
    let lesson = try LessonParser.parse(text, file: "w.lesson")
    let out = walk(lesson, ["restart", "", "restart", "b"])
    #expect(flat(out).contains("`restart` starts a task again, and there is no task here: `back` returns to the previous step."), "\(out)")
    #expect(flat(out).contains("`restart` starts a task again, and this is a prediction"), "\(out)")
    let question = out.range(of: "? What happens to save?")
    let warning = out.range(of: "WARNING: depending on verify closes a dependency cycle")
    #expect(question != nil && warning != nil)
    if let question, let warning { #expect(question.upperBound < warning.lowerBound, "\(out)") }
    #expect(out.contains("The lab's warning from setting this up, held until you answered:\n"))
    #expect(out.components(separatedBy: "WARNING:").count - 1 == 1)
  }

  @Test("A way out that leads back into the same failure is not offered twice: after an undo that could not help, the next way out goes back further")
  func deadEndWayOut() throws {
    let text = """
      title: Dead ends

      A chain.

      run:
        queue chain max 2
        op A2 on chain takes 5
        op B2 on chain takes 2 after A2

      task: Add C2 on chain, after B2, so that it returns early when B2 is cancelled. Then cancel B2 and run.
        hint: `restart` puts the world back as the task found it.
        check: depends C2 on B2
        else: C2 does not depend on B2.
        check: outcome C2 bailed
        else: C2 did not return early (outcome: {outcome C2}).
        check: idle
        else: some work is left.
        solution: op C2 on chain takes 2 after B2 bail-if-dep-cancelled
        solution: cancel B2
        solution: run

      """
    let lesson = try LessonParser.parse(text, file: "dead-ends.lesson")
    // C2 made without the guard: it can never return early. The first way out is the undo
    // of `run`; taken, the same failure comes back, so the next one goes back further.
    let out = flat(walk(lesson, ["", "op C2 on chain takes 2 after B2", "cancel B2", "run", "undo", "run", "quit"]))
    let failures = out.components(separatedBy: "✗ This can no longer succeed:").dropFirst()
    #expect(failures.count == 2, "\(out)")
    #expect(failures.first?.contains("`undo` takes back `run` and returns to t=0.") == true, "\(out)")
    #expect(out.contains("Back at t=0: nothing the task checks has failed for good yet."), "\(out)")
    #expect(failures.dropFirst().first?.contains("`restart` puts the world back as the task found it.") == true, "\(out)")
    #expect(failures.dropFirst().first?.contains("`undo` takes back `run`") == false, "\(out)")
  }
}
