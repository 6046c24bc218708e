import OpLabCore
import OpLabSwift
import Testing

/// The one lowering of a world to timed calls (#28): what `real` plays, with no shell and no
/// Foundation.
@Suite struct LoweringTests {
  typealias Line = (String, (World) -> [Action])

  static func op(_ w: World, _ name: String) -> OpID { w.operationID(named: name) ?? OpID(-1) }
  static func q(_ w: World, _ name: String) -> QueueID { w.queueID(named: name) ?? QueueID(-1) }

  @Test(
    "A line's operations are made with their dependencies and gates, then added together; its cancel of every queue comes last, on the queues made so far; a wait from the lab's thread is no call, one from main is"
  )
  func linesBecomeTimedCalls() throws {
    let gated = OperationSpec(name: "b", duration: 2, completion: 1)
    let source = try SwiftCodeUnitTests.source([
      ("queue q max 1", { _ in [.createQueue(name: "q", maxConcurrent: 1, qualityOfService: .utility)] }),
      (
        "op a,b on q gated-by g",
        { w in
          [
            .createOperation(OperationSpec(name: "a", duration: 2, completion: 1), dependencies: [], queue: nil),
            .gate(OpID(w.operations.count), "g"),
            .createOperation(gated, dependencies: [OpID(w.operations.count)], queue: nil),
            .gate(OpID(w.operations.count + 1), "g"),
            .enqueueAll([OpID(w.operations.count), OpID(w.operations.count + 1)], on: Self.q(w, "q"), wait: nil),
          ]
        }
      ),
      ("op c takes 1", { w in [.createOperation(OperationSpec(name: "c"), dependencies: [], queue: Self.q(w, "queue"))] }),
      ("open g", { _ in [.openGate("g"), .step(1)] }),
      ("cancel all", { w in [.cancelAll(Self.q(w, "q")), .cancel(Self.op(w, "c")), .cancelAll(Self.q(w, "queue"))] }),
      ("wait", { _ in [.wait(nil)] }),
      ("wait on main", { w in [.waitOnMainThread(Self.q(w, "q"))] }),
    ])
    let lowering = source.lowered(playingOn: .apple)
    let waited = source.entries[6].tick
    #expect(waited > 1)
    var a = RealWork("a", ticks: 2)
    a.completionTicks = 1
    a.gate = "g"
    var b = RealWork("b", ticks: 2)
    b.completionTicks = 1
    b.gate = "g"
    let c = RealWork("c", ticks: 1)
    #expect(
      lowering.script.actions == [
        TimedAction(tick: 0, action: .makeQueue("q")),
        TimedAction(tick: 0, action: .setMax("q", 1)),
        TimedAction(tick: 0, action: .setQueueQoS("q", .utility)),
        TimedAction(tick: 0, action: .makeOperation(a)),
        TimedAction(tick: 0, action: .makeOperation(b)),
        TimedAction(tick: 0, action: .addDependency("b", on: "a")),
        TimedAction(tick: 0, action: .addBatch(["a", "b"], to: "q")),
        TimedAction(tick: 0, action: .makeOperation(c)),
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .add("c", to: "queue")),
        TimedAction(tick: 0, action: .openGate("g")),
        // The cancel of one operation first, then each queue's cancelAll in name order.
        TimedAction(tick: 1, action: .cancel("c")),
        TimedAction(tick: 1, action: .cancelAll("q")),
        TimedAction(tick: 1, action: .cancelAll("queue")),
        // After the lab's wait, when the clock has run on to where it returned.
        TimedAction(tick: waited, action: .onMainThread(.waitForQueue("q"), until: nil)),
      ])
    #expect(lowering.unplayed.isEmpty)
  }

  @Test(
    "What the real queue cannot be given is named, a line once: the lab's cores, the user and the display, an order chosen by hand, a gate given after the operation is made, and a platform not the host's"
  )
  func unplayedIsNamed() throws {
    let source = try SwiftCodeUnitTests.source([
      ("cores 2", { _ in [.setCores(2)] }),
      ("tap at 3, frames", { _ in [.tap(at: 3), .frames(every: nil, from: nil, until: nil)] }),
      ("op x hold", { _ in [.createOperation(OperationSpec(name: "x"), dependencies: [], queue: nil)] }),
      ("gate x by g", { w in [.gate(Self.op(w, "x"), "g")] }),
      ("platform linux", { _ in [.setPlatform(.linux)] }),
    ])
    let onApple = source.lowered(playingOn: .apple)
    #expect(
      onApple.unplayed == [
        "`cores 2`: the real machine has its own cores",
        "`tap at 3, frames`: the lab plays the user and the display",
        "`gate x by g`: the real stand-in is made with its gate and completion block",
        "`platform linux`: the real queue is this machine's, Foundation on an Apple platform",
      ])
    // On Linux the line naming Linux is played: nothing to say. The calls are the same.
    let onLinux = source.lowered(playingOn: .linux)
    #expect(onLinux.unplayed == Array(onApple.unplayed.dropLast()))
    #expect(onLinux.script == onApple.script)
    #expect(onLinux.script.actions == [TimedAction(tick: 0, action: .makeOperation(RealWork("x", ticks: 1)))])
  }

  @Test("The printer and the lowering read a line alike: its definition gathered, its other actions in order, its cancels last")
  func lineGathersTheDefinition() throws {
    let source = try SwiftCodeUnitTests.source([
      (
        "op a on queue, cancel all, suspend",
        { w in
          [
            .createOperation(OperationSpec(name: "a"), dependencies: [], queue: nil),
            .cancelAll(Self.q(w, "queue")),
            .suspend(Self.q(w, "queue")),
            .enqueue(OpID(w.operations.count), on: Self.q(w, "queue")),
            .resume(Self.q(w, "queue")),
          ]
        }
      )
    ])
    let line = SwiftSource.Line(source.entries[0], in: source.world)
    #expect(line.definition.operations.map(\.spec.name) == ["a"])
    #expect(line.definition.queue == "queue")
    #expect(line.cancelledQueues == ["queue"])
    let queue = Self.q(source.world, "queue")
    #expect(line.actions == [.suspend(queue), .resume(queue)])
  }
}

extension LoweringTests {
  @Test(
    "The program makes the calls real plays: a barrier on a queue given no work yet declares it first (its code used it before its declaration), and both make the same calls at the same ticks"
  )
  func programMakesTheLoweredCalls() throws {
    let source = try SwiftCodeUnitTests.source([
      ("barrier queue takes 1", { w in [.addBarrier(Self.q(w, "queue"), duration: 1)] }),
      ("op x takes 2", { w in [.createOperation(OperationSpec(name: "x", duration: 2), dependencies: [], queue: Self.q(w, "queue"))] }),
      ("wait x from main", { w in [.waitForOperations([Self.op(w, "x")], World.Waiter(fromMain: true))] }),
    ])
    let program = SwiftCode.render(source)
    let declared = try #require(program.firstRange(of: "let queue = OperationQueue()"))
    let used = try #require(program.firstRange(of: "queue.addBarrierBlock"))
    #expect(declared.lowerBound < used.lowerBound, "\(program)")
    let played = source.lowered(playingOn: .linux).script.actions
    #expect(
      played == [
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .barrier("queue", label: "queue.barrier1", ticks: 1)),
        TimedAction(tick: 0, action: .makeOperation(RealWork("x", ticks: 2))),
        TimedAction(tick: 0, action: .add("x", to: "queue")),
        TimedAction(tick: 0, action: .onMainThread(.waitForOperations(["x"]), until: nil)),
      ])
    // The printer names the same calls (a barrier's label is the real log's own).
    #expect(
      SwiftCode.calls(source)
        == played.map { call in
          guard case .barrier(let q, _, let ticks) = call.action else { return call }
          return TimedAction(tick: call.tick, action: .barrier(q, label: q, ticks: ticks))
        })
  }
}

extension LoweringTests {
  @Test(
    "A queue set up before it is given work is made there, as the program declares it; a cancel of every queue cancels the main queue too, as the program does"
  )
  func setUpFirstAndCancelEverything() throws {
    let source = try SwiftCodeUnitTests.source([
      ("max queue 1", { w in [.setMaxConcurrent(Self.q(w, "queue"), 1)] }),
      ("op a takes 2", { w in [.createOperation(OperationSpec(name: "a", duration: 2), dependencies: [], queue: Self.q(w, "queue"))] }),
      ("cancel all", { w in [.cancelAll(.main), .cancelAll(Self.q(w, "queue"))] }),
    ])
    let played = source.lowered(playingOn: .linux).script.actions
    #expect(
      played == [
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .setMax("queue", 1)),
        TimedAction(tick: 0, action: .makeOperation(RealWork("a", ticks: 2))),
        TimedAction(tick: 0, action: .add("a", to: "queue")),
        TimedAction(tick: 0, action: .cancelAll("main")),
        TimedAction(tick: 0, action: .cancelAll("queue")),
      ])
    #expect(SwiftCode.calls(source) == played)
  }
}

extension LoweringTests {
  @Test(
    "The main queue's underlying queue is never set, by real as by the program (which comments the line out); another queue's is, after its dispatch queue is made"
  )
  func mainUnderlyingQueueIsNoCall() throws {
    let source = try SwiftCodeUnitTests.source([
      ("dispatch x", { _ in [.createDispatchQueue(name: "x", concurrent: false, qualityOfService: nil)] }),
      ("underlying main x", { _ in [.setUnderlyingQueue(.main, 0)] }),
      ("underlying queue x", { w in [.setUnderlyingQueue(Self.q(w, "queue"), 0)] }),
    ])
    let played = source.lowered(playingOn: .linux).script.actions
    #expect(
      played == [
        TimedAction(tick: 0, action: .makeDispatchQueue("x", concurrent: false, nil)),
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .setUnderlyingQueue("queue", "x")),
      ])
    #expect(SwiftCode.calls(source) == played)
    #expect(SwiftCode.render(source).firstRange(of: "// OperationQueue.main.underlyingQueue = x\n") != nil)
  }
}

extension LoweringTests {
  @Test("Lowered a line at a time, as the printer and the echo take it, a world gives the calls and the unplayed lines of the whole")
  func lineAtATime() throws {
    let source = try SwiftCodeUnitTests.source([
      ("cores 1", { _ in [.setCores(1)] }),
      ("queue q", { _ in [.createQueue(name: "q", maxConcurrent: nil, qualityOfService: nil)] }),
      (
        "op a,b on q",
        { w in
          [
            .createOperation(OperationSpec(name: "a", duration: 2), dependencies: [], queue: nil),
            .createOperation(OperationSpec(name: "b", kind: .blocks([1])), dependencies: [], queue: nil),
            .enqueueAll([OpID(w.operations.count), OpID(w.operations.count + 1)], on: Self.q(w, "q"), wait: nil),
          ]
        }
      ),
      ("barrier q", { w in [.addBarrier(Self.q(w, "q"), duration: 1)] }),
      ("barrier q", { w in [.addBarrier(Self.q(w, "q"), duration: 1)] }),
      ("cancel all", { w in [.cancelAll(.main), .cancelAll(Self.q(w, "q"))] }),
    ])
    var lowerer = Lowerer(playingOn: .linux)
    var calls: [TimedAction] = []
    var unplayed: [String] = []
    for entry in source.entries {
      let line = lowerer.lower(entry, in: source.world)
      calls += line.calls
      unplayed += line.unplayed
    }
    let whole = source.lowered(playingOn: .linux)
    #expect(calls == whole.script.actions && unplayed == whole.unplayed)
    // What it made is kept between lines: the queue once, the barriers counted.
    #expect(calls.filter { $0.action == .makeQueue("q") }.count == 1)
    #expect(
      calls.compactMap { if case .barrier(_, let label, _) = $0.action { label } else { nil } } == ["q.barrier1", "q.barrier2"])
    #expect(unplayed == ["`cores 1`: the real machine has its own cores"])
    #expect(SwiftCode.calls(source).filter { if case .cancelAll = $0.action { true } else { false } }.count == 2)
  }
}
