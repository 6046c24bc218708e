import Foundation
import OpLabRender

/// `oplab lesson …`: list the course, run a lesson, or check lessons.
extension Shell {
  /// - Parameters:
  ///   - arguments: empty (list), `N|name` (run one), `check [N|name...]` with `all` for
  ///     every lesson, or `preview N|name`.
  ///   - folder: the course's folder (default: ``LessonLibrary/locateAll(environment:)``'s).
  ///   - added: folders of lessons added to the course (a teacher's own), after it.
  /// - Returns: the exit status.
  ///   - build: with `check`, also build and run each Swift exercise's files (`--build`).
  public static func lessons(
    _ arguments: [String], all: Bool, options: ShellOptions, folder: String? = nil, added: [String] = [], build: Bool = false
  ) -> Int32 {
    ignoreBrokenPipes()
    var options = options
    if isatty(1) == 1, !options.widthGiven, let columns = terminalColumns() { options.width = columns }
    messageWidth.store(options.width, ordering: .relaxed)
    let course = LessonCourse(folders: (folder.map { [$0] } ?? LessonLibrary.locateAll()) + added)
    let library = course.main
    for e in course.libraries.flatMap(\.errors) { warn(e.description + "\n") }
    if course.libraries.allSatisfy({ $0.lessons.isEmpty && $0.errors.isEmpty }) {
      warn("oplab: no lessons found in \(library.folder) (set OPLAB_LESSONS to the Lessons folder)\n")
      return Status.usage
    }
    let progress = ProgressStore(path: ProgressStore.defaultPath())
    if let warning = progress.warning { warn("oplab: warning: \(warning)\n") }

    if arguments.first == "preview" {
      guard arguments.count == 2, let key = arguments.last else {
        warn("oplab: usage: oplab lesson preview FILE|N [--width N]: one lesson, every page as a student sees it\n")
        return Status.usage
      }
      switch resolve(key, in: course) {
      case .found(let lesson):
        say(LessonPreview.render(lesson, options: options))
        return Status.ok
      case .broken: return Status.scriptError
      case .missing: return Status.usage
      }
    }
    if arguments.first == "check" {
      let keys = Array(arguments.dropFirst())
      let chosen: [Lesson]
      var unusable = 0  // named files that do not parse or do not exist: said, and counted as failed
      let whole = all || keys.isEmpty
      if whole {
        chosen = course.libraries.flatMap(\.lessons)
      } else {
        var list: [Lesson] = []
        for key in keys {
          // One broken file does not hide the others' results.
          switch resolve(key, in: course) {
          case .found(let lesson): list.append(lesson)
          case .broken, .missing: unusable += 1
          }
        }
        chosen = list
      }
      var passed = 0
      for lesson in chosen {
        let report = LessonChecker.check(lesson, options: options, standards: true, buildExercises: build)
        say(report.summary + "\n")
        for f in report.failures { warn(f.description + "\n") }
        if report.ok { passed += 1 }
      }
      let failed = chosen.count - passed + unusable + (whole ? course.libraries.map(\.errors.count).reduce(0, +) : 0)
      say("lessons: \(passed) passed, \(failed) failed\n")
      return failed > 0 ? Status.scriptError : Status.ok
    }

    guard let key = arguments.first else {
      func list(_ lessons: [Lesson]) {
        for lesson in lessons {
          let mark =
            switch progress.status(of: course.progressKey(of: lesson)) {
            case .done: "done"
            case .started: "started"
            case .new: "new"
            }
          let number = lesson.number < 10 ? " \(lesson.number)" : "\(lesson.number)"
          say("  \(number)  \(lesson.title)  [\(mark)]\n")
        }
      }
      say("The course (`oplab lesson N` starts or resumes lesson N):\n")
      list(library.lessons)
      for added in course.added {
        let name = LessonCourse.name(of: added)
        say("\n" + Wrap.paragraph("Added from \(added.folder) (`oplab lesson \(name)/N`):", width: options.width) + "\n")
        list(added.lessons)
      }
      return Status.ok
    }
    var lesson: Lesson
    switch resolve(key, in: course) {
    case .found(let found): lesson = found
    case .broken: return Status.scriptError
    case .missing: return Status.usage
    }
    // Progress is kept by folder and id: a lesson of another folder (a teacher's, or a file
    // run by its path) keeps its own record, the same whether run by path or by folder.
    let inCourse = course.progressKey(of: lesson) == lesson.id
    lesson.id = course.progressKey(of: lesson)
    // Tab completes at the lesson's prompts, through the runner (its world changes as the lesson goes).
    weak var current: LessonRunner?
    // The lab's history: a command typed in a lesson is found again with Up in the lab, and
    // the other way round.
    let history = EditLineReader.defaultHistoryPath(environment: ProcessInfo.processInfo.environment)
    let reader = LineReaders.makeDefault(completer: { prefix in current?.completions(for: prefix) ?? [] }, historyPath: history)
    let runner = LessonRunner(lesson: lesson, reader: reader, options: options, progress: progress) { Shell.writeOut($0) }
    if !inCourse { runner.resumeCommand = "oplab lesson \(key)" }
    // On a terminal, a page taller than the screen goes through the pager, as `help` does.
    if !(reader is StdinLineReader), let rows = terminalRows() {
      runner.screenRows = rows
      if let pager = Pager.command() { runner.showPage = { Pager.show($0, through: pager)?.note } }
    }
    current = runner
    runner.run()
    if let warning = reader.saveHistory() { Shell.warn("oplab: warning: \(warning)\n") }
    return Status.ok
  }

  enum Resolved {
    case found(Lesson)
    /// Its file has errors, already printed.
    case broken
    /// Nothing by that name; said so.
    case missing
  }

  /// A lesson of the course by number, name or path, or of an added folder by the folder's
  /// name and the lesson's number or name (`my-lessons/9`, `my-lessons/visible-rows`).
  static func resolve(_ key: String, in course: LessonCourse) -> Resolved {
    if !FileManager.default.fileExists(atPath: key), let slash = key.lastIndex(of: "/") {
      let name = String(key[..<slash])
      let rest = String(key[key.index(after: slash)...])
      if let added = course.added.first(where: {
        LessonCourse.name(of: $0) == name || LessonCourse.canonical($0.folder) == LessonCourse.canonical(name)
      }) {
        if let lesson = added.lesson(rest) { return .found(lesson) }
        warn("oplab: no lesson '\(rest)' in \(added.folder); `oplab lesson` lists them\n")
        return .missing
      }
    }
    return resolve(key, in: course.main)
  }

  /// A lesson by number, name or path (`Lessons/01-frozen-ui.lesson`, for a teacher
  /// checking the file being written).
  static func resolve(_ key: String, in library: LessonLibrary) -> Resolved {
    // A bare file name not in this folder is the course's (`oplab lesson 05-priorities.lesson`).
    let isCourseFile = !key.contains("/") && !FileManager.default.fileExists(atPath: key)
    if isCourseFile, let lesson = library.lesson(key) { return .found(lesson) }
    if key.hasSuffix(".lesson") || key.contains("/") {
      let text: String
      do {
        text = try FileIO.readText(key)
      } catch {
        warn("oplab: \(Visible.escape(error.message))\n")
        return .missing
      }
      do {
        return .found(try LessonParser.parse(text, file: key))
      } catch {
        warn(error.description + "\n")
        return .broken
      }
    }
    if let lesson = library.lesson(key) { return .found(lesson) }
    // A lesson whose file did not parse is named in the errors printed above.
    let name = key.lowercased()
    if let n = Int(key), let broken = library.errors.first(where: { Self.lessonNumber(ofFile: $0.file) == n }) {
      warn("oplab: lesson \(n) (\(broken.file)) has errors, shown above\n")
      return .broken
    }
    if !name.isEmpty, let broken = library.errors.first(where: { ($0.file as NSString).lastPathComponent.lowercased().contains(name) }) {
      warn("oplab: lesson '\(key)' (\(broken.file)) has errors, shown above\n")
      return .broken
    }
    warn("oplab: no lesson '\(key)'; `oplab lesson` lists them\n")
    return .missing
  }

  /// The number a lesson file's name starts with (`03-blocks.lesson` → 3).
  static func lessonNumber(ofFile path: String) -> Int? {
    Int((path as NSString).lastPathComponent.prefix { $0.isNumber })
  }
}
