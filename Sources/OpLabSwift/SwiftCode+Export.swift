import OpLabCore

extension SwiftCode {
  /// `export swift FILE`: the world's program as one self-contained `main.swift` that plays
  /// the world on the real OperationQueue in scaled real time (`tickSeconds` a tick), as
  /// `real` does, and prints what happened, so it can disagree with the lab: each
  /// operation's start and finish as event lines (`t=N  NAME started`), the shared
  /// variables at the end, and a stall when work never finished.
  ///
  /// The program comes first: the `swift` view's code, with each command at its tick
  /// (`Lab.at(tick:)`), steps a tick each on shared variables and locks, and each wait the
  /// real call on the thread the lab says. The harness follows after
  /// ``harnessMarker``: the clock, the stand-ins, the printer of events and the watchdog.
  /// It builds with plain `swiftc` and with `-swift-version 6 -strict-concurrency=complete
  /// -warnings-as-errors`.
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  /// - Returns: the program's text.
  public static func export(_ source: SwiftSource, tickSeconds: Double = 0.05) -> String {
    var code = Program(world: source.world)
    code.forExport = true
    var lastTick: Tick = 0
    for entry in source.entries {
      code.add(entry)
      lastTick = Swift.max(lastTick, entry.end)
    }
    let notes = code.notes
    var out = """
      // Exported by OpLab: this world on Foundation's real OperationQueue.
      // Build and run (plain swiftc, or Swift 6 with complete checking):
      //   swiftc main.swift -o world && ./world
      //   swiftc -swift-version 6 -strict-concurrency=complete main.swift
      // The program comes first; OpLab's harness (its clock and stand-ins)
      // follows after the marker at the end. One tick of the lab's clock is
      // \(tickSeconds) s here. Each command comes at its tick; the waits are the
      // real calls, on the thread the lab says. Each operation's start and
      // finish is printed as an event line (t=N  NAME started), to read beside
      // the lab's `events`, then the shared variables. Where the real queue
      // leaves an order open (starts in the same tick), and within a fraction
      // of a tick, the real run may differ.

      """
    for n in notes { out += fit(["// Not expressed: " + n]).joined(separator: "\n") + "\n" }
    out += "import Foundation\nimport Synchronization\n\n"
    out += code.declarations(mainLoop: false)
    let noteList = notes.isEmpty ? "" : ", notes: [\n" + notes.map { "  " + literal($0) + "," }.joined(separator: "\n") + "\n]"
    out += "Lab.start(lastTick: \(lastTick)\(noteList))  // the lab's clock starts: t=0\n\n"
    out += code.pieces.map { fit($0.lines).joined(separator: "\n") }.joined(separator: "\n\n") + "\n\n"
    out += "// the work goes on: the harness's watcher ends the program when it is done\nLab.end()\n\n"
    out += harness(tickSeconds: tickSeconds)
    if !code.reporting.isEmpty {
      out += "\n// How each operation that can fail, return early or stop ended.\n"
      for (type, ending) in code.reporting {
        out += "extension \(type): Reporting {\n  var ending: Ending {\n"
        out += ending.map { "    " + $0 + "\n" }.joined() + "  }\n}\n"
      }
    }
    return out
  }
}
