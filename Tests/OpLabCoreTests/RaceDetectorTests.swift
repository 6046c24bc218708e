import Testing

@testable import OpLabCore

/// The race detector (#22): happens-before by dependency, serial queue, lock and wait.
@Suite struct RaceDetectorTests {
  static let increment = SharedStateTests.increment
  static let locked = SharedStateTests.lockedIncrement
  static func stepped(_ name: String, _ steps: [Step]) -> OperationSpec { SharedStateTests.stepped(name, steps) }

  /// A world with `count` (and lock L) and a queue of this max.
  static func world(max: Int? = nil) throws -> (World, QueueID) {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: max)
    try w.createVariable(name: "count")
    try w.createLock(name: "L")
    return (w, q)
  }

  /// "v: a-op kind@tick / b-op kind@tick" for each race.
  static func races(_ w: World) -> [String] {
    w.raceReport().races.map { r in
      func text(_ x: RaceReport.Access) -> String { "\(w.name(x.op)) \(x.isWrite ? "write" : "read")@\(x.tick)" }
      return "\(w.variableName(r.variable)): \(text(r.first)) / \(text(r.second))"
    }
  }

  @Test("Two unordered increments race, once per pair, and lose an update")
  func unordered() throws {
    var (w, q) = try Self.world()
    try w.addOperation(Self.stepped("a", Self.increment), to: q)
    try w.addOperation(Self.stepped("b", Self.increment), to: q)
    w.runUntilIdle()
    // b's read at 0 is the first access the other's write is unordered with: a's write at 2.
    #expect(Self.races(w) == ["count: b read@0 / a write@2"])
    #expect(w.raceReport().lostUpdates == [RaceReport.LostUpdate(variable: 0, actual: 1, serial: 2)])
  }

  @Test("A dependency, a serial queue or a lock orders them: no race, no lost update")
  func fixes() throws {
    var (w1, q1) = try Self.world()
    let a = try w1.addOperation(Self.stepped("a", Self.increment), to: q1)
    let b = try w1.createOperation(Self.stepped("b", Self.increment), dependencies: [a])
    try w1.enqueue(b, on: q1)
    w1.runUntilIdle()
    #expect(w1.raceReport().isEmpty)
    #expect(w1.value(of: "count") == 2)

    var (w2, q2) = try Self.world(max: 1)
    try w2.addOperation(Self.stepped("a", Self.increment), to: q2)
    try w2.addOperation(Self.stepped("b", Self.increment), to: q2)
    w2.runUntilIdle()
    #expect(w2.raceReport().isEmpty)

    var (w3, q3) = try Self.world()
    try w3.addOperation(Self.stepped("a", Self.locked), to: q3)
    try w3.addOperation(Self.stepped("b", Self.locked), to: q3)
    w3.runUntilIdle()
    #expect(w3.raceReport().isEmpty)
    #expect(w3.value(of: "count") == 2)
  }

  @Test("A lock taken by only one of the two orders nothing")
  func halfLocked() throws {
    var (w, q) = try Self.world()
    try w.addOperation(Self.stepped("a", Self.locked), to: q)
    try w.addOperation(Self.stepped("b", Self.increment), to: q)
    w.runUntilIdle()
    // a: lock@0 read@1 compute@2 write@3; b: read@0 compute@1 write@2 (each step at the tick
    // it takes). b's write is the first access unordered with a's read; the pair is reported once.
    #expect(Self.races(w) == ["count: a read@1 / b write@2"])
  }

  @Test("Reads alone never race")
  func readsOnly() throws {
    var (w, q) = try Self.world()
    try w.addOperation(Self.stepped("a", [.read("count")]), to: q)
    try w.addOperation(Self.stepped("b", [.read("count")]), to: q)
    w.runUntilIdle()
    #expect(w.raceReport().isEmpty)
  }

  @Test("Time alone orders nothing; a wait does")
  func timeVersusWait() throws {
    var (w, q) = try Self.world()
    try w.addOperation(Self.stepped("a", Self.increment), to: q)
    w.runUntilIdle()
    try w.addOperation(Self.stepped("b", Self.increment), to: q)
    w.runUntilIdle()
    // a writes in tick 2 and finishes at 3, when b is added: b reads in tick 3.
    #expect(Self.races(w) == ["count: a write@2 / b read@3"])
    #expect(w.raceReport().lostUpdates.isEmpty)  // this order happened to be a serial one

    var (v, p) = try Self.world()
    try v.addOperation(Self.stepped("a", Self.increment), to: p)
    v.waitUntilAllOperationsAreFinished(p)
    try v.addOperation(Self.stepped("b", Self.increment), to: p)
    v.runUntilIdle()
    #expect(v.raceReport().isEmpty)
  }

  @Test("Touching the user interface off the main thread is reported; on main it is not")
  func userInterface() throws {
    var (w, q) = try Self.world()
    let bg = try w.addOperation(Self.stepped("bg", [.touchUI]), to: q)
    try w.addOperation(Self.stepped("fg", [.touchUI]), to: .main)
    w.runUntilIdle()
    #expect(w.raceReport().offMainThread.map(\.op) == [bg])
    #expect(w.raceReport().races.isEmpty)
  }

  @Test(
    "An operation in no queue started by hand runs inside start(), on the main thread the call is made on: its touch of the user interface is on main, not reported"
  )
  func startedByHandTouchesOnMain() throws {
    var w = World()
    let show = try w.createOperation(Self.stepped("show", [.touchUI]), dependencies: [])
    try w.callStart(show)
    w.runUntilIdle()
    #expect(
      w.lines() == [
        "0 main queue", "0 show created", "0 main.start1 created", "0 main.start1 enqueued",
        "0 main.start1 ready", "0 main.start1 started", "0 show started", "0 show ui", "1 show finished",
        "1 main.start1 finished",
      ], "\(w.lines())")
    let touch = try #require(w.trace.first { $0.kind == .touchedUI })
    #expect(World.isOnMainThread(touch))
    #expect(w.raceReport().offMainThread.isEmpty)
  }

  @Test(
    "An operation started by hand runs inside the start() call on the main thread: ordered after main-queue work before the call, so no race with it; unordered with a background operation, so a race"
  )
  func startedByHandIsOrderedOnMain() throws {
    func world(_ queue: (World) -> QueueID) throws -> World {
      var (w, _) = try Self.world()
      let b = try w.createOperation(Self.stepped("b", Self.increment), dependencies: [])
      try w.addOperation(Self.stepped("a", Self.increment), to: queue(w))
      try w.callStart(b)
      w.runUntilIdle()
      return w
    }
    // a runs on main from t=0; the call waits for it, and b runs inside the call from t=3.
    let onMain = try world { _ in .main }
    #expect(Self.races(onMain).isEmpty, "\(onMain.lines())")
    #expect(onMain.raceReport().lostUpdates.isEmpty)
    let beside = try world { w in w.queueID(named: "q") ?? .main }
    #expect(Self.races(beside) == ["count: b read@0 / a write@2"], "\(Self.races(beside))")
  }

  @Test("Seeded random worlds: two increments race exactly when no chain of dependencies or one serial queue orders them; a dependency fixes it")
  func randomWorlds() throws {
    var outcomes = (racy: 0, ordered: 0)
    for seed in UInt64(1)...60 {
      var (w, ids, deps, queueOf, serial) = try Self.randomWorld(seed: seed, fix: false)
      #expect(w.runUntilIdle() == .idle)
      let incs = ids.filter { if case .steps = w.operation($0).spec.kind { true } else { false } }
      // The oracle: a path of dependencies, or of serial-queue turns, from one to the other.
      func reaches(_ from: OpID, _ to: OpID) -> Bool {
        var seen: Set<OpID> = [from], stack = [from]
        while let x = stack.popLast() {
          if x == to { return true }
          var next = ids.filter { deps[$0]!.contains(x) }
          // On the serial queue, whatever starts after x finished comes after it.
          if queueOf[x] == serial, let end = w.operation(x).finishedAt {
            next += ids.filter { queueOf[$0] == serial && (w.operation($0).startedAt ?? -1) >= end && $0 != x }
          }
          for y in next where seen.insert(y).inserted { stack.append(y) }
        }
        return false
      }
      let ordered = incs.count < 2 || reaches(incs[0], incs[1]) || reaches(incs[1], incs[0])
      #expect(w.raceReport().races.isEmpty == ordered, "seed \(seed)")
      if incs.count == 2 { if ordered { outcomes.ordered += 1 } else { outcomes.racy += 1 } }
      if incs.count == 2 {
        var (fixed, _, _, _, _) = try Self.randomWorld(seed: seed, fix: true)
        fixed.runUntilIdle()
        #expect(fixed.raceReport().isEmpty, "seed \(seed)")
        #expect(fixed.value(of: "count") == 2, "seed \(seed)")
      }
    }
    // The seeds give both kinds of world, so the oracle is tested both ways.
    #expect(outcomes.racy >= 5 && outcomes.ordered >= 5, "\(outcomes)")
  }

  @Test(
    "The report explore asks for, which stops looking for races at the first, finds a race exactly when the whole report does, with the same calls off main and lost updates, on seeded random programs in many orders"
  )
  func firstRaceOnly() {
    var (racy, clean, orders) = (0, 0, 0)
    for seed in UInt64(1)...40 {
      let actions = ExploreReductionTests.randomProgram(seed: seed)
      // Some orders of each: the normal one and a few that hold threads back.
      for script in [[], [1], [2], [1, 1], [2, 1, 2], [0, 2, 2]] as [[Int]] {
        var runner = ExploreRunner(actions: actions, base: World(), resumes: false)
        let w = runner.run(script, interrupt: nil).world
        let whole = w.raceReport(), short = w.raceReport(firstRaceOnly: true)
        #expect(short.races.isEmpty == whole.races.isEmpty, "seed \(seed), \(script)")
        // The races of the access that met the first: the whole report's first ones.
        #expect(short.races[...] == whole.races.prefix(short.races.count), "seed \(seed), \(script)")
        #expect(short.offMainThread == whole.offMainThread && short.lostUpdates == whole.lostUpdates, "seed \(seed), \(script)")
        if whole.races.isEmpty { clean += 1 } else { racy += 1 }
        orders += 1
      }
    }
    #expect(racy >= 20 && clean >= 20, "\(racy) racy, \(clean) clean of \(orders)")
  }

  /// Plain operations, some depending on earlier ones, with one or two increments among
  /// them, on a serial and a wider queue; `fix` makes the second increment depend on the first.
  static func randomWorld(
    seed: UInt64, fix: Bool
  ) throws
    -> (World, [OpID], [OpID: [OpID]], [OpID: QueueID], QueueID)
  {
    var rng = SplitMix64(seed: seed)
    var w = World()
    let serial = try w.createQueue(name: "s", maxConcurrent: 1)
    let wide = try w.createQueue(name: "w", maxConcurrent: Bool.random(using: &rng) ? nil : 2)
    try w.createVariable(name: "count")
    var ids: [OpID] = []
    var deps: [OpID: [OpID]] = [:]
    var queueOf: [OpID: QueueID] = [:]
    let n = Int.random(in: 2...7, using: &rng)
    let incAt = (Int.random(in: 0..<n, using: &rng), Int.random(in: 0..<n, using: &rng))
    for i in 0..<n {
      let isInc = i == incAt.0 || i == incAt.1
      let spec = isInc ? stepped("op\(i)", increment) : OperationSpec(name: "op\(i)", duration: Int.random(in: 0...3, using: &rng))
      let mine = ids.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }
      let id = try w.createOperation(spec, dependencies: mine)
      ids.append(id)
      deps[id] = mine
      queueOf[id] = Bool.random(using: &rng) ? serial : wide
    }
    let incs = ids.filter { if case .steps = w.operation($0).spec.kind { true } else { false } }
    if fix, incs.count == 2 {
      _ = try w.addDependency(incs[1], on: incs[0])
      deps[incs[1], default: []].append(incs[0])
    }
    for id in ids { try w.enqueue(id, on: queueOf[id]!) }
    return (w, ids, deps, queueOf, serial)
  }
}
