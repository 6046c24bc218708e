import Testing

@testable import OpLabCore

/// `explore`'s reduction (#30) against its brute force: the same distinct orders with the
/// same outcomes, in no more runs.
@Suite struct ExploreReductionTests {
  /// A seeded random program: two or three variables and locks, a serial queue, a concurrent
  /// one (with or without a limit) and the main queue; two to four operations of steps
  /// (reads, writes, computes, `touch ui`, sections under one lock or two nested), some with a
  /// few ticks of plain work after their steps, some depending on an earlier one.
  static func randomProgram(seed: UInt64) -> [Action] {
    var rng = SplitMix64(seed: seed)
    var actions: [Action] = [
      .createQueue(name: "s", maxConcurrent: 1, qualityOfService: nil),
      .createQueue(name: "w", maxConcurrent: Bool.random(using: &rng) ? nil : 2, qualityOfService: nil),
      .createVariable(name: "x", initial: 0), .createVariable(name: "y", initial: 0),
      .createLock(name: "L"), .createLock(name: "M"),
    ]
    let variables = ["x", "y"]
    func access() -> [Step] {
      let v = variables[Int.random(in: 0..<2, using: &rng)]
      switch Int.random(in: 0..<6, using: &rng) {
      case 0, 1: return [.read(v)]
      case 2: return [.write(v)]
      case 3: return [.read(v), .compute(1), .write(v)]
      case 4: return [.compute(Int.random(in: 1...3, using: &rng))]
      default: return [.touchUI]
      }
    }
    let count = Int.random(in: 2...3, using: &rng)
    for i in 0..<count {
      var steps: [Step] = []
      while steps.count < 2 {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
          steps += [.lock("L")] + access() + [.unlock("L")]
        case 1:
          // Nested, in either order: two operations that nest them the other way deadlock.
          let (a, b) = Bool.random(using: &rng) ? ("L", "M") : ("M", "L")
          steps += [.lock(a), .lock(b)] + access() + [.unlock(b), .unlock(a)]
        default:
          steps += access()
        }
      }
      let spec = OperationSpec(name: "op\(i)", duration: Tick(steps.count + Int.random(in: 0...2, using: &rng)), kind: .steps(steps))
      let deps = (0..<i).filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }.map { OpID($0) }
      // Queue 0 is main, 1 is s, 2 is w.
      let queue = [0, 1, 2, 2][Int.random(in: 0..<4, using: &rng)]
      actions.append(.createOperation(spec, dependencies: deps, queue: QueueID(queue)))
    }
    return actions + [.runUntilIdle]
  }

  /// A seeded random program of the kind the optimal search models (see `OptimalSearch`):
  /// two to four operations of steps that all start at once — on a concurrent queue, the
  /// main queue (one of them at most) and a serial queue (one at most) — reading, writing,
  /// computing, touching the user interface, in sections under a lock or two nested (in
  /// either order: some deadlock), some with plain work after their steps, and plain
  /// operations beside them (one of them depending on a stepped one).
  static func modelledProgram(seed: UInt64) -> [Action] {
    var rng = SplitMix64(seed: seed)
    var actions: [Action] = [
      .createQueue(name: "s", maxConcurrent: 1, qualityOfService: nil),
      .createQueue(name: "w", maxConcurrent: nil, qualityOfService: nil),
      .createVariable(name: "x", initial: 0), .createVariable(name: "y", initial: 0),
      .createLock(name: "L"), .createLock(name: "M"),
    ]
    let variables = ["x", "y"]
    func access(short: Bool) -> [Step] {
      let v = variables[Int.random(in: 0..<2, using: &rng)]
      switch Int.random(in: 0..<7, using: &rng) {
      case 0, 1: return [.read(v)]
      case 2: return [.write(v)]
      case 3, 4: return short ? [.write(v)] : [.read(v), .compute(1), .write(v)]
      case 5: return [.compute(Int.random(in: 1...3, using: &rng))]
      default: return [.touchUI]
      }
    }
    let count = Int.random(in: 2...3, using: &rng)
    var queues = [0, 1, 2, 2, 2].shuffled(using: &rng)
    for i in 0..<count {
      var steps: [Step] = []
      for _ in 0..<(count == 2 ? 2 : 1) {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
          steps += [.lock("L")] + access(short: true) + [.unlock("L")]
        case 1, 2:
          // Nested, in either order: two operations that nest them the other way deadlock.
          let (a, b) = Bool.random(using: &rng) ? ("L", "M") : ("M", "L")
          steps += [.lock(a), .lock(b)] + (Bool.random(using: &rng) ? access(short: true) : []) + [.unlock(b), .unlock(a)]
        default:
          steps += access(short: count == 3)
        }
      }
      let spec = OperationSpec(name: "op\(i)", duration: Tick(steps.count + Int.random(in: 0...2, using: &rng)), kind: .steps(steps))
      // Queue 0 is main, 1 is s, 2 is w: main and s take one operation each at most.
      let queue = queues.popLast() ?? 2
      actions.append(.createOperation(spec, dependencies: [], queue: QueueID(queue)))
    }
    actions.append(.createOperation(OperationSpec(name: "after", duration: 2), dependencies: [OpID(0)], queue: QueueID(2)))
    return actions + [.runUntilIdle]
  }

  @Test(
    "Seeded random programs with locks (nested, deadlocking), main-queue and serial-queue work and plain dependents: the optimal search makes one run per distinct order, and meets the brute force's orders and outcomes"
  )
  func optimalAgainstBruteForce() {
    var sizes: [Int] = []
    var (deadlocking, locked, runs) = (0, 0, 0)
    for seed in UInt64(1)...40 {
      let actions = Self.modelledProgram(seed: seed)
      let brute = World.explore(actions, from: World(), limit: 2_000, search: .everyChoice, checksRepeats: true)
      guard brute.complete else { continue }  // too big for the oracle in a debug build: not a check
      let optimal = World.explore(actions, from: World(), limit: 2_000, checksRepeats: true)
      #expect(optimal.optimal, "seed \(seed): not modelled")
      #expect(optimal.complete, "seed \(seed)")
      #expect(optimal.runs == optimal.orders, "seed \(seed): \(optimal.runs) runs for \(optimal.orders) orders")
      #expect(Self.summary(optimal) == Self.summary(brute), "seed \(seed)")
      #expect(optimal.first == brute.first, "seed \(seed)")
      #expect(optimal.sameOrderOtherEnd == 0, "seed \(seed)")
      // Taken up from saved worlds or replayed from the origin: the same exploration.
      let replayed = World.explore(actions, from: World(), limit: 2_000, resumes: false, checksRepeats: true)
      #expect(replayed == optimal, "seed \(seed)")
      sizes.append(brute.orders)
      runs += optimal.runs
      if brute.deadlocks > 0 { deadlocking += 1 }
      let takesLocks = actions.contains {
        guard case .createOperation(let spec, _, _) = $0, case .steps(let steps) = spec.kind else { return false }
        return steps.contains { $0.lockName != nil }
      }
      if takesLocks { locked += 1 }
    }
    // The sweep is not trivial: most programs are checked, some have many orders, some deadlock.
    #expect(
      sizes.count >= 25 && sizes.filter { $0 >= 6 }.count >= 4 && deadlocking >= 2 && locked >= 10,
      "\(sizes), \(deadlocking) deadlock, \(locked) locked")
  }

  /// What the two searches must agree on: the distinct orders and how they ended.
  static func summary(_ e: Exploration) -> [String] {
    [
      "orders \(e.orders)", "races \(e.races)", "lost \(e.lostUpdates)", "deadlocks \(e.deadlocks)", "ui \(e.offMainThread)",
      "finals \(e.finals.map { "\($0.values)×\($0.count)" }.sorted())",
    ]
  }

  @Test(
    "Seeded random programs with locks, dependencies, serial queues and main-queue work: the reduction meets the brute force's orders and outcomes in no more runs"
  )
  func againstBruteForce() {
    var runs = (reduced: 0, brute: 0, orders: 0)
    var sizes: [Int] = []
    var deadlocking = 0
    var modelled = 0
    for seed in UInt64(1)...40 {
      let actions = Self.randomProgram(seed: seed)
      let brute = World.explore(actions, from: World(), limit: 1_500, search: .everyChoice, checksRepeats: true)
      guard brute.complete else { continue }  // too big for the oracle in a debug build: not a check
      let reduced = World.explore(actions, from: World(), limit: 1_500, search: .races, checksRepeats: true)
      // The default search: optimal where the world is one it models, else the same as `races`.
      let optimal = World.explore(actions, from: World(), limit: 1_500, checksRepeats: true)
      #expect(optimal.complete && Self.summary(optimal) == Self.summary(brute) && optimal.first == brute.first, "seed \(seed)")
      #expect(optimal.optimal ? optimal.runs == optimal.orders : optimal == reduced, "seed \(seed)")
      #expect(optimal.sameOrderOtherEnd == 0, "seed \(seed)")
      if optimal.optimal { modelled += 1 }
      #expect(reduced.complete, "seed \(seed)")
      #expect(Self.summary(reduced) == Self.summary(brute), "seed \(seed)")
      #expect(reduced.first == brute.first, "seed \(seed)")
      #expect(reduced.runs <= brute.runs, "seed \(seed): \(reduced.runs) runs against \(brute.runs)")
      #expect(reduced.sameOrderOtherEnd == 0 && brute.sameOrderOtherEnd == 0, "seed \(seed)")
      runs.reduced += reduced.runs
      runs.brute += brute.runs
      runs.orders += brute.orders
      sizes.append(brute.orders)
      if brute.deadlocks > 0 { deadlocking += 1 }
    }
    // The sweep is not trivial: most programs are checked, some have many orders, some
    // deadlock, and the reduction saves runs overall.
    #expect(sizes.count >= 25 && sizes.contains { $0 >= 5 } && deadlocking >= 1, "\(sizes), \(deadlocking) deadlock")
    #expect(runs.reduced < runs.brute, "\(runs)")
    // Some of these are modelled (all their threads start at once), most are not.
    #expect(modelled >= 3 && modelled < sizes.count, "\(modelled) of \(sizes.count)")
  }

  @Test(
    "Runs taken up from a world saved at their first new choice give the same exploration as runs replayed from the origin, with every search, in journals with steps, waits and commands between runs; so does taking a repeated order's outcome from its first run"
  )
  func resumedRunsAreReplays() {
    var resumed = 0
    for seed in UInt64(1)...40 {
      var actions = Self.randomProgram(seed: seed)
      // Some journals run a few ticks, wait or change the world before the last run: open
      // points inside a wait have no saved world (runs that change them start earlier).
      switch seed % 4 {
      case 1: actions.insert(.step(2), at: actions.count - 1)
      case 2: actions.insert(.wait(nil), at: actions.count - 1)
      case 3: actions.insert(contentsOf: [.step(1), .setMaxConcurrent(QueueID(2), 1), .runUntil(4)], at: actions.count - 1)
      default: break
      }
      for (search, bound) in [(ExploreSearch.optimal, nil), (.races, nil), (.everyChoice, nil), (.races, 1)] {
        let replayed = World.explore(actions, from: World(), limit: 400, search: search, preemptions: bound, resumes: false, checksRepeats: true)
        let taken = World.explore(actions, from: World(), limit: 400, search: search, preemptions: bound, checksRepeats: true)
        #expect(taken == replayed, "seed \(seed), \(search), bound \(bound ?? -1)")
        #expect(taken.sameOrderOtherEnd == replayed.sameOrderOtherEnd, "seed \(seed)")
        // What `explore` does unless tested: a repeated order's outcome is the first run's, not found again.
        let fast = World.explore(actions, from: World(), limit: 400, search: search, preemptions: bound)
        #expect(fast == taken, "seed \(seed), \(search), bound \(bound ?? -1)")
        #expect(replayed.resumedRuns == 0)
        resumed += taken.resumedRuns
      }
    }
    #expect(resumed > 1000, "\(resumed) runs taken up")
    // Three increments: every run after the first is taken up from a saved world.
    let inc = SharedStateTests.increment
    let three = World.explore(ExploreTests.setup([("a", inc), ("b", inc), ("c", inc)]), from: World())
    #expect(three.orders == 36 && three.resumedRuns == three.runs - 1, "\(three.resumedRuns) of \(three.runs)")
  }

  @Test("The estimate of the space: the normal order's open points, and a guess of the brute force's runs within a factor of 4 of the truth")
  func estimate() {
    let inc = SharedStateTests.increment
    for actions in [
      ExploreTests.setup([("a", inc), ("b", inc)]), ExploreTests.setup([("a", inc), ("b", inc), ("c", inc)]),
      Self.randomProgram(seed: 7), Self.randomProgram(seed: 12),
    ] {
      let brute = World.explore(actions, from: World(), limit: 5_000, search: .everyChoice)
      let guess = World.exploreEstimate(actions, from: World())
      #expect(brute.complete && guess.openPoints == brute.openPoints && guess.probes == 8)
      #expect(guess.runs >= Double(brute.runs) / 4 && guess.runs <= Double(brute.runs) * 4, "\(guess.runs) for \(brute.runs)")
    }
    // No open point: one run, exactly.
    let alone = World.exploreEstimate(ExploreTests.setup([("a", inc)]), from: World())
    #expect(alone.openPoints == 0 && alone.runs == 1)
  }

  @Test(
    "Three increments: the optimal search meets the 36 orders in 36 runs; the classic reduction in fewer runs than the brute force, but far more than orders"
  )
  func threeIncrements() {
    let inc = SharedStateTests.increment
    let actions = ExploreTests.setup([("a", inc), ("b", inc), ("c", inc)])
    let brute = World.explore(actions, from: World(), limit: 10_000, search: .everyChoice)
    let reduced = World.explore(actions, from: World(), search: .races)
    let optimal = World.explore(actions, from: World())
    #expect(brute.complete && reduced.complete && optimal.complete && optimal.optimal)
    #expect(brute.runs > 1000)
    #expect(Self.summary(reduced) == Self.summary(brute) && Self.summary(optimal) == Self.summary(brute))
    // Without sleep sets every pair of conflicting steps is tried both ways at every tick
    // both are due, so one order is met many times (1,891 runs against 2,320).
    #expect(reduced.orders == 36 && reduced.runs < brute.runs && reduced.runs > 1000, "\(reduced.runs) runs")
    #expect(optimal.orders == 36 && optimal.runs == 36)
    // Every run of the optimal search is a new order: no fingerprint is kept (memory flat in
    // the runs) unless told to check it, and then one an order, the same exploration.
    #expect(optimal.fingerprintsKept == 0 && reduced.fingerprintsKept == 36)
    let checked = World.explore(actions, from: World(), checksRepeats: true)
    #expect(checked == optimal && checked.fingerprintsKept == 36 && checked.sameOrderOtherEnd == 0)
  }

  @Test("Two locked increments and locks taken in opposite orders: one run for each order, the deadlock included")
  func optimalLocks() {
    let locked = SharedStateTests.lockedIncrement
    let two = World.explore(ExploreTests.setup([("a", locked), ("b", locked)], locks: ["L"]), from: World())
    #expect(two.optimal && two.complete && two.orders == 2 && two.runs == 2 && two.finals.map(\.values) == [[2]])
    let a: [Step] = [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]
    let b: [Step] = [.lock("L2"), .lock("L1"), .unlock("L1"), .unlock("L2")]
    let crossed = World.explore(ExploreTests.setup([("a", a), ("b", b)], locks: ["L1", "L2"]), from: World())
    #expect(crossed.optimal && crossed.complete && crossed.orders == 3 && crossed.runs == 3 && crossed.deadlocks == 1)
    // A dependency lets b start only after a: not modelled, the classic reduction runs.
    let after = World.explore(ExploreTests.setup([("a", locked), ("b", locked)], locks: ["L"], deps: [1: 0]), from: World())
    #expect(!after.optimal && after.complete && after.orders == 1)
  }

  @Test("expect: counts the distinct orders that break the learner's invariant, with the one of fewest choices")
  func expectations() {
    let inc = SharedStateTests.increment
    let three = ExploreTests.setup([("a", inc), ("b", inc), ("c", inc)])
    // 12 orders end at 1, 18 at 2, 6 at 3 (ExploreTests.threeIncrements).
    let all = World.explore(three, from: World(), expect: .value(variable: "count", .equal, 3))
    #expect(all.broken == 30 && all.orders == 36)
    #expect(all.shortestBroken?.choices == [])  // the order without choices loses updates
    #expect(all.shortestBroken?.finalValues != [3])
    let atLeast = World.explore(three, from: World(), expect: .value(variable: "count", .greaterOrEqual, 2))
    #expect(atLeast.broken == 12)
    #expect(atLeast.shortestBroken.map { $0.finalValues == [1] } == true)
    let kept = World.explore(three, from: World(), expect: .value(variable: "count", .greaterOrEqual, 1))
    #expect(kept.broken == 0 && kept.shortestBroken == nil)
    let races = World.explore(three, from: World(), expect: .noRace)
    #expect(races.broken == 36)
    // Locks taken in opposite orders: one of the three orders deadlocks, the default one.
    let a: [Step] = [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]
    let b: [Step] = [.lock("L2"), .lock("L1"), .unlock("L1"), .unlock("L2")]
    let locks = ExploreTests.setup([("a", a), ("b", b)], locks: ["L1", "L2"])
    let deadlock = World.explore(locks, from: World(), expect: .noDeadlock)
    #expect(deadlock.broken == 1 && deadlock.shortestBroken?.deadlock == true && deadlock.shortestBroken?.choices == [])
    let noLost = World.explore(locks, from: World(), expect: .noLostUpdate)
    #expect(noLost.broken == 0)
    // A variable the world lacks keeps nothing (the shell refuses it before it gets here).
    #expect(
      !ExploreExpectation.value(variable: "nope", .equal, 0).holds(
        all.first ?? .init(choices: [], race: false, lostUpdate: false, deadlock: false, offMainThread: false, finalValues: []), variables: ["count"])
    )
  }

  @Test("preemptions K: only orders with at most K choices other than the normal one; enough of them is the whole space")
  func preemptionBound() {
    let inc = SharedStateTests.increment
    let three = ExploreTests.setup([("a", inc), ("b", inc), ("c", inc)])
    let none = World.explore(three, from: World(), preemptions: 0)
    #expect(none.complete && none.runs == 1 && none.orders == 1 && none.preemptionBound == 0)
    #expect(none.openPoints > 0 && none.shortestBad?.preemptions == 0)
    var last = 1
    for k in 1...3 {
      let e = World.explore(three, from: World(), preemptions: k, checksRepeats: true)
      #expect(e.complete && e.orders >= last && e.orders <= 36, "k \(k): \(e.orders)")
      #expect(e.sameOrderOtherEnd == 0)
      last = e.orders
    }
    #expect(last > 1)
    let all = World.explore(three, from: World(), limit: 10_000, preemptions: 100)
    #expect(all.complete && all.orders == 36 && all.runs == World.explore(three, from: World(), limit: 10_000, search: .everyChoice).runs)
    // Two increments: keeping both updates needs one of them to hold back: one preemption at least.
    let two = ExploreTests.setup([("a", inc), ("b", inc)])
    let kept = World.explore(two, from: World(), expect: .value(variable: "count", .equal, 1))
    #expect((kept.shortestBroken?.preemptions ?? 0) >= 1)
  }
}
