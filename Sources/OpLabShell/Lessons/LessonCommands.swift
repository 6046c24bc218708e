import Foundation

/// `oplab lesson …`: list the course, run a lesson, or check lessons.
extension Shell {
  /// - Parameters:
  ///   - arguments: empty (list), `N|name` (run one), or `check [N|name...]` with `all` for every lesson.
  /// - Returns: the exit status.
  public static func lessons(_ arguments: [String], all: Bool, options: ShellOptions, folder: String? = nil) -> Int32 {
    ignoreBrokenPipes()
    let library = LessonLibrary(folder: folder ?? LessonLibrary.locate())
    for e in library.errors { writeError(e.description + "\n") }
    if library.lessons.isEmpty, library.errors.isEmpty {
      writeError("oplab: no lessons found in \(library.folder) (set OPLAB_LESSONS to the Lessons folder)\n")
      return Status.usage
    }
    let progress = ProgressStore(path: ProgressStore.defaultPath())
    if let warning = progress.warning { writeError("oplab: warning: \(warning)\n") }

    if arguments.first == "check" {
      let keys = Array(arguments.dropFirst())
      let chosen: [Lesson]
      if all || keys.isEmpty {
        chosen = library.lessons
      } else {
        var list: [Lesson] = []
        for key in keys {
          guard let lesson = library.lesson(key) else {
            writeError("oplab: no lesson '\(key)'; `oplab lesson` lists them\n")
            return Status.usage
          }
          list.append(lesson)
        }
        chosen = list
      }
      var passed = 0
      for lesson in chosen {
        let report = LessonChecker.check(lesson, options: options)
        writeOut(report.summary + "\n")
        for f in report.failures { writeError(f.description + "\n") }
        if report.ok { passed += 1 }
      }
      let failed = chosen.count - passed + library.errors.count
      writeOut("lessons: \(passed) passed, \(failed) failed\n")
      return failed > 0 ? Status.scriptError : Status.ok
    }

    guard let key = arguments.first else {
      writeOut("The course (`oplab lesson N` starts or resumes lesson N):\n")
      for lesson in library.lessons {
        let status = progress.status(of: lesson.id)
        let mark = switch status {
        case .done: "done"
        case .started: "started"
        case .new: "new"
        }
        let number = lesson.number < 10 ? " \(lesson.number)" : "\(lesson.number)"
        writeOut("  \(number)  \(lesson.title)  [\(mark)]\n")
      }
      return Status.ok
    }
    guard let lesson = library.lesson(key) else {
      writeError("oplab: no lesson '\(key)'; `oplab lesson` lists them\n")
      return Status.usage
    }
    let reader = LineReaders.makeDefault(completer: { _ in [] }, historyPath: nil)
    let runner = LessonRunner(lesson: lesson, reader: reader, options: options, progress: progress) { writeOut($0) }
    runner.run()
    return Status.ok
  }
}
