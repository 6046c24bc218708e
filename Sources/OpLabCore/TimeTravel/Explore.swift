/// What `explore` found: every order of the open points it ran, and how they ended.
public struct Exploration: Hashable, Sendable {
  /// How one order ended.
  public struct Outcome: Hashable, Sendable {
    /// The choices that made it (trailing defaults dropped).
    public var choices: [Int]
    /// Whether the race detector found a data race.
    public var race: Bool
    /// Whether a variable ended differently from the one-at-a-time run.
    public var lostUpdate: Bool
    /// Whether the run stalled in a lock-order deadlock (or a relocked lock).
    public var deadlock: Bool
    /// Whether user-interface work ran off the main thread.
    public var offMainThread: Bool
    /// The variables' values at the end, in creation order.
    public var finalValues: [Int]
    /// Whether anything went wrong.
    public var isBad: Bool { race || lostUpdate || deadlock || offMainThread }
  }

  /// Orders run.
  public var runs = 0
  /// Whether the learner stopped it (Ctrl-C) before it was done.
  public var interrupted = false
  /// Whether every distinct order was run (the cap was not reached).
  public var complete = false
  /// How many orders ended with a data race, a lost update, a deadlock, ui off the main thread.
  public var races = 0, lostUpdates = 0, deadlocks = 0, offMainThread = 0
  /// Each distinct final state (the variables' values), with how many orders ended in it, in the order first met.
  public var finals: [(values: [Int], count: Int)] = []
  /// The bad outcome with the fewest choices, if any order went wrong: among those that
  /// deadlock or lose an update, if any does (a data race alone, found by happens-before,
  /// is usually in every order).
  public var shortestBad: Outcome?
  /// The order without choices.
  public var first: Outcome?

  /// An exploration that ran nothing.
  public init() {}

  public static func == (a: Exploration, b: Exploration) -> Bool {
    a.runs == b.runs && a.complete == b.complete && a.races == b.races && a.lostUpdates == b.lostUpdates
      && a.deadlocks == b.deadlocks && a.offMainThread == b.offMainThread && a.finals.map(\.values) == b.finals.map(\.values)
      && a.finals.map(\.count) == b.finals.map(\.count) && a.shortestBad == b.shortestBad && a.first == b.first
  }
  public func hash(into h: inout Hasher) {
    h.combine(runs)
    h.combine(races)
    h.combine(shortestBad)
  }
}

extension World {
  /// Runs the actions again in every distinct order of their open points (see
  /// ``StepOrder``), depth first, up to `limit` orders; each run ends with a run until idle.
  /// - Parameter base: the world the actions start from (a ``Simulation/origin``).
  /// - Parameter interrupt: asked between runs and, during each, between ticks; `true`
  ///   stops the exploration with what it found so far.
  ///
  /// Only steps that conflict are permuted (a partial-order reduction: steps that touch
  /// different variables, or only read, commute), so the orders counted are the ones that
  /// can differ. Each run starts from `base`.
  /// - Complexity: O(limit · the cost of one run).
  public static func explore(
    _ actions: [Action], from base: World, limit: Int = 1000, interrupt: Interrupt? = nil
  ) -> Exploration {
    var result = Exploration()
    var script: [Int] = []
    while result.runs < Swift.max(1, limit) {
      if result.runs > 0, interrupt?() == true {
        result.interrupted = true
        return result
      }
      var world = base
      world.setStepOrder([])
      world.shared?.order = StepOrder(script)
      var verdict: RunVerdict?
      for action in actions {
        // The exploration makes the choices.
        if case .setStepOrder = action { continue }
        if case .chooseNext = action { continue }
        if let (r, _) = try? world.perform(action, interrupt: interrupt), case .verdict(let v) = r { verdict = v }
      }
      if world.nextEventTick != nil { verdict = world.runUntilIdle(interrupt: interrupt) }
      if verdict == .interrupted {
        result.interrupted = true
        return result
      }
      let taken = world.shared?.order?.taken ?? []
      let report = world.raceReport()
      var deadlock = false
      if case .stalled(let d)? = verdict { deadlock = !d.lockCycles.isEmpty }
      var choices = taken.map(\.chosen)
      while choices.last == 0 { choices.removeLast() }
      let outcome = Exploration.Outcome(
        choices: choices, race: !report.races.isEmpty, lostUpdate: !report.lostUpdates.isEmpty, deadlock: deadlock,
        offMainThread: !report.offMainThread.isEmpty, finalValues: world.shared?.values ?? [])
      result.runs += 1
      if result.first == nil { result.first = outcome }
      if outcome.race { result.races += 1 }
      if outcome.lostUpdate { result.lostUpdates += 1 }
      if outcome.deadlock { result.deadlocks += 1 }
      if outcome.offMainThread { result.offMainThread += 1 }
      if let i = result.finals.firstIndex(where: { $0.values == outcome.finalValues }) {
        result.finals[i].count += 1
      } else {
        result.finals.append((outcome.finalValues, 1))
      }
      if outcome.isBad {
        func failed(_ o: Exploration.Outcome) -> Bool { o.deadlock || o.lostUpdate }
        let better = result.shortestBad.map { best in
          failed(outcome) != failed(best) ? failed(outcome) : outcome.choices.count < best.choices.count
        } ?? true
        if better { result.shortestBad = outcome }
      }
      // The next order: the last choice point with an option left takes its next one.
      guard let i = taken.indices.last(where: { taken[$0].chosen + 1 < taken[$0].options }) else {
        result.complete = true
        return result
      }
      script = taken[..<i].map(\.chosen) + [taken[i].chosen + 1]
    }
    return result
  }
}
