import Testing

@testable import OpLabCore

/// Completion blocks written as steps, and the step `add OP` (#22): whole traces.
@Suite struct CompletionStepsTests {
  static let increment: [Step] = [.read("count"), .compute(1), .write("count")]

  @Test("A completion block's steps run a tick each after the finish, on no thread of the queue: its touch is off main")
  func completionTouchesUIOffMain() throws {
    var w = World()
    let network = try w.createQueue(name: "network")
    let mark = w.trace.count
    let load = try w.createOperation(spec("load", 2))
    try w.setCompletionSteps(load, [.touchUI])
    try w.enqueue(load, on: network)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 load created", "0 load enqueued", "0 load ready", "0 load started",
        "2 load finished", "2 load completion+",
        "2 load ui", "3 load completion-",
      ])
    #expect(w.operation(load).spec.completion == 1)
    let touch = try #require(w.firstIndex("ui", "load"))
    #expect(w.reasonText(touch) == "load touched the user interface OFF the main thread: step 1 of 1 of its completion block (touch ui)")
    let report = w.raceReport()
    #expect(report.offMainThread == [RaceReport.OffMainThread(op: load, tick: 2, event: touch, inCompletion: true)])
    #expect(report.races.isEmpty && report.lostUpdates.isEmpty)
  }

  @Test("An operation on main does not put its completion block on main")
  func mainQueueCompletionIsStillOffMain() throws {
    var w = World()
    let tidy = try w.createOperation(spec("tidy", 1))
    try w.setCompletionSteps(tidy, [.touchUI])
    try w.enqueue(tidy, on: .main)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.raceReport().offMainThread.map(\.op) == [tidy])
    #expect(w.raceReport().offMainThread.map(\.inCompletion) == [true])
  }

  @Test("`add show` from a completion block hops to main: show starts as the step's tick ends, and touches ui in the next")
  func hopToMain() throws {
    var w = World()
    let network = try w.createQueue(name: "network")
    let mark = w.trace.count
    let show = try w.createOperation(OperationSpec(name: "show", duration: 1, kind: .steps([.touchUI])))
    let load = try w.createOperation(spec("load", 2))
    try w.setCompletionSteps(load, [.add("show", to: "main")])
    try w.enqueue(load, on: network)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 show created",
        "0 load created", "0 load enqueued", "0 load ready", "0 load started",
        "2 load finished", "2 load completion+",
        // The add step takes tick 2 (it records nothing of its own): show is filed as it ends.
        "3 show enqueued", "3 show ready", "3 show started",
        "3 load completion-",
        "3 show ui", "4 show finished",
      ])
    #expect(w.operation(show).queue == .main)
    let added = try #require(w.firstIndex("enqueued", "show"))
    #expect(w.reasonText(added) == "show enqueued on main: load's completion block called addOperation")
    #expect(w.raceReport().isEmpty)
  }

  @Test("A dependent of the operation does not wait for its completion block: their accesses race and an update is lost")
  func completionRacesWithDependent() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createVariable(name: "count", initial: 0)
    let mark = w.trace.count
    let load = try w.createOperation(spec("load", 1))
    try w.setCompletionSteps(load, Self.increment)
    try w.enqueue(load, on: q)
    try w.addOperation(OperationSpec(name: "next", duration: 3, kind: .steps(Self.increment)), to: q, dependencies: [load])
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 load created", "0 load enqueued", "0 load ready", "0 load started",
        "0 next created", "0 next dep+load", "0 next enqueued",
        "1 load finished", "1 next ready", "1 next started", "1 load completion+",
        "1 next read:count=0", "1 load read:count=0",
        "2 next compute:1=1", "2 load compute:1=1",
        "3 next write:count=1", "3 load write:count=1",
        "4 next finished", "4 load completion-",
      ])
    let report = w.raceReport()
    #expect(report.races.count == 1)
    let race = try #require(report.races.first)
    // The first pair found: next's write at 3 against the block's read at 1 (two reads do not race).
    #expect(race.first.op == load && race.first.inCompletion && !race.first.isWrite && race.first.tick == 1)
    #expect(race.second.op == w.operationID(named: "next") && !race.second.inCompletion && race.second.isWrite && race.second.tick == 3)
    #expect(report.lostUpdates == [RaceReport.LostUpdate(variable: 0, actual: 1, serial: 2)])
  }

  @Test("A completion block's steps after a serial queue's next operation are ordered only by the steps' own order, not the queue")
  func serialQueueDoesNotOrderCompletion() throws {
    var w = World()
    let q = try w.createQueue(name: "serial", maxConcurrent: 1)
    try w.createVariable(name: "count", initial: 0)
    let a = try w.createOperation(spec("a", 1))
    try w.setCompletionSteps(a, [.write("count")])
    try w.enqueue(a, on: q)
    try w.addOperation(OperationSpec(name: "b", duration: 1, kind: .steps([.read("count")])), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(w.raceReport().races.count == 1)
  }

  @Test("Adding an operation that is already in a queue is refused and recorded; nothing else changes")
  func addRefused() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    let show = try w.createOperation(spec("show", 1))
    let load = try w.createOperation(spec("load", 1))
    try w.setCompletionSteps(load, [.add("show", to: "main")])
    try w.enqueue(load, on: q)
    try w.enqueue(show, on: q)  // by hand, before the block gets to it
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 show created", "0 load created", "0 load enqueued", "0 load ready", "0 load started",
        "0 show enqueued", "0 show ready", "0 show started",
        "1 load finished", "1 load completion+", "1 show finished",
        "1 load addRefused:show", "2 load completion-",
      ])
    #expect(w.operation(show).queue == q)
    let refused = try #require(w.firstIndex("addRefused:show", "load"))
    #expect(w.reasonText(refused).hasPrefix("load addOperation(show) refused: show was added before, and an operation can be added only once"))
  }

  @Test("Two `add` steps of one operation in the same tick: the first files it as the tick ends, the second is refused in its tick")
  func twoAddsInOneTick() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let mark = w.trace.count
    try w.createOperation(spec("show", 1))
    try w.addOperation(OperationSpec(name: "a", duration: 1, kind: .steps([.add("show", to: "q")])), to: q)
    try w.addOperation(OperationSpec(name: "b", duration: 1, kind: .steps([.add("show", to: "q")])), to: q)
    #expect(w.runUntilIdle() == .idle)
    #expect(
      w.lines(from: mark) == [
        "0 show created",
        "0 a created", "0 a enqueued", "0 a ready", "0 a started",
        "0 b created", "0 b enqueued", "0 b ready", "0 b started",
        // Both steps take tick 0; a's came first, so b's finds show being added.
        "0 b addRefused:show",
        // As tick 0 ends: the filing of what the steps added, then the rest.
        "1 show enqueued", "1 show ready", "1 show started",
        "1 a finished", "1 b finished",
        "2 show finished",
      ])
    let added = try #require(w.firstIndex("enqueued", "show"))
    #expect(w.reasonText(added) == "show enqueued on q: a step of a's work called addOperation")
  }

  @Test("Completion steps are checked: no locks, names that exist, only operations in no queue, only before the operation runs")
  func validation() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    try w.createLock(name: "L")
    let a = try w.createOperation(spec("a", 1))
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(a, [.lock("L"), .unlock("L")]) }
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(a, [.add("nobody", to: "main")]) }
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(a, [.read("missing")]) }
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(a, []) }
    let b = try w.createOperation(spec("b", 1))
    try w.enqueue(b, on: q)
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(a, [.add("b", to: "main")]) }
    #expect(throws: SimulationError.self) { try w.setCompletionSteps(b, [.touchUI]) }  // b has started
    #expect(w.completionSteps(of: a) == nil)
  }

  @Test("explore reaches the orders where the completion block's increment and the dependent's interleave, and the one where they do not")
  func exploreCompletion() throws {
    var base = World()
    let q = try base.createQueue(name: "q")
    let actions: [Action] = [
      .createVariable(name: "count", initial: 0),
      .createOperation(spec("load", 1), dependencies: [], queue: nil),
      .setCompletionSteps(OpID(0), Self.increment),
      .enqueue(OpID(0), on: q),
      .createOperation(OperationSpec(name: "next", duration: 3, kind: .steps(Self.increment)), dependencies: [OpID(0)], queue: q),
    ]
    let e = World.explore(actions, from: base)
    #expect(e.complete)
    #expect(e.lostUpdates > 0)
    #expect(e.finals.map(\.values).sorted { $0[0] < $1[0] } == [[1], [2]])
  }
}
