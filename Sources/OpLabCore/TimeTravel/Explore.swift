/// What `explore` found: every distinct order of the open points, and how they ended.
///
/// Different choices at the open points can give the same order: two runs are the same order
/// when every pair of conflicting accesses happened in the same order in both (see
/// ``World/orderFingerprint(from:ending:numbering:)``). The counts are over distinct orders; ``runs``
/// says how many runs it took to meet them.
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
    /// Its preemptions: the open points where it took another choice than the normal one
    /// (threads held back while they could go on, or a lock given to another waiter), the
    /// same choice at consecutive open points counted once (one operation going on alone
    /// while the others wait is one switch, however many ticks it lasts).
    public var preemptions: Int { Exploration.preemptions(choices) }
    /// Whether anything went wrong.
    public var isBad: Bool { race || lostUpdate || deadlock || offMainThread }
  }

  /// Orders run (some of them the same order as one run before, reached by other choices).
  public var runs = 0
  /// Distinct orders met: what the counts below count.
  public var orders = 0
  /// Whether the learner stopped it (Ctrl-C) before it was done.
  public var interrupted = false
  /// Whether every distinct order was met (the cap on runs was not reached).
  public var complete = false
  /// How many distinct orders ended with a data race, a lost update, a deadlock, ui off the main thread.
  public var races = 0, lostUpdates = 0, deadlocks = 0, offMainThread = 0
  /// Each distinct final state (the variables' values), with how many distinct orders ended in it, in the order first met.
  public var finals: [(values: [Int], count: Int)] = []
  /// The bad outcome with the fewest choices, if any order went wrong: among those that
  /// deadlock or lose an update, if any does (a data race alone, found by happens-before,
  /// is usually in every order).
  public var shortestBad: Outcome?
  /// The order without choices.
  public var first: Outcome?
  /// The most preemptions an order may have (`explore preemptions K`), if bounded.
  public var preemptionBound: Int?
  /// The open points the first run (the normal order) met: how wide the space is.
  public var openPoints = 0
  /// The learner's invariant checked at the end of each order (`explore expect …`), if any.
  public var expectation: ExploreExpectation?
  /// How many distinct orders broke it.
  public var broken = 0
  /// The order that broke it with the fewest choices, if any did.
  public var shortestBroken: Outcome?
  /// Runs whose order was met before but that ended otherwise (other values, a race, a
  /// deadlock where the first had none): 0 when the fingerprint is right, which tests check
  /// (counted only when `explore` is told `checksRepeats`: otherwise a repeated order's
  /// outcome is taken from the first run of it, not found again).
  var sameOrderOtherEnd = 0
  /// Whether the optimal search (``OptimalSearch``) made the runs after the first: one a
  /// distinct order.
  var optimal = false
  /// Runs taken up from a world saved along the run before (see ``ExploreRunner``), not
  /// replayed from the origin.
  var resumedRuns = 0
  /// The fingerprints of orders kept to tell a repeated order (none under the optimal
  /// search unless `checksRepeats`: memory flat in the runs).
  var fingerprintsKept = 0

  /// The preemptions of these choices (see ``Outcome/preemptions``).
  public static func preemptions(_ choices: [Int]) -> Int {
    var n = 0
    for i in choices.indices where choices[i] != 0 && (i == 0 || choices[i - 1] != choices[i]) { n += 1 }
    return n
  }

  /// An exploration that ran nothing.
  public init() {}

  public static func == (a: Exploration, b: Exploration) -> Bool {
    a.runs == b.runs && a.orders == b.orders && a.complete == b.complete && a.races == b.races && a.lostUpdates == b.lostUpdates
      && a.deadlocks == b.deadlocks && a.offMainThread == b.offMainThread && a.finals.map(\.values) == b.finals.map(\.values)
      && a.finals.map(\.count) == b.finals.map(\.count) && a.shortestBad == b.shortestBad && a.first == b.first
      && a.preemptionBound == b.preemptionBound && a.openPoints == b.openPoints && a.expectation == b.expectation && a.broken == b.broken
      && a.shortestBroken == b.shortestBroken
  }
  public func hash(into h: inout Hasher) {
    h.combine(runs)
    h.combine(orders)
    h.combine(races)
    h.combine(shortestBad)
  }
}

/// How far `explore` has got, after a run.
public struct ExploreProgress: Hashable, Sendable {
  /// Runs made so far.
  public var runs: Int
  /// Distinct orders met so far.
  public var orders: Int
  /// Where the run just made parted from the one before: how many of its choices it kept
  /// and changed (0 for the first run). The search is depth first, so this falls back
  /// towards 0 as it nears its end.
  public var depth: Int
  /// The open points the run just made met.
  public var openPoints: Int
}

/// What the learner expects of every order's end (`explore expect …`).
public enum ExploreExpectation: Hashable, Sendable {
  /// A variable's final value compared with a number (`likes = 2`, `balance >= 0`).
  case value(variable: String, Comparison, Int)
  /// No order deadlocks.
  case noDeadlock
  /// No order has a data race.
  case noRace
  /// No order loses an update.
  case noLostUpdate

  /// How a value is compared.
  public enum Comparison: String, Hashable, Sendable, CaseIterable {
    case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

    /// Whether `a` compares so with `b`.
    public func holds(_ a: Int, _ b: Int) -> Bool {
      switch self {
      case .equal: a == b
      case .notEqual: a != b
      case .less: a < b
      case .lessOrEqual: a <= b
      case .greater: a > b
      case .greaterOrEqual: a >= b
      }
    }
  }

  /// Whether an order that ended so keeps it. `variables` are the world's variable names,
  /// in creation order (an unknown variable keeps nothing: the shell refuses it before).
  public func holds(_ outcome: Exploration.Outcome, variables: [String]) -> Bool {
    switch self {
    case .value(let name, let comparison, let n):
      guard let i = variables.firstIndex(of: name), i < outcome.finalValues.count else { return false }
      return comparison.holds(outcome.finalValues[i], n)
    case .noDeadlock: return !outcome.deadlock
    case .noRace: return !outcome.race
    case .noLostUpdate: return !outcome.lostUpdate
    }
  }
}

/// How `explore` picks the runs to make.
public enum ExploreSearch: Hashable, Sendable {
  /// Every choice at every open point, depth first: the brute force, kept as the oracle the
  /// reduction is checked against (runs are far more than orders).
  case everyChoice
  /// Dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005, adapted to the
  /// lab's ticks): a run tries another choice at an open point only where one of its own
  /// pairs of dependent accesses (see ``World/dependentPairs(from:)``) could come the
  /// other way round by it. Sound (tests check it meets every order the brute force
  /// meets, with the same outcomes), not optimal: without sleep sets or wake-up trees, two
  /// choices can still reach one order.
  case races
  /// Optimal dynamic partial-order reduction (Abdulla et al., POPL 2014: source sets, sleep
  /// sets, wake-up trees; see ``OptimalSearch``): one run for each distinct order, where the
  /// world's threads are plain interleavings — every operation written as steps starts at one
  /// tick, before any step, and none adds an operation or has a completion block written as
  /// steps (locks are modelled). Elsewhere it is ``races``.
  case optimal
}

extension World {
  /// How many runs `explore` makes unless told.
  public static let exploreLimit = 20_000

  /// Runs the actions again in every distinct order of their open points (see
  /// ``StepOrder``), depth first, up to `limit` runs; each run ends with a run until idle.
  /// - Parameter base: the world the actions start from (a ``Simulation/origin``).
  /// - Parameter search: which choices to try: ``ExploreSearch/optimal`` (the reduction) unless told.
  /// - Parameter bound: at most this many preemptions an order (``Exploration/Outcome/preemptions``):
  ///   every choice is tried within it (the brute force, bounded), whatever `search` says.
  /// - Parameter interrupt: asked between runs and, during each, between ticks; `true`
  ///   stops the exploration with what it found so far.
  /// - Parameter progress: told after each run how far the search has got (the caller
  ///   decides how often to show it).
  ///
  /// Different choices can give the same order (one thread held back at one tick or at the
  /// next, before a step that no other touches): a run whose
  /// ``orderFingerprint(from:ending:numbering:)`` was met before adds to ``Exploration/runs``
  /// only, and the counts are over distinct orders. The first run starts from `base`; each
  /// next one from the world saved at the start of the tick where its choices part from the
  /// run before (see ``ExploreRunner``; `resumes: false` replays every run from `base`, as
  /// tests compare). Under the optimal search (``OptimalSearch``) every run after the first
  /// is a new order by construction, and no fingerprint is taken, so memory stays flat in
  /// the runs; `checksRepeats: true` (tests) takes them anyway, counts the orders by them,
  /// and builds the race report of a repeated order again to count any that ends otherwise
  /// (``Exploration/sameOrderOtherEnd``).
  /// - Complexity: O(limit · the cost of one run).
  public static func explore(
    _ actions: [Action], from base: World, limit: Int = World.exploreLimit, search: ExploreSearch = .optimal,
    expect expectation: ExploreExpectation? = nil, preemptions bound: Int? = nil, interrupt: Interrupt? = nil,
    progress: ((ExploreProgress) -> Void)? = nil, resumes: Bool = true, checksRepeats: Bool = false
  ) -> Exploration {
    var result = Exploration()
    result.expectation = expectation
    result.preemptionBound = bound.map { Swift.max(0, $0) }
    var script: [Int] = []
    var seen: [OrderFingerprint: Exploration.Outcome] = [:]
    var accessors: [OrderFingerprint.Accessor: Int] = [:]
    // The reduction's stack: per open point of the run, the choices still to try and those tried.
    var nodes: [(backtrack: Set<Int>, done: Set<Int>)] = []
    var runner = ExploreRunner(actions: actions, base: base, resumes: resumes)
    // The optimal search, once the first run has shown the world is one it models (`nil`
    // before, and where it is not: then the classic reduction runs).
    var optimal: OptimalSearch?
    var keep: Int?
    while result.runs < Swift.max(1, limit) {
      if result.runs > 0, interrupt?() == true {
        result.interrupted = true
        return result
      }
      let (world, verdict) = runner.run(script, keeping: keep, interrupt: interrupt)
      result.resumedRuns = runner.resumed
      if verdict == .interrupted {
        result.interrupted = true
        return result
      }
      let taken = world.shared?.order?.taken ?? []
      if optimal != nil, taken.count != script.count || !zip(taken, script).allSatisfy({ $0.chosen == $1 }) {
        // The run met other open points than the model said: it is not the lab's here, so
        // the classic reduction starts over (never seen; tests would show it).
        return explore(
          actions, from: base, limit: limit, search: .races, expect: expectation, preemptions: bound, interrupt: interrupt, progress: progress,
          resumes: resumes, checksRepeats: checksRepeats)
      }
      var choices = taken.map(\.chosen)
      while choices.last == 0 { choices.removeLast() }
      if search == .optimal, result.runs == 0, result.preemptionBound == nil {
        optimal = OptimalSearch(world: world, base: base, actions: runner.actions, verdict: verdict)
        result.optimal = optimal != nil
      }
      // The same order as a run before (other choices, same conflicting accesses in the same
      // order) ends the same way: counted once, and its outcome is the one before (the race
      // report is built again only when `checksRepeats`, to count any that differ). Under the
      // optimal search every run is a new order by construction: no fingerprint is kept (so
      // memory stays flat in the runs) unless `checksRepeats` asks to check it.
      let fingerprint =
        optimal == nil || checksRepeats ? world.orderFingerprint(from: base.trace.count, ending: verdict, numbering: &accessors) : nil
      let before = fingerprint.flatMap { seen[$0] }
      var outcome: Exploration.Outcome
      if let before, !checksRepeats {
        outcome = before
        outcome.choices = choices
      } else {
        let report = world.raceReport(firstRaceOnly: true)
        var deadlock = false
        if case .stalled(let d)? = verdict { deadlock = !d.lockCycles.isEmpty }
        outcome = Exploration.Outcome(
          choices: choices, race: !report.races.isEmpty, lostUpdate: !report.lostUpdates.isEmpty, deadlock: deadlock,
          offMainThread: !report.offMainThread.isEmpty, finalValues: world.shared?.values ?? [])
      }
      result.runs += 1
      if result.first == nil {
        result.first = outcome
        result.openPoints = taken.count
      }
      if let before {
        var same = outcome
        same.choices = before.choices
        if same != before { result.sameOrderOtherEnd += 1 }
      } else {
        if let fingerprint {
          seen[fingerprint] = outcome
          result.fingerprintsKept = seen.count
        }
        result.orders += 1
        if outcome.race { result.races += 1 }
        if outcome.lostUpdate { result.lostUpdates += 1 }
        if outcome.deadlock { result.deadlocks += 1 }
        if outcome.offMainThread { result.offMainThread += 1 }
        if let expectation, !expectation.holds(outcome, variables: world.shared?.variableNames ?? []) { result.broken += 1 }
        if let i = result.finals.firstIndex(where: { $0.values == outcome.finalValues }) {
          result.finals[i].count += 1
        } else {
          result.finals.append((outcome.finalValues, 1))
        }
      }
      progress?(ExploreProgress(runs: result.runs, orders: result.orders, depth: script.count, openPoints: taken.count))
      // Every run may give the shortest replay, a repeated order too (its choices may be fewer).
      if outcome.isBad {
        func failed(_ o: Exploration.Outcome) -> Bool { o.deadlock || o.lostUpdate }
        let better =
          result.shortestBad.map { best in
            failed(outcome) != failed(best) ? failed(outcome) : outcome.choices.count < best.choices.count
          } ?? true
        if better { result.shortestBad = outcome }
      }
      if let expectation, !expectation.holds(outcome, variables: world.shared?.variableNames ?? []),
        result.shortestBroken.map({ outcome.choices.count < $0.choices.count }) ?? true
      {
        result.shortestBroken = outcome
      }
      if let bound = result.preemptionBound {
        // Bounded (as CHESS does): every choice, but no order with more than `bound`
        // preemptions. A choice after this point's costs one, unless the point before took
        // the same (the same operation going on); the points after it take 0, which costs none.
        var before = 0
        var next: (point: Int, choice: Int)?
        for i in taken.indices {
          let cheap = i > 0 ? taken[i - 1].chosen : 0
          if let c = (taken[i].chosen + 1..<taken[i].options).first(where: { before + ($0 == cheap ? 0 : 1) <= bound }) {
            next = (i, c)
          }
          if taken[i].chosen != 0, taken[i].chosen != cheap { before += 1 }
        }
        guard let next else {
          result.complete = true
          return result
        }
        script = taken[..<next.point].map(\.chosen) + [next.choice]
        continue
      }
      if var o = optimal {
        optimal = nil  // not shared while it changes
        o.reverseRaces()
        guard o.advance() else {
          result.complete = true
          return result
        }
        if o.blocked > 0 {
          // A run whose every thread was asleep would meet an order met before, which
          // `orders` would count again without fingerprints: not the model's world, so the
          // classic reduction starts over (never seen; tests would show it).
          return explore(
            actions, from: base, limit: limit, search: .races, expect: expectation, preemptions: bound, interrupt: interrupt,
            progress: progress, resumes: resumes, checksRepeats: checksRepeats)
        }
        let next = o.script()
        var same = 0
        while same < Swift.min(next.count, taken.count), next[same] == taken[same].chosen { same += 1 }
        keep = same
        script = next
        optimal = o
        continue
      }
      switch search {
      case .everyChoice:
        // The next order: the last choice point with an option left takes its next one.
        guard let i = taken.indices.last(where: { taken[$0].chosen + 1 < taken[$0].options }) else {
          result.complete = true
          return result
        }
        script = taken[..<i].map(\.chosen) + [taken[i].chosen + 1]
      case .races, .optimal:
        // The open points met for the first time: their own choice is tried; at an unlock
        // with waiters every choice is (who takes a lock is not a step's order).
        for point in taken[Swift.min(nodes.count, taken.count)...] {
          if case .lock = point.kind {
            nodes.append((Set(0..<point.options), [point.chosen]))
          } else {
            nodes.append(([point.chosen], [point.chosen]))
          }
        }
        for (first, second) in world.dependentPairs(from: base.trace.count) {
          Self.addBacktrack(first: first, second: second, taken: taken, nodes: &nodes)
        }
        var next: (point: Int, choice: Int)?
        for i in nodes.indices.reversed() {
          if let c = nodes[i].backtrack.subtracting(nodes[i].done).min() {
            next = (i, c)
            break
          }
        }
        guard let next else {
          result.complete = true
          return result
        }
        nodes[next.point].done.insert(next.choice)
        nodes.removeLast(nodes.count - next.point - 1)
        script = taken[..<next.point].map(\.chosen) + [next.choice]
      }
    }
    return result
  }

  /// Makes the open point that could reverse a pair of dependent accesses try the choice
  /// that would: the last step choice made before the first access (at its tick, or before
  /// it for a start, which happens before the tick's steps), where the second access's
  /// operation steps alone if it has a step due there, else every choice there (the
  /// classic rule of dynamic partial-order reduction: where the other is not enabled, try
  /// all that are).
  private static func addBacktrack(
    first: DependentAccess, second: DependentAccess, taken: [OpenPoint], nodes: inout [(backtrack: Set<Int>, done: Set<Int>)]
  ) {
    var i = Swift.min(taken.count, nodes.count) - 1
    while i >= 0 {
      let point = taken[i]
      if case .steps = point.kind, first.isStart ? point.tick < first.tick : point.tick <= first.tick { break }
      i -= 1
    }
    guard i >= 0 else { return }
    if let k = taken[i].candidates.firstIndex(of: second.op) {
      nodes[i].backtrack.insert(k + 1)
    } else {
      nodes[i].backtrack.formUnion(0..<taken[i].options)
    }
  }
}
