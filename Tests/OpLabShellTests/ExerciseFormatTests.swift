import Foundation
import OpLabCore
import Testing

@testable import OpLabShell

/// The exercise format without a compiler: the `exercise:` block, reading a run's events
/// and Thread Sanitizer's reports, the compiler's diagnostics placed in the learner's file,
/// the harness's entry points, `lesson check`'s word on a broken exercise, and the runner
/// without a toolchain.
@Suite struct ExerciseFormatTests {
  static let block = """
    title: An exercise

    Words.

    exercise: Make it right.
      file: ex.swift
      solution: ex.solution.swift
      fails: value n 2
      lab: op a takes 1
      check: value n 2
      else: n was {value n}, not 2.
      check: finished a before 3
      else: a finished at {finished a}.
      hint: Look again.
    """

  @Test("An exercise block is read with its files, checks, messages and hints, relative to the lesson's folder")
  func parses() throws {
    let lesson = try LessonParser.parse(Self.block, file: "/course/Lessons/01-x.lesson")
    guard case .exercise(let e)? = lesson.items.last else {
      Issue.record("the last item is the exercise")
      return
    }
    #expect(e.goal == "Make it right.")
    #expect(Exercise.resolve(e.file.text, from: lesson.file) == "/course/Lessons/ex.swift")
    #expect(e.checks.map(\.check) == [.value("n", 2), .finished("a", before: 3)])
    #expect(e.checks.map(\.message) == ["n was {value n}, not 2.", "a finished at {finished a}."])
    #expect(e.hints == ["Look again."] && !e.threadSanitizer && e.lab.map(\.text) == ["op a takes 1"])
    #expect(lesson.exerciseCount == 1)
  }

  @Test("A broken exercise block is refused at its line: no else:, a fails: that names no check, a check the lab cannot read")
  func refusesBrokenBlocks() {
    func error(_ text: String) -> String? {
      do {
        _ = try LessonParser.parse(text, file: "x.lesson")
        return nil
      } catch {
        return "\(error.line): \(error.message)"
      }
    }
    let noElse = Self.block.replacingOccurrences(of: "  else: a finished at {finished a}.\n", with: "")
    #expect(error(noElse) == "12: this check: has no else: message")
    let badFails = Self.block.replacingOccurrences(of: "fails: value n 2", with: "fails: value n 3")
    #expect(error(badFails) == "8: fails: names 'value n 3', which is not one of this exercise's checks")
    let badCheck = Self.block.replacingOccurrences(of: "check: finished a before 3", with: "check: finishd a")
    #expect(error(badCheck) == "12: 'finishd' is not an exercise check")
    let noSolution = Self.block.replacingOccurrences(of: "  solution: ex.solution.swift\n", with: "")
    #expect(error(noSolution) == "5: exercise: needs a solution: line")
  }

  @Test("A run's events are read with their exact ticks, the values at the end and a stall")
  func readsEvents() {
    let output = """
      t=0  d1 started  @0.03
      t=1  d1 finished (cancelled)  @0.9
      t=1  d2 started  @0.91
      t=22  stalled: d2, d3 never finished  @21.51
      at the end: likes = 2000, shown = 1
      """
    let o = ExerciseOutcome.read(output: output, errors: "")
    #expect(o.operations["d1"] == ExerciseOutcome.Op(start: 0.03, end: 0.9, startLine: 0, endLine: 1, how: "cancelled"))
    #expect(o.operations["d2"]?.start == 0.91 && o.operations["d2"]?.end == nil)
    #expect(o.names == ["d1", "d2"] && o.stalled == ["d2", "d3"])
    #expect(o.values == ["likes": 2000, "shown": 1])
    // Within one look of the watcher (a hundredth or so) no order is read.
    #expect(ExerciseTrial.observed(.startsAfter("d2", "d1"), in: o) == nil)
    #expect(ExerciseTrial.observed(.order(started: true, ["d2", "d1"]), in: o) == "d1 started at t=0.03, before d2 (t=0.91)")
    #expect(ExerciseTrial.observed(.finished("d2", before: nil), in: o) == "d2 never finished")
    #expect(ExerciseTrial.observed(.value("likes", 2001), in: o) == "likes was 2000")
    #expect(ExerciseTrial.fill("ended at {finished d1}, {finished d2}; {value likes}", from: o) == "ended at t=0.90, never; 2000")
  }

  @Test(
    "A stall is said by what the harness saw: one that started was never heard to finish; one that never started was never found ready, or had no slot"
  )
  func saysStall() {
    let output = """
      t=0  d1 started  @0.03
      t=23  stalled: d1, sync never finished  @23.51
      """
    let o = ExerciseOutcome.read(output: output, errors: "")
    #expect(
      ExerciseTrial.stallMessage(o)
        == "d1 never finished: the queue never learned it was done. sync never started: the queue never found it ready, or never had a free slot for it."
    )
    let two = ExerciseOutcome.read(output: "t=23  stalled: d2, d3 never finished  @23.51", errors: "")
    #expect(ExerciseTrial.stallMessage(two) == "d2 and d3 never started: the queue never found them ready, or never had a free slot for them.")
  }

  /// A Thread Sanitizer report as a Linux run prints it, its first frames being `symbol`.
  static func report(_ symbol: String) -> String {
    """
    ==================
    WARNING: ThreadSanitizer: Swift access race (pid=7222)
      Modifying access of Swift variable at 0x720800000058 by thread T3:
        #0 \(symbol) main-1.o (prog+0x10063e) (BuildId: 676e)
        #1 $s4prog5LikesC3addyyF crtstuff.c (prog+0x101164) (BuildId: 676e)

      Previous write of size 1 at 0x720800000058 by thread T1:
        #0 \(symbol) main-1.o (prog+0x10066d) (BuildId: 676e)

      Location is heap block of size 32 at 0x720800000040 allocated by main thread:
        #0 malloc tsan_interceptors_posix.cpp:686:5 (prog+0x7d830) (BuildId: 676e)

      Thread T3 'oot.default-qos' (tid=7226, running) created by thread T2 at:
        #0 pthread_create tsan_interceptors_posix.cpp:1094:3 (prog+0x7f41a) (BuildId: 676e)

    SUMMARY: ThreadSanitizer: Swift access race main-1.o in \(symbol)
    ==================
    """
  }

  @Test("A TSan report inside a Mutex's withLock is a Linux false alarm, named and not counted; any other counts")
  func readsRaces() {
    let names = [
      "$sMutexClosure": "closure #1 (sending inout Swift.Int) -> sending () in prog.Likes.add() -> ()",
      "$sPlain": "prog.Likes.add() -> ()",
    ]
    let demangle = { (s: String) in names[s] ?? s }
    let mutex = ExerciseOutcome.read(output: "", errors: Self.report("$sMutexClosure"), demangle: demangle)
    #expect(mutex.races.count == 1 && mutex.races[0].insideMutex && mutex.realRaces.isEmpty)
    #expect(ExerciseTrial.observed(.raceFree, in: mutex) == nil)
    let plain = ExerciseOutcome.read(output: "", errors: Self.report("$sPlain"), demangle: demangle)
    #expect(plain.realRaces == [ExerciseOutcome.Race(summary: "Swift access race in Likes.add()", insideMutex: false)])
    #expect(ExerciseTrial.observed(.raceFree, in: plain) == "Thread Sanitizer reported Swift access race in Likes.add()")
  }

  @Test("The compiler's errors are placed in the learner's file or said to be in the harness, without their group links")
  func placesDiagnostics() {
    let said = """
      main.swift:56:8: error: call to main actor-isolated instance method 'show' in a synchronous nonisolated context [#ActorIsolatedCall]
        cell.show(photo)
             ^
      main.swift:23:8: note: calls to instance method 'show' from outside of its actor context are implicitly asynchronous
      /tmp/x/harness.swift:30:10: error: invalid redeclaration of 'work(ticks:)'
      main.swift:1:1: warning: something minor
      """
    let found = ExerciseBuild.diagnostics(said)
    #expect(
      found == [
        .init(
          line: 56, column: 8, kind: "error", message: "call to main actor-isolated instance method 'show' in a synchronous nonisolated context",
          inHarness: false),
        .init(
          line: 23, column: 8, kind: "note",
          message: "calls to instance method 'show' from outside of its actor context are implicitly asynchronous", inHarness: false),
        .init(line: 30, column: 10, kind: "error", message: "invalid redeclaration of 'work(ticks:)'", inHarness: true),
      ])
    let source = (1...60).map { $0 == 56 ? "  cell.show(photo)" : "// line \($0)" }.joined(separator: "\n")
    let shown = ExerciseReport.render(
      .didNotBuild(found, said: said), exercise: Self.exercise, path: "/home/me/hop.swift", source: source, options: ShellOptions())
    #expect(shown.contains("/home/me/hop.swift:56:8: error: call to main actor-isolated instance method 'show'"))
    #expect(shown.contains(" 56 |   cell.show(photo)\n    |        ^\n"))
    #expect(shown.contains("In the lab's harness, not your file: invalid redeclaration of 'work(ticks:)'"))
  }

  static var exercise: Exercise {
    let s = SourceLine(text: "x.swift", line: 1, column: 1)
    return Exercise(goal: "g", file: s, solution: s, fails: s, threadSanitizer: false, lab: [], checks: [], hints: [], line: 1)
  }

  @Test("The harness the export writes declares every entry point the exercises call, and the course's files call no other")
  func harnessEntryPoints() throws {
    let harness = ExerciseHarness.text(tickSeconds: ExerciseHarness.tickSeconds)
    #expect(harness.hasPrefix("import Foundation\nimport Synchronization\n"))
    #expect(ExerciseHarness.missing(in: harness).isEmpty)
    #expect(ExerciseHarness.missing(in: "").count == ExerciseHarness.entryPoints.count + ExerciseHarness.types.count)
    let folder = ExerciseTests.lessons.appendingPathComponent("Exercises")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
    #expect(files.count >= 18)
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      #expect(ExerciseHarness.unknownCalls(in: text).isEmpty, "\(file)")
    }
    #expect(ExerciseHarness.unknownCalls(in: "Lab.watch(a)\nLab.sleep(2)") == ["Lab.sleep(2"])
  }

  @Test(
    "lesson check refuses an exercise whose file is missing, with no way back to its starting file, a message the run cannot fill, or a check naming an operation its lab: world lacks"
  )
  func checkerRefuses() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-exercise-check-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try "Lab.start(lastTick: 0)\nLab.end()\n".write(to: folder.appendingPathComponent("ex.swift"), atomically: true, encoding: .utf8)
    let file = folder.appendingPathComponent("01-x.lesson").path
    let text = Self.block.replacingOccurrences(of: "finished a before 3", with: "finished b before 3")
      .replacingOccurrences(of: "n was {value n}", with: "n was {state a}")
    let lesson = try LessonParser.parse(text, file: file)
    let failures = LessonChecker.check(lesson).failures.map { "\($0.line): \($0.message)" }
    #expect(
      failures == [
        "6: the exercise's starting file starts the clock with lastTick 0: the harness may end it before it watches its operations",
        "7: the exercise's solution \(folder.path)/ex.solution.swift cannot be read",
        "5: no hint of the exercise says how to get the starting file back",
        "10: the message of this check has {state a}, which the real run cannot fill",
        "12: the check names 'b', and the exercise's lab: world has no such operation",
      ])
  }

  @Test("Without a Swift toolchain the exercise says so, and Enter goes on to the end of the lesson")
  func noToolchain() throws {
    let verdict = ExerciseTrial.attempt(Self.exercise, source: "", swiftc: nil)
    #expect(!verdict.passed && verdict.failed.isEmpty)
    let path = ExerciseTests.lessons.appendingPathComponent("13-races.lesson").path
    let lesson = try LessonParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
    let start = try #require(lesson.items.firstIndex { if case .exercise = $0 { true } else { false } })
    var short = lesson
    short.items = Array(lesson.items[start...])
    var lines = ["try", "edit", "next"][...]
    var out = ""
    var options = ShellOptions()
    options.width = 200
    let runner = LessonRunner(
      lesson: short, reader: StdinLineReader { lines.popFirst() }, options: options, progress: ProgressStore(path: nil)
    ) { out += $0 }
    runner.findCompiler = { nil }
    #expect(runner.run())
    // Prose is wrapped at 80 columns: compared word for word.
    let flat = out.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(flat.contains("there is no Swift toolchain here (`swiftc` is not on your PATH)"))
    #expect(flat.contains("`edit` opens your file in your editor, then builds and runs it"))
    #expect(flat.contains("Open /") && flat.contains("in your editor, save it, then type `try`"))
    #expect(flat.contains("✓ Lesson 13 complete"))
  }

  @Test("The lesson's opening controls name `edit`; at a pause it says there is no exercise there")
  func controls() {
    #expect(PromptCommand.lessonHelp.contains("`hint`/`skip`/`edit` help with tasks and exercises"))
    #expect(PromptCommand.exerciseHelp.contains("`try` builds and runs it as it is"))
    guard case .say(let text)? = PromptCommand.recognised("edit", at: .pause)?.meaning else {
      Issue.record("edit is a word at a pause")
      return
    }
    #expect(text.hasPrefix("There is no exercise here"))
  }

  @Test("A build or a run is stopped by Ctrl-C, or when its time is up: the lab never waits on it for ever")
  func stopsChildren() {
    let folder = FileManager.default.temporaryDirectory
    let started = Date()
    let interrupted = ExerciseBuild.run(
      "/bin/sleep", ["30"], in: folder, seconds: 60, interrupt: { Date().timeIntervalSince(started) > 0.2 })
    #expect(interrupted.interrupted && !interrupted.timedOut)
    let timedOut = ExerciseBuild.run("/bin/sleep", ["30"], in: folder, seconds: 0.3, interrupt: nil)
    #expect(timedOut.timedOut && !timedOut.interrupted)
    #expect(Date().timeIntervalSince(started) < 10)
    let said = ExerciseBuild.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], in: folder, seconds: 10, interrupt: nil)
    #expect(said.status == 3 && said.output == "out\n" && said.errors == "err\n" && said.signal == nil)
  }

  @Test("A crash is said in a line: a fatal error's message, else the crash and the program's function on the crashed thread")
  func saysCrash() {
    let backtrace = """

      *** Signal 4: Backtracing from 0x7f35cc94c2a2... done ***

      *** Program crashed: Illegal instruction at 0x00007f35cc94c2a2 ***

      Thread 0 "program":
        5 [ra]         0x0000563bc820f5e1 static Lab.turnTheRunLoop(_:) + 112 in program

      Thread 4 "oot.default-qos" crashed:

        0              0x00007f35cc94c2a2 _dispatch_assert_queue_fail + 82 in libdispatch.so
        5 [ra]         0x0000563bc820db58 static MainActor.assumeIsolated<A>(_:file:line:) + 87 in program
        6 [ra]         0x0000563bc820df90 closure #4 in  + 495 in program
      """
    #expect(ExerciseTrial.crash(in: backtrace) == "Illegal instruction, in static MainActor.assumeIsolated<A>(_:file:line:)")
    #expect(ExerciseTrial.crash(in: "Swift/x.swift:3: Fatal error: boom\n" + backtrace) == "Swift/x.swift:3: Fatal error: boom")
    #expect(ExerciseTrial.crash(in: "") == "")
  }
}
