import Foundation
import OpLabCore
import OpLabRender

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frees a C string made with strdup (the runner's own `free` is a lesson word).
private func freeC(_ pointer: UnsafeMutablePointer<CChar>?) { free(pointer) }

/// A Swift exercise at the lesson's prompt (`exercise>`): the learner's copy of the file,
/// `edit` (their editor, then a try), `try` (build, run on the real queue, judge), `hint`,
/// `skip` (a solution, and on), `restart` (the starting file again), `back`, `quit`.
extension LessonRunner {
  /// Runs an exercise until the learner's file passes, or they skip it or leave.
  func exercise(_ e: Exercise) -> Move {
    write(wrap("★ Exercise: " + e.goal) + "\n")
    let starter = Exercise.resolve(e.file.text, from: lesson.file)
    if let student = preview {
      // A preview makes no copy: the teacher reads the lesson's own file.
      student.set(e)
      write(wrap("Your file: a copy of \(e.file.text)") + "\n" + PromptCommand.exerciseHelp + "\n")
      return exerciseLoop(e, path: starter)
    }
    guard let path = learnersCopy(of: starter) else {
      write(wrap("The exercise's file \(starter) cannot be read or copied: `skip` goes on.") + "\n")
      return exerciseLoop(e, path: nil)
    }
    write(wrap("Your file: \(path)") + "\n")
    if swiftc == nil {
      write(
        wrap(
          "This exercise builds Swift, and there is no Swift toolchain here (`swiftc` is not on your PATH). Read the file; `skip` shows a solution and goes on."
        ) + "\n")
    }
    write(PromptCommand.exerciseHelp + "\n")
    return exerciseLoop(e, path: path)
  }

  private func exerciseLoop(_ e: Exercise, path: String?) -> Move {
    var hintsShown = 0
    handOver()
    while true {
      switch readLine(prompt: "exercise> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        if line.isEmpty { continue }
        guard let command = PromptCommand.recognised(line, at: .exercise) else {
          free(raw, prompt: "exercise> ")
          continue
        }
        switch (command.meaning, command.word) {
        case (.goBack, _): return .back
        case (.leave, _): return .quit
        case (.say(let text), _): write(text + "\n")
        case (.own, .next):
          if swiftc == nil || path == nil { return .next }
          write("Not yet: your file has not passed. `try` builds and runs it; `skip` shows a solution.\n")
        case (.own, .hint):
          if hintsShown < e.hints.count {
            write(wrap("hint \(hintsShown + 1)/\(e.hints.count): \(e.hints[hintsShown])") + "\n")
            hintsShown += 1
          } else {
            write("No more hints. `skip` shows a solution.\n")
          }
        case (.own, .skip):
          let solution = Exercise.resolve(e.solution.text, from: lesson.file)
          let text = (try? String(contentsOfFile: solution, encoding: .utf8)) ?? "(the solution \(solution) cannot be read)\n"
          // Read through the pager when it is taller than the screen, as a page is.
          if screenRows != nil, showPage != nil { page = "" }
          // Not indented: the file's lines are up to 80 columns, as the learner's own.
          write("One solution (\(e.solution.text)):\n")
          write(text.hasSuffix("\n") ? text : text + "\n", asIs: true)
          flushPage()
          return .next
        case (.own, .restart):
          guard let path else { continue }
          let starter = Exercise.resolve(e.file.text, from: lesson.file)
          let kept = path + ".before-restart"
          try? FileManager.default.removeItem(atPath: kept)
          try? FileManager.default.moveItem(atPath: path, toPath: kept)
          if (try? FileManager.default.copyItem(atPath: starter, toPath: path)) != nil {
            write(wrap("Your file is the starting file again (what you had is kept in \(kept)).") + "\n")
          } else {
            write(wrap("The starting file \(starter) could not be copied back.") + "\n")
          }
        case (.own, .edit):
          guard let path else { continue }
          if !openInEditor(path) {
            write(wrap("Open \(path) in your editor, save it, then type `try`. (Set VISUAL or EDITOR, and `edit` opens it for you.)") + "\n")
            continue
          }
          if tryExercise(e, path: path) { return .next }
        case (.own, .try):
          guard let path else { continue }
          if tryExercise(e, path: path) { return .next }
        case (.own, _), (.goOn, _): break
        }
      }
    }
  }

  /// The compiler the exercises build with, if there is one.
  var swiftc: String? { findCompiler() }

  /// Builds and runs the learner's file, and says how it went. `true` when it passed.
  func tryExercise(_ e: Exercise, path: String) -> Bool {
    guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
      write(wrap("\(path) cannot be read: `restart` gives back the starting file.") + "\n")
      return false
    }
    let compiler = swiftc
    let verdict = reader.whileCatchingInterrupts { interrupted in
      ExerciseTrial.attempt(e, source: source, swiftc: compiler, interrupt: interrupted) { self.output($0 + "\n") }
    }
    reader.clearInterrupt()
    write(ExerciseReport.render(verdict, exercise: e, path: path, source: source, options: options))
    if verdict.passed { write("✓ Exercise done.\n\n") }
    return verdict.passed
  }

  /// The learner's copy of the starting file, made on the first visit and kept beside the
  /// lesson progress (`…/oplab/exercises/LESSON/FILE`), else in the temporary folder (in
  /// a folder of the user's own).
  func learnersCopy(of starter: String) -> String? {
    guard FileManager.default.fileExists(atPath: starter) else { return nil }
    let base =
      progress.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("oplab-\(getuid())")
    let folder = base.appendingPathComponent("exercises").appendingPathComponent(lesson.id.replacingOccurrences(of: "/", with: "-"))
    let copy = folder.appendingPathComponent((starter as NSString).lastPathComponent)
    if FileManager.default.fileExists(atPath: copy.path) { return copy.path }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: starter, toPath: copy.path)
    } catch {
      return nil
    }
    return copy.path
  }

  /// Opens `path` in `$VISUAL` (else `$EDITOR`) on the terminal and waits for it; `false`
  /// when there is no editor to open or no terminal to open it on.
  func openInEditor(_ path: String) -> Bool {
    let environment = ProcessInfo.processInfo.environment
    guard reader.echoesLines, isatty(0) == 1,
      let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap({ $0 }).first(where: { !$0.isEmpty })
    else { return false }
    // The editor gets Ctrl-C; the lab ignores it meanwhile.
    var previous = sigaction()
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    sigaction(SIGINT, &ignore, &previous)
    defer { sigaction(SIGINT, &previous, nil) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGINT)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
    let words = ["/bin/sh", "-c", editor + " \"$1\"", "oplab-edit", path]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      arguments.forEach(freeC)
      variables.forEach(freeC)
    }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", nil, &attributes, arguments, variables) == 0 else { return false }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return true
  }
}
