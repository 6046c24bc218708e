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

  @Test("Two increments: every interleaving is run; some lose an update, some do not, all race")
  func twoIncrements() {
    let e = World.explore(Self.setup([("a", SharedStateTests.increment), ("b", SharedStateTests.increment)]), from: World())
    #expect(e.complete)
    #expect(e.first?.choices == [])
    #expect(e.first?.lostUpdate == true)
    #expect(e.races == e.runs)  // nothing orders them, in any interleaving
    #expect(e.lostUpdates > 0 && e.lostUpdates < e.runs)
    #expect(Set(e.finals.map(\.values)) == [[1], [2]])
    #expect(e.finals.map(\.count).reduce(0, +) == e.runs)
    // The shortest bad order is the one without choices.
    #expect(e.shortestBad?.choices == [])
  }

  @Test("A replayed order reproduces its outcome: choosing a alone at each tick runs a whole before b")
  func replay() throws {
    var w = World()
    w.setStepOrder([1, 1, 1])
    for a in Self.setup([("a", SharedStateTests.increment), ("b", SharedStateTests.increment)]) { _ = try w.perform(a) }
    #expect(w.value(of: "count") == 2)
    // a alone at 1, 2 and 3 (b put off each time); then b alone, with no choice left to make.
    #expect(w.lines().filter { $0.contains("read:") || $0.contains("write:") }
      == ["1 a read:count=0", "3 a write:count=1", "4 b read:count=1", "6 b write:count=2"])
  }

  @Test("Fixed by a dependency, a serial queue or a lock, no interleaving races or loses an update")
  func fixed() {
    let inc = SharedStateTests.increment, locked = SharedStateTests.lockedIncrement
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
    }
  }

  @Test("Locks taken in opposite orders deadlock in some interleavings, found with the shortest order")
  func lockOrder() {
    let a: [Step] = [.lock("L1"), .lock("L2"), .unlock("L2"), .unlock("L1")]
    let b: [Step] = [.lock("L2"), .lock("L1"), .unlock("L1"), .unlock("L2")]
    let e = World.explore(Self.setup([("a", a), ("b", b)], locks: ["L1", "L2"]), from: World())
    #expect(e.complete)
    #expect(e.deadlocks > 0 && e.deadlocks < e.runs)
    #expect(e.shortestBad?.deadlock == true)
    #expect(e.shortestBad?.choices == [])  // the default order deadlocks already
  }

  @Test("The cap stops the exploration and says so")
  func capped() {
    let inc = SharedStateTests.increment
    let e = World.explore(Self.setup([("a", inc), ("b", inc), ("c", inc)]), from: World(), limit: 5)
    #expect(e.runs == 5)
    #expect(!e.complete)
  }
}
