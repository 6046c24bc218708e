import Testing

@testable import OpLabCore

/// Shared variables, locks and operations written as steps (#22): whole traces.
@Suite struct SharedStateTests {
  static let increment: [Step] = [.read("count"), .compute(1), .write("count")]
  static let lockedIncrement: [Step] = [.lock("L"), .read("count"), .compute(1), .write("count"), .unlock("L")]

  static func stepped(_ name: String, _ steps: [Step], takes: Tick? = nil) -> OperationSpec {
    OperationSpec(name: name, duration: takes ?? Tick(steps.count), kind: .steps(steps))
  }

  @Test("Two unsynchronised increments run a step a tick side by side, and one update is lost")
  func lostUpdate() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    try w.createVariable(name: "count", initial: 0)
    try w.addOperation(Self.stepped("a", Self.increment), to: q)
    try w.addOperation(Self.stepped("b", Self.increment), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 world var:count=0",
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started",
        // A step is stamped with the tick it takes (the timeline's column): the reads take
        // tick 0, the tick the operations started; the last step ends with the work, at 3.
        "0 a read:count=0", "0 b read:count=0",
        "1 a compute:1=1", "1 b compute:1=1",
        "2 a write:count=1", "2 b write:count=1",
        "3 a finished", "3 b finished",
      ])
    #expect(w.value(of: "count") == 1)
    #expect(w.reasonText(w.firstIndex("compute:1=1", "b")!) == "b computed: register + 1 = 1: step 2 of 3 (compute 1)")
  }

  @Test("A lock makes the second increment wait, keeping its slot, and take the lock when the first unlocks")
  func lockSerialises() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 2)
    let mark = w.trace.count
    try w.createVariable(name: "count", initial: 5)
    try w.createLock(name: "L")
    try w.addOperation(Self.stepped("a", Self.lockedIncrement), to: q)
    try w.addOperation(Self.stepped("b", Self.lockedIncrement), to: q)
    try w.addOperation(spec("c", 1), to: q)  // no slot: b keeps its slot while it waits
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 world var:count=5", "0 world lock:L",
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started",
        "0 c created", "0 c enqueued", "0 c ready",
        "0 a locked:L", "0 b waitsFor:L",
        "1 a read:count=5", "2 a compute:1=6", "3 a write:count=6",
        // b takes the lock in the unlock's tick; its next step takes the tick after.
        "4 a unlocked:L", "4 b locked:L",
        "5 a finished", "5 c started",
        // b's read ends at 6, before anything else at 6 (c's finish): its event, stamped 5,
        // comes after what happened at 5.
        "5 b read:count=6", "6 c finished",
        "6 b compute:1=7", "7 b write:count=7", "8 b unlocked:L", "9 b finished",
      ])
    #expect(w.value(of: "count") == 7)
    #expect(w.reasonText(w.firstIndex("waitsFor:L", "b")!) == "b waits for lock L, keeping its slot: a holds it")
    #expect(w.reasonText(w.firstIndex("locked:L", "b")!) == "b took lock L: a unlocked it; it had waited longest (NSLock promises no order)")
  }

  @Test("An open point has the tick its steps take, as their events do; a choice there plays in that tick")
  func openPointTick() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "count", initial: 0)
    try w.addOperation(Self.stepped("a", Self.increment), to: q)
    try w.addOperation(Self.stepped("b", Self.increment), to: q)
    w.setStepOrder([2])
    let point = try #require(w.nextOpenPoint())
    #expect(point.kind == .steps && point.tick == 0 && point.candidates.map { w.name($0) } == ["a", "b"])
    #expect(w.runUntilIdle() == .idle)
    #expect(w.shared?.order?.taken.first?.tick == 0)
    // b alone in tick 0; a's read put off to tick 1, after b's, still before b's write.
    #expect(
      w.lines(only: ["read:count=0", "write:count=1"]) == ["0 b read:count=0", "1 a read:count=0", "2 b write:count=1", "3 a write:count=1"])
  }

  @Test("Waiters take a released lock in the order they began to wait; ticks after the last step are plain work")
  func waitersInOrderAndTrailingWork() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createLock(name: "L")
    let mark = w.trace.count
    try w.addOperation(Self.stepped("a", [.lock("L"), .unlock("L")], takes: 4), to: q)
    try w.addOperation(Self.stepped("b", [.lock("L"), .unlock("L")]), to: q)
    try w.addOperation(Self.stepped("c", [.lock("L"), .unlock("L")]), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark, only: ["locked:L", "waitsFor:L", "unlocked:L", "finished"]) == [
        "0 a locked:L", "0 b waitsFor:L", "0 c waitsFor:L",
        "1 a unlocked:L", "1 b locked:L",
        "2 b unlocked:L", "2 c locked:L", "3 b finished",
        "3 c unlocked:L", "4 a finished", "4 c finished",
      ])
  }

  @Test("Locking an NSLock twice waits forever (not reentrant): the run stalls")
  func notReentrant() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createLock(name: "L")
    let a = try w.addOperation(Self.stepped("a", [.lock("L"), .lock("L")]), to: q)
    guard case .stalled = w.runUntilIdle() else { Issue.record("expected a stall"); return }
    #expect(w.lines(only: ["locked:L", "waitsFor:L"]) == ["0 a locked:L", "1 a waitsFor:L"])
    #expect(
      w.reasonText(w.firstIndex("waitsFor:L", "a")!)
        == "a waits for lock L, keeping its slot: it holds that lock itself, and an NSLock is not reentrant: it waits forever")
    #expect(w.lockWaitedFor(by: a) == 0)
    #expect(w.locksHeld(by: a) == [0])
  }

  @Test("Touching the user interface is traced, on or off the main thread")
  func touchUI() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    try w.addOperation(Self.stepped("bg", [.touchUI]), to: q)
    try w.addOperation(Self.stepped("fg", [.touchUI]), to: .main)
    w.runUntilIdle()
    #expect(w.lines(from: mark, only: ["ui"]) == ["0 bg ui", "0 fg ui"])
    #expect(w.reasonText(w.firstIndex("ui", "bg")!) == "bg touched the user interface OFF the main thread: step 1 of 1 (touch ui)")
    #expect(w.reasonText(w.firstIndex("ui", "fg")!) == "fg touched the user interface on the main thread: step 1 of 1 (touch ui)")
  }

  @Test("Steps name existing variables and locks, fit their ticks, and unlock only what they locked")
  func refusals() throws {
    var w = World()
    try w.createVariable(name: "count")
    #expect(throws: SimulationError.duplicateName("count")) { try w.createLock(name: "count") }
    #expect(throws: SimulationError.duplicateName("count")) { try w.createOperation(OperationSpec(name: "count")) }
    #expect(throws: SimulationError.invalidName("ui")) { try w.createVariable(name: "ui") }
    #expect(throws: SimulationError.self) { try w.createOperation(Self.stepped("x", [.read("nope")])) }
    #expect(throws: SimulationError.self) { try w.createOperation(Self.stepped("x", [.lock("L")])) }
    try w.createLock(name: "L")
    #expect(throws: SimulationError.self) { try w.createOperation(Self.stepped("x", [.unlock("L"), .lock("L")])) }
    #expect(throws: SimulationError.self) { try w.createOperation(Self.stepped("x", Self.increment, takes: 2)) }
    #expect(throws: SimulationError.self) { try w.createOperation(Self.stepped("x", [])) }
    // The refusals left the world as it was.
    #expect(w.operations.isEmpty)
    #expect(w.shared?.variableNames == ["count"])
    #expect(w.shared?.lockNames == ["L"])
  }

  @Test("A world without shared state has none, and its trace is unchanged")
  func noSharedState() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.addOperation(spec("a", 2), to: q)
    w.runUntilIdle()
    #expect(w.shared == nil)
    #expect(w.lines(only: ["started", "finished"]) == ["0 a started", "2 a finished"])
  }

  @Test("Time travel replays shared state: back restores the variables")
  func timeTravel() throws {
    var sim = Simulation()
    _ = try sim.perform(.createQueue(name: "q", maxConcurrent: nil, qualityOfService: nil))
    _ = try sim.perform(.createVariable(name: "count", initial: 0))
    _ = try sim.perform(.createOperation(Self.stepped("a", Self.increment), dependencies: [], queue: QueueID(1)))
    _ = try sim.perform(.runUntilIdle)
    #expect(sim.world.value(of: "count") == 1)
    #expect(sim.world.lines(only: ["write:count=1"]) == ["2 a write:count=1"])
    _ = try sim.rewind(to: 3)
    #expect(sim.world.value(of: "count") == 1)
    _ = try sim.rewind(to: 2)
    #expect(sim.world.value(of: "count") == 0)  // the write takes tick 2, and shows as it ends
    #expect(sim.world.now == 2)
  }
}

/// Swift's `+` traps on overflow, so a world whose `compute` steps could take a value past
/// `Int.max` or `Int.min` is refused, not wrapped (#31).
@Suite struct OverflowTests {
  @Test("A compute step that could overflow a variable's value is refused, whichever comes first, and nothing changes")
  func refused() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "c", initial: Int.max)
    let before = w.trace.count
    let cOverflows = SimulationError.invalidSpec(.computeOverflow(variable: "c", start: Int.max, total: 1))
    #expect(
      cOverflows.description == "c starts at 9223372036854775807 and the compute steps add up to 1 in size, so a value could go past Int.max, "
        + "where Swift's + traps (the program crashes: arithmetic overflow); use smaller numbers")
    #expect(throws: cOverflows) {
      try w.addOperation(SharedStateTests.stepped("a", [.read("c"), .compute(1), .write("c")]), to: q)
    }
    #expect(w.trace.count == before && w.operationID(named: "a") == nil)
    // Reading and writing alone never changes a value: allowed at any size.
    try w.addOperation(SharedStateTests.stepped("b", [.read("c"), .write("c")]), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.value(of: "c") == Int.max)

    var v = World()
    let a = try v.createOperation(SharedStateTests.stepped("a", [.compute(-4)]))
    let dOverflows = SimulationError.invalidSpec(.computeOverflow(variable: "d", start: Int.min + 3, total: 4))
    #expect(
      dOverflows.description == "d starts at -9223372036854775805 and the compute steps add up to 4 in size, so a value could go past Int.min, "
        + "where Swift's + traps (the program crashes: arithmetic overflow); use smaller numbers")
    #expect(throws: dOverflows) {
      try v.createVariable(name: "d", initial: Int.min + 3)
    }
    try v.createVariable(name: "d", initial: Int.min + 4)
    // Int.min + 4 - 4 is Int.min, which fits; a completion block's compute steps count too.
    #expect(throws: SimulationError.invalidSpec(.computeOverflow(variable: "d", start: Int.min + 4, total: 5))) {
      try v.setCompletionSteps(a, [.compute(1)])
    }
  }

  @Test("Amounts that fit are not refused, however many operations share them")
  func fits() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "c", initial: Int.max - 6)
    for name in ["a", "b", "d"] { try w.addOperation(SharedStateTests.stepped(name, [.read("c"), .compute(2), .write("c")]), to: q) }
    #expect(w.runUntilIdle() == .idle)
    #expect(w.value(of: "c") == Int.max - 4)  // three reads of the same value: two updates lost
  }
}
