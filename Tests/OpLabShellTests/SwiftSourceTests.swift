import OpLabCore
import OpLabReal
import OpLabSwift
import Testing

@testable import OpLabShell

/// The Swift generator reads the core's journal, cut into the typed lines (#33).
@Suite struct SwiftSourceTests {
  @Test("A source built by hand from actions, with no shell, gives the lab's own Swift for the same lines")
  func fromActions() throws {
    var world = Interpreter.freshWorld(.apple)
    var entries: [SwiftSource.Entry] = []
    func line(_ text: String, _ actions: (World) throws -> [Action]) throws {
      let actions = try actions(world)
      let tick = world.now
      for action in actions { _ = try world.perform(action) }
      entries.append(SwiftSource.Entry(text: text, actions: actions, tick: tick, end: world.now))
    }
    try line("queue q max 1") { _ in [.createQueue(name: "q", maxConcurrent: 1, qualityOfService: nil)] }
    try line("op a on q takes 2") { w in
      [.createOperation(OperationSpec(name: "a", duration: 2), dependencies: [], queue: w.queueID(named: "q"))]
    }
    try line("op b,c takes 1 hold") { _ in
      // Held, each keeps the queue it was defined for (the default one).
      ["b", "c"].map { name in
        var spec = OperationSpec(name: name)
        spec.heldFor = "queue"
        return .createOperation(spec, dependencies: [], queue: nil)
      }
    }
    try line("step 1") { _ in [.step(1)] }
    try line("add b,c to q") { w in
      [.enqueueAll(["b", "c"].compactMap(w.operationID(named:)), on: try #require(w.queueID(named: "q")), wait: nil)]
    }
    try line("cancel all") { w in w.queueIDs.map { .cancelAll($0) } }
    try line("run") { _ in [.runUntilIdle] }

    let lab = Interpreter()
    for text in entries.map(\.text) { #expect(lab.execute(text).error == nil, "\(text)") }
    let source = SwiftSource(entries: entries, world: world)
    #expect(SwiftCode.render(source) == lab.execute("swift").output)
    #expect(SwiftCode.render(source, focus: "b") == lab.execute("swift b").output)
    #expect(SwiftCode.export(source) == SwiftCode.export(lab.swiftSource()))
    // The shell's own source is the journal cut by its script: the same lines, actions and ticks.
    #expect(lab.swiftSource().entries.map(\.actions) == entries.map(\.actions))
    #expect(lab.swiftSource().entries.map(\.tick) == [0, 0, 0, 0, 1, 1, 1])
  }

  @Test("A queue set up before any work is given to it is declared first, with its name, so the code compiles")
  func defaultQueueDeclared() {
    let lab = Interpreter()
    for line in ["max queue 2", "qos queue utility", "op a takes 1"] { _ = lab.execute(line) }
    #expect(
      SwiftCodeTests.body(lab.execute("swift").output).contains(
        """
        // max queue 2
        let queue = OperationQueue()
        queue.name = "queue"
        queue.maxConcurrentOperationCount = 2

        // qos queue utility
        queue.qualityOfService = .utility

        // op a takes 1
        let a = BlockOperation { work(ticks: 1) }
        """))
  }

  @Test("real names a line it cannot play once, with its text, however many actions it performed")
  func unplayedOncePerLine() {
    let lab = Interpreter()
    for line in [
      "machine cores 2", "var n = 0", "op x takes 3 does read n, compute 1, write n",
      "op y takes 3 does read n, compute 1, write n", "order 1,0", "choose 1", "tap",
    ] {
      #expect(lab.execute(line).error == nil, "\(line)")
    }
    let (script, unplayed) = RealComparison.script(lab.swiftSource())
    #expect(
      unplayed == [
        "`machine cores 2`: the real machine has its own cores", "`order 1,0`", "`choose 1`",
        "`tap`: the lab plays the user and the display",
      ])
    #expect(script.actions.contains(TimedAction(tick: 0, action: .makeVariable("n", 0))))
  }
}
