import Testing

@testable import OpLabCore

/// With more running units than ``Machine/shareRecordLimit``, a change of the running set
/// at the current tick records only the machine's load, and the units' shares are worked
/// out once, before the clock moves (``World/flushCPU()``). These tests hold that to the
/// same trace as working every share out at every change, and bound the work it costs.
@Suite struct DeferredSharesTests {
  /// Adds `count` operations of `ticks` ticks at t=0 to a world with `cores` cores.
  static func crowd(_ count: Int, cores: Int, ticks: Tick = 3, defers: Bool = true) throws -> World {
    var w = World()
    w.cpu.defers = defers
    try w.setCores(cores)
    let q = try w.createQueue(name: "q")
    for i in 0..<count { try w.addOperation(spec("o\(i)", ticks), to: q) }
    return w
  }

  @Test("Adding 4,000 operations on 1,024 cores gives shares one by one about once per unit, not once per unit per change")
  func addingIsLinear() throws {
    var w = try Self.crowd(4_000, cores: 1_024)
    // Every change up to 256 units works every share out (256 · 257 / 2 = 32,896); past
    // that, almost none until the clock moves.
    #expect(w.cpu.unitsShared < 40_000, "\(w.cpu.unitsShared) units given a share")
    #expect(w.invariantViolations().isEmpty)
    try w.step(1)
    #expect(w.cpu.unitsShared < 50_000, "\(w.cpu.unitsShared) units given a share")
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("Deferring the shares changes nothing: 4,000 operations on 1,024 cores give the same trace, byte for byte")
  func crowdTraceIsUnchanged() throws {
    var deferred = try Self.crowd(4_000, cores: 1_024)
    var eager = try Self.crowd(4_000, cores: 1_024, defers: false)
    #expect(deferred.trace == eager.trace)
    #expect(deferred.nextEventTick == eager.nextEventTick)
    #expect(deferred.cpuLoad == eager.cpuLoad)
    #expect(deferred.cpuRate(of: OpID(3_000)) == eager.cpuRate(of: OpID(3_000)))
    #expect(deferred.runUntilIdle() == .idle)
    #expect(eager.runUntilIdle() == .idle)
    #expect(deferred.trace == eager.trace)
    #expect(deferred.now == eager.now)
  }

  @Test(
    "Random crowds (mixed qualities of service, blocks, checks, taps, cancels, core changes) give the same trace deferred or not",
    // Each crowd is about a thousand operations, shared out at every change by the eager
    // world: seconds a seed. `make test` plays the two crowds past the share limit (300
    // and 1,024 cores); `make test-long` all ten.
    arguments: Sweep.isLong ? Array(0..<10) : [5, 6])
  func randomCrowdsAgree(seed: UInt64) throws {
    var random = RandomActions(seed: seed, machine: true)
    let cores = [1, 2, 7, 64, 255, 300, 1_024][Int(seed % 7)]
    var deferred = World(platform: seed % 3 == 0 ? .linux : .apple)
    deferred.cpu.defers = true
    var eager = deferred
    eager.cpu.defers = false
    var actions: [Action] = [.setCores(cores)]
    for (i, qos) in QualityOfService.allCases.enumerated() {
      actions.append(.createQueue(name: "q\(i)", maxConcurrent: nil, qualityOfService: qos))
    }
    var counter = 0
    for round in 0..<3 {
      for _ in 0..<Int.random(in: 300...450, using: &random.rng) {
        counter += 1
        let queue = QueueID(Int.random(in: 1...QualityOfService.allCases.count, using: &random.rng))
        actions.append(.createOperation(random.spec(named: "o\(counter)"), dependencies: [], queue: queue))
        switch Int.random(in: 0..<100, using: &random.rng) {
        case 0..<3: actions.append(.cancel(OpID(Int.random(in: 0..<counter, using: &random.rng))))
        case 3..<5: actions.append(.tap(at: Tick(round)))
        case 5..<6: actions.append(.setCores(Int.random(in: 1...1_024, using: &random.rng)))
        default: break
        }
      }
      actions.append(.step(Tick(Int.random(in: 0...2, using: &random.rng))))
    }
    actions.append(.runUntilIdle)
    for action in actions {
      let a = Result { try deferred.perform(action) }
      let b = Result { try eager.perform(action) }
      #expect(String(describing: a) == String(describing: b), "seed \(seed): \(action)")
      #expect(deferred.nextEventTick == eager.nextEventTick, "seed \(seed): \(action)")
      #expect(deferred.cpuLoad == eager.cpuLoad, "seed \(seed): \(action)")
      if deferred.trace.count != eager.trace.count { break }
    }
    #expect(deferred.trace == eager.trace, "seed \(seed)")
    #expect(deferred.invariantViolations().isEmpty, "seed \(seed)")
    #expect(deferred.cpu.unitsShared < eager.cpu.unitsShared, "seed \(seed): nothing was deferred")
  }
}
