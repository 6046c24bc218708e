import OpLabCore

extension SwiftCode {
  /// The program as it is built, line by line of the script, action by action.
  struct Program {
    /// The world the actions made: the names their identifiers stand for (for an echo,
    /// the present world, set before each line).
    var world: World
    /// Each of the world's names as one Swift identifier, kept apart from every other.
    let names = SwiftNames()
    var pieces: [Piece] = []
    var declared: Set<String> = ["main"]
    /// The queues that have been given work, for a `wait` on every queue.
    var busy: [String] = []
    var now: Tick = 0
    var needsAsyncBase = false
    /// Whether an operation needs `succeeded(_:)` (`only-if-deps-succeeded`).
    var needsSucceeded = false
    /// The asynchronous operations, whose start() returns at once.
    var asyncOperations: Set<String> = []
    /// The asynchronous operations whose cancel() stops the work they began.
    var stoppable: Set<String> = []
    /// The operations cancelled by name: start() by hand skips their main().
    var cancelled: Set<String> = []
    /// Whether an operation waits for a gate (the `Gate` stand-in is shown then).
    var needsGate = false
    /// The gates declared so far.
    var gatesDeclared: Set<String> = []
    /// Whether a step touches the user interface: the stand-in for that call is declared.
    var needsUserInterface = false
    /// Whether a step touches the user interface off the main thread.
    var needsOffMainTouch = false
    /// What the program cannot express (the lab's cores, a platform not this one, an
    /// order of steps chosen by hand): said in the export's header and in its output.
    var notes: [String] = []
    /// Whether a shared variable is declared: `Mutex` comes from Synchronization.
    var needsSynchronization = false
    /// The shared variables the lab finds a data race on (its `races`): exported as the
    /// racy code a learner would write, not in a `Mutex`, so Thread Sanitizer sees the race.
    var racy: Set<String> = []
    /// Whether a racy variable is declared (`RacyInt`).
    var needsRacyBox = false
    /// For the export: each operation subclass that says how it ended, with the
    /// expression of its ending (see the harness's `Reporting`).
    var reporting: [(type: String, ending: [String])] = []
    /// Each operation type that can fail or return early, with the test of its having
    /// done its work (for `succeeded(_:)`).
    var didItsWork: [(type: String, test: String)] = []
    /// The Operation subclass of each kind of operation declared so far (see `operation`).
    var kinds: [String: String] = [:]
    /// The calls the program makes, as the lowering names them (``Lowering``), each recorded
    /// as it is written, at its line's tick: the same list as the lowering's calls `real`
    /// plays, which the differential tests check for every world they sweep.
    var calls: [TimedAction] = []
    /// Whether ``calls`` are recorded (for ``SwiftCode/calls(_:)`` alone: the view, the
    /// export and the echo keep none).
    var recordsCalls = false
    /// The tick of the line being written.
    var lineTick: Tick = 0
    /// What `cancelAllOperations()` does on the main queue, as a comment.
    static let mainCancelAllNote = "  // Linux's Foundation ignores this on the main queue"

    init(world: World) { self.world = world }

    /// Where a cancelled operation was when the line that cancels it ran, for what its
    /// `cancel()` does (rules 12, 13 and 15 of the semantics): finished already, its work
    /// running (since an earlier tick, or since this one, where the program's command may
    /// come first), waiting in a queue, or in no queue yet.
    enum CancelStage { case finished, running, startedThisTick, waiting, inNoQueue }

    /// Where `op` was when the line being written cancelled it, from what the world knows of
    /// it: finished before the line (the cancel set nothing, or set it earlier); started by
    /// the line's tick, and not the start that skips main() (a cancelled operation finished
    /// as it started); else in a queue by then, else in none.
    func cancelStage(_ op: OpID) -> CancelStage {
      let record = world.operation(op)
      if let finished = record.finishedAt, finished < lineTick || (record.cancelledAt.map { $0 < lineTick } ?? true) {
        return .finished
      }
      let skipped = record.outcome == .cancelled && record.finishedAt == record.startedAt
      if let started = record.startedAt, started <= lineTick, !skipped {
        return started == lineTick ? .startedThisTick : .running
      }
      if let added = record.enqueuedAt, added <= lineTick { return .waiting }
      return .inNoQueue
    }

    /// The piece of one line of the script, as its actions are read.
    struct Draft {
      var lines: [String]
      var names: Set<String> = []
      /// Whether the line has a piece: the clock moving on alone has none (the next
      /// line's `sleep(untilTick:)` says until when), nor a choice at an open point.
      var shown = false
    }

    /// Adds the piece for `entry` (after a `sleep(untilTick:)` when the clock moved on).
    mutating func add(_ entry: SwiftSource.Entry) {
      if entry.tick > now {
        pieces.append(
          Piece(
            lines: [
              "sleep(untilTick: \(entry.tick))  // the lab's next command is at t=\(entry.tick)"
            ], names: []))
        now = entry.tick
      }
      lineTick = entry.tick
      var draft = Draft(lines: ["// \(entry.text)"])
      // Read as the lowering for `real` reads it: the operations it defines written whole
      // after its other actions, then the queues it cancels all of.
      let line = SwiftSource.Line(entry, in: world)
      for action in line.actions { read(action, of: entry, into: &draft) }
      if !line.definition.operations.isEmpty { define(line.definition, into: &draft) }
      if !line.cancelledQueues.isEmpty { cancelAll(line.cancelledQueues, into: &draft) }
      if draft.shown {
        let (lines, declarations) = Self.fileScope(draft.lines)
        pieces.append(Piece(lines: lines, names: draft.names, declarations: declarations))
      }
    }

    /// `lines` parted into the statements and what is declared at file scope: each class
    /// (from its `final class` line to its closing brace), each `Mutex` and each `NSLock`
    /// (a lock no operation takes would be an unused local: swiftc warns).
    static func fileScope(_ lines: [String]) -> (statements: [String], declarations: [String]) {
      var statements: [String] = []
      var declarations: [String] = []
      var inClass = false
      for line in lines {
        if inClass {
          declarations.append(line)
          if line == "}" { inClass = false }
        } else if line.hasPrefix("final class ") {
          if !declarations.isEmpty { declarations.append("") }
          declarations.append(line)
          inClass = true
        } else if line.hasPrefix("let "), line.contains(" = Mutex(") || line.hasSuffix(" = NSLock()") {
          if !declarations.isEmpty { declarations.append("") }
          declarations.append(line)
          let name = line.dropFirst(4).prefix { $0 != " " }
          statements.append(
            line.contains(" = Mutex(")
              ? "// \(name) is declared before the program: a closure cannot capture a Mutex"
              : "// \(name) is declared before the program, with the state it guards")
        } else {
          statements.append(line)
        }
      }
      return (statements, declarations)
    }

    /// One action's code, into the line's piece: an action the line's ``SwiftSource/Line``
    /// did not gather into its definition or its cancels.
    private mutating func read(_ action: Action, of entry: SwiftSource.Entry, into draft: inout Draft) {
      func code(_ lines: String..., about names: String...) {
        draft.lines += lines
        draft.names.formUnion(names)
        draft.shown = true
      }
      switch action {
      case .createQueue(let name, let max, let qos):
        code(about: name)
        draft.lines += declareByName(name)
        if let max {
          code("\(queue(name)).maxConcurrentOperationCount = \(SwiftCode.max(max))")
          call(.setMax(name, max))
        }
        if let qos {
          code("\(queue(name)).qualityOfService = .\(qos)")
          call(.setQueueQoS(name, qos))
        }
      case .createOperation, .cancelAll:
        break  // gathered into the line's definition and cancels, written after its other actions
      case .gate(let op, let gate):
        let name = world.name(op)
        code(about: name)
        draft.lines += gateDeclaration(gate)
        code("\(names.gate(gate)).add(\(names.variable(name)))  // its isReady waits for the gate too")
      case .setCompletionSteps(let op, let steps):
        let name = world.name(op)
        code(about: name)
        draft.lines +=
          ["\(names.variable(name)).completionBlock = {"]
          + stepLines(steps, rest: (world.operation(op).spec.completion ?? 0) - Tick(steps.count)) + ["}"]
      case .enqueue(let op, let q):
        add([world.name(op)], to: world.name(q), wait: nil, entry: entry, into: &draft)
      case .enqueueAll(let ops, let q, let wait):
        add(ops.map(world.name), to: world.name(q), wait: wait, entry: entry, into: &draft)
      case .start(let op):
        start(world.name(op), into: &draft)
        call(.startByHand(world.name(op)))
      case .openGate(let gate):
        code("\(names.gate(gate)).open()  // KVO on isReady tells each waiting operation's queue")
        call(.openGate(gate))
      case .addExecutionBlock(let op, let ticks):
        let name = world.name(op)
        code(
          "\(names.variable(name)).addExecutionBlock { work(ticks: \(ticks)) }  // only before it starts: after, it crashes (Apple: NSInvalidArgumentException; Linux: fatalError)",
          about: name)
        call(.addBlock(name, ticks: ticks))
      case .addDependency(let op, let dependency):
        let (name, d) = (world.name(op), world.name(dependency))
        code("\(names.variable(name)).addDependency(\(names.variable(d)))", about: name, d)
        call(.addDependency(name, on: d))
      case .removeDependency(let op, let dependency):
        let (name, d) = (world.name(op), world.name(dependency))
        code("\(names.variable(name)).removeDependency(\(names.variable(d)))", about: name, d)
        call(.removeDependency(name, on: d))
      case .setPriority(let op, let priority):
        let name = world.name(op)
        code("\(names.variable(name)).queuePriority = .\(priority)", about: name)
        call(.setPriority(name, priority))
      case .setOperationQualityOfService(let op, let qos):
        let name = world.name(op)
        code("\(names.variable(name)).qualityOfService = .\(qos)", about: name)
        call(.setOperationQoS(name, qos))
      case .setQueueQualityOfService(let q, let qos):
        let name = world.name(q)
        draft.lines += declareByName(name)
        let note = name == "main" ? "  // ignored: the main queue's stays userInteractive" : ""
        code("\(queue(name)).qualityOfService = .\(qos)" + note, about: name)
        call(.setQueueQoS(name, qos))
      case .setMaxConcurrent(let q, let max):
        let name = world.name(q)
        draft.lines += declareByName(name)
        let note = name == "main" ? "  // ignored: the main queue is always serial" : ""
        code("\(queue(name)).maxConcurrentOperationCount = \(SwiftCode.max(max))" + note, about: name)
        call(.setMax(name, max))
      case .cancel(let op):
        let name = world.name(op)
        cancelled.insert(name)
        // What the operation's own start() does when it sees isCancelled.
        let skips = asyncOperations.contains(name) ? "its start() sees isCancelled and finishes" : "its start() skips main()"
        let running =
          stoppable.contains(name)
          ? "sets isCancelled, and its cancel() stops the work it began: finish() comes at the work's next check"
          : "only sets isCancelled: code stops where it checks it"
        let effect =
          switch cancelStage(op) {
          case .finished: "already finished: no effect (isCancelled stays false)"
          case .inNoQueue: "in no queue: finished now (Apple), at start() (Linux)"
          case .waiting: "not started: ready at once, and " + skips
          case .running: running
          case .startedThisTick:
            "it started this tick in the lab, so "
              + (stoppable.contains(name) ? "its cancel() stops the work" : "it only sets isCancelled")
              + "; the real queue may not have started it yet, and then " + skips
          }
        code("\(names.variable(name)).cancel()  // " + effect, about: name)
        call(.cancel(name))
      case .suspend(let q):
        let name = world.name(q)
        let note = name == "main" ? "ignored on the main queue" : "running work goes on; nothing new starts"
        code("\(queue(name)).isSuspended = true  // " + note, about: name)
        call(.suspend(name))
      case .resume(let q):
        let name = world.name(q)
        code("\(queue(name)).isSuspended = false" + (name == "main" ? "  // ignored on the main queue" : ""), about: name)
        call(.resume(name))
      case .addBarrier(let q, let ticks):
        let name = world.name(q)
        // A queue given a barrier before any operation is declared first, as `real` makes it.
        draft.lines += declare(name)
        code("\(queue(name)).addBarrierBlock { work(ticks: \(ticks)) }", about: name)
        call(.barrier(name, label: name, ticks: ticks))
      case .wait(let q):
        wait(forQueue: q.map(world.name), fromMain: false, entry: entry, into: &draft)
      case .waitOnMainThread(let q), .waitOnMainThreadUntil(let q, _):
        wait(forQueue: q.map(world.name), fromMain: true, entry: entry, into: &draft)
        call(.onMainThread(.waitForQueue(q.map(world.name)), until: nil))
      case .waitForOperations(let ops, let waiter):
        wait(for: ops.map(world.name), fromMain: waiter.fromMain, entry: entry, into: &draft)
        if waiter.fromMain { call(.onMainThread(.waitForOperations(ops.map(world.name)), until: nil)) }
      case .runUntilIdle:
        runUntilIdle(entry, into: &draft)
      case .chooseNext:
        note("the lab chose the next work by hand; here the threads decide")
      case .step, .runUntil, .runUntilFinished:
        break  // the clock moving on: the next line's `sleep(untilTick:)` says until when
      case .setCores(let cores):
        let machine = cores.map { "\($0) cores" } ?? "a core for every piece of work"
        code("// no code: the lab's machine has \(machine)")
        note("the lab's machine has \(machine); this one has its own")
      case .tap(let t):
        code("Lab.tap(atTick: \(t))  // the user taps: UIKit handles it on the main thread (1 tick)", about: "main")
      case .frames(let every, let from, let until):
        if let every {
          let first = from ?? entry.tick
          code(
            "Lab.frames(every: \(every), from: \(first), until: \(until ?? first + 100))  // the display asks main for frames",
            about: "main")
        } else {
          code("// no code: the display asks the main thread for frames", about: "main")
        }
      case .setPlatform(let p):
        code("// no code: the lab imitates \(p == .linux ? "swift-corelibs-foundation on Linux" : "Apple platforms")")
        if p == .apple {
          note("the lab imitates Apple platforms; Linux's Foundation may differ")
        }
      case .createVariable(let name, let initial) where racy.contains(name):
        needsRacyBox = true
        let v = names.shared(name)
        code(
          "// var \(name) = \(initial): the lab finds a data race on it (`races`). As a plain var, Swift 6"
            + " refuses it (\"mutation of captured var '\(v)' in concurrently-executing code\");"
            + " in a box marked @unchecked Sendable it compiles, and its reads and writes race as in the lab.",
          "let \(v) = RacyInt(\(initial))")
        call(.makeVariable(name, initial))
        code("Lab.printsAtTheEnd(\(SwiftCode.literal(name))) { \(v).value }  // the harness prints it")
      case .createVariable(let name, let initial):
        needsSynchronization = true
        let v = names.shared(name)
        code("let \(v) = Mutex(\(initial))  // var \(name) = \(initial): each read and write is whole")
        call(.makeVariable(name, initial))
        code("Lab.printsAtTheEnd(\(SwiftCode.literal(name))) { \(v).withLock { $0 } }  // the harness prints it")
      case .createLock(let name):
        code("let \(names.shared(name)) = NSLock()")
        call(.makeLock(name))
      case .setStepOrder:
        code("// no code: the threads' speeds decide this order in a real program")
        note("the lab chose an order of steps by hand; here the threads decide")
      case .createDispatchQueue, .setUnderlyingQueue:
        underlyingQueue(action, into: &draft)
      }
    }

    /// Records a call the program makes (see ``calls``).
    mutating func call(_ action: RealAction) {
      if recordsCalls { calls.append(TimedAction(tick: lineTick, action: action)) }
    }

    /// Notes what the program cannot express, once.
    mutating func note(_ text: String) {
      if !notes.contains(text) { notes.append(text) }
    }

    /// `cancelAllOperations()` on each queue cancelled: one named, or every queue the
    /// program has (in name order) when the line cancelled all of the world's.
    private mutating func cancelAll(_ queues: [String], into draft: inout Draft) {
      let shown = queues.count == 1 ? queues : declared.sorted().filter(queues.contains)
      for q in shown {
        draft.names.insert(q)
        draft.lines.append("\(queue(q)).cancelAllOperations()" + (q == "main" ? Self.mainCancelAllNote : ""))
        call(.cancelAll(q))
      }
      draft.shown = true
    }

    /// `let NAME = OperationQueue()` with its name: a queue made, or one set up before the
    /// program has declared it (the default queue, before any work is given to it).
    mutating func declareByName(_ name: String) -> [String] {
      guard !declared.contains(name) else { return [] }
      declared.insert(name)
      call(.makeQueue(name))
      return ["let \(names.variable(name)) = OperationQueue()", "\(names.variable(name)).name = \(SwiftCode.literal(name))"]
    }

    /// `let NAME = OperationQueue()` the first time a queue is used (the lab's `queue` has
    /// no command of its own).
    mutating func declare(_ name: String) -> [String] {
      guard !declared.contains(name) else { return [] }
      declared.insert(name)
      call(.makeQueue(name))
      return ["let \(names.variable(name)) = OperationQueue()  // the lab's default queue"]
    }

    func queue(_ name: String) -> String { name == "main" ? "OperationQueue.main" : names.variable(name) }
  }
}
