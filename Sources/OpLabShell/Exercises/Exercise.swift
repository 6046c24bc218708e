/// `exercise:` — the learner writes Swift: a short real program with a gap or a bug, which
/// the lab builds with `swiftc` against the export's harness, runs on the real
/// `OperationQueue` (under Thread Sanitizer when the exercise is about a race), draws beside
/// the lab's prediction for the intended world, and checks (see ``ExerciseCheck``).
public struct Exercise: Sendable {
  /// What to do, in the lesson's words.
  public var goal: String
  /// The file the learner starts from, as written in the lesson (relative to its folder).
  public var file: SourceLine
  /// A reference solution, which must build and pass every check.
  public var solution: SourceLine
  /// The check the starting file fails, as written (`build` when it does not compile, which
  /// only an exercise about a compile error may ask): `lesson check --build` proves it.
  public var fails: SourceLine
  /// Whether the program is built and run under Thread Sanitizer (`sanitize: thread`).
  public var threadSanitizer: Bool
  /// Lab commands that build the intended world: its timeline is the lab's prediction,
  /// drawn above the real run's.
  public var lab: [SourceLine]
  /// What the real run must show, each with the message a learner sees when it does not.
  public var checks: [ExerciseCheck.Checked]
  /// Hints, shown one at a time.
  public var hints: [String]
  /// Where it starts in the lesson file.
  public var line: Int

  /// `path` as written in a lesson at `lessonFile`: relative to the lesson's folder.
  public static func resolve(_ path: String, from lessonFile: String) -> String {
    if path.hasPrefix("/") { return path }
    let folder = lessonFile.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return folder.isEmpty ? path : folder + "/" + path
  }
}

/// One thing the real run of an exercise must show, read from its printed events.
///
/// ```
/// finished OP [before T]     OP finished (before tick T of the lab's clock)
/// started OP                 OP's main() or start() ran
/// not started OP             it never did (skipped, cancelled before it started)
/// order started|finished A B ...   in that order on the real queue
/// starts B after A           B started only once A had finished
/// value NAME N               the program printed NAME = N at the end
/// race-free                  Thread Sanitizer reported no data race
/// ```
///
/// Besides its checks, every run must build, end on its own in time, and finish every
/// operation it watches (no stall).
public enum ExerciseCheck: Sendable, Equatable {
  case finished(String, before: Double?)
  case started(String)
  case notStarted(String)
  case order(started: Bool, [String])
  case startsAfter(String, String)
  case value(String, Int)
  case raceFree

  /// A check with its source line and its message.
  public struct Checked: Sendable {
    public var check: ExerciseCheck
    public var source: SourceLine
    public var message: String
  }

  /// A check that cannot be read, with the column (in the check's text, 1-based) of the problem.
  public struct ParseError: Error, Sendable {
    public var column: Int
    public var message: String
    public var hint: String
  }

  /// The usage of every form, for a hint.
  static let forms =
    "finished OP [before T], started OP, not started OP, order started|finished A B..., starts B after A, value NAME N, race-free"

  /// Reads a check.
  public static func parse(_ text: String) throws(ParseError) -> ExerciseCheck {
    let words = text.split(separator: " ").map(String.init)
    func bad(_ message: String) -> ParseError { ParseError(column: 1, message: message, hint: "one of: " + forms) }
    switch words.first {
    case "finished"?:
      if words.count == 2 { return .finished(words[1], before: nil) }
      if words.count == 4, words[2] == "before", let t = Double(words[3]) { return .finished(words[1], before: t) }
      throw bad("expected `finished OP` or `finished OP before T`")
    case "started"?:
      guard words.count == 2 else { throw bad("expected `started OP`") }
      return .started(words[1])
    case "not"?:
      guard words.count == 3, words[1] == "started" else { throw bad("expected `not started OP`") }
      return .notStarted(words[2])
    case "order"?:
      guard words.count >= 4, words[1] == "started" || words[1] == "finished" else {
        throw bad("expected `order started A B ...` or `order finished A B ...`")
      }
      return .order(started: words[1] == "started", Array(words.dropFirst(2)))
    case "starts"?:
      guard words.count == 4, words[2] == "after" else { throw bad("expected `starts B after A`") }
      return .startsAfter(words[1], words[3])
    case "value"?:
      guard words.count == 3, let n = Int(words[2]) else { throw bad("expected `value NAME N`") }
      return .value(words[1], n)
    case "race-free"?:
      guard words.count == 1 else { throw bad("`race-free` takes nothing after it") }
      return .raceFree
    default:
      throw bad("'\(words.first ?? "")' is not an exercise check")
    }
  }

  /// The operations the check names.
  public var operations: [String] {
    switch self {
    case .finished(let op, _), .started(let op), .notStarted(let op): [op]
    case .order(_, let ops): ops
    case .startsAfter(let b, let a): [b, a]
    case .value, .raceFree: []
    }
  }
}
