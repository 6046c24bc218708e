/// Reading an `exercise:` block (see ``Exercise``):
///
/// ```
/// exercise: Make the count right: protect it with a lock.
///   file: Exercises/13-likes.swift
///   solution: Exercises/13-likes.solution.swift
///   fails: race-free
///   sanitize: thread
///   lab: var likes = 0
///   lab: op a does read likes, compute 1, write likes
///   check: race-free
///   else: Two operations still touch the count without the lock.
///   hint: NSLock's withLock { } runs a closure holding the lock.
/// ```
extension LessonParser {
  typealias BodyLine = (key: String, value: String, line: Int, column: Int)

  static func exercise(
    goal: String, line number: Int, body: [BodyLine], missing: (String, String) -> LessonError,
    fail: (Int, Int, String, String?) -> LessonError
  ) throws(LessonError) -> Exercise {
    guard !goal.isEmpty else { throw fail(number, 1, "exercise: needs a goal after the colon", nil) }
    func one(_ key: String, _ what: String) throws(LessonError) -> SourceLine {
      let found = body.filter { $0.key == key }
      guard let first = found.first else { throw missing("exercise: needs a \(key): line", what) }
      if found.count > 1 { throw fail(found[1].line, 1, "an exercise has one \(key): line", "the first one is on line \(first.line)") }
      return SourceLine(text: first.value, line: first.line, column: first.column)
    }
    let file = try one("file", "the Swift file the learner starts from, relative to the lesson's folder")
    let solution = try one("solution", "a reference solution, which lesson check --build builds and runs")
    let fails = try one("fails", "the check the starting file fails (or `build`, `stall`, `crash`)")
    var sanitize = false
    if let s = body.first(where: { $0.key == "sanitize" }) {
      guard s.value == "thread" else {
        throw fail(s.line, s.column, "sanitize: takes `thread` (Thread Sanitizer)", "write `sanitize: thread` for a race exercise")
      }
      sanitize = true
    }
    var checks: [ExerciseCheck.Checked] = []
    var previous = ""
    for entry in body {
      defer { previous = entry.key }
      let source = SourceLine(text: entry.value, line: entry.line, column: entry.column)
      if entry.key == "check" {
        do {
          checks.append(ExerciseCheck.Checked(check: try ExerciseCheck.parse(entry.value), source: source, message: ""))
        } catch {
          throw fail(entry.line, entry.column + error.column - 1, error.message, error.hint)
        }
      } else if entry.key == "else" {
        guard let last = checks.indices.last, previous == "check" || previous == "else" else {
          throw fail(entry.line, max(1, entry.column - 6), "else: comes after the check: it explains", "write it right under its check: line")
        }
        checks[last].message += (checks[last].message.isEmpty ? "" : " ") + entry.value
      }
    }
    guard !checks.isEmpty else { throw missing("exercise: needs at least one check: line", "checks say what the real run must show") }
    if let bare = checks.first(where: { $0.message.isEmpty }) {
      throw fail(
        bare.source.line, 1, "this check: has no else: message",
        "write, on the next line, `else:` and what went wrong and the way on, in the lesson's words")
    }
    let known = ["build", "stall", "crash"] + checks.map(\.source.text)
    if !known.contains(fails.text) {
      throw fail(
        fails.line, fails.column, "fails: names '\(fails.text)', which is not one of this exercise's checks",
        "one of: " + known.joined(separator: ", "))
    }
    let lab = body.filter { $0.key == "lab" }.map { SourceLine(text: $0.value, line: $0.line, column: $0.column) }
    return Exercise(
      goal: goal, file: file, solution: solution, fails: fails, threadSanitizer: sanitize, lab: lab, checks: checks,
      hints: body.filter { $0.key == "hint" }.map(\.value), line: number)
  }
}
