import OpLabCore
import OpLabSwift

/// The one place the exercises meet the export's harness (OpLabSwift's `SwiftCode`): the
/// harness's text, and the program-facing entry points an exercise file calls.
///
/// An exercise file is a program as `export swift` writes one, before its harness: it
/// starts the lab's clock (`Lab.start(lastTick:)`), names and watches its operations
/// (`Lab.watch`), lets the clock run to a tick (`sleep(untilTick:)`), stands for real work with
/// `work(ticks:)` and `startWork(ticks:then:)`, prints shared values at the end
/// (`Lab.printsAtTheEnd`) and hands the main thread to the harness (`Lab.end()`). The lab
/// builds it as `main.swift` beside the harness as `harness.swift`. When the export is
/// reworked and renames these, the exercise tests (which really build with `swiftc`) fail
/// here, and this is the file to change.
enum ExerciseHarness {
  /// The harness's calls an exercise file may make, as they appear in its text.
  static let entryPoints = [
    "Lab.start(lastTick:", "Lab.watch(", "sleep(untilTick:", "Lab.end()", "Lab.printsAtTheEnd(", "work(ticks:",
    "startWork(ticks:",
  ]

  /// The harness's types an exercise file may use: an operation conforms to `Reporting` to
  /// say how it ended (`Ending`), when isFinished alone does not.
  static let types = ["protocol Reporting", "enum Ending"]

  /// The entry points and types `harness` does not declare (after a rename in the export):
  /// each call form's declaration, `Lab.watch(` as `static func watch(`.
  static func missing(in harness: String) -> [String] {
    // A declaration names its first label and may go on with a parameter name
    // (`func sleep(untilTick tick: Int)`): matched up to the label.
    let declarations = entryPoints.map { entry in
      let form = entry.hasSuffix(":") ? String(entry.dropLast()) : entry
      return form.hasPrefix("Lab.") ? "static func " + form.dropFirst(4) : "func " + form
    }
    // A parameter list laid out on lines of its own (`func start(\n  lastTick:`) reads as one.
    let flat = harness.replacing(/\(\n\s*/, with: "(")
    return (declarations + types).filter { !flat.contains($0) }
  }

  /// The calls of the harness's `Lab` in an exercise file that are not among its entry points.
  static func unknownCalls(in program: String) -> [String] {
    var found: [String] = []
    var rest = program[...]
    while let at = rest.range(of: "Lab.") {
      let call = rest[at.lowerBound...].prefix { $0 != ")" && $0 != "\n" && $0 != " " }
      if !entryPoints.contains(where: { call.hasPrefix($0.prefix { $0 != ")" }) }), !found.contains(String(call)) {
        found.append(String(call))
      }
      rest = rest[at.upperBound...]
    }
    return found
  }

  /// Names the harness declares at the top level: a learner's declaration of one of them
  /// clashes, and the compiler says so in the harness.
  static let declaredNames = ["Lab", "work", "startWork", "Ending", "Reporting", "WorkError"]

  /// The real seconds a tick takes in an exercise: long enough that a busy machine's thread
  /// wake-ups stay well under a tick, short enough that a run takes a few seconds.
  static let tickSeconds = 0.1
  /// The same under Thread Sanitizer, which slows every access and stops the threads while
  /// it writes a report.
  static let sanitizedTickSeconds = 0.25

  /// The harness as a file of its own (`harness.swift`), a tick being `tickSeconds`.
  static func text(tickSeconds: Double) -> String {
    let export = SwiftCode.export(SwiftSource(entries: [], world: World()), tickSeconds: tickSeconds)
    guard let marker = export.range(of: SwiftCode.harnessMarker) else { return "" }
    // An empty world declares no operations, so nothing follows the harness.
    return "import Foundation\nimport Synchronization\n\n" + export[marker.lowerBound...]
  }
}
