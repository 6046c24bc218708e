import OpLabCore

/// A scenario run on the simulator: the start/skip/finish (and completion, block) events
/// it predicts, with their ticks.
struct SimulatedRun {
  /// One predicted event: `"start A"`, `"skip A"`, `"finish A"`, `"complete A"`, `"start A#1"`.
  struct Mark: Hashable {
    var tick: Tick
    var label: String
  }

  /// The world after the scenario ran to idle.
  let world: World
  /// The predicted events in trace order.
  let marks: [Mark]
  /// The ticks at which the test thread acts.
  let actionTicks: [Tick]

  /// Runs the scenario on a fresh `World` until it is idle.
  /// - Throws: a `SimulationError` when the scenario is malformed, or ``Failure``
  ///   when the simulation does not reach idle.
  init(_ scenario: Scenario) throws {
    var world = World(platform: scenario.platform)
    var queueIDs: [String: QueueID] = [:]
    for q in scenario.queues {
      queueIDs[q.name] = try world.createQueue(name: q.name, maxConcurrent: q.maxConcurrent)
    }
    var opIDs: [String: OpID] = [:]
    for op in scenario.operations {
      let spec = OperationSpec(
        name: op.name, duration: op.ticks, priority: op.priority, qualityOfService: op.qualityOfService,
        cancellation: op.checksCancellationEvery.map { .every($0) } ?? .never,
        bailsIfDependencyCancelled: op.bailsIfDependencyCancelled,
        completion: op.hasCompletion ? 0 : nil,
        kind: op.blocks.map { .blocks($0) } ?? .plain)
      opIDs[op.name] = try world.createOperation(spec)
    }
    for op in scenario.operations {
      for dep in op.dependencies {
        try world.addDependency(Self.lookUp(op.name, in: opIDs), on: Self.lookUp(dep, in: opIDs))
      }
    }

    var labels: [OpID: String] = [:]
    for step in scenario.steps {
      try world.run(until: step.tick)
      switch step.action {
      case .enqueue(let names):
        for name in names {
          let queue = scenario.operation(named: name).queue
          try world.enqueue(Self.lookUp(name, in: opIDs), on: Self.lookUp(queue, in: queueIDs))
        }
      case .cancel(let name): world.cancel(try Self.lookUp(name, in: opIDs))
      case .cancelAll(let q): world.cancelAll(try Self.lookUp(q, in: queueIDs))
      case .suspend(let q): try world.suspend(Self.lookUp(q, in: queueIDs))
      case .resume(let q): try world.resume(Self.lookUp(q, in: queueIDs))
      case .setMax(let q, let max): try world.setMaxConcurrent(Self.lookUp(q, in: queueIDs), to: max)
      case .barrier(let q, let label, let ticks):
        labels[try world.addBarrier(to: Self.lookUp(q, in: queueIDs), duration: ticks)] = label
      case .setPriority(let name, let p): world.setPriority(try Self.lookUp(name, in: opIDs), to: p)
      case .removeDependency(let name, let dep):
        try world.removeDependency(Self.lookUp(name, in: opIDs), on: Self.lookUp(dep, in: opIDs))
      case .addBatch(let names, let q):
        try world.enqueue(all: names.map { try Self.lookUp($0, in: opIDs) }, on: Self.lookUp(q, in: queueIDs))
      case .startByHand(let name): try world.callStart(Self.lookUp(name, in: opIDs))
      }
    }
    let verdict = world.runUntilIdle(cap: 10_000)
    guard verdict == .idle else { throw Failure("the simulation of \(scenario.name) ended \(verdict), not idle") }

    func label(_ op: OpID) -> String { labels[op] ?? world.name(op) }
    var marks: [Mark] = []
    for e in world.trace {
      // The lab's own main-thread work (a start() call) is not an operation of the real run.
      guard let op = e.op, world.operation(op).mainThreadWork == nil else { continue }
      let text: String
      switch e.kind {
      case .started: text = "start \(label(op))"
      case .skipped: text = "skip \(label(op))"
      case .finished: text = "finish \(label(op))"
      case .completionStarted: text = "complete \(label(op))"
      case .blockStarted(let i): text = "start \(label(op))#\(i + 1)"
      case .blockFinished(let i): text = "finish \(label(op))#\(i + 1)"
      default: continue
      }
      marks.append(Mark(tick: e.tick, label: text))
    }
    self.world = world
    self.marks = marks
    actionTicks = scenario.steps.map(\.tick)
  }

  /// The last tick at which anything happens.
  var endTick: Tick { marks.map(\.tick).max() ?? 0 }

  /// The predicted events grouped by tick, in tick order; each group is a set.
  var groups: [TickGroup] {
    var byTick: [Tick: Set<String>] = [:]
    for m in marks { byTick[m.tick, default: []].insert(m.label) }
    return byTick.keys.sorted().map { TickGroup(tick: $0, labels: byTick[$0] ?? []) }
  }

  /// Ways in which the scenario would not give a deterministic real run; empty when it is well posed.
  ///
  /// - An action at a tick where some work ends races with that end in reality.
  /// - More than 2 sleeping operations would wait for libdispatch's pool to grow (rule 29).
  /// - A zero-length job (a cancelled op's `start()`, a completion block) needs a free worker
  ///   while the others sleep (rule 30), so at most 1 other operation may be sleeping then.
  var designProblems: [String] {
    var problems: [String] = []
    let workEnds = world.trace.filter { e in
      switch e.kind {
      case .finished: return e.reason == .workDone
      case .blockFinished: return true
      default: return false
      }
    }
    for t in Set(actionTicks) where t > 0 && workEnds.contains(where: { $0.tick == t }) {
      problems.append("an action at tick \(t) coincides with the end of some work")
    }

    // Sleeping intervals [start, finish) of operations whose main() took time (a skip takes none).
    let sleeping: [(start: Tick, end: Tick)] = world.operations.compactMap { r in
      guard let s = r.startedAt, let f = r.finishedAt, f > s else { return nil }
      return (s, f)
    }
    for t in Set(marks.map(\.tick)) {
      let busy = sleeping.count { $0.start <= t && t < $0.end }
      if busy > 2 { problems.append("\(busy) operations sleep at tick \(t); the cold Linux pool has 2 workers") }
    }
    for m in marks {
      if m.label.hasPrefix("complete ") {
        let busy = sleeping.count { $0.start <= m.tick && m.tick < $0.end }
        if busy > 1 { problems.append("'\(m.label)' at tick \(m.tick) may wait for a worker: \(busy) operations sleep") }
      } else if m.label.hasPrefix("skip ") {
        let busy = sleeping.count { $0.start < m.tick && m.tick < $0.end }
        if busy > 1 { problems.append("'\(m.label)' at tick \(m.tick) may wait for a worker: \(busy) operations sleep") }
      }
    }
    return problems
  }

  private static func lookUp<ID>(_ name: String, in table: [String: ID]) throws -> ID {
    guard let id = table[name] else { throw Failure("unknown name \(name) in scenario") }
    return id
  }
}

/// A failure of the test harness itself.
struct Failure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
