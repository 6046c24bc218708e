import ArgumentParser
import Foundation
import OpLabCore
import OpLabRender
import OpLabShell

/// `oplab-bench`: times the simulator on a random DAG, phase by phase, and optionally
/// compares it with the real OperationQueue and a minimal event loop on the same DAG.
@main
struct Bench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oplab-bench",
    abstract: "Benchmark the OpLab simulator on a random dependency DAG (build with -c release).")

  @Option(help: "Operations in the DAG.") var ops = 100_000
  @Option(
    help: "Phases: simulate,render,export,why,status,interactive,script,explore,swift (build always runs; explore and swift are not in the default)."
  )
  var phases = "simulate,render,export,why,status,interactive,script"
  @Option(help: "Random seed.") var seed: UInt64 = 1
  @Option(name: .customLong("explore-limit"), help: "The explore phase's cap on runs per world and search.")
  var exploreLimit = 20_000
  @Option(help: "Each operation depends on up to this many earlier ones.") var fanIn = 2
  @Option(help: "maxConcurrentOperationCount of the queue.") var slots = 4
  @Option(help: "Shortest duration in ticks.") var minDuration = 1
  @Option(help: "Longest duration in ticks.") var maxDuration = 10
  @Flag(help: "Also run the real OperationQueue and a minimal event loop on the same DAG, and print ratios.")
  var compare = false
  @Option(name: .customLong("real-limit"), help: "Largest DAG to run on the real OperationQueue with --compare.")
  var realQueueLimit = 20_000
  @Option(name: .customLong("script-limit"), help: "The script phase runs the first this many operations of the DAG.")
  var scriptLimit = 100_000
  @Option(
    help: "Run the script phase on this many cores (`machine cores N`), its queue unlimited and running, so work shares the cores as it is added.")
  var cores: Int?

  struct Node {
    var duration: Int
    var priority: QueuePriority
    var deps: [Int]
  }

  func validate() throws {
    if ops < 1 { throw ValidationError("--ops must be 1 or more") }
    if slots < 1 { throw ValidationError("--slots must be 1 or more") }
    if fanIn < 0 { throw ValidationError("--fan-in must be 0 or more") }
    if minDuration < 0 || maxDuration < minDuration || maxDuration > OperationSpec.maxDuration {
      throw ValidationError("durations need 0 <= --min-duration <= --max-duration <= \(OperationSpec.maxDuration)")
    }
    if let cores, cores < 1 || cores > Machine.maxCores { throw ValidationError("--cores must be 1 to \(Machine.maxCores)") }
  }

  func dag() -> [Node] {
    var rng = SplitMix64(seed: seed)
    var nodes: [Node] = []
    nodes.reserveCapacity(ops)
    for i in 0..<ops {
      let count = i == 0 ? 0 : Int.random(in: 0...fanIn, using: &rng)
      var deps: [Int] = []
      for _ in 0..<count {
        let d = Int.random(in: 0..<i, using: &rng)
        if !deps.contains(d) { deps.append(d) }
      }
      nodes.append(
        Node(
          duration: Int.random(in: minDuration...maxDuration, using: &rng),
          priority: QueuePriority.allCases[Int.random(in: 0..<5, using: &rng)], deps: deps))
    }
    return nodes
  }

  func run() throws {
    let wanted = Set(phases.split(separator: ",").map(String.init))
    let nodes = dag()
    let edges = nodes.reduce(0) { $0 + $1.deps.count }
    print("oplab-bench: \(ops) ops, \(edges) dependencies, \(slots) slots, durations \(minDuration)-\(maxDuration), seed \(seed)")
    print(Row.header)
    var results: [String: Double] = [:]

    // The input, made before the clock starts (as the minimal loop gets its nodes made):
    // each operation's spec, with its name, and its dependencies.
    let specs = nodes.indices.map { OperationSpec(name: "op\($0)", duration: nodes[$0].duration, priority: nodes[$0].priority) }
    let dependencies = nodes.map { $0.deps.map { OpID($0) } }
    // The input stays alive to the end (else Swift may free it after its last use, and
    // the memory it gave back would hide the world's growth), and the peak is reset.
    defer { withExtendedLifetime((specs, dependencies)) {} }
    Memory.resetPeak()
    let baseRSS = Memory.residentBytes()

    var world = World()
    results["build"] = try measure("build", baseRSS: baseRSS) {
      let q = try world.createQueue(name: "q", maxConcurrent: slots)
      try world.suspend(q)
      world.reserveCapacity(operations: specs.count, dependencies: edges)
      for i in specs.indices {
        _ = try world.addOperation(specs[i], to: q, dependencies: dependencies[i])
      }
      try world.resume(q)
    }
    if wanted.contains("simulate") {
      results["simulate"] = measure("simulate", baseRSS: baseRSS) { world.runUntilIdle() }
      print(
        "  trace: \(world.trace.count) events in \(world.trace.storedBytes) bytes (\(String(format: "%.1f", Double(world.trace.storedBytes) / Double(max(1, world.trace.count)))) bytes/event); finished at t=\(world.now); idle: \(world.isIdle)"
      )
      print("  records: \(MemoryLayout<OperationRecord>.stride) bytes/operation record, \(MemoryLayout<OperationSpec>.stride) of them its spec")
    }
    if wanted.contains("render") {
      results["render"] = measure("render", baseRSS: baseRSS) {
        _ = Timeline.render(world, from: max(0, world.now - 60), to: world.now, width: 120)
      }
    }
    if wanted.contains("export") {
      results["export"] = measure("export", baseRSS: baseRSS) {
        // Streamed, as the shell streams exports to a file: counted, then dropped.
        var sink = CountingSink()
        Exporters.eventsJSONLines(world, to: &sink)
        Exporters.chromeTrace(world, to: &sink)
        print("  export: \(sink.bytes) bytes")
      }
    }
    if wanted.contains("why") {
      results["why"] = measure("why", baseRSS: baseRSS) { _ = Why.render(OpID(ops - 1), in: world) }
    }
    if wanted.contains("status") {
      results["status"] = measure("status", baseRSS: baseRSS) { _ = Status.render(world) }
    }
    if wanted.contains("interactive") { Interactive.run() }
    if wanted.contains("script") { ScriptPhase.run(nodes.prefix(scriptLimit), slots: slots, cores: cores) }
    if wanted.contains("explore") { ExplorePhase.run(limit: exploreLimit) }
    if wanted.contains("swift") { SwiftPhase.run() }
    let total = results.values.reduce(0, +)
    print(String(format: "total %.3f s; peak RSS %.0f bytes/op", total, Double(Memory.peakBytes() - baseRSS) / Double(ops)))

    if compare {
      var setup = 0.0
      let loop = measureQuiet { setup = MinimalLoop.run(nodes, slots: slots) }
      let simulate = results["simulate", default: 0] + results["build", default: 0]
      print(
        String(
          format: "compare: minimal loop %.3f s, OpLab build+simulate %.3f s, ratio OpLab / minimal loop = %.2f", loop, simulate, simulate / loop))
      // The same split on both sides, to show where the difference lies: the loop's setup
      // (dependency counts and lists) against the build, its event loop against simulate.
      if let built = results["build"], let simulated = results["simulate"], setup > 0, loop > setup {
        print(
          String(
            format: "compare: by part: build %.3f s / loop setup %.3f s = %.2f; simulate %.3f s / event loop %.3f s = %.2f",
            built, setup, built / setup, simulated, loop - setup, simulated / (loop - setup)))
      }
      if ops <= realQueueLimit {
        let real = measureQuiet { RealQueue.run(nodes, slots: slots) }
        print(String(format: "compare: real OperationQueue %.3f s, ratio real / OpLab = %.2f", real, real / simulate))
      } else {
        print(
          "compare: real OperationQueue skipped above \(realQueueLimit) ops (--real-limit): corelibs' scheduler walks every waiting op on each pick, so this DAG is quadratic for it (40,000 ops took 41 s here)"
        )
      }
    }
  }

  func measure(_ name: String, baseRSS: Int, _ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(Row(phase: name, seconds: seconds, ops: ops, bytes: Memory.peakBytes() - baseRSS).text)
    return seconds
  }

  func measureQuiet(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  }
}

struct Row {
  var phase: String
  var seconds: Double
  var ops: Int
  var bytes: Int
  static let header = "phase        wall (s)      ns/op   peak bytes/op"
  var text: String {
    let name = phase.padding(toLength: 10, withPad: " ", startingAt: 0)
    return String(format: "%@ %10.3f %10.0f %14.0f", name, seconds, seconds * 1e9 / Double(ops), Double(bytes) / Double(ops))
  }
}

/// Resident memory from /proc (Linux).
enum Memory {
  static func field(_ name: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(name) {
      let digits = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
      return digits * 1024
    }
    return 0
  }
  static func residentBytes() -> Int { field("VmRSS:") }
  /// Sets the peak (VmHWM) to the resident memory now, so a peak measured later is the
  /// world's and not left over from making the input (whose freed buffers RSS no longer counts).
  static func resetPeak() {
    // "5" in clear_refs resets the peak resident set size (Linux 4.0 and later).
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  }
  static func peakBytes() -> Int { field("VmHWM:") }
}

/// A text stream that counts the bytes written to it and keeps none.
struct CountingSink: TextOutputStream {
  var bytes = 0
  mutating func write(_ text: String) { bytes += text.utf8.count }
}
