import Foundation
import OpLabCore
import OpLabSwift
import Testing

/// The generator alone, with no shell: names, layout, and code from journal actions (#33).
@Suite struct SwiftCodeUnitTests {
  @Test("Names become Swift names: words joined in camel case, a leading digit or a keyword made safe")
  func names() {
    #expect(SwiftCode.variable("fetch-image") == "fetchImage")
    #expect(SwiftCode.variable("load.v2") == "loadV2")
    #expect(SwiftCode.variable("class") == "classOp")
    #expect(SwiftCode.variable("main.tap1") == "mainTap1")
    #expect(SwiftCode.typeName("fetch-image") == "FetchImageOperation")
    #expect(SwiftCode.typeName("class") == "ClassOpOperation")
    // Contextual keywords, the harness's and Foundation's names, and what is no identifier.
    #expect(
      ["async", "Self", "Any", "work", "Thread", "print", "register", "Gate"].map(SwiftCode.variable) == [
        "asyncOp", "SelfOp", "AnyOp", "workOp", "ThreadOp", "printOp", "registerOp", "GateOp",
      ])
    #expect(SwiftCode.variable("_") == "op1" && SwiftCode.variable("2x") == "op2x")
    #expect(SwiftCode.variable("ⸯ") == "u2E2F" && SwiftCode.variable("block") == "blockOp")
    #expect(SwiftCode.literal("a\"b\\c") == "\"a\\\"b\\\\c\"")
  }

  @Test(
    "Code too wide is laid out, not wrapped like prose: comments go on as comment lines, a trailing comment goes above, a statement breaks after its `=`, a string literal is never broken"
  )
  func fitsLaidOut() {
    // The shown forms: a comment too wide goes on as comment lines, a trailing comment
    // goes above, a statement breaks after its `=`; a string literal is never broken.
    #expect(
      SwiftCode.fit(["  x = f()  // " + String(repeating: "word ", count: 20)], width: 40) == [
        "  // word word word word word word word",
        "  // word word word word word word word",
        "  // word word word word word word",
        "  x = f()",
      ])
    #expect(
      SwiftCode.fit(["let aVeryLongName = \"a // b\" + anotherVeryLongName"], width: 40) == [
        "let aVeryLongName =", "  \"a // b\" + anotherVeryLongName",
      ])
    #expect(
      SwiftCode.fit(["print(\"a string much longer than the width allows\")"], width: 20) == [
        "print(\"a string much longer than the width allows\")"
      ])
  }

  /// A world made by `lines`, each a typed line and its actions (given the world so far).
  static func source(_ lines: [(String, (World) -> [Action])]) throws -> SwiftSource {
    var world = World()
    _ = try world.createQueue(name: "queue")
    var entries: [SwiftSource.Entry] = []
    for (text, make) in lines {
      let actions = make(world)
      let tick = world.now
      for action in actions { _ = try world.perform(action) }
      entries.append(SwiftSource.Entry(text: text, actions: actions, tick: tick, end: world.now))
    }
    return SwiftSource(entries: entries, world: world)
  }

  @Test(
    "Each line's actions become its code under the line as a comment; the clock moving on is a sleep; a run lets the work go on, and the end waits for it; the view is the export's main.swift"
  )
  func fromActions() throws {
    let source = try Self.source([
      ("queue downloads max 2", { _ in [.createQueue(name: "downloads", maxConcurrent: 2, qualityOfService: nil)] }),
      (
        "op fetch-image on downloads takes 3",
        { w in
          [.createOperation(OperationSpec(name: "fetch-image", duration: 3), dependencies: [], queue: w.queueID(named: "downloads"))]
        }
      ),
      ("step 1", { _ in [.step(1)] }),
      ("suspend downloads", { w in w.queueID(named: "downloads").map { [.suspend($0)] } ?? [] }),
      ("resume downloads", { w in w.queueID(named: "downloads").map { [.resume($0)] } ?? [] }),
      ("run", { _ in [.runUntilIdle] }),
    ])
    let code = SwiftCode.render(source)
    #expect(
      code.hasSuffix(
        """
        /// The world, command by command, on the main thread.
        func program() {
          // queue downloads max 2
          let downloads = OperationQueue()
          downloads.name = "downloads"
          downloads.maxConcurrentOperationCount = 2

          // op fetch-image on downloads takes 3
          let fetchImage = BlockOperation { work(ticks: 3) }
          fetchImage.name = "fetch-image"
          Lab.watch(fetchImage)  // the harness prints its start and finish
          downloads.addOperation(fetchImage)

          sleep(untilTick: 1)  // the lab's next command is at t=1

          // suspend downloads
          downloads.isSuspended = true  // running work goes on; nothing new starts

          // resume downloads
          downloads.isSuspended = false

          // run
          // the work goes on; the next sleep, or the program's end, waits for it
        }

        Lab.start(lastTick: 3)  // the lab's clock starts: t=0
        program()
        // the work goes on: the harness's watcher ends the program when it is done
        Lab.end()

        """), "\(code)")
    #expect(source.entries.map(\.subject) == ["downloads", "fetch-image", nil, nil, nil, nil])
    // One form of the program: the view is the package's main.swift, and the one-file
    // export's text before the harness.
    #expect(code == SwiftCode.exportPackage(source, name: "world").program)
    #expect(SwiftCode.export(source).hasPrefix(code + "\n" + SwiftCode.harnessMarker + "\n"))
  }

  @Test(
    "The statements are in one function and the classes at file scope: swiftc's lookups walk back a scope a local in a function, a statement in top-level code"
  )
  func programInAFunction() throws {
    let source = try Self.source([
      (
        "op a takes 4 cancel-check every 2",
        { w in
          var spec = OperationSpec(name: "a", duration: 4)
          spec.cancellation = .every(2)
          return [.createOperation(spec, dependencies: [], queue: w.queueID(named: "queue"))]
        }
      ),
      ("run", { _ in [.runUntilIdle] }),
    ])
    let code = SwiftCode.render(source)
    let lines = code.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let type = try #require(lines.firstIndex { $0.hasPrefix("final class CancellableOperation: Operation") })
    let function = try #require(lines.firstIndex(of: "func program() {"))
    let end = try #require(lines.lastIndex(of: "}"))
    // The class before the function, every statement inside it (indented), the call after.
    #expect(type < function && function < end)
    #expect(lines[(function + 1)..<end].allSatisfy { $0.isEmpty || $0.hasPrefix("  ") }, "\(code)")
    #expect(lines[(function + 1)..<end].contains("  let a = CancellableOperation(ticks: 4, checkingEvery: 2)"), "\(code)")
    #expect(
      Array(lines[(end + 1)...]) == [
        "", "Lab.start(lastTick: 4)  // the lab's clock starts: t=0", "program()",
        "// the work goes on: the harness's watcher ends the program when it is done", "Lab.end()", "",
      ], "\(code)")
    #expect(lines.allSatisfy { $0.count <= SwiftCode.columns })
  }

  @Test(
    "An asynchronous operation that checks isCancelled stops its work on cancel(): the work it starts can be stopped, and its callback finishes it; its cancel() says so, another's that it only sets isCancelled"
  )
  func asyncCancelStopsTheWork() throws {
    let source = try Self.source([
      (
        "op a takes 6 async cancel-check every 2",
        { w in
          var spec = OperationSpec(name: "a", duration: 6)
          spec.kind = .async(forgetsFinish: false)
          spec.cancellation = .every(2)
          return [.createOperation(spec, dependencies: [], queue: w.queueID(named: "queue"))]
        }
      ),
      (
        "op b takes 6 async",
        { w in
          var spec = OperationSpec(name: "b", duration: 6)
          spec.kind = .async(forgetsFinish: false)
          return [.createOperation(spec, dependencies: [], queue: w.queueID(named: "queue"))]
        }
      ),
      ("step 1", { _ in [.step(1)] }),
      ("cancel a", { w in w.operationID(named: "a").map { [.cancel($0)] } ?? [] }),
      ("cancel b", { w in w.operationID(named: "b").map { [.cancel($0)] } ?? [] }),
    ])
    let code = SwiftCode.render(source)
    #expect(
      code.contains(
        """
          // cancel a
          // sets isCancelled, and its cancel() stops the work it began: finish()
          // comes at the work's next check
          a.cancel()

          // cancel b
          b.cancel()  // only sets isCancelled: code stops where it checks it

        """), "\(code)")
    #expect(
      code.contains(
        """
          override func start() {
            guard !isCancelled else { finish(); return }
            begin()
            let work = startWork(ticks: 6, checkingEvery: 2) { [self] error in
              self.error = error  // WorkError.cancelled: cancel() stopped it
              finish()
            }
            onCancel { work.cancel() }  // cancel() stops it at its next check
          }
        """), "\(code)")
    // The base class: cancel() stops the work it was given, outside its lock.
    #expect(code.contains("  override func cancel() {\n    super.cancel()\n"), "\(code)")
    #expect(!code.contains("forKey: \"isReady\"") && !code.contains("forKey: \"isCancelled\""), "\(code)")
  }
}

extension SwiftCodeUnitTests {
  @Test(
    "cancel()'s comment says what it does where the operation was: running, its code must check; waiting in a queue, it turns ready and skips main(); in no queue, it finishes at start() (Linux) or at once (Apple's docs); finished, nothing; started this very tick, either"
  )
  func cancelSaysWhereTheOperationWas() throws {
    func op(_ name: String, takes ticks: Tick, after: String? = nil, hold: Bool = false) -> (String, (World) -> [Action]) {
      (
        "op \(name) takes \(ticks)" + (after.map { " after \($0)" } ?? "") + (hold ? " hold" : ""),
        { w in
          [
            .createOperation(
              OperationSpec(name: name, duration: ticks), dependencies: after.flatMap(w.operationID(named:)).map { [$0] } ?? [],
              queue: hold ? nil : w.queueID(named: "queue"))
          ]
        }
      )
    }
    func cancel(_ name: String) -> (String, (World) -> [Action]) {
      ("cancel \(name)", { w in w.operationID(named: name).map { [.cancel($0)] } ?? [] })
    }
    let lines = [
      op("a", takes: 3), op("b", takes: 2, after: "a"), op("c", takes: 2, hold: true),
      ("step 1", { _ in [.step(1)] }), cancel("a"), cancel("b"), cancel("c"),
    ]
    let apple = SwiftCode.render(try Self.source(lines))
    #expect(
      apple.contains(
        """
          // cancel a
          a.cancel()  // only sets isCancelled: code stops where it checks it

          // cancel b
          b.cancel()  // not started: ready at once, and its start() skips main()

          // cancel c
          c.cancel()  // in no queue: finished now (Apple), at start() (Linux)

        """), "\(apple)")
    // A finished operation's cancel() does nothing; one started this very tick may not have
    // started on the real queue yet, where the program's command comes a little early.
    let later = SwiftCode.render(
      try Self.source(
        lines + [("run", { _ in [.runUntilIdle] }), cancel("a"), op("d", takes: 1), op("e", takes: 1, after: "d")]
          + [("step 1", { _ in [.step(1)] }), cancel("e")]))
    #expect(later.contains("  a.cancel()  // already finished: no effect (isCancelled stays false)\n"), "\(later)")
    #expect(
      later.contains(
        """
          // it started this tick in the lab, so it only sets isCancelled; the real
          // queue may not have started it yet, and then its start() skips main()
          e.cancel()
        """), "\(later)")
  }

  @Test(
    "An operation held in no queue is written for the queue it runs on: a step that touches the user interface is a main-actor call where it is added to main later, a call off main where it is added elsewhere, and the queue it was defined for before it is added (an echo)"
  )
  func heldOperationIsWrittenForItsQueue() throws {
    func held(_ name: String, for queue: String) -> (String, (World) -> [Action]) {
      (
        "op \(name) on \(queue) touches ui hold",
        { _ in
          var spec = OperationSpec(name: name, duration: 1)
          spec.kind = .steps([.touchUI])
          spec.heldFor = queue
          return [.createOperation(spec, dependencies: [], queue: nil)]
        }
      )
    }
    func add(_ name: String, to queue: String) -> (String, (World) -> [Action]) {
      ("add \(name) to \(queue)", { w in [.enqueue(w.operationID(named: name) ?? OpID(0), on: w.queueID(named: queue) ?? QueueID(0))] })
    }
    let onMain = "  MainActor.assumeIsolated { updateUserInterface() }  // on main: allowed\n"
    let offMain = "  userInterfaceTouchedOffMain()\n"
    // Defined for main and added there: the call is on main.
    let shown = SwiftCode.render(try Self.source([held("show", for: "main"), add("show", to: "main")]))
    #expect(shown.contains(onMain) && !shown.contains(offMain), "\(shown)")
    // Defined for main but added to another queue: the world's truth wins.
    let elsewhere = SwiftCode.render(try Self.source([held("show", for: "main"), add("show", to: "queue")]))
    #expect(elsewhere.contains(offMain) && !elsewhere.contains(onMain), "\(elsewhere)")
    // Not added yet (an echo as it is typed): the queue it was defined for.
    let echo = SwiftCode.echo(try Self.source([held("show", for: "main")]))
    #expect(echo.contains("MainActor.assumeIsolated { updateUserInterface() }"), "\(echo)")
    let echoOff = SwiftCode.echo(try Self.source([held("show", for: "queue")]))
    #expect(echoOff.contains("userInterfaceTouchedOffMain()"), "\(echoOff)")
  }
}

extension SwiftCodeUnitTests {
  @Test(
    "The asynchronous base class sends the KVO the lab shows, in its order: begin() only isExecuting's pair; finish() isFinished's around isExecuting's, as in Apple's guide; cancelled before it starts, finish() sends isFinished's pair alone"
  )
  func asyncBaseSendsTheLabsKVO() throws {
    var world = World()
    let q = try world.createQueue(name: "queue")
    var spec = OperationSpec(name: "a", duration: 2)
    spec.kind = .async(forgetsFinish: false)
    _ = try world.perform(.createOperation(spec, dependencies: [], queue: q))
    var skipped = OperationSpec(name: "b", duration: 2)
    skipped.kind = .async(forgetsFinish: false)
    // b waits for a, and is cancelled before it starts: its start() finishes it at once.
    let a = try #require(world.operationID(named: "a"))
    _ = try world.perform(.createOperation(skipped, dependencies: [a], queue: q))
    let b = try #require(world.operationID(named: "b"))
    _ = try world.perform(.cancel(b))
    _ = try world.perform(.runUntilIdle)
    // The lab's KVO of isExecuting and isFinished for each operation, at its start and finish.
    func kvo(_ name: String) -> [String] {
      world.trace.compactMap { e -> String? in
        guard let op = e.op, world.name(op) == name else { return nil }
        switch e.kind {
        case .kvoWillChange(let key) where key != .isReady: return "will \(key)"
        case .kvoDidChange(let key) where key != .isReady: return "did \(key)"
        default: return nil
        }
      }
    }
    // The base class's calls, in begin() then finish(), as the code makes them.
    let code = SwiftCode.asyncBase.joined(separator: "\n")
    func calls(in function: String, wasExecuting: Bool) throws -> [String] {
      let start = try #require(code.range(of: "func \(function)() {"))
      var out: [String] = []
      for line in code[start.upperBound...].split(separator: "\n") {
        if line == "  }" { break }
        if line.contains("if wasExecuting"), !wasExecuting { continue }
        for verb in ["will", "did"] where line.contains("\(verb)ChangeValue(forKey: \"") {
          let key = line.split(separator: "\"")[1]
          out.append("\(verb) \(key)")
        }
      }
      return out
    }
    #expect(try calls(in: "begin", wasExecuting: true) + calls(in: "finish", wasExecuting: true) == kvo("a"), "\(kvo("a"))")
    #expect(try calls(in: "finish", wasExecuting: false) == kvo("b"), "\(kvo("b"))")
  }
}

extension SwiftCodeUnitTests {
  @Test(
    "Operations defined alike (`op a,b,c`) are made one after another, the completion block's comment said once, then watched with one Lab.watch and added with one addOperations"
  )
  func alikeOperationsSayItOnce() throws {
    let source = try Self.source([
      (
        "op a,b,c takes 2 completion 1",
        { w in
          let made: [Action] = ["a", "b", "c"].map { name in
            .createOperation(OperationSpec(name: name, duration: 2, completion: 1), dependencies: [], queue: nil)
          }
          let first = w.operations.count
          return made + [.enqueueAll((0..<3).map { OpID(first + $0) }, on: w.queueID(named: "queue") ?? .main, wait: nil)]
        }
      )
    ])
    let code = SwiftCode.render(source)
    let start = try #require(code.range(of: "  // op a,b,c takes 2 completion 1\n"))
    let body = code[start.lowerBound...]
    #expect(
      body.hasPrefix(
        """
          // op a,b,c takes 2 completion 1
          let queue = OperationQueue()  // the lab's default queue
          let a = BlockOperation { work(ticks: 2) }
          a.name = "a"
          // its completion block runs after it, on a thread Foundation picks
          a.completionBlock = { work(ticks: 1) }
          let b = BlockOperation { work(ticks: 2) }
          b.name = "b"
          b.completionBlock = { work(ticks: 1) }
          let c = BlockOperation { work(ticks: 2) }
          c.name = "c"
          c.completionBlock = { work(ticks: 1) }
          // the harness prints starts and finishes, then waits for their blocks
          Lab.watch(a, b, c)
          // inserts all, then schedules once
          queue.addOperations([a, b, c], waitUntilFinished: false)
        }
        """), "\(code)")
  }
}
