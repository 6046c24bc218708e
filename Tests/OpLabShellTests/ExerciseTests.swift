import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// The course's Swift exercises, each built with `swiftc` against the export's harness and
/// run on the real OperationQueue (under Thread Sanitizer for the race): its reference
/// solution passes, and its starting file fails the way the lesson says. Two builds each;
/// one at a time, as the machine has few cores.
@Suite(.serialized) struct ExerciseTests {
  static let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Lessons")

  /// The exercise of lesson `number` whose starting file is `file`.
  func exercise(_ number: String, _ file: String) throws -> (Exercise, starter: String, solution: String) {
    let folder = try FileManager.default.contentsOfDirectory(atPath: Self.lessons.path)
    let name = try #require(folder.first { $0.hasPrefix(number + "-") && $0.hasSuffix(".lesson") })
    let path = Self.lessons.appendingPathComponent(name).path
    let lesson = try LessonParser.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
    let found = lesson.items.compactMap { if case .exercise(let e) = $0, e.file.text.hasSuffix(file) { e } else { nil } }
    let e = try #require(found.first, "lesson \(number) has no exercise on \(file)")
    let starter = try String(contentsOfFile: Exercise.resolve(e.file.text, from: path), encoding: .utf8)
    let solution = try String(contentsOfFile: Exercise.resolve(e.solution.text, from: path), encoding: .utf8)
    return (e, starter, solution)
  }

  /// Builds and runs both files; the solution's verdict must pass.
  func verdicts(_ number: String, _ file: String) throws -> (Exercise, solution: ExerciseTrial.Verdict, starter: ExerciseTrial.Verdict) {
    let (e, starter, solution) = try exercise(number, file)
    let swiftc = try #require(ExerciseBuild.swiftc(), "the exercise tests build with swiftc")
    let solved = ExerciseTrial.attempt(e, source: solution, swiftc: swiftc)
    #expect(solved.passed, "the solution of \(file): \(LessonChecker.describe(solved))")
    let started = ExerciseTrial.attempt(e, source: starter, swiftc: swiftc)
    #expect(!started.passed)
    #expect(started.failed.contains(e.fails.text), "the starting file of \(file): \(LessonChecker.describe(started))")
    return (e, solved, started)
  }

  /// Builds and runs `source` against the exercise: it must build and run.
  func variant(_ e: Exercise, _ source: String, _ what: String) throws -> (ExerciseOutcome, failed: Set<String>, ExerciseTrial.Verdict) {
    let swiftc = try #require(ExerciseBuild.swiftc())
    let verdict = ExerciseTrial.attempt(e, source: source, swiftc: swiftc)
    guard case .ran(let outcome, _, _) = verdict else {
      Issue.record("\(what) builds and runs: \(LessonChecker.describe(verdict))")
      return (ExerciseOutcome(), [], verdict)
    }
    return (outcome, Set(verdict.failed), verdict)
  }

  /// `text` with `old` replaced by `new`, which must be there once.
  func replacing(_ old: String, with new: String, in text: String) throws -> String {
    #expect(text.components(separatedBy: old).count == 2, "\(old) is in the file once")
    return text.replacingOccurrences(of: old, with: new)
  }

  @Test("Lesson 10: the async operation without KVO stalls its queue; the correct one finishes and honours cancel")
  func asyncOperation() throws {
    let (_, solved, started) = try verdicts("10", "10-async-download.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    // Cancelled at t=1, d1 finishes then, and d2 takes the slot.
    let d1 = try #require(good.operations["d1"]?.end)
    let d2 = try #require(good.operations["d2"]?.start)
    #expect(d1 < 2 && d2 >= d1 - ExerciseTrial.sameLook)
    #expect(good.stalled.isEmpty)
    // Without the KVO, the queue never hears of d1's finish: d2 never runs.
    #expect(bad.stalled == ["d2"])
    #expect(bad.operations["d2"]?.start == nil)
  }

  @Test("Lesson 7: a main() that never reads isCancelled runs all its slices; the loop that checks stops at the cancel")
  func cancellationBetweenSlices() throws {
    let (_, solved, started) = try verdicts("07", "07-resize-slices.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    #expect((good.operations["resize"]?.end ?? 99) < 4)
    #expect((bad.operations["resize"]?.end ?? 0) >= 7)
    #expect(started.failed == ["finished resize before 4"])
  }

  @Test("Lesson 6: a dependency added after the filter is in its queue comes too late; set before, it holds")
  func dependencyBeforeAdding() throws {
    let (_, solved, started) = try verdicts("06", "06-dependency-first.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    #expect(good.values["filtered"] == 4096)
    #expect(bad.values["filtered"] == 0)
    #expect(Set(started.failed) == ["starts filter after download", "value filtered 4096"])
  }

  @Test("Lesson 6: the filter takes the download's photo from its dependency")
  func handOff() throws {
    let (_, solved, started) = try verdicts("06", "06-hand-off.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    #expect(good.values["filtered"] == 4096)
    #expect(bad.values["filtered"] == 0)
    #expect(started.failed == ["value filtered 4096"])
  }

  @Test("Lesson 15: Swift 6 refuses the UI call in a completion block, at the learner's line; the hop to main builds and shows it on main")
  func hopToMain() throws {
    let (e, starter, _) = try exercise("15", "15-hop-to-main.swift")
    let (_, solved, started) = try verdicts("15", "15-hop-to-main.swift")
    guard case .ran(let good, _, _) = solved, case .didNotBuild(let diagnostics, _) = started else {
      Issue.record("the solution runs; the starting file does not build")
      return
    }
    #expect(good.values["shownOnMain"] == 1 && good.values["shown"] == 1)
    // The error is placed in the learner's file, at the line of the call.
    let error = try #require(diagnostics.first { $0.kind == "error" })
    let line = starter.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("cell.show(photo)") }
    #expect(!error.inHarness && error.line == (line ?? -1) + 1)
    #expect(error.message.contains("main actor-isolated") && !error.message.contains("[#"))
    let report = ExerciseReport.render(started, exercise: e, path: "mine.swift", source: starter, options: ShellOptions())
    #expect(report.contains("mine.swift:\(error.line):\(error.column): error: "))
    #expect(report.contains("DispatchQueue.main.async"))
  }

  @Test("Lesson 13: Thread Sanitizer reports the unprotected count; with a lock it reports nothing")
  func raceFixedWithALock() throws {
    let (e, solved, started) = try verdicts("13", "13-likes-lock.swift")
    #expect(e.threadSanitizer)
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    #expect(good.races.isEmpty && good.values["likes"] == 2000)
    #expect(!bad.realRaces.isEmpty)
    #expect(bad.races.contains { $0.summary.contains("Likes") })
  }

  @Test(
    "Lesson 16: a filter that reads only isCancelled filters its failed download's missing photo; one that reads the result returns at once; a download that marks its failure as a cancel is caught"
  )
  func failedDownload() throws {
    let (e, starter, _) = try exercise("16", "16-failed-download.swift")
    let (_, solved, started) = try verdicts("16", "16-failed-download.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    // The failure is download2's own: the queue released filter2 all the same.
    #expect(good.operations["download2"]?.how == "failed" && bad.operations["download2"]?.how == "failed")
    #expect(good.values["filtered"] == 1 && good.operations["filter2"]?.how == "returned early")
    #expect((good.operations["filter2"]?.end ?? 99) < 3)
    // Past lesson 7's guard, the starting filter worked a tick on an empty photo.
    #expect(bad.values["filtered"] == 2 && bad.operations["filter2"]?.how == "succeeded")
    #expect((bad.operations["filter2"]?.end ?? 0) >= 3)
    #expect(Set(started.failed) == ["value filtered 1", "finished filter2 before 3"])
    #expect(good.values["cancelled"] == 0 && bad.values["cancelled"] == 0)
    // The starting file with the failure marked as a cancel: lesson 7's guard then lets
    // filter2 return at once, but a failure is not a cancel.
    let line = "    result.withLock { $0 = failing ? .failure(.offline) : .success(fetched) }\n"
    let marked = try replacing(line, with: line + "    if failing { cancel() }\n", in: starter)
    let (asCancel, failed, _) = try variant(e, marked, "the download that cancels itself")
    #expect(asCancel.values["cancelled"] == 1 && asCancel.operations["filter2"]?.how == "returned early")
    #expect(failed == ["value cancelled 0"])
  }

  @Test(
    "Lesson 17: without an isReady of its own the work runs offline; without super.isReady backup runs before its dependency; with it but without didChangeValue(forKey: \"isReady\") corelibs reads it again only when index finishes, and sync runs late; with both, sync waits for the network and the cancelled upload is skipped at once"
  )
  func readinessOfYourOwn() throws {
    let (e, _, solution) = try exercise("17", "17-ready-when-reachable.swift")
    let (_, solved, started) = try verdicts("17", "17-ready-when-reachable.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    // Ready at once, both ran at t=0 while the network was down.
    #expect(bad.values["offline"] == 2 && bad.operations["upload"]?.start != nil)
    #expect(Set(started.failed) == ["value offline 0", "not started upload"])
    // The network comes back at t=3 (the harness's command, a tenth early).
    #expect(good.values["offline"] == 0 && (good.operations["sync"]?.start ?? 0) > 2.8)
    #expect(good.operations["upload"]?.start == nil && good.operations["upload"]?.how == "cancelled")
    #expect((good.operations["upload"]?.end ?? 99) < 2)
    // backup waited for the network and for index, which finished at t=7.
    let indexed = try #require(good.operations["index"]?.end)
    #expect(indexed > 6.8 && (good.operations["backup"]?.start ?? 0) >= indexed - ExerciseTrial.sameLook)
    // The solution without super.isReady: backup no longer waits for its dependency.
    let noSuper = try replacing("    super.isReady && (reachable", with: "    (reachable", in: solution)
    let (early, startedEarly, _) = try variant(e, noSuper, "the solution without super.isReady")
    // (At t=3, or later on a busy machine where libdispatch has no free thread for it
    // until sync finishes at t=5: before index's finish either way.)
    #expect((early.operations["backup"]?.start ?? 99) < indexed - 1)
    #expect(startedEarly == ["starts backup after index"])
    // The solution without the notification: on corelibs nothing reads sync's isReady
    // again at t=3. The queue reads it only when it looks for work for another reason:
    // index's finish at t=7, so sync runs late (in a world with nothing after t=3,
    // never: it would stall).
    let silent = solution.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.contains("ChangeValue(forKey: \"isReady\")") }.joined(separator: "\n")
    #expect(silent.split(separator: "\n").count == solution.split(separator: "\n").count - 2)
    let (late, unheard, _) = try variant(e, silent, "the solution without the notification")
    #expect((late.operations["sync"]?.start ?? 0) > indexed - ExerciseTrial.sameLook && late.stalled.isEmpty)
    #expect(late.operations["upload"]?.how == "cancelled")
    #expect(unheard == ["finished sync before 6"])
    // The notification inside the lock: on Linux didChangeValue(forKey:) reads isReady
    // at once, which locks the Mutex again: a fatal error, which the report quotes.
    let inside = try replacing(
      "    willChangeValue(forKey: \"isReady\")\n    reachable.withLock { $0 = true }\n    didChangeValue(forKey: \"isReady\")\n",
      with:
        "    reachable.withLock {\n      willChangeValue(forKey: \"isReady\")\n      $0 = true\n      didChangeValue(forKey: \"isReady\")\n    }\n",
      in: solution)
    let (_, crashed, relocked) = try variant(e, inside, "the notification inside the lock")
    #expect(crashed.contains("crash"), "\(LessonChecker.describe(relocked))")
    guard case .ran(_, let failures, _) = relocked else { return }
    let crash = failures.first { $0.what == "crash" }?.observed ?? ""
    #expect(crash.contains("Recursive call to lock Mutex"), "\(crash)")
    let report = ExerciseReport.render(relocked, exercise: e, path: "mine.swift", source: inside, options: ShellOptions())
    let flat = report.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(flat.contains("Recursive call to lock Mutex") && flat.contains("called outside the lock"), "\(report)")
  }

  @Test(
    "Lesson 18: cancelling an operation does not cancel the Task it runs, and an async function that never checks runs on; with cancel() passed on and Task.checkCancellation() between slices, the resize stops at the next slice"
  )
  func taskCancellation() throws {
    let (e, _, solution) = try exercise("18", "18-task-cancel.swift")
    let (_, solved, started) = try verdicts("18", "18-task-cancel.swift")
    guard case .ran(let good, _, _) = solved, case .ran(let bad, _, _) = started else {
      Issue.record("both files build and run")
      return
    }
    #expect((good.operations["resize"]?.end ?? 99) < 4 && good.operations["resize"]?.how == "cancelled")
    #expect((good.operations["thumbnail"]?.end ?? 99) < 5)
    #expect((bad.operations["resize"]?.end ?? 0) >= 8 && bad.operations["resize"]?.how == "succeeded")
    #expect(Set(started.failed) == ["finished resize before 4", "finished thumbnail before 5", "value stopped 1"])
    #expect(good.values["cancelled"] == 1 && good.values["stopped"] == 1)
    // The check alone: nothing cancels the Task, so Task.checkCancellation() never throws.
    let checkOnly = try replacing("    state.withLock { $0.task }?.cancel()\n", with: "", in: solution)
    let (ranOn, _, _) = try variant(e, checkOnly, "the solution without the forwarded cancel")
    #expect((ranOn.operations["resize"]?.end ?? 0) >= 8 && ranOn.operations["resize"]?.how == "succeeded")
    // The forwarded cancel alone: the Task is cancelled, and nothing looks.
    let forwardOnly = try replacing("    try Task.checkCancellation()\n", with: "", in: solution)
    let (unchecked, _, _) = try variant(e, forwardOnly, "the solution without the check")
    #expect((unchecked.operations["resize"]?.end ?? 0) >= 8 && unchecked.operations["resize"]?.how == "succeeded")
    // An override of cancel() without super.cancel(): the Task stops, isCancelled stays false.
    let noSuper = try replacing("    super.cancel()  // isCancelled, which start() and the queue read\n", with: "", in: solution)
    let (unflagged, failed, _) = try variant(e, noSuper, "the solution without super.cancel()")
    #expect((unflagged.operations["resize"]?.end ?? 99) < 4 && unflagged.values["cancelled"] == 0)
    #expect(failed == ["value cancelled 1"])
    // A plain return in place of the throw: it stops, and the operation reports success.
    let returning = try replacing("    try Task.checkCancellation()\n", with: "    if Task.isCancelled { return }\n", in: solution)
    let (quiet, failedQuietly, _) = try variant(e, returning, "the solution that returns")
    #expect((quiet.operations["resize"]?.end ?? 99) < 4 && quiet.operations["resize"]?.how == "succeeded")
    #expect(failedQuietly == ["value stopped 1"])
  }

  @Test(
    "At an 80x24 terminal: Ctrl-C stops a build and the exercise goes on; `edit` opens $EDITOR on the learner's copy, then the lab builds and runs it, and it passes"
  )
  func atTheTerminal() throws {
    let (e, _, _) = try exercise("07", "07-resize-slices.swift")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-exercise-tty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let exercises = Self.lessons.appendingPathComponent("Exercises").path
    let block =
      ["exercise: \(e.goal)", "  file: \(exercises)/07-resize-slices.swift", "  solution: \(exercises)/07-resize-slices.solution.swift"]
      + ["  fails: \(e.fails.text)"] + e.lab.map { "  lab: \($0.text)" }
      + e.checks.flatMap { ["  check: \($0.source.text)", "  else: \($0.message)"] } + e.hints.map { "  hint: \($0)" }
    let file = folder.appendingPathComponent("01-resize.lesson")
    try ("title: Resize\n\nWords.\n\n" + block.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
    // The "editor" writes the solution into the file it is given.
    let out = try TerminalTests().session(
      [
        "<WAIT work too)>", "<SLEEP 0.3>", "try\\r", "<WAIT Building>", "<SLEEP 0.3>", "\\x03", "<WAIT Stopped (Ctrl-C)>", "edit\\r",
        "<WAIT Exercise done>", "<WAIT lesson 1>", "quit\\r",
      ],
      state: folder.appendingPathComponent("state"), arguments: ["lesson", file.path],
      environment: ["PTY_ROWS": "24", "PTY_COLS": "80", "EDITOR": "cp \(exercises)/07-resize-slices.solution.swift", "VISUAL": ""])
    let flat = out.replacingOccurrences(of: "\r", with: "").split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(flat.contains("Stopped (Ctrl-C). Your file is as it was"), "\(out)")
    #expect(flat.contains("The lab's prediction for the intended world, and your program on the real queue"), "\(out)")
    #expect(flat.contains("✓ Exercise done."), "\(out)")
    // The learner's copy is the edited file, kept beside the progress.
    let copies = try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("state/oplab/exercises").path)
    let copy = try #require(copies.first { $0.hasSuffix("07-resize-slices.swift") })
    let edited = try String(contentsOfFile: folder.appendingPathComponent("state/oplab/exercises/" + copy).path, encoding: .utf8)
    #expect(edited.contains("if isCancelled { return }"))
  }

  @Test("Every exercise file type-checks with plain swiftc, and each solution also under Swift 6, complete checking, no warnings")
  func filesTypeCheck() throws {
    let folder = Self.lessons.appendingPathComponent("Exercises")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
    let scratch = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: scratch) }
    try ExerciseHarness.text(tickSeconds: ExerciseHarness.tickSeconds).write(
      to: scratch.appendingPathComponent("harness.swift"), atomically: true, encoding: .utf8)
    for file in files {
      try FileManager.default.removeItem(at: scratch.appendingPathComponent("main.swift"), ifExists: true)
      try FileManager.default.copyItem(at: folder.appendingPathComponent(file), to: scratch.appendingPathComponent("main.swift"))
      let plain = try Swiftc.plain(["-typecheck", "main.swift", "harness.swift"], in: scratch)
      // The one starting file about what Swift refuses does not compile, by design.
      let refused = file == "15-hop-to-main.swift"
      #expect((plain.status == 0) != refused, "\(file), plain swiftc: \(plain.said)")
      if file.hasSuffix(".solution.swift") {
        let strict = try Swiftc.plain(["-typecheck"] + Swiftc.strict + ["main.swift", "harness.swift"], in: scratch)
        #expect(strict.status == 0, "\(file), strict: \(strict.said)")
      }
    }
  }
}

extension FileManager {
  fileprivate func removeItem(at url: URL, ifExists: Bool) throws {
    if fileExists(atPath: url.path) { try removeItem(at: url) }
  }
}
