import Foundation
import OpLabCore
import OpLabRender

/// What a learner is shown after a try: the compiler's errors in their own file, or the
/// real run's timeline under the lab's prediction for the intended world, and each check
/// it failed in the lesson's words.
enum ExerciseReport {
  static func render(
    _ verdict: ExerciseTrial.Verdict, exercise e: Exercise, path: String, source: String, options: ShellOptions
  ) -> String {
    let width = min(options.width, 80)
    func prose(_ text: String) -> String { Wrap.paragraph(text, width: width, ascii: options.ascii) + "\n" }
    switch verdict {
    case .noToolchain:
      return prose("There is no Swift toolchain here (`swiftc` is not on your PATH): `skip` shows a solution and goes on.")
    case .interrupted:
      return prose("Stopped (Ctrl-C). Your file is as it was: `try` builds and runs it again.")
    case .didNotBuild(let diagnostics, let said):
      return compileErrors(diagnostics, said: said, path: path, source: source, width: width, prose: prose)
    case .ran(let outcome, let failures, _):
      var out = ""
      if !outcome.operations.isEmpty || !e.lab.isEmpty {
        let (lanes, end) = lanes(e, outcome: outcome, options: options)
        out += "The lab's prediction for the intended world, and your program on the real queue:\n\n"
        out += SideBySide.render(lanes, end: end, width: options.width, ascii: options.ascii) + "\n"
        // What differs beyond timing noise, in words (the rows marked ≠).
        let differences = SideBySide.compare(lanes).differences.filter { !$0.isOpenOrder }
        // (Not when Thread Sanitizer's reports have made every time late.)
        if !differences.isEmpty, !e.lab.isEmpty, !(e.threadSanitizer && !outcome.races.isEmpty) {
          out += "Where your program's run differs from the lab's by more than timing noise:\n"
          for d in differences.prefix(4) { out += Wrap.paragraph("  • " + d.text, width: width, ascii: options.ascii) + "\n" }
        }
      }
      if e.threadSanitizer, !outcome.races.isEmpty {
        out += prose("(Thread Sanitizer stops the threads while it writes a report: the real run's times are late for it.)")
      }
      if !outcome.values.isEmpty {
        out += prose("At the end: " + outcome.values.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ") + ".")
      }
      let waived = outcome.races.filter(\.insideMutex)
      if !waived.isEmpty {
        out += prose(
          "Thread Sanitizer reported \(waived.count == 1 ? "a race" : "\(waived.count) races") inside a Mutex's withLock: on Linux TSan cannot see Synchronization's Mutex (it locks with futexes TSan does not intercept), so these are false alarms, not counted."
        )
      }
      if failures.isEmpty {
        return out
          + prose("✓ The real run did what the exercise asks (\(e.checks.count) check\(e.checks.count == 1 ? "" : "s"), every operation finished).")
      }
      out += "Not yet:\n"
      // A stalled operation's own checks would only say again that it never finished.
      let stalled = Set(outcome.stalled)
      // Nor, after a crash or a stop, the values it never got to print.
      let cutShort = failures.contains { $0.what == "crash" || $0.what == "time" }
      let shownFailures = failures.filter { f in
        if cutShort, f.observed.hasPrefix("the program printed no value") { return false }
        return f.what == "stall" || !stalled.contains(where: { f.observed.hasPrefix($0 + " never") })
      }
      for f in shownFailures {
        let seen = f.observed.isEmpty ? "" : " (the real run: \(f.observed))"
        out += Wrap.paragraph("✗ " + f.message + seen, width: width, ascii: options.ascii) + "\n"
      }
      return out + prose("Edit your file (`edit`), then `try` again; `hint` helps.")
    }
  }

  /// The compiler's errors, placed in the learner's file with its line under each, and a hint.
  static func compileErrors(
    _ diagnostics: [ExerciseBuild.Diagnostic], said: String, path: String, source: String, width: Int,
    prose: (String) -> String
  ) -> String {
    let errors = diagnostics.filter { $0.kind == "error" }
    guard !errors.isEmpty else {
      let first = said.split(separator: "\n").prefix(8).joined(separator: "\n")
      return "Your file does not build; the compiler said:\n" + first + "\n"
    }
    var out = "Your file does not build (\(errors.count) error\(errors.count == 1 ? "" : "s")):\n"
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    for d in errors.prefix(4) {
      if d.inHarness {
        out += prose("In the lab's harness, not your file: \(d.message)")
        continue
      }
      out += "\(path):\(d.line):\(d.column): error: \(d.message)\n"
      if d.line >= 1, d.line <= lines.count {
        let text = String(lines[d.line - 1])
        let number = String(d.line)
        out += " \(number) | \(text)\n"
        out += String(repeating: " ", count: number.count + 2) + "| " + String(repeating: " ", count: max(0, d.column - 1)) + "^\n"
      }
    }
    if errors.count > 4 { out += "(and \(errors.count - 4) more)\n" }
    out += prose("hint: " + hint(for: errors))
    return out
  }

  /// A hint for the first error the lab recognises.
  static func hint(for errors: [ExerciseBuild.Diagnostic]) -> String {
    for d in errors {
      let m = d.message
      if d.inHarness {
        return "a name of yours clashes with one the harness declares (\(ExerciseHarness.declaredNames.joined(separator: ", "))): rename yours."
      }
      if m.contains("main actor-isolated") {
        return
          "the user interface is @MainActor: from a queue's block, hop to main with `DispatchQueue.main.async { … }` (or `OperationQueue.main.addOperation { MainActor.assumeIsolated { … } }`)."
      }
      if m.contains("concurrency-safe") || m.contains("Sendable") || m.contains("data race") {
        return
          "state shared between threads must be protected: keep it in a Mutex, or behind a lock in a class that says (in a comment) why it is @unchecked Sendable."
      }
      if m.contains("cannot find") {
        return "check the spelling; the harness gives work(ticks:), startWork(ticks:then:), Lab.watch(_:) and Lab.printsAtTheEnd(_:_:)."
      }
    }
    return "`hint` helps with the exercise; `restart` gives back the starting file."
  }

  /// The lab's world for the exercise (its `lab:` commands, run to the end) and the real
  /// run, one lane per operation the real run named, in the order it named them.
  static func lanes(_ e: Exercise, outcome: ExerciseOutcome, options: ShellOptions) -> ([SideBySide.Lane], Tick) {
    let interpreter = Interpreter(options: options)
    for c in e.lab { _ = interpreter.execute(c.text) }
    if !e.lab.isEmpty { _ = interpreter.execute("run") }
    let world = interpreter.world
    var lab: [OpID: SideBySide.Run] = [:]
    for event in world.trace {
      guard let op = event.op else { continue }
      switch event.kind {
      case .started: lab[op, default: .init()].start = Double(event.tick)
      case .skipped: lab[op, default: .init()].skipped = true
      case .finished(let how):
        lab[op, default: .init()].end = Double(event.tick)
        lab[op, default: .init()].outcome = how
      default: break
      }
    }
    // The lab's operations by queue, then any the real run named that the lab has not.
    var names: [String] = world.operationsByQueue().queued.flatMap { $0 }.map { world.name($0) }
    names += outcome.names.filter { !names.contains($0) }
    var lanes: [SideBySide.Lane] = []
    for name in names {
      let real = outcome.operations[name] ?? ExerciseOutcome.Op()
      let id = world.operationID(named: name)
      let queue = id.flatMap { world.operation($0).queue }.map { world.name($0) } ?? "the program's"
      var run = SideBySide.Run(start: real.start, end: real.end, outcome: ending(real.how))
      run.skipped = real.start == nil && real.how == "cancelled"
      lanes.append(SideBySide.Lane(name: name, queue: queue, lab: id.flatMap { lab[$0] } ?? .init(), real: run))
    }
    // Drawn grouped by queue, the queues in the order the run first named them.
    var queues: [String] = []
    for lane in lanes where !queues.contains(lane.queue) { queues.append(lane.queue) }
    let grouped = queues.flatMap { q in lanes.filter { $0.queue == q } }
    let end = max(world.now, Tick(outcome.lastTick.rounded(.up)))
    return (grouped, end)
  }

  static func ending(_ how: String?) -> Outcome? {
    switch how {
    case "succeeded"?: .succeeded
    case "cancelled"?: .cancelled
    case "failed"?: .failed
    case "returned early"?: .bailed
    default: nil
    }
  }
}
