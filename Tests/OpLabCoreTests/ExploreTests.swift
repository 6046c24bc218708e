import Testing

@testable import OpLabCore

/// `explore` (#22): every interleaving of conflicting steps, counted, with the shortest bad one.
@Suite struct ExploreTests {
  static let q = QueueID(1)
  static func setup(_ ops: [(String, [Step])], max: Int? = nil, locks: [String] = [], deps: [Int: Int] = [:]) -> [Action] {
    var actions: [Action] = [.createQueue(name: "q", maxConcurrent: max, qualityOfService: nil), .createVariable(name: "count", initial: 0)]
    actions += locks.map { .createLock(name: $0) }
    for (i, (name, steps)) in ops.enumerated() {
      let spec = OperationSpec(name: name, duration: Tick(steps.count), kind: .steps(steps))
      actions.append(.createOperation(spec, dependencies: deps[i].map { [OpID($0)] } ?? [], queue: q))
    }
    return actions + [.runUntilIdle]
  }

  @Test("Two increments: every distinct order is counted once; two lose an update, two do not, all race")
  func twoIncrements() {
    let e = World.explore(Self.setup([("a", SharedStateTests.increment), ("b", SharedStateTests.increment)]), from: World())
    #expect(e.complete)
    // Why 4: compute commutes with everything, so an order is the order of the writes (a
    // first or b first: 2) and, for each, where the reads fall — the first writer's read
    // before the first write (1 way), the second writer's read before the first write or
    // between the two (2 ways): 2 × 1 × 2 = 4. Only "read, write, read, write" keeps both
    // updates (a first or b first: 2); in the other two both read 0 and count ends at 1.
    #expect(e.orders == 4)
    // Different choices reach the same order (b held back at one tick or at the next, before
    // a step nobody else touches): the optimal search runs each order once.
    #expect(e.runs == e.orders)
    #expect(e.first?.choices == [])
    #expect(e.first?.lostUpdate == true)
    #expect(e.races == 4)  // nothing orders them, in any interleaving
    #expect(e.lostUpdates == 2)
    // The normal order (both read at t=1) comes first, and loses an update.
    #expect(e.finals.map(\.values) == [[1], [2]])
    #expect(e.finals.map(\.count) == [2, 2])
    // The shortest bad order is the one without choices.
    #expect(e.shortestBad?.choices == [])
  }

  @Test("Three increments: 36 distinct orders, 6 of them keep every update")
  func threeIncrements() {
    let inc = SharedStateTests.increment
    // The brute force's choices reach each order many times over (the runs are in the
    // thousands); the reduction's are in ExploreReductionTests.
    let e = World.explore(Self.setup([("a", inc), ("b", inc), ("c", inc)]), from: World(), limit: 10_000, search: .everyChoice)
    #expect(e.complete)
    #expect(e.runs > 1000)
    // Why 36: the writes come in one of 3! = 6 orders; the k-th writer's read falls before
    // the first write, …, or just before its own (k places): 6 × (1 × 2 × 3) = 36. Count ends
    // at 3 only when every read falls just before its own write: one way per write order, 6.
    // The final value is 1 + the number of writes before the last writer's read: it read
    // before the first write (1 of its 3 places: count 1), after the first (count 2) or
    // after the second (count 3): 12 orders end at 1, 18 at 2, 6 at 3.
    #expect(e.orders == 36)
    #expect(e.races == 36 && e.lostUpdates == 30 && e.deadlocks == 0)
    #expect(Set(e.finals.map { [$0.values[0], $0.count] }) == [[1, 12], [2, 18], [3, 6]])
  }

  @Test("A replayed order reproduces its outcome: choosing a alone at each tick runs a whole before b")
  func replay() throws {
    var w = World()
    w.setStepOrder([1, 1, 1])
    for a in Self.setup([("a", SharedStateTests.increment), ("b", SharedStateTests.increment)]) { _ = try w.perform(a) }
    #expect(w.value(of: "count") == 2)
    // a alone in ticks 0, 1 and 2 (b put off each time); then b alone, with no choice left to make.
    #expect(
      w.lines().filter { $0.contains("read:") || $0.contains("write:") }
        == ["0 a read:count=0", "2 a write:count=1", "3 b read:count=1", "5 b write:count=2"])
  }

  @Test("Fixed by a dependency, a serial queue or a lock, no interleaving races or loses an update")
  func fixed() {
    let inc = SharedStateTests.increment, locked = SharedStateTests.lockedIncrement
    var orders: [Int] = []
    for actions in [
      Self.setup([("a", inc), ("b", inc)], deps: [1: 0]),
      Self.setup([("a", inc), ("b", inc)], max: 1),
      Self.setup([("a", locked), ("b", locked)], locks: ["L"]),
    ] {
      let e = World.explore(actions, from: World())
      #expect(e.complete)
      #expect(e.races == 0 && e.lostUpdates == 0 && e.deadlocks == 0)
      #expect(e.finals.map(\.values) == [[2]])
      #expect(e.shortestBad == nil)
      orders.append(e.orders)
    }
    // A dependency and a serial queue leave one order (b's steps after a's); the lock leaves
    // two: a takes it first, or b does (the accesses inside follow the lock's order).
    #expect(orders == [1, 1, 2])
  }

  @Test("Locks taken in opposite orders deadlock in some interleavings, found with the shortest order")
  func lockOrder() {
    let a: [Step] = [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]
    let b: [Step] = [.lock("L2"), .lock("L1"), .unlock("L1"), .unlock("L2")]
    let e = World.explore(Self.setup([("a", a), ("b", b)], locks: ["L1", "L2"]), from: World(), checksRepeats: true)
    #expect(e.complete)
    // Why 3: a takes both locks before b takes any (L1: a, b; L2: a, b), or b before a, or
    // each takes its first lock and waits for the other's: the deadlock. A mixed order (a
    // first on L1, b first on L2) cannot finish either: whoever holds its first lock keeps
    // it until it has its second, so that is the deadlock again.
    #expect(e.orders == 3)
    #expect(e.deadlocks == 1)
    #expect(e.sameOrderOtherEnd == 0)
    #expect(e.finals.map(\.count) == [3])
    #expect(e.shortestBad?.deadlock == true)
    #expect(e.shortestBad?.choices == [])  // the default order deadlocks already
  }

  @Test("An interrupt stops the exploration between runs, with what it found")
  func interrupted() {
    let inc = SharedStateTests.increment
    let e = World.explore(Self.setup([("a", inc), ("b", inc)]), from: World(), interrupt: { true })
    #expect(e.runs == 1 && e.orders == 1 && e.interrupted && !e.complete)
    #expect(e.first?.lostUpdate == true)
  }

  @Test("The cap stops the exploration and says so")
  func capped() {
    let inc = SharedStateTests.increment
    let e = World.explore(Self.setup([("a", inc), ("b", inc), ("c", inc)]), from: World(), limit: 5)
    #expect(e.runs == 5)
    #expect(e.orders >= 1 && e.orders <= 5)
    #expect(!e.complete)
  }

  @Test("Seeded random worlds: explore finds the race and the lost update of two unordered increments, and none once one depends on the other")
  func randomWorlds() throws {
    var seen = (racy: 0, ordered: 0, overlapping: 0)
    for seed in UInt64(1)...40 {
      let (actions, incs) = Self.randomActions(seed: seed, fix: false)
      guard incs.count == 2 else { continue }
      let e = World.explore(actions, from: World(), limit: 400, checksRepeats: true)
      #expect(e.sameOrderOtherEnd == 0, "seed \(seed)")
      // The oracle: run once, and ask the race detector whether the two are ordered (its own
      // property test checks it against a path oracle).
      var once = World()
      for a in actions { _ = try? once.perform(a) }
      let racy = !once.raceReport().races.isEmpty
      if racy {
        seen.racy += 1
        #expect(e.races > 0, "seed \(seed)")
        // explore delays steps, never hastens them: an update can be lost exactly when the
        // two read-modify-writes overlap in the normal run (steps at start+1 … start+3), for
        // then some order has both read before either writes.
        let s0 = once.operation(OpID(incs[0])).startedAt ?? 0, s1 = once.operation(OpID(incs[1])).startedAt ?? 0
        let overlap = s1 + 1 <= s0 + 3 && s0 + 1 <= s1 + 3
        #expect(e.complete, "seed \(seed)")
        #expect((e.lostUpdates > 0) == overlap, "seed \(seed)")
        if overlap { seen.overlapping += 1 }
      } else {
        seen.ordered += 1
        #expect(e.races == 0 && e.lostUpdates == 0, "seed \(seed)")
      }
      let fixed = World.explore(Self.randomActions(seed: seed, fix: true).actions, from: World(), limit: 400)
      #expect(fixed.races == 0 && fixed.lostUpdates == 0 && fixed.deadlocks == 0, "seed \(seed)")
      #expect(fixed.finals.map(\.values) == [[2]], "seed \(seed)")
    }
    #expect(seen.racy >= 5 && seen.ordered >= 3 && seen.overlapping >= 3 && seen.overlapping < seen.racy, "\(seen)")
  }

  @Test(
    "Seeded random programs on a concurrent queue: explore meets exactly the distinct orders an interleaving oracle counts, with their final values")
  func randomProgramsAgainstOracle() {
    var sizes: [Int] = []
    for seed in UInt64(1)...30 {
      var rng = SplitMix64(seed: seed)
      let names = ["x", "y"]
      let programs: [[Step]] = (0..<Int.random(in: 2...3, using: &rng)).map { _ in
        (0..<Int.random(in: 1...3, using: &rng)).map { _ in
          switch Int.random(in: 0..<5, using: &rng) {
          case 0, 1: .read(names[Int.random(in: 0..<2, using: &rng)])
          case 2, 3: .write(names[Int.random(in: 0..<2, using: &rng)])
          default: .compute(Int.random(in: 1...3, using: &rng))
          }
        }
      }
      var actions: [Action] = [.createQueue(name: "q", maxConcurrent: nil, qualityOfService: nil)]
      actions += names.map { .createVariable(name: $0, initial: 0) }
      for (i, steps) in programs.enumerated() {
        actions.append(
          .createOperation(OperationSpec(name: "op\(i)", duration: Tick(steps.count), kind: .steps(steps)), dependencies: [], queue: Self.q))
      }
      let e = World.explore(actions + [.runUntilIdle], from: World(), limit: 50_000, checksRepeats: true)
      let oracle = Self.distinctOrders(programs, variables: names)
      #expect(e.complete, "seed \(seed)")
      #expect(e.orders == oracle.count, "seed \(seed): \(programs)")
      var finals: [[Int]: Int] = [:]
      for values in oracle.values { finals[values, default: 0] += 1 }
      #expect(Dictionary(uniqueKeysWithValues: e.finals.map { ($0.values, $0.count) }) == finals, "seed \(seed)")
      #expect(e.sameOrderOtherEnd == 0, "seed \(seed)")
      sizes.append(oracle.count)
    }
    // The sweep is not trivial: some programs have many orders, some only one.
    #expect(sizes.contains(1) && sizes.contains { $0 >= 10 }, "\(sizes)")
  }

  /// The oracle: every interleaving of the programs' steps (each thread's in order), by
  /// brute force and with no notion of ticks, reduced to its order of conflicting accesses —
  /// per variable, the writes in order and the set of reads between two of them — with the
  /// final values each reaches.
  static func distinctOrders(_ programs: [[Step]], variables: [String]) -> [[[String]]: [Int]] {
    var classes: [[[String]]: [Int]] = [:]
    var next = Array(repeating: 0, count: programs.count)
    var registers = Array(repeating: 0, count: programs.count)
    var values = Array(repeating: 0, count: variables.count)
    // Per variable: the segments so far, and the reads since the last write.
    var done = Array(repeating: [String](), count: variables.count)
    var reads = Array(repeating: [String](), count: variables.count)
    func visit() {
      guard let _ = programs.indices.first(where: { next[$0] < programs[$0].count }) else {
        let key = variables.indices.map { done[$0] + ["reads " + reads[$0].sorted().joined(separator: " ")] }
        classes[key] = values
        return
      }
      for t in programs.indices where next[t] < programs[t].count {
        let saved = (next, registers, values, done, reads)
        let label = "\(t).\(next[t])"
        switch programs[t][next[t]] {
        case .read(let name):
          let v = variables.firstIndex(of: name) ?? 0
          registers[t] = values[v]
          reads[v].append(label)
        case .write(let name):
          let v = variables.firstIndex(of: name) ?? 0
          values[v] = registers[t]
          done[v] += ["reads " + reads[v].sorted().joined(separator: " "), "write " + label]
          reads[v] = []
        case .compute(let n): registers[t] += n
        default: break
        }
        next[t] += 1
        visit()
        (next, registers, values, done, reads) = saved
      }
    }
    visit()
    return classes
  }

  /// Queues s (serial) and w, `count`, and plain operations with two increments among them,
  /// some depending on earlier ones; `fix` makes the second increment depend on the first.
  static func randomActions(seed: UInt64, fix: Bool) -> (actions: [Action], incs: [Int]) {
    var rng = SplitMix64(seed: seed)
    var actions: [Action] = [
      .createQueue(name: "s", maxConcurrent: 1, qualityOfService: nil),
      .createQueue(name: "w", maxConcurrent: Bool.random(using: &rng) ? nil : 2, qualityOfService: nil),
      .createVariable(name: "count", initial: 0),
    ]
    let n = Int.random(in: 2...6, using: &rng)
    let first = Int.random(in: 0..<n, using: &rng)
    var second = Int.random(in: 0..<n, using: &rng)
    if second == first { second = (first + 1) % n }
    let incs = [first, second].sorted()
    for i in 0..<n {
      let isInc = incs.contains(i)
      let spec =
        isInc
        ? OperationSpec(name: "op\(i)", duration: 3, kind: .steps(SharedStateTests.increment))
        : OperationSpec(name: "op\(i)", duration: Int.random(in: 0...3, using: &rng))
      var deps = (0..<i).filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }.map { OpID($0) }
      if fix, i == incs[1], !deps.contains(OpID(incs[0])) { deps.append(OpID(incs[0])) }
      // Queue 1 is s, 2 is w (0 is main).
      actions.append(.createOperation(spec, dependencies: deps, queue: QueueID(Bool.random(using: &rng) ? 1 : 2)))
    }
    return (actions + [.runUntilIdle], incs)
  }
}

/// An `unlock` with two or more waiters is an open point: NSLock documents no order (#22).
@Suite struct LockHandoffTests {
  static let q = QueueID(1)
  /// a holds L for 4 ticks; b and c arrive while it does, b first.
  static func world() throws -> World {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "count", initial: 0)
    try w.createLock(name: "L")
    try w.addOperation(SharedStateTests.stepped("a", [.lock("L"), .compute(0), .compute(0), .unlock("L")]), to: q)
    try w.step(1)
    try w.addOperation(SharedStateTests.stepped("b", [.lock("L"), .read("count"), .compute(1), .write("count"), .unlock("L")]), to: q)
    try w.step(1)
    try w.addOperation(SharedStateTests.stepped("c", [.lock("L"), .compute(7), .write("count"), .unlock("L")]), to: q)
    return w
  }

  @Test("Without choices the waiter that waited longest takes the lock; choice 1 gives it to the other, with the reason said")
  func handoff() throws {
    var plain = try Self.world()
    #expect(plain.runUntilIdle() == .idle)
    #expect(plain.value(of: "count") == 7)  // b, then c sets 7

    var chosen = try Self.world()
    let mark = chosen.trace.count
    // a's steps and c's `lock L` meet first (open points of steps, taken as they come).
    var point = try #require(chosen.nextOpenPoint())
    var stepPoints = 0
    while point.kind == .steps {
      chosen.chooseNext(0)
      _ = try chosen.perform(.runUntil(point.tick + 1))  // its steps take point.tick
      stepPoints += 1
      point = try #require(chosen.nextOpenPoint())
    }
    #expect(point.kind == .lock(0) && point.tick == 3 && point.options == 2)
    #expect(point.candidates.map { chosen.name($0) } == ["b", "c"])
    #expect(point.candidate(for: 0).map { chosen.name($0) } == "b" && point.candidate(for: 1).map { chosen.name($0) } == "c")
    chosen.chooseNext(1)
    #expect(chosen.runUntilIdle() == .idle)
    #expect(
      chosen.lines(from: mark) == [
        "2 a compute:0=0", "2 c waitsFor:L",
        // b has waited since t=1, but the choice gives the lock to c, in the unlock's tick.
        "3 a unlocked:L", "3 c locked:L", "4 a finished",
        "4 c compute:7=7", "5 c write:count=7", "6 c unlocked:L", "6 b locked:L", "7 c finished",
        "7 b read:count=7", "8 b compute:1=8", "9 b write:count=8", "10 b unlocked:L", "11 b finished",
      ])
    let taken = try #require(chosen.firstIndex("locked:L", "c"))
    #expect(
      chosen.reasonText(taken)
        == "c took lock L: a unlocked it, and the chosen order gave it to this waiter (NSLock documents no order among waiters)")
    #expect(chosen.shared?.order?.taken.map(\.chosen) == Array(repeating: 0, count: stepPoints) + [1])
  }

  @Test("explore tries each waiter: both final values are met")
  func exploreHandoff() throws {
    var base = World()
    let q = try base.createQueue(name: "q")
    let actions: [Action] = [
      .createVariable(name: "count", initial: 0), .createLock(name: "L"),
      .createOperation(SharedStateTests.stepped("a", [.lock("L"), .compute(0), .compute(0), .unlock("L")]), dependencies: [], queue: q),
      .step(1),
      .createOperation(
        SharedStateTests.stepped("b", [.lock("L"), .read("count"), .compute(1), .write("count"), .unlock("L")]), dependencies: [], queue: q),
      .step(1),
      .createOperation(SharedStateTests.stepped("c", [.lock("L"), .compute(7), .write("count"), .unlock("L")]), dependencies: [], queue: q),
    ]
    let e = World.explore(actions, from: base)
    #expect(e.complete && e.deadlocks == 0 && e.races == 0)
    #expect(Set(e.finals.map(\.values)) == [[7], [8]])
  }
}
