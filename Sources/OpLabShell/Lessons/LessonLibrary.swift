import Foundation

/// Finding and reading the course: the `.lesson` files of a `Lessons` folder.
public struct LessonLibrary: Sendable {
  /// The folder read.
  public var folder: String
  /// The lessons, in course order.
  public var lessons: [Lesson]
  /// Files that could not be read.
  public var errors: [LessonError]

  /// Reads every `*.lesson` file of `folder`, in course order (by number, then name).
  public init(folder: String) {
    self.folder = folder
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    var lessons: [Lesson] = []
    var errors: [LessonError] = []
    for name in names.sorted() where name.hasSuffix(".lesson") {
      let path = (folder as NSString).appendingPathComponent(name)
      // Through the scripts' reader: a byte-order mark dropped, CRLF and CR line ends read.
      let text: String
      do {
        text = try FileIO.readText(path)
      } catch {
        let hint: String? =
          if case .notAFile = error.reason {
            "a lesson must be a regular file: move or rename this one (it is skipped; the others load)"
          } else { nil }
        errors.append(LessonError(file: path, line: 1, column: 1, message: error.message, hint: hint))
        continue
      }
      do {
        lessons.append(try LessonParser.parse(text, file: path))
      } catch {
        errors.append(error)
      }
    }
    // Progress is kept by id and `oplab lesson N` finds by number: both must be unique. The
    // first file (by name) keeps them; a later one is refused, with the reason.
    var byID: [String: Lesson] = [:], byNumber: [Int: Lesson] = [:]
    var unique: [Lesson] = []
    for lesson in lessons.sorted(by: { $0.file < $1.file }) {
      let name = { (l: Lesson) in (l.file as NSString).lastPathComponent }
      if let other = byID[lesson.id] {
        errors.append(
          LessonError(
            file: lesson.file, line: 1, column: 1, message: "the id '\(lesson.id)' is also \(name(other))'s",
            hint: "each lesson needs an id of its own (progress is kept by id): rename the file or add `id: NAME`"))
      } else if lesson.number > 0, let other = byNumber[lesson.number] {
        errors.append(
          LessonError(
            file: lesson.file, line: 1, column: 1, message: "the number \(lesson.number) is also \(name(other))'s",
            hint: "each lesson needs a number of its own (`oplab lesson N` finds it): renumber the file"))
      } else {
        byID[lesson.id] = lesson
        if lesson.number > 0 { byNumber[lesson.number] = lesson }
        unique.append(lesson)
      }
    }
    self.lessons = unique.sorted { ($0.number, $0.id) < ($1.number, $1.id) }
    self.errors = errors
  }

  /// The lessons folder: `$OPLAB_LESSONS`, else a `Lessons` folder beside or above the
  /// executable (a checkout's build), else `./Lessons`.
  public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let explicit = environment["OPLAB_LESSONS"]?.split(separator: ":").first, !explicit.isEmpty { return String(explicit) }
    // The executable's real path (/proc/self/exe on Linux): argv[0] is only the name typed
    // when the lab is found through PATH.
    let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? ".")
    // A checkout has Lessons/ a few folders above .build/…/oplab; `make install` puts them
    // in PREFIX/share/oplab/Lessons, beside PREFIX/bin/oplab.
    var dir = executable.resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
      for candidate in [dir.appendingPathComponent("share/oplab/Lessons"), dir.appendingPathComponent("Lessons")] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
          return candidate.path
        }
      }
      dir.deleteLastPathComponent()
    }
    return "Lessons"
  }

  /// The lessons folders: the folders `$OPLAB_LESSONS` lists (separated by `:`; the first is
  /// the course, the others are added to it), else the one ``locate(environment:)`` finds.
  public static func locateAll(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
    let listed = (environment["OPLAB_LESSONS"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
    return listed.isEmpty ? [locate(environment: environment)] : listed
  }

  /// Finds a lesson by number (`3`), id (`priorities`, or its start), or file name
  /// (`05-priorities`, with or without `.lesson`).
  public func lesson(_ key: String) -> Lesson? {
    if let n = Int(key) { return lessons.first { $0.number == n } }
    let key = key.lowercased()
    let stem = key.hasSuffix(".lesson") ? String(key.dropLast(".lesson".count)) : key
    return lessons.first { $0.id == key }
      ?? lessons.first { (($0.file as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased() == stem }
      ?? lessons.first { $0.id.hasPrefix(key) }
  }
}

/// The course and the folders added to it (a teacher's own lessons): each folder is read as
/// a ``LessonLibrary`` of its own, so numbers and ids need only be unique within a folder,
/// and progress is kept by folder and id (``progressKey(of:)``).
public struct LessonCourse: Sendable {
  /// The folders' lessons, the course's first; never empty.
  public var libraries: [LessonLibrary]

  /// Reads each folder once (a folder named twice is read the first time).
  public init(folders: [String]) {
    var seen: Set<String> = []
    var libraries: [LessonLibrary] = []
    for folder in folders where seen.insert(Self.canonical(folder)).inserted {
      libraries.append(LessonLibrary(folder: folder))
    }
    self.libraries = libraries.isEmpty ? [LessonLibrary(folder: "Lessons")] : libraries
  }

  /// The course: `oplab lesson N` finds its lessons.
  public var main: LessonLibrary { libraries[0] }
  /// The folders added to the course.
  public var added: ArraySlice<LessonLibrary> { libraries.dropFirst() }

  /// How `oplab lesson` names an added folder: its last path component (`my-lessons/9`).
  public static func name(of library: LessonLibrary) -> String {
    URL(fileURLWithPath: canonical(library.folder)).lastPathComponent
  }

  /// A path with `.`, `..` and symbolic links resolved.
  static func canonical(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }

  /// The key a lesson's progress is kept under: its id for a lesson of the course's folder;
  /// else its id and its folder (`visible-rows@/home/t/my-lessons`), so a teacher's
  /// `09-visible-rows.lesson` does not show the course's lesson 9's progress, and a file
  /// keeps one record whether it is run by its path or through its folder.
  public func progressKey(of lesson: Lesson) -> String {
    let folder = Self.canonical(
      (lesson.file as NSString).deletingLastPathComponent.isEmpty ? "." : (lesson.file as NSString).deletingLastPathComponent)
    if folder == Self.canonical(main.folder) { return lesson.id }
    return lesson.id + "@" + folder.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
  }
}
