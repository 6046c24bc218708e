import Testing
@testable import OpLabCore

/// Seeded sweeps: thousands of random worlds driven by random actions, checked after
/// every action (state invariants) and at the end (an independent reading of the trace,
/// determinism, and time travel). A failure names its seed.
@Suite struct RandomSweepTests {
  static let seeds: [UInt64] = Array(0..<3_000)

  /// Plays a random session; returns the simulation and the specs it defined.
  static func play(seed: UInt64, actions: Int = 45) -> (Simulation, [String: OperationSpec], [String]) {
    var random = RandomActions(seed: seed)
    var sim = Simulation(world: World(platform: seed % 3 == 0 ? .linux : .apple))
    var specs: [String: OperationSpec] = [:]
    var counter = 0
    var problems: [String] = []
    for _ in 0..<actions {
      let action = random.next(for: sim.world, counter: &counter)
      let before = sim.world.trace.count
      do {
        try sim.perform(action)
        if case .createOperation(let spec, _, _) = action { specs[spec.name] = spec }
      } catch {
        if sim.world.trace.count != before { problems.append("refused \(action) but changed the trace") }
      }
      problems += sim.world.invariantViolations().map { "after \(action): \($0)" }
    }
    try? sim.perform(.runUntilIdle)
    problems += sim.world.invariantViolations().map { "after the final run: \($0)" }
    return (sim, specs, problems)
  }

  @Test("Every random world keeps the state invariants and the scheduling rules at every event", arguments: seeds)
  func invariantsHold(seed: UInt64) {
    let (sim, specs, problems) = Self.play(seed: seed)
    #expect(problems == [], "seed \(seed)")
    #expect(TraceOracle(world: sim.world, specs: specs).violations() == [], "seed \(seed)")
  }

  @Test("The same actions give the same trace, byte for byte", arguments: seeds.prefix(300))
  func replayIsDeterministic(seed: UInt64) throws {
    let (sim, _, _) = Self.play(seed: seed)
    var replay = World(platform: seed % 3 == 0 ? .linux : .apple)
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.trace == sim.world.trace, "seed \(seed)")
    #expect(replay.describeAll() == sim.world.describeAll(), "seed \(seed)")
  }

  @Test("Going back to any tick gives exactly the trace up to that tick, and a consistent world", arguments: seeds.prefix(300))
  func rewindMatchesHistory(seed: UInt64) throws {
    let (sim, _, _) = Self.play(seed: seed, actions: 60)
    var rng = SplitMix64(seed: seed)
    for _ in 0..<3 {
      let tick = Int.random(in: 0...sim.world.now, using: &rng)
      var past = sim
      try past.rewind(to: tick)
      #expect(past.world.now == tick, "seed \(seed)")
      // Everything up to the tick, except the start of a wait that was still blocking at it.
      let history = sim.world.trace.prefix { $0.tick <= tick }
      let ends: (Event) -> Bool = { $0.kind == .waitEnded || $0.kind == .waitStalled }
      let cutWait = history.lastIndex { $0.kind == .waitStarted }.flatMap { i in
        history[(i + 1)...].contains(where: ends) ? nil : i
      }
      var expected = Array(history)
      if let cutWait { expected.remove(at: cutWait) }
      #expect(past.world.trace == expected, "seed \(seed) tick \(tick)")
      #expect(past.world.invariantViolations() == [], "seed \(seed) tick \(tick)")
      // Replaying the cut journal from scratch reaches the same past.
      var replay = World(platform: sim.world.platform)
      for action in past.journal { _ = try replay.perform(action) }
      #expect(replay.trace == past.world.trace, "seed \(seed) tick \(tick)")
    }
  }
}

extension World {
  func describeAll() -> [String] { trace.map { "\($0.tick) \(describe($0))" } }
}
