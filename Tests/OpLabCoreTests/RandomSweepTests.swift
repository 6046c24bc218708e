import Testing

@testable import OpLabCore

/// Seeded sweeps: thousands of random worlds driven by random actions, checked after
/// every action (state invariants) and at the end (an independent reading of the trace,
/// determinism, and time travel). A failure names its seed. `make test` runs a fifth of
/// each sweep; `make test-long` all of it (``Sweep``).
@Suite struct RandomSweepTests {
  static let seeds = Sweep.seeds(quick: 600, long: 3_000)

  /// Plays a random session; returns the simulation and the specs it defined.
  static func play(
    seed: UInt64, actions: Int = 45, machine: Bool = false, cores: Int? = nil, calls: Bool = false
  ) -> (Simulation, [String: OperationSpec], [String]) {
    var random = RandomActions(seed: seed, machine: machine, calls: calls)
    var sim = Simulation(world: World(platform: seed % 3 == 0 ? .linux : .apple))
    if let cores { _ = try? sim.perform(.setCores(cores)) }
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
    _ = try? sim.perform(.runUntilIdle)
    problems += sim.world.invariantViolations().map { "after the final run: \($0)" }
    return (sim, specs, problems)
  }

  @Test("Every random world keeps the state invariants and the scheduling rules at every event", arguments: seeds)
  func invariantsHold(seed: UInt64) {
    let (sim, specs, problems) = Self.play(seed: seed)
    #expect(problems == [], "seed \(seed)")
    #expect(TraceOracle(world: sim.world, specs: specs).violations() == [], "seed \(seed)")
  }

  @Test(
    "With batched adds, waits on operations, start() by hand and added blocks, every random world keeps the invariants and the rules, and replays byte for byte",
    arguments: Sweep.seeds(quick: 200, long: 1_000))
  func callInvariantsHold(seed: UInt64) throws {
    let (sim, specs, problems) = Self.play(seed: seed, machine: seed % 2 == 0, calls: true)
    #expect(problems == [], "seed \(seed)")
    #expect(TraceOracle(world: sim.world, specs: specs).violations() == [], "seed \(seed)")
    var replay = World(platform: sim.world.platform)
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.trace == sim.world.trace, "seed \(seed)")
  }

  @Test(
    "With limited cores, taps, frames and waits from main, every random world keeps the invariants, the rules and the load within the cores",
    arguments: Sweep.seeds(quick: 100, long: 500))
  func machineInvariantsHold(seed: UInt64) throws {
    let (sim, specs, problems) = Self.play(seed: seed, machine: true, cores: Int(seed % 3) + 1)
    #expect(problems == [], "seed \(seed)")
    #expect(TraceOracle(world: sim.world, specs: specs).violations() == [], "seed \(seed)")
    // Replays byte for byte.
    var replay = World(platform: sim.world.platform)
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.trace == sim.world.trace, "seed \(seed)")
    // The load recorded never exceeds the cores of the moment.
    var cores: Int?
    for e in sim.world.trace {
      if case .machineChanged(let n) = e.kind { cores = n }
      if case .cpuLoad(let used) = e.kind, let cores { #expect(used <= Int64(cores) * Machine.subTicks, "seed \(seed) t=\(e.tick)") }
    }
  }

  /// The CPU model ends all work due at one tick in one step, so simultaneous events may be
  /// recorded in another order than the plain kernel's one wake-up at a time; what happens
  /// and when is the same.
  @Test(
    "Cores enough for everything give the plain simulator's schedule: the same events at the same ticks",
    arguments: Sweep.seeds(quick: 100, long: 500))
  func plentyOfCoresChangesNothing(seed: UInt64) throws {
    let (plain, _, _) = Self.play(seed: seed)
    var cpu = Simulation(world: World(platform: plain.world.platform))
    try cpu.perform(.setCores(Machine.maxCores))
    for action in plain.journal { _ = try? cpu.perform(action) }
    func schedule(_ w: World) -> [Tick: [String]] {
      var byTick: [Tick: [String]] = [:]
      for e in w.trace {
        switch e.kind {
        case .machineChanged, .cpuLoad, .cpuShare: continue
        // Which operation did what; the reasons may name a different rival when simultaneous
        // events come in another order.
        default: byTick[e.tick, default: []].append("\(e.op.map { w.name($0) } ?? "") \(e.kind) \(e.from.map { "\($0)" } ?? "")")
        }
      }
      return byTick.mapValues { $0.sorted() }
    }
    #expect(schedule(cpu.world) == schedule(plain.world), "seed \(seed)")
    // `machine cores unlimited` is the plain simulator: the very same trace, event for event.
    var unlimited = Simulation(world: World(platform: plain.world.platform))
    try unlimited.perform(.setCores(nil))
    for action in plain.journal { _ = try? unlimited.perform(action) }
    #expect(unlimited.world.trace.filter { $0.kind != .machineChanged(cores: nil) } == Array(plain.world.trace), "seed \(seed)")
  }

  @Test("The same actions give the same trace, byte for byte", arguments: Sweep.seeds(quick: 100, long: 300))
  func replayIsDeterministic(seed: UInt64) throws {
    let (sim, _, _) = Self.play(seed: seed)
    var replay = World(platform: seed % 3 == 0 ? .linux : .apple)
    for action in sim.journal { _ = try replay.perform(action) }
    #expect(replay.trace == sim.world.trace, "seed \(seed)")
    #expect(replay.describeAll() == sim.world.describeAll(), "seed \(seed)")
  }

  @Test("Going back to any tick gives exactly the trace up to that tick, and a consistent world", arguments: Sweep.seeds(quick: 100, long: 300))
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
      #expect(Array(past.world.trace) == expected, "seed \(seed) tick \(tick)")
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
