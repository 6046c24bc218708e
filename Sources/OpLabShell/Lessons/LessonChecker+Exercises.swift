import Foundation
import OpLabCore

/// `lesson check` on a Swift exercise: its files are there and use the harness's entry
/// points, its intended world builds in the lab and has the operations its checks name;
/// with `--build`, the reference solution builds, runs on the real queue and passes, and the
/// starting file fails as its `fails:` line says.
extension LessonChecker {
  static func exerciseProblems(_ e: Exercise, in lesson: Lesson, options: ShellOptions, build: Bool) -> [LessonError] {
    var problems: [LessonError] = []
    func fail(_ s: SourceLine, _ message: String, hint: String? = nil) {
      problems.append(LessonError(file: lesson.file, line: s.line, column: s.column, message: message, hint: hint))
    }
    var texts: [String: String] = [:]
    for (s, what) in [(e.file, "starting file"), (e.solution, "solution")] {
      let path = Exercise.resolve(s.text, from: lesson.file)
      guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        fail(s, "the exercise's \(what) \(path) cannot be read", hint: "paths are relative to the lesson's folder")
        continue
      }
      texts[what] = text
      // Every exercise is a program the harness plays: it watches its operations and ends in the harness.
      for needed in ["Lab.start(lastTick:", "Lab.end()"] where !text.contains(needed) {
        fail(
          s, "the exercise's \(what) never calls \(needed.hasSuffix("(") ? needed + ")" : needed)",
          hint: "the harness starts the clock and ends the program: see Lessons/README.md, \"Swift exercises\"")
      }
      // The watcher ends a program whose lastTick has passed with nothing unfinished watched,
      // which at t=0 may be before the program has watched anything.
      if text.contains("Lab.start(lastTick: 0") {
        fail(
          s, "the exercise's \(what) starts the clock with lastTick 0: the harness may end it before it watches its operations",
          hint: "give Lab.start(lastTick:) 1 or more")
      }
      for call in ExerciseHarness.unknownCalls(in: text) {
        fail(
          s, "the exercise's \(what) calls \(call), which is not one of the harness's entry points",
          hint: "the harness gives " + ExerciseHarness.entryPoints.joined(separator: ", "))
      }
      if text.split(separator: "\n").contains(where: { $0.count > 80 }) {
        fail(s, "the exercise's \(what) has a line longer than 80 columns", hint: "a learner reads and edits it in an 80-column terminal")
      }
    }
    if let starter = texts["starting file"], let solution = texts["solution"], starter == solution {
      fail(e.solution, "the exercise's solution is the starting file itself", hint: "the starting file has the gap or the bug")
    }
    if !e.hints.contains(where: { LessonChecker.commands(in: $0).contains("restart") }) {
      problems.append(
        LessonError(
          file: lesson.file, line: e.line, column: 1, message: "no hint of the exercise says how to get the starting file back",
          hint: "add one, e.g. hint: `restart` gives back the starting file."))
    }
    // A message's placeholders are filled from the real run: only what it prints.
    for c in e.checks {
      for placeholder in ExerciseTrial.placeholders(in: c.message) where !ExerciseTrial.fills(placeholder) {
        fail(
          c.source, "the message of this check has {\(placeholder)}, which the real run cannot fill",
          hint: "an exercise's message may use {finished OP}, {started OP} and {value NAME}")
      }
    }
    // The intended world, in a lab of its own: the lesson's world goes on unchanged.
    if !e.lab.isEmpty {
      let lab = Interpreter(options: options)
      for c in e.lab {
        let reply = lab.execute(c.text)
        if let error = reply.error {
          fail(c, error.message, hint: error.hint)
          return problems
        }
      }
      _ = lab.execute("run")
      for c in e.checks {
        for name in c.check.operations where lab.world.operationID(named: name) == nil {
          fail(
            c.source, "the check names '\(name)', and the exercise's lab: world has no such operation",
            hint: Suggest.closest(to: name, in: lab.world.operationNames).map { "did you mean '\($0)'?" })
        }
      }
    }
    guard build, problems.isEmpty, let starter = texts["starting file"], let solution = texts["solution"] else { return problems }
    guard let swiftc = ExerciseBuild.swiftc() else {
      problems.append(
        LessonError(
          file: lesson.file, line: e.line, column: 1, message: "--build needs swiftc, and it is not on the PATH",
          hint: "install a Swift toolchain, or check without --build"))
      return problems
    }
    let solved = ExerciseTrial.attempt(e, source: solution, swiftc: swiftc)
    if !solved.passed {
      fail(e.solution, "the exercise's solution does not pass: " + describe(solved))
    }
    let started = ExerciseTrial.attempt(e, source: starter, swiftc: swiftc)
    if !started.failed.contains(e.fails.text) {
      fail(
        e.fails, "the exercise's starting file does not fail '\(e.fails.text)': " + (started.passed ? "it passes" : describe(started)),
        hint: "fails: names what the learner's file gets wrong before they change it")
    }
    return problems
  }

  /// A verdict in a line, for a teacher.
  static func describe(_ verdict: ExerciseTrial.Verdict) -> String {
    switch verdict {
    case .noToolchain: "there is no swiftc"
    case .interrupted: "stopped"
    case .didNotBuild(let diagnostics, let said):
      "it does not build: "
        + (diagnostics.first.map { "\($0.inHarness ? "harness.swift" : "main.swift"):\($0.line): \($0.message)" }
          ?? String(said.prefix(200)))
    case .ran(_, let failures, _):
      failures.isEmpty ? "it passes" : "it fails " + failures.map { "'\($0.what)' (\($0.observed))" }.joined(separator: ", ")
    }
  }
}
