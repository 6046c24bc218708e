import Foundation
import OpLabCore
import TestSupport
import Testing

/// The main thread as a run loop (rule 42), on the real thing: a child program runs
/// `RunLoop.main`, with a timer standing for a tap (a run-loop event, not a main-queue
/// operation) and operations on `OperationQueue.main`, and logs when each starts and finishes.
extension DifferentialTests {
  /// The child program; `TICK` is replaced by the tick length in seconds.
  static let runLoopProgram = """
    import Foundation

    let tick = TICK
    let origin = Date()
    let lock = NSLock()
    nonisolated(unsafe) var lines: [String] = []
    func log(_ s: String) {
      let t = Date().timeIntervalSince(origin) / tick
      lock.lock(); lines.append("\\(t) \\(s)"); lock.unlock()
    }
    // m holds the main thread 0-6; x (veryHigh) waits on d (0-4) on a queue of its own.
    let q = OperationQueue()
    let d = BlockOperation { Thread.sleep(forTimeInterval: 4 * tick) }
    let m = BlockOperation { log("start m"); Thread.sleep(forTimeInterval: 6 * tick); log("finish m") }
    let x = BlockOperation { log("start x"); Thread.sleep(forTimeInterval: 1 * tick); log("finish x") }
    x.addDependency(d)
    x.queuePriority = .veryHigh
    OperationQueue.main.addOperation(m)
    OperationQueue.main.addOperation(x)
    q.addOperation(d)
    // The tap: a run-loop event at t=1, one tick of work on the main thread.
    let tap = Timer(fire: origin.addingTimeInterval(1 * tick), interval: 0, repeats: false) { _ in
      log("start tap"); Thread.sleep(forTimeInterval: 1 * tick); log("finish tap")
    }
    RunLoop.main.add(tap, forMode: .common)
    DispatchQueue.global().asyncAfter(deadline: .now() + 11 * tick) {
      lock.lock(); print(lines.joined(separator: "\\n")); lock.unlock()
      exit(0)
    }
    RunLoop.main.run()
    """

  @Test(
    "Rule 42: on a real run loop, an op enqueued on main at 0 but dispatched at 6 runs after a tap from t=1, whatever its priority, as the simulator says"
  )
  func mainThreadTakesWorkInTheOrderItBecameRunnable() throws {
    // The simulator.
    var w = World()
    let q = try w.createQueue(name: "q")
    let d = try w.addOperation(OperationSpec(name: "d", duration: 4), to: q)
    try w.addOperation(OperationSpec(name: "m", duration: 6), to: .main)
    try w.addOperation(OperationSpec(name: "x", duration: 1, priority: .veryHigh), to: .main, dependencies: [d])
    try w.tap(at: 1)
    #expect(w.runUntilIdle() == .idle)
    var simulated: [String: Tick] = [:]
    for e in w.trace {
      guard let op = e.op, ["m", "x", "main.tap1"].contains(w.name(op)) else { continue }
      let label = w.name(op) == "main.tap1" ? "tap" : w.name(op)
      switch e.kind {
      case .started: simulated["start \(label)"] = e.tick
      case .finished: simulated["finish \(label)"] = e.tick
      default: break
      }
    }
    #expect(simulated == ["start m": 0, "finish m": 6, "start tap": 6, "finish tap": 7, "start x": 7, "finish x": 8])

    // The real run loop, with a longer tick if the machine is too loaded to keep time.
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    var real: [String: Double] = [:]
    for tickSeconds in [0.1, 0.2, 0.4] {
      let source = Self.runLoopProgram.replacingOccurrences(of: "TICK", with: String(tickSeconds))
      try source.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
      let built = try Swiftc.run(["main.swift", "-o", "runloop"], in: dir)
      try #require(built.status == 0, "\(built.said)")
      let ran = try Programs.run(dir.appendingPathComponent("runloop").path, in: dir)
      real = [:]
      for line in ran.output.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2, let t = Double(parts[0]) { real[String(parts[1])] = t }
      }
      let onTime = real.values.allSatisfy { abs($0 - $0.rounded()) < 0.3 }
      if onTime, real.count == simulated.count { break }
      print("[differential] run loop: events off their ticks at \(tickSeconds) s ticks: \(real)")
    }
    #expect(real.mapValues { Tick($0.rounded()) } == simulated, "real run loop: \(real)")
  }
}
