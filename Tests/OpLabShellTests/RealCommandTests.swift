import Foundation
import OpLabCore
import OpLabReal
import OpLabSwift
import Testing

@testable import OpLabShell

/// `real`: what it plays on the real queue, and what it refuses (#21). The runs themselves,
/// in real time, are tested in OpLabDifferentialTests, where nothing else competes for threads.
@Suite struct RealCommandTests {
  static func lab(_ lines: [String]) -> Interpreter {
    let i = Interpreter()
    for line in lines { _ = i.execute(line) }
    return i
  }

  @Test(
    "Every command that changes the world becomes its call at its tick; waits from main block the main thread; taps, frames and cores are said not to be played"
  )
  func script() throws {
    let i = Self.lab([
      "machine cores 2",
      "queue q max 1 qos utility",
      "op a on q takes 2 priority high",
      "op b on q takes 3 cancel-check every 1 completion 1 after a",
      "op c async forgets-finish",
      "op d blocks 1,2 hold",
      "op e takes 2 fails at 1 bail-if-dep-cancelled hold",
      "step 1",
      "cancel b",
      "add d to q",
      "depend e on d",
      "undepend e on d",
      "priority d veryLow",
      "qos q userInitiated",
      "qos e background",
      "barrier q takes 1",
      "tap",
      "frames every 4",
      "suspend q",
      "resume q",
      "max q default",
      "cancel all q",
      "add e",
      "timeline",
      "wait from main",
      "run",
    ])
    let (script, unplayed) = RealComparison.script(i.swiftSource())
    var a = RealWork("a", ticks: 2)
    a.priority = .high
    var b = RealWork("b", ticks: 3)
    b.checksCancellationEvery = 1
    b.completionTicks = 1
    var c = RealWork("c", ticks: 1)
    c.isAsynchronous = true
    c.forgetsFinish = true
    var d = RealWork("d", ticks: 3)
    d.blocks = [1, 2]
    var e = RealWork("e", ticks: 2)
    e.failsAfter = 1
    e.bailsIfDependencyCancelled = true
    let waited = try #require(i.swiftSource().entries.first { $0.text == "wait from main" })
    #expect(
      script.actions == [
        TimedAction(tick: 0, action: .makeQueue("q")),
        TimedAction(tick: 0, action: .setMax("q", 1)),
        TimedAction(tick: 0, action: .setQueueQoS("q", .utility)),
        TimedAction(tick: 0, action: .makeOperation(a)),
        TimedAction(tick: 0, action: .add("a", to: "q")),
        TimedAction(tick: 0, action: .makeOperation(b)),
        TimedAction(tick: 0, action: .addDependency("b", on: "a")),
        TimedAction(tick: 0, action: .add("b", to: "q")),
        TimedAction(tick: 0, action: .makeOperation(c)),
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .add("c", to: "queue")),
        TimedAction(tick: 0, action: .makeOperation(d)),
        TimedAction(tick: 0, action: .makeOperation(e)),
        TimedAction(tick: 1, action: .cancel("b")),
        TimedAction(tick: 1, action: .add("d", to: "q")),
        TimedAction(tick: 1, action: .addDependency("e", on: "d")),
        TimedAction(tick: 1, action: .removeDependency("e", on: "d")),
        TimedAction(tick: 1, action: .setPriority("d", .veryLow)),
        TimedAction(tick: 1, action: .setQueueQoS("q", .userInitiated)),
        TimedAction(tick: 1, action: .setOperationQoS("e", .background)),
        TimedAction(tick: 1, action: .barrier("q", label: "q.barrier1", ticks: 1)),
        TimedAction(tick: 1, action: .suspend("q")),
        TimedAction(tick: 1, action: .resume("q")),
        TimedAction(tick: 1, action: .setMax("q", nil)),
        TimedAction(tick: 1, action: .cancelAll("q")),
        TimedAction(tick: 1, action: .add("e", to: "queue")),
        TimedAction(tick: 1, action: .onMainThread(.waitForQueue(nil), until: nil)),
      ])
    #expect(waited.end > 1)
    #expect(
      unplayed == [
        "`machine cores 2`: the real machine has its own cores",
        "`tap`: the lab plays the user and the display",
        "`frames every 4`: the lab plays the user and the display",
      ])
  }

  @Test("The lab names a barrier as the real run does, so their rows meet")
  func barrierName() throws {
    let i = Self.lab(["queue q", "op a on q takes 1", "barrier q takes 1", "barrier q takes 1", "run"])
    let names = i.world.operationsByQueue().queued.flatMap { $0 }.map { i.world.name($0) }
    let labels = RealComparison.script(i.swiftSource()).script.actions.compactMap { step -> String? in
      if case .barrier(_, let label, _) = step.action { label } else { nil }
    }
    #expect(names == ["a"] + labels)
    #expect(labels == ["q.barrier1", "q.barrier2"])
  }

  @Test("Refused with the reason and a way on: no operations, ms out of range, a world too long for the time limit")
  func refusals() throws {
    let empty = Self.lab(["queue q"])
    let none = try #require(empty.execute("real").error)
    #expect(none.message == "there is no operation to run on the real queue yet")
    #expect(none.hint?.contains("`op a takes 3`") == true)

    let short = Self.lab(["op a takes 1", "run"])
    let range = try #require(short.execute("real 5").error)
    #expect(range.message == "5 ms a tick is out of range: give 10 to 2000")
    #expect(range.column == 6)

    let long = Self.lab(["op a takes 1000", "run"])
    let tooLong = try #require(long.execute("real").error)
    #expect(tooLong.message == "this world runs to t=1000: about 50 s on the real queue at 50 ms a tick, and the limit is 30 s")
    #expect(tooLong.hint == "try `real 29` (29 ms a tick), or look at an earlier moment with `goto T` first")
    let tooLongEvenFast = try #require(Self.lab(["op a takes 4000", "run"]).execute("real").error)
    #expect(tooLongEvenFast.hint == "it is too long even at 10 ms a tick: look at an earlier moment with `goto T` first")
    // Nothing was changed, and the session goes on.
    #expect(long.world.now == 1000)
    #expect(long.execute("status").error == nil)
  }

  @Test("real only looks: the lab's world and script are as they were")
  func onlyLooks() throws {
    let i = Self.lab(["op a takes 1", "run"])
    let before = (i.script.map(\.text), i.world.trace.count)
    let reply = i.execute("real 10")
    #expect(reply.error == nil)
    // (Whether the rows agree is timing, tested where nothing competes for threads.)
    #expect(reply.output.contains("  a lab   █✓\n"))
    #expect(i.script.map(\.text) == before.0 && i.world.trace.count == before.1)
  }

  @Test(
    "The direct calls become their real calls: addOperations for a list, start() by hand, a gate and its opening, a block added to a block operation, and to a plain operation, which is the BlockOperation { work } the program makes"
  )
  func directCalls() {
    let i = Self.lab([
      "queue q2",
      "op a,b takes 1 hold",
      "add a,b to q2",
      "op g takes 1 gate ready only-if-deps-succeeded after a",
      "op h takes 2 hold",
      "op blk blocks 1 hold",
      "blocks blk +2",
      "blocks h +1",
      "start h",
      "open ready",
    ])
    let (script, unplayed) = RealComparison.script(i.swiftSource())
    var g = RealWork("g", ticks: 1)
    g.gate = "ready"
    g.bailsUnlessDependenciesSucceeded = true
    var blk = RealWork("blk", ticks: 1)
    blk.blocks = [1]
    var h = RealWork("h", ticks: 2)
    h.blocks = [2]
    #expect(
      script.actions == [
        TimedAction(tick: 0, action: .makeQueue("q2")),
        TimedAction(tick: 0, action: .makeOperation(RealWork("a", ticks: 1))),
        TimedAction(tick: 0, action: .makeOperation(RealWork("b", ticks: 1))),
        TimedAction(tick: 0, action: .addBatch(["a", "b"], to: "q2")),
        TimedAction(tick: 0, action: .makeOperation(g)),
        TimedAction(tick: 0, action: .addDependency("g", on: "a")),
        TimedAction(tick: 0, action: .makeQueue("queue")),
        TimedAction(tick: 0, action: .add("g", to: "queue")),
        TimedAction(tick: 0, action: .makeOperation(h)),
        TimedAction(tick: 0, action: .makeOperation(blk)),
        TimedAction(tick: 0, action: .addBlock("blk", ticks: 2)),
        TimedAction(tick: 0, action: .addBlock("h", ticks: 1)),
        TimedAction(tick: 0, action: .startByHand("h")),
        TimedAction(tick: 0, action: .openGate("ready")),
      ], "\(script.actions)")
    #expect(unplayed.isEmpty, "\(unplayed)")
  }
}

/// What `real` says of the operations left unfinished (#31): agreement only when both sides
/// left the same ones.
@Suite struct RealUnfinishedTextTests {
  @Test("The same stall on both sides is agreement; different ones are named side by side, never as 'too'")
  func unfinished() {
    #expect(
      RealComparison.unfinishedText(lab: ["a", "m"], real: ["a", "m"])
        == "Unfinished on the real queue too when the run ended: a, m (`why` says what each waits for).\n")
    #expect(
      RealComparison.unfinishedText(lab: ["b", "m"], real: ["a", "m"])
        == "Unfinished when the runs ended: in the lab b, m; on the real queue a, m (an order the real queue leaves open "
        + "can decide which: `why` says what each waits for).\n")
    #expect(RealComparison.unfinishedText(lab: ["b"], real: []).contains("in the lab b; on the real queue none"))
    #expect(RealComparison.unfinishedText(lab: [], real: []) == "")
  }
}
