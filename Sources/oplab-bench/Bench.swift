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
  @Option(
    name: .customLong("explore-only"),
    help: "The explore phase's worlds and searches to run: words each matched in a row's world or search name (e.g. '10,optimal'); all unless told.")
  var exploreOnly: String?
  @Option(
    name: .customLong("explore-repeats"),
    help: "The explore phase explores each world exactly this many times instead of for a quarter of a second (for valgrind's instruction counts).")
  var exploreRepeats: Int?
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
  @Flag(
    name: .customLong("minimal-only"),
    help:
      "Make the DAG, run only the minimal loop on it, and exit: the minimal simulator as a process of its own, to time start to exit beside OpLab's (BENCHMARKS.md)."
  )
  var minimalOnly = false

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

  /// The DAG, one operation at a time: the same operations for the same options, whether
  /// made whole (``dag()``) or fed one by one to the world as it is built.
  struct DAGStream {
    var rng: SplitMix64
    let fanIn: Int
    let durations: ClosedRange<Int>
    var next = 0
    init(_ bench: Bench) {
      // The options read once: each read of an `@Option` looks up generic metadata, which
      // in the loop took a quarter of making the DAG.
      rng = SplitMix64(seed: bench.seed)
      fanIn = bench.fanIn
      durations = bench.minDuration...bench.maxDuration
    }
    /// The next operation's node, its dependencies written into `deps` (emptied first).
    mutating func next(deps: inout [Int]) -> (duration: Int, priority: QueuePriority) {
      let i = next
      next += 1
      if !deps.isEmpty { deps.removeAll(keepingCapacity: true) }
      let count = i == 0 ? 0 : Int.random(in: 0...fanIn, using: &rng)
      for _ in 0..<count {
        let d = Int.random(in: 0..<i, using: &rng)
        if !deps.contains(d) { deps.append(d) }
      }
      let duration = Int.random(in: durations, using: &rng)
      return (duration, QueuePriority.allCases[Int.random(in: 0..<5, using: &rng)])
    }
  }

  /// The first `count` operations of the DAG, made whole (the minimal loop, the real queue
  /// and the script phase read them).
  func dag(_ count: Int? = nil) -> [Node] {
    var stream = DAGStream(self)
    var nodes: [Node] = []
    let n = count ?? ops
    nodes.reserveCapacity(n)
    for _ in 0..<n {
      var deps: [Int] = []  // a fresh array for each node, as it always was
      let (duration, priority) = stream.next(deps: &deps)
      nodes.append(Node(duration: duration, priority: priority, deps: deps))
    }
    return nodes
  }

  func run() throws {
    let wanted = Set(phases.split(separator: ",").map(String.init))
    if minimalOnly {
      let nodes = dag()
      let start = DispatchTime.now().uptimeNanoseconds
      let setup = MinimalLoop.run(nodes, slots: slots)
      let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
      print(String(format: "minimal loop: %d ops in %.3f s (setup %.3f s)", ops, seconds, setup))
      return
    }
    // The edges are counted first, for the header and to reserve the world's arrays.
    var edges = 0
    do {
      var stream = DAGStream(self)
      var deps: [Int] = []
      for _ in 0..<ops {
        _ = stream.next(deps: &deps)
        edges += deps.count
      }
    }
    print("oplab-bench: \(ops) ops, \(edges) dependencies, \(slots) slots, durations \(minDuration)-\(maxDuration), seed \(seed)")
    print(Row.header)
    var results: [String: Double] = [:]

    // The world is built from the DAG as it is made, one operation at a time: the world
    // is OpLab's copy of the input, as the minimal loop's nodes are its copy. The peak
    // resident memory is reset first, so memory counts the world only.
    Memory.resetPeak()
    let baseRSS = Memory.residentBytes()

    var world = World()
    results["build"] = try measure("build", baseRSS: baseRSS) {
      let q = try world.createQueue(name: "q", maxConcurrent: slots)
      try world.suspend(q)
      world.reserveCapacity(operations: ops, dependencies: edges)
      var stream = DAGStream(self)
      var deps: [Int] = []
      var ids: [OpID] = []
      for i in 0..<ops {
        let (duration, priority) = stream.next(deps: &deps)
        ids.removeAll(keepingCapacity: true)
        for d in deps { ids.append(OpID(d)) }
        _ = try world.addOperation(OperationSpec(name: "op\(i)", duration: duration, priority: priority), to: q, dependencies: ids)
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
    if wanted.contains("script") { ScriptPhase.run(dag(min(ops, scriptLimit))[...], slots: slots, cores: cores) }
    if wanted.contains("explore") {
      ExplorePhase.run(
        limit: exploreLimit, only: exploreOnly.map { $0.split(separator: ",").map(String.init) } ?? [], repeats: exploreRepeats)
    }
    if wanted.contains("swift") { SwiftPhase.run() }
    let total = results.values.reduce(0, +)
    print(String(format: "total %.3f s; peak RSS %.0f bytes/op", total, Double(Memory.peakBytes() - baseRSS) / Double(ops)))

    if compare {
      let nodes = dag()
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
