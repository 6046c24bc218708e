import OpLabCore

/// A world lowered to the calls a program makes on Foundation's `OperationQueue`: each typed
/// line's journal actions (``SwiftSource``) as timed calls, and what the lab has that the real
/// queue cannot be given. The one lowering of a world: the shell's `real` plays it (OpLabReal's
/// `RealDriver`), and the Swift printer reads its lines the same way (``SwiftSource/Line``).
/// The printer holds the lowering a line at a time (``Lowerer``) and takes from it which
/// queues a cancel of every queue cancels; its other calls it still writes from the line's
/// actions itself: ``SwiftCode/calls(_:)`` names them, and the differential tests hold them
/// to these, world by world.
///
/// ```swift
/// let lowering = source.lowered(playingOn: .linux)
/// RealDriver.run(lowering.script, tickSeconds: 0.05, until: world.now)
/// ```
public struct Lowering: Sendable, Equatable {
  /// The calls, at the ticks of the lines that made them.
  public var script: RealScript
  /// Each line whose actions cannot all be played, quoted, with why when it says.
  public var unplayed: [String]

  /// Creates a lowering from calls already made.
  public init(script: RealScript = RealScript(), unplayed: [String] = []) {
    self.script = script
    self.unplayed = unplayed
  }
}

public struct RealScript: Sendable, Equatable {
  /// Actions in time order; actions at the same tick run in list order.
  public var actions: [TimedAction]

  public init(actions: [TimedAction] = []) { self.actions = actions }

  /// Appends `action` at `tick`.
  public mutating func at(_ tick: Tick, _ action: RealAction) { actions.append(TimedAction(tick: tick, action: action)) }

  /// The tick of the last action.
  public var lastTick: Tick { actions.last?.tick ?? 0 }
}

/// An action at a tick.
public struct TimedAction: Sendable, Equatable {
  public var tick: Tick
  public var action: RealAction

  public init(tick: Tick, action: RealAction) {
    self.tick = tick
    self.action = action
  }
}

/// What an operation's code does, for a stand-in that takes real time.
public struct RealWork: Sendable, Equatable {
  /// The name, also the operation's `name` and its label in the log.
  public var name: String
  /// Ticks of work `main()` sleeps (for an asynchronous operation, the time until its callback).
  public var ticks: Tick
  /// A `BlockOperation` whose execution blocks sleep these ticks each; `nil` for an `Operation` subclass.
  public var blocks: [Tick]?
  /// An asynchronous operation (`isAsynchronous`, KVO, `finish()`); with `forgetsFinish`, the
  /// callback never calls `finish()`.
  public var isAsynchronous = false
  public var forgetsFinish = false
  /// `main()` checks `isCancelled` when it begins and after every this many ticks of work
  /// (never at the very end), and returns when it sees it.
  public var checksCancellationEvery: Tick?
  /// `main()` checks `isCancelled` once, when it begins.
  public var checksCancellationAtStart = false
  /// `main()` returns at once when a dependency was cancelled.
  public var bailsIfDependencyCancelled = false
  /// `main()` returns at once unless every dependency succeeded.
  public var bailsUnlessDependenciesSucceeded = false
  /// Its `isReady` also waits for this gate: `super.isReady && (gate.isOpen || isCancelled)`.
  public var gate: String?
  /// The work fails after this many ticks.
  public var failsAfter: Tick?
  /// A completion block that sleeps this many ticks.
  public var completionTicks: Tick?
  /// `main()` written as steps on shared state, played for real (see ``OpLabCore/Step``): a
  /// step a tick, then the rest of `ticks` as plain work.
  public var steps: [Step]?
  /// The completion block written as steps, a tick each, then the rest of `completionTicks`.
  public var completionSteps: [Step]?
  public var priority: QueuePriority?
  public var qualityOfService: QualityOfService?

  public init(_ name: String, ticks: Tick) {
    self.name = name
    self.ticks = ticks
  }
}

/// A blocking call made on the main thread (``RealAction/onMainThread(_:until:)``).
public enum RealMainCall: Sendable, Equatable {
  /// `op.waitUntilFinished()` on each, in turn.
  case waitForOperations([String])
  /// `queue.waitUntilAllOperationsAreFinished()`; `nil`: on every queue made so far, main too.
  case waitForQueue(String?)
  /// `queue.addOperations(ops, waitUntilFinished: true)`: nothing is added until the main
  /// thread gets to the call.
  case addAndWait([String], to: String)
}

/// Something done at a tick, on the driver's thread.
public enum RealAction: Sendable, Equatable {
  /// `let q = OperationQueue()` with a name, and optionally its max and QoS.
  case makeQueue(String)
  /// Creates the operation (not yet in a queue).
  case makeOperation(RealWork)
  /// `queue.addOperation(op)`.
  case add(String, to: String)
  /// `queue.addOperations(ops, waitUntilFinished: false)`: all inserted, then one pick.
  case addBatch([String], to: String)
  /// `op.start()` called by hand: on the main thread when the driver runs there (queued to
  /// it, as a call the main thread gets to), else on the driver's thread, where a
  /// synchronous operation's `main()` then runs.
  case startByHand(String)
  /// `op.addExecutionBlock { … }` on a block operation, the block sleeping `ticks`.
  case addBlock(String, ticks: Tick)
  /// Opens a gate: each operation waiting for it gets KVO on `isReady`.
  case openGate(String)
  /// `op.addDependency(dependency)`.
  case addDependency(String, on: String)
  /// `op.removeDependency(dependency)`.
  case removeDependency(String, on: String)
  /// `op.queuePriority = p`.
  case setPriority(String, QueuePriority)
  /// `op.qualityOfService = q`.
  case setOperationQoS(String, QualityOfService)
  /// `queue.qualityOfService = q`.
  case setQueueQoS(String, QualityOfService)
  /// `queue.maxConcurrentOperationCount = n` (`nil`: the default, −1).
  case setMax(String, Int?)
  /// `op.cancel()`.
  case cancel(String)
  /// `queue.cancelAllOperations()`.
  case cancelAll(String)
  /// `queue.isSuspended = true`.
  case suspend(String)
  /// `queue.isSuspended = false`.
  case resume(String)
  /// `queue.addBarrierBlock { … }`, the block sleeping `ticks`; `label` names it in the log.
  case barrier(String, label: String, ticks: Tick)
  /// A call made on the main thread: main-thread work that arrives now and runs when the main
  /// thread gets to it, after what already waits there (queued to it when the driver runs on
  /// the main thread; else made on the driver's thread at once). It blocks the thread until
  /// it returns, or until `until` when given (a wait cut short).
  case onMainThread(RealMainCall, until: Tick?)
  /// A shared integer variable with its first value (`var NAME = N`).
  case makeVariable(String, Int)
  /// An `NSLock` (`lock NAME`).
  case makeLock(String)
  /// `DispatchQueue(label: name, qos: qos, attributes: .concurrent)` (serial unless `concurrent`).
  case makeDispatchQueue(String, concurrent: Bool, QualityOfService?)
  /// `queue.underlyingQueue = dispatchQueue` (`nil`: its own again).
  case setUnderlyingQueue(String, String?)
}

extension SwiftSource {
  /// The world as the calls a program makes on the real `OperationQueue` of `host`, at the
  /// ticks of the lines that made them, and each line with what the real queue cannot be
  /// given (the lab's cores, the user's taps, an order chosen by hand, another platform).
  /// Every action is played or named. A line's operations are made with their dependencies,
  /// gates and completion blocks, then added together (``Line``); a wait from the lab's own
  /// thread lets the clock run on, one from main is a call the main thread makes when it gets
  /// to it.
  /// - Parameter host: the platform whose Foundation plays it (a world imitating another one
  ///   is named as unplayed).
  /// - Complexity: the journal's actions.
  public func lowered(playingOn host: Platform) -> Lowering {
    var lowerer = Lowerer(playingOn: host)
    var lowering = Lowering()
    for entry in entries {
      let (calls, unplayed) = lowerer.lower(entry, in: world)
      lowering.script.actions += calls
      lowering.unplayed += unplayed
    }
    return lowering
  }
}

/// The lowering a line at a time (``SwiftSource/lowered(playingOn:)``): what it has made so
/// far (the queues, each queue's barriers, the block operations) kept between lines, so a
/// printer that writes a line at a time, as the echo does, takes each line's calls as it
/// comes.
public struct Lowerer: Sendable {
  /// The platform whose Foundation plays the calls: it decides only what is named unplayed.
  public let host: Platform
  private var queues: Set<String> = []
  private var barriers: [String: Int] = [:]
  private var blockOperations: Set<String> = []

  /// A lowering with nothing made yet.
  public init(playingOn host: Platform) { self.host = host }

  /// The calls of `entry`, the next line, at its tick, and what of it the real queue cannot
  /// be given (the line quoted, with why when it says).
  /// - Parameter world: a world that has every name the line's actions use.
  /// - Complexity: the line's actions.
  public mutating func lower(_ entry: SwiftSource.Entry, in world: World) -> (calls: [TimedAction], unplayed: [String]) {
    // Taken out for the line (no copy on write), put back when it is lowered.
    var (queues, barriers, blockOperations) = (self.queues, self.barriers, self.blockOperations)
    (self.queues, self.barriers, self.blockOperations) = ([], [:], [])
    defer { (self.queues, self.barriers, self.blockOperations) = (queues, barriers, blockOperations) }
    let host = self.host
    var script = RealScript()
    func use(_ queue: String, at tick: Tick) {
      if !queues.contains(queue) {
        queues.insert(queue)
        script.at(tick, .makeQueue(queue))
      }
    }
    /// Makes the operations of one `op` line, with their dependencies, then adds them.
    func define(_ definition: SwiftSource.Definition, at t: Tick) {
      let names = definition.operations.map(\.spec.name)
      for (spec, dependencies) in definition.operations {
        let completionSteps = definition.completionSteps[spec.name]
        // A queue an `add` step adds to is made before the work runs.
        var stepLists = completionSteps.map { [$0] } ?? []
        if case .steps(let body) = spec.kind { stepLists.append(body) }
        for case .add(_, let q) in stepLists.joined() { use(q, at: t) }
        var work = RealWork(spec.name, ticks: spec.duration)
        switch spec.kind {
        case .plain:
          // A plain operation that is given blocks later (`blocks a +2`) is the program's
          // `BlockOperation { work }`: made one here, so the real queue can be given them.
          if let id = world.operationID(named: spec.name), case .blocks = world.operation(id).spec.kind {
            work.blocks = [spec.duration]
            blockOperations.insert(spec.name)
          }
        case .steps(let steps): work.steps = steps
        case .blocks(let blocks):
          work.blocks = blocks
          work.ticks = blocks.reduce(0, +)
          blockOperations.insert(spec.name)
        case .async(let forgets):
          work.isAsynchronous = true
          work.forgetsFinish = forgets
        }
        switch spec.cancellation {
        case .never: break
        case .atStart: work.checksCancellationAtStart = true
        case .every(let n): work.checksCancellationEvery = n
        }
        work.bailsIfDependencyCancelled = spec.bailsIfDependencyCancelled
        work.bailsUnlessDependenciesSucceeded = spec.bailsUnlessDependenciesSucceeded
        work.failsAfter = spec.failsAt
        // A completion block written as steps takes a tick a step (the world sets it so).
        work.completionTicks = completionSteps.map { Swift.max(spec.completion ?? 0, Tick($0.count)) } ?? spec.completion
        work.completionSteps = completionSteps
        work.priority = spec.priority
        work.qualityOfService = spec.qualityOfService
        work.gate = definition.gates[spec.name]
        script.at(t, .makeOperation(work))
        for d in dependencies { script.at(t, .addDependency(spec.name, on: d)) }
      }
      if let queue = definition.queue {
        use(queue, at: t)
        script.at(t, names.count == 1 ? .add(names[0], to: queue) : .addBatch(names, to: queue))
      }
    }
    let t = entry.tick
    let line = SwiftSource.Line(entry, in: world)
    var reasons: [String] = []
    func unplay(_ why: String? = nil) {
      let text = "`\(entry.text)`" + (why.map { ": " + $0 } ?? "")
      if !reasons.contains(text) { reasons.append(text) }
    }
    for action in line.actions {
      switch action {
      case .createQueue(let name, let max, let qos):
        use(name, at: t)
        if let max { script.at(t, .setMax(name, max)) }
        if let qos { script.at(t, .setQueueQoS(name, qos)) }
      case .createOperation, .cancelAll: break  // gathered into the line (see `Line`)
      case .gate, .setCompletionSteps:
        unplay("the real stand-in is made with its gate and completion block")
      case .enqueue(let op, let q):
        use(world.name(q), at: t)
        script.at(t, .add(world.name(op), to: world.name(q)))
      case .enqueueAll(let ops, let q, let wait):
        let (names, queue) = (ops.map(world.name), world.name(q))
        use(queue, at: t)
        if let wait, wait.fromMain {
          // One call the main thread makes when it gets to it: it adds them, then waits there.
          script.at(t, .onMainThread(.addAndWait(names, to: queue), until: wait.until))
        } else {
          // The lab's own thread waits, if it does; the real driver lets the clock run on.
          script.at(t, names.count == 1 && wait == nil ? .add(names[0], to: queue) : .addBatch(names, to: queue))
        }
      case .start(let op): script.at(t, .startByHand(world.name(op)))
      case .openGate(let gate): script.at(t, .openGate(gate))
      case .addExecutionBlock(let op, let ticks):
        if blockOperations.contains(world.name(op)) {
          script.at(t, .addBlock(world.name(op), ticks: ticks))
        } else {
          unplay("its stand-in is an Operation subclass, not a BlockOperation")
        }
      case .addDependency(let op, let d): script.at(t, .addDependency(world.name(op), on: world.name(d)))
      case .removeDependency(let op, let d): script.at(t, .removeDependency(world.name(op), on: world.name(d)))
      case .setPriority(let op, let p): script.at(t, .setPriority(world.name(op), p))
      case .setOperationQualityOfService(let op, let qos): script.at(t, .setOperationQoS(world.name(op), qos))
      // A queue set up before it is given work is made there, as the program declares it.
      case .setQueueQualityOfService(let q, let qos):
        use(world.name(q), at: t)
        script.at(t, .setQueueQoS(world.name(q), qos))
      case .setMaxConcurrent(let q, let max):
        use(world.name(q), at: t)
        script.at(t, .setMax(world.name(q), max))
      case .cancel(let op): script.at(t, .cancel(world.name(op)))
      case .suspend(let q): script.at(t, .suspend(world.name(q)))
      case .resume(let q): script.at(t, .resume(world.name(q)))
      case .addBarrier(let q, let ticks):
        let name = world.name(q)
        use(name, at: t)
        barriers[name, default: 0] += 1
        script.at(t, .barrier(name, label: "\(name).barrier\(barriers[name] ?? 1)", ticks: ticks))
      // A wait from the lab's own thread lets the real driver's clock run on; one from main
      // is a call the main thread makes when it gets to it, blocking it meanwhile.
      case .wait: break
      case .waitOnMainThread(let q): script.at(t, .onMainThread(.waitForQueue(q.map(world.name)), until: nil))
      case .waitOnMainThreadUntil(let q, let until):
        script.at(t, .onMainThread(.waitForQueue(q.map(world.name)), until: until))
      case .waitForOperations(let ops, let wait):
        if wait.fromMain { script.at(t, .onMainThread(.waitForOperations(ops.map(world.name)), until: wait.until)) }
      case .createVariable(let name, let initial): script.at(t, .makeVariable(name, initial))
      case .createLock(let name): script.at(t, .makeLock(name))
      case .createDispatchQueue(let name, let concurrent, let qos):
        script.at(t, .makeDispatchQueue(name, concurrent: concurrent, qos))
      // The main queue's underlying queue is the main thread's dispatch queue: corelibs
      // ignores the setter, Darwin documents it cannot be set. No call, as in the program.
      case .setUnderlyingQueue(.main, _): break
      case .setUnderlyingQueue(let q, let d):
        use(world.name(q), at: t)
        script.at(t, .setUnderlyingQueue(world.name(q), d.map(world.dispatchQueueName)))
      case .step, .runUntil, .runUntilIdle, .runUntilFinished: break
      // The real queue is the host's: a world imitating another platform is named.
      case .setPlatform(let platform) where platform != host:
        unplay(
          "the real queue is this machine's, "
            + (host == .linux ? "swift-corelibs-foundation on Linux" : "Foundation on an Apple platform"))
      case .setPlatform: break
      case .setCores: unplay("the real machine has its own cores")
      case .tap, .frames: unplay("the lab plays the user and the display")
      // The order of steps at an open point is the threads' speeds on the real machine.
      case .setStepOrder, .chooseNext: unplay()
      }
    }
    if !line.definition.operations.isEmpty { define(line.definition, at: t) }
    // A cancel of every queue (one line, several queues) is of every queue made so far,
    // and of the main queue, which is always there.
    let cancelled = line.cancelledQueues
    for q in cancelled.count == 1 ? cancelled : queues.union(["main"]).sorted().filter(cancelled.contains) {
      script.at(t, .cancelAll(q))
    }
    return (script.actions, reasons)
  }
}
