import Foundation
import OpLabCore
import OpLabSwift
import Synchronization
import TestSupport
import Testing

@testable import OpLabShell

/// The export of every example, every lesson world and seeded random worlds, built with plain
/// `swiftc` and with the strict flags, then run: each program's timeline, final values and
/// stall against the lab's (#28): every other world as one file, the rest as a package's
/// two files (two of them built by SwiftPM in the full sweep). The normal suite sweeps a representative subset; with
/// OPLAB_SWIFT_SWEEP=full (`make test-swift`) every world and 30 random ones.
extension DifferentialTests {
  /// One world to export: its name in messages, the lab that made it, and whether the real
  /// queue plays it one way only (then the timeline is compared, not only names and stall).
  struct SweptWorld {
    var name: String
    var lab: Interpreter
    var deterministic: Bool
  }

  static var fullSweep: Bool { ProcessInfo.processInfo.environment["OPLAB_SWIFT_SWEEP"] == "full" }

  /// A random world of the kinds the issue names: steps on a shared variable, locks, gates,
  /// cancels, waits from main, then a run. Operations on one serial queue each step in turn,
  /// so their order is the real queue's too.
  static func randomWorld(seed: UInt64) -> [String] {
    var rng = SplitMix64(seed: seed)
    func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    func number(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(rng.next() % UInt64(range.count)) }
    var lines = ["platform linux", "var count = \(number(0...9))", "lock m", "queue s max 1", "queue p max \(number(2...3))"]
    let names = ["a", "b", "c", "d", "e"].prefix(number(3...5))
    var made: [String] = []
    for name in names {
      let queue = pick(["s", "s", "p"])
      let body = pick([
        "takes \(number(1...3))", "takes 3 does read count, compute 1, write count",
        "takes 6 does lock m, read count, compute 2, write count, unlock m", "takes 4 cancel-check every 1",
      ])
      let after = made.isEmpty || rng.next() % 3 != 0 ? "" : " after \(pick(made))"
      let gate = rng.next() % 5 == 0 ? " gate g" : ""
      lines.append("op \(name) on \(queue) \(body)\(after)\(gate)")
      made.append(name)
    }
    lines.append("step \(number(1...2))")
    if rng.next() % 2 == 0 { lines.append("cancel \(pick(made))") }
    if lines.contains(where: { $0.hasSuffix("gate g") }) { lines.append(pick(["open g", "step 1"])) }
    if rng.next() % 2 == 0 { lines.append("wait \(pick(made)) from main") }
    lines.append("run")
    return lines
  }

  /// The worlds swept: all of them with `full`, else a representative few.
  static func sweptWorlds(full: Bool) throws -> [SweptWorld] {
    var worlds: [SweptWorld] = []
    let examples = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Examples").path)
      .filter { $0.hasSuffix(".oplab") }.sorted()
    for file in examples where full || ["pipeline.oplab", "frozen-ui.oplab", "direct-calls.oplab"].contains(file) {
      let lab = Interpreter()
      let script = try String(contentsOf: repository.appendingPathComponent("Examples/\(file)"), encoding: .utf8)
      for line in script.split(separator: "\n") where !line.hasPrefix("#") { _ = lab.execute(String(line)) }
      worlds.append(SweptWorld(name: file, lab: lab, deterministic: deterministicExamples.contains(file)))
    }
    let lessons = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Lessons").path)
      .filter { $0.hasSuffix(".lesson") }.sorted()
    for file in lessons where full || ["02-operation-life.lesson", "13-races.lesson", "14-lock-order.lesson"].contains(file) {
      let path = repository.appendingPathComponent("Lessons/\(file)").path
      let lesson = try LessonParser.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
      worlds.append(SweptWorld(name: file, lab: lesson.solved(), deterministic: deterministicLessons.contains(file)))
    }
    for seed in UInt64(1)...(full ? 30 : 4) {
      let lab = Interpreter()
      for line in randomWorld(seed: seed) {
        let reply = lab.execute(line)
        try #require(reply.error == nil, "seed \(seed): \(line): \(reply.error?.message ?? "")")
      }
      // A command in the tick an operation finishes races that finish on the real queue
      // (the lab puts the finish first): an order left open, so only names and stall count.
      let finishTicks = Set(lab.world.trace.compactMap { e -> Tick? in if case .finished = e.kind { e.tick } else { nil } })
      let open = lab.swiftSource().entries.contains { entry in
        entry.tick > 0 && finishTicks.contains(entry.tick)
          && entry.actions.contains {
            switch $0 {
            case .step, .runUntil, .runUntilIdle, .runUntilFinished: false
            default: true
            }
          }
      }
      worlds.append(SweptWorld(name: "random world \(seed)", lab: lab, deterministic: !open))
    }
    return worlds
  }

  /// What a program printed: each operation's start and finish (exact ticks), the values
  /// at the end, and whether it said it stalled.
  struct Printed {
    var starts: [String: Double] = [:]
    var finishes: [String: (tick: Double, how: String)] = [:]
    var values = ""
    var stalled = false

    init(_ text: String) {
      for line in text.split(separator: "\n").map(String.init) {
        if line.hasPrefix("at the end: ") { values = String(line.dropFirst("at the end: ".count)) }
        guard line.hasPrefix("t="), let at = line.range(of: "  @", options: .backwards),
          let tick = Double(line[at.upperBound...])
        else { continue }
        let words = line[..<at.lowerBound].split(separator: " ", maxSplits: 2).map(String.init)
        guard words.count >= 2 else { continue }
        if words[1] == "stalled:" { stalled = true }
        guard words.count == 3 else { continue }
        if words[2] == "started" { starts[words[1]] = tick }
        if words[2].hasPrefix("finished (") { finishes[words[1]] = (tick, String(words[2].dropFirst(10).dropLast())) }
      }
    }
  }

  /// The most operations (main-thread work aside) running at once in the lab's world.
  static func mostAtOnce(_ lab: World) -> Int {
    var running = 0
    var most = 0
    for e in lab.trace {
      guard let op = e.op, lab.operation(op).mainThreadWork == nil else { continue }
      if case .started = e.kind { running += 1 }
      if case .finished = e.kind, lab.trace.contains(where: { $0.op == op && $0.kind == .started }) { running -= 1 }
      most = Swift.max(most, running)
    }
    return most
  }

  /// What in a program's printed run disagrees with the lab's world: other operations, a
  /// stall where the lab has none or none where it has one, other values at the end and, for
  /// a world the real queue plays one way only, a start or finish more than `slack` ticks
  /// from the lab's (after the whole run's shift, at most a tick: the process starting late
  /// on a busy machine moves every event alike) or another ending.
  static func disagreements(_ world: SweptWorld, _ text: String, slack: Double) -> [String] {
    let lab = world.lab.world
    let printed = Printed(text)
    var starts: [String: Double] = [:]
    var finishes: [String: (tick: Double, how: String)] = [:]
    for e in lab.trace {
      guard let op = e.op, lab.operation(op).mainThreadWork == nil, !lab.operation(op).isBarrier else { continue }
      let name = lab.name(op)
      switch e.kind {
      case .started: starts[name] = Double(e.tick)
      case .finished(let outcome):
        let how =
          switch outcome {
          case .succeeded: "succeeded"
          case .failed: "failed"
          case .bailed: "returned early"
          case .cancelled, .dropped: "cancelled"
          }
        finishes[name] = (Double(e.tick), how)
      default: break
      }
    }
    var problems: [String] = []
    let unfinished = lab.unfinishedOperations().filter { lab.operation($0).mainThreadWork == nil }
    if printed.stalled != !unfinished.isEmpty { problems.append("a stall: the lab has \(unfinished.count) unfinished") }
    if Set(printed.finishes.keys) != Set(finishes.keys) {
      problems.append("finished \(printed.finishes.keys.sorted()), the lab \(finishes.keys.sorted())")
    }
    // More work at once than this machine has cores: libdispatch's pool (rule 29) lets
    // the rest wait for a thread, which the lab's unlimited machine does not model.
    guard world.deterministic, Self.mostAtOnce(lab) <= ProcessInfo.processInfo.activeProcessorCount else {
      return problems
    }
    if let shared = lab.shared, !shared.variableNames.isEmpty {
      let values = shared.variableNames.enumerated().map { "\($1) = \(shared.values[$0])" }.joined(separator: ", ")
      if printed.values != values { problems.append("values \(printed.values), the lab \(values)") }
    }
    // The shift is the first start's: the process's late start, not the queue's doing.
    let first = starts.min { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }
    let shift = first.flatMap { f in printed.starts[f.key].map { Swift.min(1, Swift.max(0, $0 - f.value)) } } ?? 0
    for (name, tick) in starts where abs((printed.starts[name] ?? -99) - shift - tick) > slack {
      problems.append("\(name) started at \(printed.starts[name] ?? -1), the lab at \(tick) (shift \(shift))")
    }
    for (name, end) in finishes {
      let real = printed.finishes[name]
      if real?.how != end.how { problems.append("\(name) ended \(real?.how ?? "-"), the lab \(end.how)") }
      if abs((real?.tick ?? -99) - shift - end.tick) > slack {
        problems.append("\(name) finished at \(real?.tick ?? -1), the lab at \(end.tick) (shift \(shift))")
      }
    }
    return problems
  }

  @Test(
    "The export of examples, lesson worlds and seeded random worlds (steps, locks, gates, cancels, waits from main) builds with plain swiftc and under Swift 6 with complete checking and warnings as errors, and its run agrees with the lab: timeline within a quarter tick where the real queue is deterministic, final values, and a stall exactly when the lab has one"
  )
  func exportsAgreeWithTheLab() throws {
    let worlds = try Self.sweptWorlds(full: Self.fullSweep)
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let tickSeconds = 0.1
    // Every other world as a package's two files (main.swift, Harness.swift), the rest as
    // one file; in the full sweep two packages are built by SwiftPM too (`swift build`, slow).
    let swiftPM = Set(Self.fullSweep ? [1, 3] : [Int]())
    @Sendable func sources(_ i: Int) -> URL {
      i % 2 == 0 ? dir.appendingPathComponent("w\(i)") : dir.appendingPathComponent("w\(i)/Sources/W\(i)")
    }
    for (i, world) in worlds.enumerated() {
      let folder = dir.appendingPathComponent("w\(i)")
      try FileManager.default.createDirectory(at: sources(i), withIntermediateDirectories: true)
      if i % 2 == 0 {
        try SwiftCode.export(world.lab.swiftSource(), tickSeconds: tickSeconds)
          .write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
      } else {
        let package = SwiftCode.exportPackage(world.lab.swiftSource(), name: "w\(i)", tickSeconds: tickSeconds)
        for (path, text) in package.files {
          try text.write(to: folder.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }
      }
    }
    // Both builds of every world, two compilers at a time (the machine's cores).
    typealias Build = (status: Int32, said: String)
    let builds = Mutex([Int: (plain: Build, strict: Build)]())
    DispatchQueue.concurrentPerform(iterations: worlds.count) { i in
      let files = i % 2 == 0 ? ["main.swift"] : ["main.swift", "Harness.swift"]
      let plain = (try? Swiftc.plain(files + ["-o", "world"], in: sources(i))) ?? (-1, "could not run swiftc")
      let strict = (try? Swiftc.plain(Swiftc.strict + ["-typecheck"] + files, in: sources(i))) ?? (-1, "")
      builds.withLock { $0[i] = (plain, strict) }
    }
    var built = builds.withLock { $0 }
    // A package built by SwiftPM: its own binary is the one run.
    var binaries: [Int: String] = [:]
    for i in swiftPM.sorted() where i < worlds.count {
      let folder = dir.appendingPathComponent("w\(i)")
      let result = try Programs.run("/usr/bin/env", ["swift", "build", "--jobs", "1"], in: folder)
      built[i]?.plain = (result.status, result.status == 0 ? "" : result.output)
      binaries[i] = folder.appendingPathComponent(".build/debug/W\(i)").path
    }
    for (i, world) in worlds.enumerated() {
      let b = try #require(built[i])
      #expect(b.plain.status == 0 && !b.plain.said.contains("warning:"), "\(world.name), plain swiftc: \(b.plain.said)")
      #expect(b.strict.status == 0, "\(world.name), swiftc \(Swiftc.strict.joined(separator: " ")): \(b.strict.said)")
      guard b.plain.status == 0 else { continue }
      // One program at a time: nothing else competes for libdispatch's threads. A run that
      // disagrees is run once more: a busy machine's hiccup (a thread woken a tick late)
      // seldom comes twice, a disagreement of the program's own always does.
      var problems: [String] = []
      var output = ""
      for _ in 0..<2 {
        output = try Programs.run(
          "/usr/bin/env", ["OPLAB_EXACT_TICKS=1", binaries[i] ?? sources(i).appendingPathComponent("world").path],
          errors: .discarded
        ).output
        problems = Self.disagreements(world, output, slack: 0.25)
        if problems.isEmpty { break }
      }
      let script = world.lab.script.map(\.text).joined(separator: "; ")
      #expect(problems.isEmpty, "\(world.name) (\(script)): \(problems.joined(separator: "; "))\n\(output)")
    }
  }
}
