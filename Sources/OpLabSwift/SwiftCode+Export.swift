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

  /// The tools version of the toolchain that built the lab: a package it writes builds
  /// with that toolchain and any later one.
  public static let toolsVersion: String = {
    #if compiler(>=6.3)
    "6.3"
    #elseif compiler(>=6.2)
    "6.2"
    #elseif compiler(>=6.1)
    "6.1"
    #else
    "6.0"
    #endif
  }()

  /// `export swift FILE`: the world's program as one self-contained `main.swift` that plays
  /// the world on the real OperationQueue in scaled real time (`tickSeconds` a tick), as
  /// `real` does, and prints what happened, so it can disagree with the lab: each
  /// operation's start and finish as event lines (`t=N  NAME started`), the shared
  /// variables at the end, and a stall when work never finished.
  ///
  /// The program comes first: the `swift` view's code, with each command at its tick
  /// (`sleep(untilTick:)`), steps a tick each on shared variables and locks, and each wait
  /// the real call on the thread the lab says (the lab's own on a thread of their own,
  /// `Lab.waitOnTheLabsThread`; those from main queued to the main thread), with the
  /// harness's hooks (`Lab.start`, `Lab.watch`, `Lab.printsAtTheEnd`, `Lab.end`).
  /// The harness follows after ``harnessMarker``: the clock, the stand-ins, the printer of
  /// events and the watchdog. It builds with plain `swiftc` and with `-swift-version 6
  /// -strict-concurrency=complete -warnings-as-errors`.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  /// - Returns: the program's text.
  public static func export(_ source: SwiftSource, tickSeconds: Double = 0.05) -> String {
    let (program, reporting) = exportedProgram(
      source, tickSeconds: tickSeconds,
      build: [
        "//   swiftc main.swift -o world && ./world",
        "//   swiftc -swift-version 6 -strict-concurrency=complete main.swift",
      ],
      harnessIs: "follows after the marker at the end")
    return program + "\n" + harnessMarker + "\n" + harnessBody(tickSeconds: tickSeconds) + reporting
  }

  /// `export swift DIR`: the world as a SwiftPM package named `name` (an identifier is
  /// made of it, ``packageName(_:)``): `swift run` in DIR builds and plays it. The program
  /// is ``export(_:tickSeconds:)``'s, in `main.swift`; the harness is in `Harness.swift`.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - name: the folder's name, say.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  public static func exportPackage(_ source: SwiftSource, name: String, tickSeconds: Double = 0.05) -> Package {
    let target = packageName(name)
    let (program, reporting) = exportedProgram(
      source, tickSeconds: tickSeconds,
      build: [
        "//   swift run                     (in the package's folder)",
        "//   swiftc main.swift Harness.swift -o world && ./world",
        "//   swiftc -swift-version 6 -strict-concurrency=complete \\",
        "//     main.swift Harness.swift",
      ],
      harnessIs: "is in Harness.swift, beside this file")
    let manifest = """
      // swift-tools-version:\(toolsVersion)
      \(exportedMark)
      // The program is Sources/\(target)/main.swift; OpLab's harness (the lab's
      // clock and stand-ins) is Sources/\(target)/Harness.swift. `swift run` plays it.
      import PackageDescription

      let package = Package(
        name: \(literal(target)),
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

  /// The program of an export, and the `Reporting` extensions that go after the harness.
  static func exportedProgram(
    _ source: SwiftSource, tickSeconds: Double, build: [String], harnessIs: String
  ) -> (program: String, reporting: String) {
    var code = Program(world: source.world)
    code.forExport = true
    if let shared = source.world.shared {
      code.racy = Set(source.world.raceReport().races.map { shared.variableNames[Int($0.variable)] })
    }
    var lastTick: Tick = 0
    for entry in source.entries {
      code.add(entry)
      lastTick = Swift.max(lastTick, entry.end)
    }
    let notes = code.notes
    var out = exportedMark + "\n// Build and run (plain swiftc, or Swift 6 with complete checking):\n"
    out += build.joined(separator: "\n") + "\n"
    out += """
      // The program comes first; OpLab's harness (its clock and stand-ins)
      // \(harnessIs). One tick of the lab's clock is
      // \(tickSeconds) s here. Each command comes at its tick (sleep(untilTick:));
      // the waits are the real calls, on the thread the lab says. Each
      // operation's start and finish is printed as an event line (t=N  NAME
      // started), to read beside the lab's `events`, then the shared variables.
      // Where the real queue leaves an order open (starts in the same tick),
      // and within a fraction of a tick, the real run may differ. The Lab.…
      // lines are the harness's: the `swift` view shows the program without
      // them.

      """
    for n in notes { out += fit(["// Not expressed: " + n]).joined(separator: "\n") + "\n" }
    out += "import Foundation\nimport Synchronization\n\n"
    out += code.declarations(mainLoop: false)
    let noteList = notes.isEmpty ? "" : ", notes: [\n" + notes.map { "  " + literal($0) + "," }.joined(separator: "\n") + "\n]"
    out += programText(
      code.pieces, before: "Lab.start(lastTick: \(lastTick)\(noteList))  // the lab's clock starts: t=0\n",
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
