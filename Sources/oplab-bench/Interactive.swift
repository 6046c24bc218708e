import Foundation
import OpLabShell

/// The issue's interactive target: every command on a lesson-sized world (100 operations)
/// answers in under 10 ms. Builds the world through the interpreter, as a learner's script
/// would, then times each command of a session that uses every kind of command.
enum Interactive {
  static let setup: [String] = {
    var lines = ["queue downloads max 3", "queue filters max 2 qos userInitiated", "machine cores 4", "frames every 4 to 80"]
    for i in 0..<50 { lines.append("op d\(i) on downloads takes \(1 + i % 7) priority \(["low", "normal", "high"][i % 3])") }
    for i in 0..<50 { lines.append("op f\(i) on filters takes \(1 + i % 3) after d\(i)\(i > 0 ? ", f\(i - 1)" : "") cancel-check every 1") }
    lines += ["tap at 3", "tap at 9"]
    return lines
  }()

  static let session = [
    "step 5", "timeline", "status", "events", "why f10", "slots downloads", "narrate", "graph",
    "cancel d7", "suspend filters", "step 3", "resume filters", "run", "timeline", "why f49", "status",
    "back 20", "timeline from 10 to 40", "goto 30", "undo", "fork", "cancel all downloads", "run", "unfork",
    "events f3", "help timeline", "wait filters", "run",
  ]

  static func run() {
    let interpreter = Interpreter()
    let start = DispatchTime.now().uptimeNanoseconds
    for line in setup {
      let reply = interpreter.execute(line)
      if let error = reply.error { print("  interactive: setup line failed: \(line): \(error.message)") }
    }
    let setupMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    var timings: [(String, Double)] = []
    var cpuTimings: [(String, Double)] = []
    for line in session {
      let t0 = DispatchTime.now().uptimeNanoseconds
      let c0 = ScriptPhase.cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
      let reply = interpreter.execute(line)
      cpuTimings.append((line, (ScriptPhase.cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3))
      timings.append((line, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6))
      if let error = reply.error { print("  interactive: '\(line)' failed: \(error.message)") }
    }
    let slowest = timings.max { $0.1 < $1.1 } ?? ("-", 0)
    let total = timings.reduce(0) { $0 + $1.1 }
    print(
      String(
        format: "interactive: %d ops set up in %.1f ms; %d commands, slowest '%@' %.2f ms, mean %.2f ms (target: each under 10 ms)",
        interpreter.world.operations.count, setupMs, timings.count, slowest.0, slowest.1, total / Double(timings.count)))
    // Every command's time, slowest first: on a shared machine one command can be caught
    // by the load, so the list shows whether the slowest stands apart.
    let each = timings.sorted { $0.1 > $1.1 }.map { String(format: "%@ %.2f", $0.0, $0.1) }
    print("  each, wall (ms): " + each.joined(separator: ", "))
    let eachCPU = cpuTimings.sorted { $0.1 > $1.1 }.map { String(format: "%@ %.2f", $0.0, $0.1) }
    print("  each, CPU (ms): " + eachCPU.joined(separator: ", "))
  }
}

/// The same DAG as a script through the interpreter, line by line, as `oplab run` reads
/// one: parsing, name checks, the journal and the echo included. Its time per line must
/// not grow with the script (no command may search every name).
///
/// With `cores`, the script starts with `machine cores N` and its queue is unlimited and
/// never suspended: each operation starts as it is added (when its dependencies allow) and
/// shares the cores with all the work running, so every line changes the shares.
enum ScriptPhase {
  static func run(_ nodes: ArraySlice<Bench.Node>, slots: Int, cores: Int? = nil) {
    var lines = cores.map { ["machine cores \($0)", "queue q"] } ?? ["queue q max \(slots)", "suspend q"]
    lines.reserveCapacity(nodes.count + 4)
    for (i, n) in zip(nodes.indices, nodes) {
      let after = n.deps.isEmpty ? "" : " after " + n.deps.map { "op\($0)" }.joined(separator: ",")
      lines.append("op op\(i) on q takes \(n.duration) priority \(n.priority)\(after)")
    }
    if cores == nil { lines.append("resume q") }
    lines.append("run")
    let interpreter = Interpreter()
    var errors = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = cpuSeconds()
    for line in lines where interpreter.execute(line).error != nil { errors += 1 }
    let cpu = cpuSeconds() - cpuStart
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(
      String(
        format: "script: %d lines (the first %d ops%@) in %.3f s, %.1f µs/line; CPU %.3f s, %.1f µs/line%@; ends at t=%d",
        lines.count, nodes.count, cores.map { ", \($0) cores" } ?? "", seconds, seconds * 1e6 / Double(lines.count),
        cpu, cpu * 1e6 / Double(lines.count), errors == 0 ? "" : ", \(errors) lines failed", interpreter.world.now))
  }

  /// The process's CPU time so far, user and system: on a shared machine the wall clock
  /// also counts the time spent waiting for a core.
  static func cpuSeconds(_ clock: clockid_t = CLOCK_PROCESS_CPUTIME_ID) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
