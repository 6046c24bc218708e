import OpLabCore

extension SwiftCode {
  /// `export swift DIR`: the world as a SwiftPM package, each file's text.
  public struct Package: Sendable, Equatable {
    /// The package's, its executable target's and product's name.
    public var name: String
    /// `Package.swift`: this toolchain's tools version, Swift 6 language mode.
    public var manifest: String
    /// `Sources/NAME/main.swift`: the program.
    public var program: String
    /// `Sources/NAME/Harness.swift`: the lab's clock and stand-ins (``harness(tickSeconds:)``),
    /// then how each operation that can fail, return early or stop says it ended.
    public var harness: String

    /// Each file's path inside the package, with its text.
    public var files: [(path: String, text: String)] {
      [("Package.swift", manifest), ("Sources/\(name)/main.swift", program), ("Sources/\(name)/Harness.swift", harness)]
    }
  }

  /// The first line of what an export writes after its tools version: how the lab knows a
  /// folder it may write over (a previous export's).
  public static let exportedMark = "// Exported by OpLab: this world on Foundation's real OperationQueue."

  /// The tools version a package the lab writes declares: the oldest that reads its
  /// manifest (`swiftLanguageModes` came with 6.0), so any Swift 6 toolchain builds it.
  public static let toolsVersion = "6.0"

  /// `export swift FILE`: the world's program as one self-contained `main.swift` that plays
  /// the world on the real OperationQueue in scaled real time (`tickSeconds` a tick), as
  /// `real` does, and prints what happened, so it can disagree with the lab: each
  /// operation's start and finish as event lines (`t=N  NAME started`), the shared
  /// variables at the end, and a stall when work never finished.
  ///
  /// The program comes first, the `swift` view's text (``render(_:focus:)``): each command
  /// at its tick (`sleep(untilTick:)`), steps a tick each on shared variables and locks,
  /// and each wait the real call on the thread the lab says (the lab's own on a thread of
  /// their own, `Lab.waitOnTheLabsThread`; those from main queued to the main thread), with
  /// the harness's hooks (`Lab.start`, `Lab.watch`, `Lab.printsAtTheEnd`, `Lab.end`).
  /// The harness follows after ``harnessMarker``: the clock, the stand-ins, the printer of
  /// events and the watchdog. It builds with plain `swiftc` and with `-swift-version 6
  /// -strict-concurrency=complete -warnings-as-errors`.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  /// - Returns: the program's text.
  public static func export(_ source: SwiftSource, tickSeconds: Double = 0.05) -> String {
    let (program, reporting) = mainSwift(lowered(source), source: source)
    return program + "\n" + harnessMarker + "\n" + harnessBody(tickSeconds: tickSeconds) + reporting
  }

  /// `export swift DIR`: the world as a SwiftPM package named `name` (an identifier is
  /// made of it, ``packageName(_:)``): `swift run` in DIR builds and plays it. The program
  /// is the `swift` view's, in `main.swift`; the harness is in `Harness.swift`.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - name: the folder's name, say.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  public static func exportPackage(_ source: SwiftSource, name: String, tickSeconds: Double = 0.05) -> Package {
    let target = packageName(name)
    let code = lowered(source)
    let (program, reporting) = mainSwift(code, source: source)
    // Synchronization's Mutex is in macOS 15 and later; Linux ignores `platforms`.
    let platforms = code.needsSynchronization ? "\n  platforms: [.macOS(.v15)],  // Mutex (Synchronization)" : ""
    let manifest = """
      // swift-tools-version:\(toolsVersion)
      \(exportedMark)
      // The program is Sources/\(target)/main.swift; OpLab's harness (the lab's
      // clock and stand-ins) is Sources/\(target)/Harness.swift. `swift run` plays it.
      import PackageDescription

      let package = Package(
        name: \(literal(target)),\(platforms)
        targets: [
          .executableTarget(name: \(literal(target)), path: "Sources/\(target)")
        ],
        swiftLanguageModes: [.v6]
      )

      """
    return Package(name: target, manifest: manifest, program: program, harness: harness(tickSeconds: tickSeconds) + reporting)
  }

  /// A package's name for `name` (a folder's): an identifier with a capital first letter,
  /// `my-world` → `MyWorld`; `World` when nothing of it is left.
  public static func packageName(_ name: String) -> String {
    let stem = name.hasSuffix(".swift") ? String(name.dropLast(6)) : name
    var id = variable(stem)
    if id.hasPrefix("op"), stem.first?.isNumber == true || stem.allSatisfy({ $0 == "_" }) { id = "World" + id.dropFirst(2) }
    if id.hasSuffix("Op"), reserved.contains(String(id.dropLast(2)).lowercased()) { id = String(id.dropLast(2)) + "World" }
    if id.isEmpty || id.first?.isLetter != true { id = "World" + id }
    return id.prefix(1).uppercased() + id.dropFirst()
  }

  /// The program's header: how to build and run it with the harness, and what its
  /// `Lab.…` lines are.
  static let programHeader = """
    \(exportedMark)
    // OpLab's harness (the lab's clock and stand-ins) is Harness.swift beside
    // this file in a package (`export swift DIR`), or follows the marker at
    // the end of one file (`export swift FILE.swift`). Build and run:
    //   swift run                     (in the package's folder)
    //   swiftc main.swift Harness.swift -o world && ./world
    //   swiftc FILE.swift -o world && ./world         (the one file)
    // Under Swift 6's complete checking, add these before the files:
    //   -swift-version 6 -strict-concurrency=complete -warnings-as-errors
    // Each command comes at its tick of the lab's clock (sleep(untilTick:)),
    // and each wait is the real call, on the thread the lab says. Where the
    // real queue leaves an order open (starts in the same tick), and within a
    // fraction of a tick, the real run may differ from the lab's. The Lab.…
    // lines are the harness's hooks, not OperationQueue code: Lab.watch(op)
    // prints the operation's start and finish as event lines (t=N  NAME
    // started), to read beside the lab's `events`, and waits for its
    // completion block; Lab.printsAtTheEnd prints a shared variable's value
    // at the end; Lab.start and Lab.end start the clock and keep the program
    // alive until the work is done.

    """

  /// The most operations of `world` that ran at once on worker threads: started in a queue
  /// other than main (main's run on the main thread, as does one started by hand), not yet
  /// finished. A machine with fewer cores may start some of them later (libdispatch's pool
  /// on Linux starts with one thread a core): the harness says so (`Lab.start`).
  /// - Complexity: the trace's events.
  static func mostAtOnce(_ world: World) -> Int {
    var running: Set<OpID> = []
    var most = 0
    for e in world.trace {
      guard let op = e.op else { continue }
      switch e.kind {
      case .started:
        guard let q = world.operation(op).queue, q != .main, world.operation(op).mainThreadWork == nil else { continue }
        running.insert(op)
        most = Swift.max(most, running.count)
      case .finished: running.remove(op)
      default: break
      }
    }
    return most
  }

  /// The program `code` lowered from `source` (the `swift` view, an export's `main.swift`),
  /// and the `Reporting` extensions that go after the harness.
  static func mainSwift(_ code: Program, source: SwiftSource) -> (text: String, reporting: String) {
    let lastTick = source.entries.reduce(0) { Swift.max($0, $1.end) }
    let notes = code.notes
    var out = programHeader
    for n in notes { out += fit(["// Not expressed: " + n]).joined(separator: "\n") + "\n" }
    out += "import Foundation\n" + (code.needsSynchronization ? "import Synchronization\n" : "") + "\n"
    out += code.declarations()
    let noteList = notes.isEmpty ? "" : ", notes: [\n" + notes.map { "  " + literal($0) + "," }.joined(separator: "\n") + "\n]"
    let most = mostAtOnce(source.world)
    let atOnce = most > 1 ? ", mostAtOnce: \(most)" : ""
    out += programText(
      code.pieces, before: "Lab.start(lastTick: \(lastTick)\(atOnce)\(noteList))  // the lab's clock starts: t=0\n",
      after: "// the work goes on: the harness's watcher ends the program when it is done\nLab.end()\n")
    var reporting = ""
    if !code.reporting.isEmpty {
      reporting += "\n// How each operation that can fail, return early or stop ended.\n"
      for (type, ending) in code.reporting {
        reporting += "extension \(type): Reporting {\n  var ending: Ending {\n"
        reporting += ending.map { "    " + $0 + "\n" }.joined() + "  }\n}\n"
      }
    }
    return (out, reporting)
  }
}
