import Foundation
import OpLabCore
import OpLabRender

/// One try of an exercise: build the learner's file, run it on the real queue, judge the
/// run by the exercise's checks. `lesson check --build`, the lesson runner and the tests
/// all come through here.
public enum ExerciseTrial {
  /// A check that failed, in the lesson's words.
  public struct Failure: Sendable, Equatable {
    /// The check as written (`value likes 2000`), or what the run did wrong besides its
    /// checks: `build`, `crash`, `stall`, `time`.
    public var what: String
    /// The lesson's message (its `else:`, placeholders filled), or the lab's.
    public var message: String
    /// What the real run showed.
    public var observed: String
  }

  /// How a try went.
  public enum Verdict: Sendable {
    /// There is no `swiftc` to build with.
    case noToolchain
    /// The compiler refused the file.
    case didNotBuild([ExerciseBuild.Diagnostic], said: String)
    /// Ctrl-C stopped the build or the run.
    case interrupted
    /// The program ran: its outcome, and the checks it failed (none: passed).
    case ran(ExerciseOutcome, failures: [Failure], errors: String)

    public var passed: Bool {
      if case .ran(_, let failures, _) = self { return failures.isEmpty }
      return false
    }

    /// What failed, as `fails:` names it: `build`, or each failed check's text.
    public var failed: [String] {
      switch self {
      case .noToolchain, .interrupted: []
      case .didNotBuild: ["build"]
      case .ran(_, let failures, _): failures.map(\.what)
      }
    }
  }

  /// Builds `source` as the exercise's program, runs it and judges it.
  /// - Parameters:
  ///   - swiftc: the compiler (``ExerciseBuild/swiftc(environment:)``); `nil`: ``Verdict/noToolchain``.
  ///   - progress: told what is happening ("building…"), for a long wait.
  public static func attempt(
    _ exercise: Exercise, source: String, swiftc: String?, interrupt: Interrupt? = nil,
    progress: ((String) -> Void)? = nil
  ) -> Verdict {
    guard let swiftc else { return .noToolchain }
    progress?(
      "Building with swiftc\(exercise.threadSanitizer ? " under Thread Sanitizer" : "") (Ctrl-C stops it)…")
    let built = ExerciseBuild.build(source, swiftc: swiftc, sanitize: exercise.threadSanitizer, interrupt: interrupt)
    defer { ExerciseBuild.clean(built) }
    if built.interrupted { return .interrupted }
    if built.timedOut {
      return .ran(
        ExerciseOutcome(), failures: [Failure(what: "time", message: "The build took too long, and the lab stopped it.", observed: "")],
        errors: "")
    }
    guard built.program != nil else { return .didNotBuild(built.diagnostics, said: built.said) }
    progress?("Running on the real OperationQueue (Ctrl-C stops it)…")
    guard let ended = ExerciseBuild.runProgram(built, seconds: 90, interrupt: interrupt) else { return .interrupted }
    if ended.interrupted { return .interrupted }
    let demangle = demangler(next: swiftc)
    let outcome = ExerciseOutcome.read(output: ended.output, errors: ended.errors, demangle: demangle)
    var failures: [Failure] = []
    if ended.timedOut {
      failures.append(Failure(what: "time", message: "The program did not end on its own, and the lab stopped it.", observed: ""))
    } else if let signal = ended.signal ?? (ended.status == 128 + 4 || ended.status == 128 + 5 ? ended.status - 128 : nil) {
      failures.append(Failure(what: "crash", message: "The program crashed (signal \(signal)).", observed: crash(in: ended.errors)))
    }
    if !outcome.stalled.isEmpty {
      failures.append(
        Failure(what: "stall", message: stallMessage(outcome), observed: "the harness waited 20 ticks past the last command"))
    }
    for checked in exercise.checks {
      if let observed = observed(checked.check, in: outcome) {
        failures.append(Failure(what: checked.source.text, message: fill(checked.message, from: outcome), observed: observed))
      }
    }
    return .ran(outcome, failures: failures, errors: ended.errors)
  }

  /// Why the run's stalled operations never finished, by what the harness saw of each: one
  /// that started was never heard to finish; one that never started was never found ready
  /// (an isReady nobody said had changed, a dependency never heard to finish) or never got a
  /// slot.
  static func stallMessage(_ o: ExerciseOutcome) -> String {
    let running = o.stalled.filter { o.operations[$0]?.start != nil }
    let waiting = o.stalled.filter { o.operations[$0]?.start == nil }
    var said: [String] = []
    if !running.isEmpty {
      said.append("\(list(running)) never finished: the queue never learned \(running.count == 1 ? "it was" : "they were") done.")
    }
    if !waiting.isEmpty {
      let it = waiting.count == 1 ? "it" : "them"
      said.append("\(list(waiting)) never started: the queue never found \(it) ready, or never had a free slot for \(it).")
    }
    return said.joined(separator: " ")
  }

  /// What a crashed program said on standard error, in a line: a fatal error's message, or
  /// the crash and the first function of the program on the crashed thread's backtrace.
  static func crash(in errors: String) -> String {
    let lines = errors.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    if let fatal = lines.first(where: { $0.contains("Fatal error") }) { return fatal }
    var said = ""
    if let line = lines.first(where: { $0.hasPrefix("*** Program crashed: ") }) {
      said = String(line.dropFirst("*** Program crashed: ".count).prefix { $0 != "*" })
      if let at = said.range(of: " at 0x") { said = String(said[..<at.lowerBound]) }
    }
    // The crashed thread's first frame in the program (` in program`), by its name.
    if let thread = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }),
      let frame = lines[thread...].first(where: { $0.hasSuffix(" in program") }),
      let address = frame.range(of: " 0x")
    {
      // `5 [ra]  0x0000563bc820db58 static MainActor.assumeIsolated<A>(_:file:line:) + 87 in program`
      let name = frame[address.upperBound...].drop { $0 != " " }.trimmingCharacters(in: .whitespaces)
      let function = name.range(of: " + ", options: .backwards).map { String(name[..<$0.lowerBound]) } ?? name
      said += (said.isEmpty ? "" : ", ") + "in " + function
    }
    return said
  }

  /// What the run showed that breaks `check`; `nil` when the check holds.
  static func observed(_ check: ExerciseCheck, in o: ExerciseOutcome) -> String? {
    func at(_ t: Double?) -> String { t.map { "t=" + SideBySide.format($0) } ?? "never" }
    switch check {
    case .finished(let op, let before):
      guard let end = o.operations[op]?.end else { return "\(op) never finished" }
      if let before, end >= before { return "\(op) finished at \(at(end))" }
      return nil
    case .started(let op):
      return o.operations[op]?.start == nil ? "\(op) never started" : nil
    case .notStarted(let op):
      return o.operations[op]?.start.map { "\(op) started at \(at($0))" }
    case .order(let started, let ops):
      // By the ticks, to a hundredth: the harness's watcher looks every millisecond and may
      // print what it saw in one look in any order, so a hair's difference is no order.
      let verb = started ? "started" : "finished"
      let ticks = ops.map { started ? o.operations[$0]?.start : o.operations[$0]?.end }
      for (i, t) in ticks.enumerated() {
        guard let t else { return "\(ops[i]) never \(verb)" }
        if i > 0, let previous = ticks[i - 1], t < previous - sameLook {
          return "\(ops[i]) \(verb) at \(at(t)), before \(ops[i - 1]) (\(at(previous)))"
        }
      }
      return nil
    case .startsAfter(let b, let a):
      guard let start = o.operations[b]?.start else { return "\(b) never started" }
      guard let end = o.operations[a]?.end, end <= start + sameLook else {
        return "\(b) started at \(at(start)), and \(a) finished at \(at(o.operations[a]?.end))"
      }
      return nil
    case .value(let name, let n):
      guard let v = o.values[name] else { return "the program printed no value of \(name)" }
      return v == n ? nil : "\(name) was \(v)"
    case .raceFree:
      let races = o.realRaces
      return races.isEmpty ? nil : "Thread Sanitizer reported " + races.map(\.summary).joined(separator: "; ")
    }
  }

  /// How far apart (in ticks) two events may be printed and still be one look of the
  /// harness's watcher: its order among them says nothing.
  static let sameLook = 0.05

  /// `{finished OP}`, `{started OP}` and `{value NAME}` in a message, from the real run.
  static func fill(_ message: String, from o: ExerciseOutcome) -> String {
    var text = message
    for (name, op) in o.operations {
      text = text.replacingOccurrences(of: "{finished \(name)}", with: op.end.map { "t=" + SideBySide.format($0) } ?? "never")
      text = text.replacingOccurrences(of: "{started \(name)}", with: op.start.map { "t=" + SideBySide.format($0) } ?? "never")
    }
    for (name, value) in o.values { text = text.replacingOccurrences(of: "{value \(name)}", with: "\(value)") }
    // What the run never printed.
    while let open = text.range(of: "{value "), let close = text[open.upperBound...].firstIndex(of: "}") {
      text.replaceSubrange(open.lowerBound...close, with: "no")
    }
    for kind in ["finished", "started"] {
      while let open = text.range(of: "{\(kind) "), let close = text[open.upperBound...].firstIndex(of: "}") {
        text.replaceSubrange(open.lowerBound...close, with: "never")
      }
    }
    return text
  }

  /// The `{…}` placeholders of a message, without their braces.
  static func placeholders(in message: String) -> [String] {
    var found: [String] = []
    var rest = message[...]
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
      found.append(String(rest[rest.index(after: open)..<close]))
      rest = rest[rest.index(after: close)...]
    }
    return found
  }

  /// Whether ``fill(_:from:)`` fills a placeholder: `finished OP`, `started OP`, `value NAME`.
  static func fills(_ placeholder: String) -> Bool {
    let words = placeholder.split(separator: " ")
    return words.count == 2 && ["finished", "started", "value"].contains(String(words[0]))
  }

  static func list(_ names: [String]) -> String {
    names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
  }

  /// Turns Swift symbols into names with the toolchain's `swift-demangle`, beside `swiftc`.
  static func demangler(next swiftc: String) -> (String) -> String {
    let tool = (swiftc as NSString).deletingLastPathComponent + "/swift-demangle"
    guard FileManager.default.isExecutableFile(atPath: tool) else { return { $0 } }
    return { symbol in
      guard symbol.hasPrefix("$s") else { return symbol }
      let ended = ExerciseBuild.run(
        tool, ["--compact", symbol], in: FileManager.default.temporaryDirectory, seconds: 10,
        interrupt: nil)
      let name = ended.output.trimmingCharacters(in: .whitespacesAndNewlines)
      return name.isEmpty ? symbol : name
    }
  }
}
