import Foundation

/// What the real run of an exercise printed, read back: the harness's event lines
/// (`t=3  download finished (succeeded)  @3.02`), the values at the end, a stall, and
/// Thread Sanitizer's reports.
public struct ExerciseOutcome: Sendable {
  /// One watched operation on the real queue.
  public struct Op: Sendable, Equatable {
    /// When it started and finished, in ticks of the lab's clock (to 1/100).
    public var start: Double?
    public var end: Double?
    /// The place of its start and finish lines among all the lines: the order the harness
    /// saw them in, which ticks to 1/100 cannot always tell.
    public var startLine: Int?
    public var endLine: Int?
    /// How it ended, as the harness says: `succeeded`, `cancelled`…
    public var how: String?
  }

  /// A Thread Sanitizer report.
  public struct Race: Sendable, Equatable {
    /// Its summary, with the function named: "data race in Likes.add()".
    public var summary: String
    /// Whether both accesses are inside a `Mutex`'s `withLock`: Thread Sanitizer cannot see
    /// Synchronization's Mutex on Linux (it locks with futexes TSan does not intercept), so
    /// such a report is a false alarm.
    public var insideMutex: Bool
  }

  public var operations: [String: Op] = [:]
  /// The operations in the order the run first named them.
  public var names: [String] = []
  /// `NAME = N` from the line `at the end: …`.
  public var values: [String: Int] = [:]
  /// The operations the harness said never finished.
  public var stalled: [String] = []
  public var races: [Race] = []
  /// The races that count (not a Mutex's false alarm).
  public var realRaces: [Race] { races.filter { !$0.insideMutex } }
  /// The last tick the run printed.
  public var lastTick: Double = 0

  /// Reads a run's standard output and standard error; `demangle` turns a Swift symbol into
  /// its name (identity when there is no demangler).
  public static func read(output: String, errors: String, demangle: (String) -> String = { $0 }) -> ExerciseOutcome {
    var o = ExerciseOutcome()
    for (index, raw) in output.split(separator: "\n").enumerated() {
      let line = String(raw)
      if line.hasPrefix("at the end: ") {
        for pair in line.dropFirst("at the end: ".count).split(separator: ",") {
          let sides = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
          if sides.count == 2, let n = Int(sides[1]) { o.values[sides[0]] = n }
        }
        continue
      }
      guard line.hasPrefix("t=") else { continue }
      var tick = Double(line.dropFirst(2).prefix { $0.isNumber }) ?? 0
      var text = line.drop { $0 != " " }.trimmingCharacters(in: .whitespaces)
      if let at = text.range(of: "  @", options: .backwards), let exact = Double(text[at.upperBound...]) {
        tick = exact
        text = String(text[..<at.lowerBound])
      }
      o.lastTick = max(o.lastTick, tick)
      if text.hasPrefix("stalled: "), text.hasSuffix(" never finished") {
        let list = text.dropFirst("stalled: ".count).dropLast(" never finished".count)
        o.stalled = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        continue
      }
      let words = text.split(separator: " ", maxSplits: 2).map(String.init)
      guard words.count >= 2 else { continue }
      let name = words[0]
      if o.operations[name] == nil, words[1] == "started" || words[1] == "finished" { o.names.append(name) }
      if words[1] == "started" {
        o.operations[name, default: Op()].start = tick
        o.operations[name, default: Op()].startLine = index
      } else if words[1] == "finished" {
        o.operations[name, default: Op()].end = tick
        o.operations[name, default: Op()].endLine = index
        if words.count == 3 { o.operations[name, default: Op()].how = words[2].trimmingCharacters(in: CharacterSet(charactersIn: "()")) }
      }
    }
    o.races = races(in: errors, demangle: demangle)
    return o
  }

  /// Thread Sanitizer's reports in `errors`.
  static func races(in errors: String, demangle: (String) -> String) -> [Race] {
    var found: [Race] = []
    var kind: String?
    var firstFrames: [String] = []
    var expectFrame = false
    func close() {
      guard let k = kind else { return }
      let names = firstFrames.map(demangle)
      let place = names.first.map { " in " + shortName($0) } ?? ""
      let insideMutex = !names.isEmpty && names.allSatisfy { $0.contains("(sending inout") }
      found.append(Race(summary: k + place, insideMutex: insideMutex))
      kind = nil
      firstFrames = []
    }
    for raw in errors.split(separator: "\n") {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("WARNING: ThreadSanitizer: ") {
        close()
        kind = String(line.dropFirst("WARNING: ThreadSanitizer: ".count).prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
        continue
      }
      guard kind != nil else { continue }
      if line.hasPrefix("SUMMARY:") {
        close()
        continue
      }
      // The first frame under each access ("Write of size 8 … by thread T1:").
      if line.hasSuffix(":"), line.contains(" by ") || line.contains("access") {
        expectFrame = !line.hasPrefix("Location") && !line.hasPrefix("Thread") && !line.hasPrefix("Mutex")
        continue
      }
      if expectFrame, line.hasPrefix("#0 ") {
        let symbol = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        firstFrames.append(symbol)
        expectFrame = false
      }
    }
    close()
    return found
  }

  /// A demangled symbol without its module and signature: "Likes.add()".
  static func shortName(_ symbol: String) -> String {
    var s = symbol
    if let inRange = s.range(of: " in ", options: .backwards) { s = String(s[inRange.upperBound...]) }
    if let arrow = s.range(of: " -> ") { s = String(s[..<arrow.lowerBound]) }
    if let dot = s.firstIndex(of: "."), !s.hasPrefix("$") { s = String(s[s.index(after: dot)...]) }
    return s
  }
}
