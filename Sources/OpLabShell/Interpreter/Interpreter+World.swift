import OpLabCore
import OpLabRender

/// The commands that change the world: each lowered to core actions and performed, with
/// notes on what the result means.
extension Interpreter {
  /// `queue NAME …`: creates the queue, or changes (or describes) an existing one.
  func queueCommand(_ name: String, max: MaxSetting?, qos: QualityOfService?) throws -> Reply {
    if let q = world.queueID(named: name) {
      var actions: [Action] = []
      if let max { actions.append(.setMaxConcurrent(q, max.value)) }
      if let qos { actions.append(.setQueueQualityOfService(q, qos)) }
      if actions.isEmpty {
        let queue = world.queue(q)
        let max = queue.isMain ? "1 (main)" : queue.maxConcurrent.map(String.init) ?? "default"
        let on = queue.underlyingQueue.map { " on \(world.dispatchQueueName($0)) (\(world.dispatchQueues[Int($0)].summary))" } ?? ""
        return Reply(
          output: "  queue \(name) exists: max \(max), qos \(queue.reportedQualityOfService)\(on)\(queue.isSuspended ? ", suspended" : "")\n")
      }
      return Reply(output: try perform(actions).0)
    }
    let (out, _) = try perform([.createQueue(name: name, maxConcurrent: max?.value, qualityOfService: qos)])
    let shown = max.map { m in m.value.map(String.init) ?? "default" } ?? "default"
    return Reply(output: "  queue \(name) created (max \(shown)\(qos.map { ", qos \($0)" } ?? ""))\n" + out)
  }

  /// The things of the world besides queues and operations: `var`, `lock`, `dispatch`, and
  /// `underlying`, which puts a queue on a dispatch queue.
  func worldObjectCommand(_ command: Command) throws -> Reply {
    let action: Action
    switch command {
    case .variable(let name, let initial): action = .createVariable(name: name, initial: initial)
    case .lock(let name): action = .createLock(name: name)
    case .dispatchQueue(let name, let concurrent, let qos):
      action = .createDispatchQueue(name: name, concurrent: concurrent, qualityOfService: qos)
    case .underlying(let name, let d):
      let index = try d.map { d throws in
        guard let index = world.dispatchQueueIndex(named: d) else { throw SimulationError.unknownQueue(d) }
        return index
      }
      action = .setUnderlyingQueue(try queue(name), index)
    default: return Reply()
    }
    return Reply(output: try perform([action]).0)
  }

  /// `add OP[,OP…]`: `addOperation`, or `addOperations(_:waitUntilFinished:)` for a list or a wait.
  func add(_ names: [String], to: String?, wait: WaitCaller?, line: String) throws -> Reply {
    let declared = Set(names.map { history.declaredQueue(of: $0) ?? "queue" })
    if to == nil, declared.count > 1 {
      throw Diagnostic(
        column: argumentColumn(line), length: names.joined(separator: ",").count,
        message:
          "these operations were defined for different queues (\(declared.sorted().joined(separator: ", "))), and one addOperations call adds them all to one",
        hint: "say which: add \(names.joined(separator: ",")) to \(declared.sorted()[0])")
    }
    let target = try queue(to ?? declared.first ?? "queue")
    let ids = try names.map(op)
    if names.count == 1, wait == nil { return Reply(output: try perform([.enqueue(ids[0], on: target)]).0) }
    let waiter = wait.map { World.Waiter(fromMain: $0.fromMain, until: $0.until) }
    let (out, results) = try perform([.enqueueAll(ids, on: target, wait: waiter)])
    return Reply(output: out + verdictText(results.first) + waitNotes(results.first, fromMain: wait?.fromMain ?? false, until: wait?.until))
  }

  /// `start OP`: `start()` called by hand on the main thread.
  func start(_ name: String) throws -> Reply {
    let id = try op(name)
    let (out, results) = try perform([.start(id)])
    var note = ""
    if case .operation(let call)? = results.first, !world.operation(call).isExecuting, !world.operation(call).isFinished {
      note = "  the call waits for the main thread, busy with other work: \(name) starts when it gets there\n"
    }
    return Reply(output: out + note)
  }

  /// `depend OP on A,B`: `addDependency` for each.
  func depend(_ name: String, on deps: [String]) throws -> Reply {
    let id = try op(name)
    let (out, results) = try perform(try deps.map { .addDependency(id, on: try op($0)) })
    let dups = zip(deps, results).filter { $0.1 == .duplicateDependency }.map(\.0)
    let note = dups.isEmpty ? "" : "  \(name) already depended on \(dups.joined(separator: ", ")): the real addDependency ignores a duplicate\n"
    return Reply(output: out + note)
  }

  /// `wait [QUEUE|OP] [from main [until T]]`: a queue's or every queue's wait, or an operation's.
  func wait(for name: String?, fromMain: Bool, until: Tick?) throws -> Reply {
    if let name, let id = world.operationID(named: name) {
      let (out, results) = try perform([.waitForOperations([id], World.Waiter(fromMain: fromMain, until: until))])
      return Reply(output: out + verdictText(results.first) + waitNotes(results.first, fromMain: fromMain, until: until))
    }
    let target = try name.map(queue)
    let action: Action = if let until { .waitOnMainThreadUntil(target, until) } else if fromMain { .waitOnMainThread(target) } else { .wait(target) }
    let (out, results) = try perform([action])
    var text = out + verdictText(results.first)
    if until != nil, let wait = world.mainThreadWait, !world.operation(wait).isFinished {
      text += "  the wait has not returned: the main thread stays blocked, and later runs go on waiting\n"
    }
    if fromMain, case .verdict(.stalled)? = results.first {
      text += "  the main thread stays blocked, so the app is frozen for good: `undo` takes the wait back\n"
    }
    return Reply(output: text)
  }

  /// `run [until T|OP]`: the clock runs until idle or stalled, a tick, or an operation finishing.
  func runClock(until target: RunTarget) throws -> Reply {
    let action: Action =
      switch target {
      case .idle: .runUntilIdle
      case .tick(let t): .runUntil(t)
      case .op(let name): .runUntilFinished(try op(name))
      }
    let (out, results) = try perform([action])
    if case .tick = target, results.first != .verdict(.interrupted) { return Reply(output: out + "  now t=\(world.now)\n") }
    return Reply(output: out + verdictText(results.first) + (Races.summary(world) ?? ""))
  }

  /// `reset`: a fresh world, on the same platform.
  func reset() throws -> Reply {
    let platform = world.platform
    history.reset(to: Self.freshWorld(options.platform))
    if platform != options.platform {  // the platform is kept, and saved scripts say so
      _ = try perform([.setPlatform(platform)])
      history.record(("platform \(platform.rawValue)", sim.journal.count))
    }
    return Reply(output: "  fresh world at t=0 (queues: main, queue; platform \(platform.rawValue))\n")
  }

  /// `op NAME …`: defines operations; adds them unless `hold`.
  func define(_ definition: OperationDefinition) throws -> Reply {
    var def = definition
    // A held operation keeps the queue it is for: its code is written for that queue's thread.
    if def.hold { def.spec.heldFor = def.queue ?? "queue" }
    if !def.alike.isEmpty {
      // `op a,b,c …`: each defined alike, then one addOperations for all.
      let target = def.queue ?? "queue"
      let q = try queue(target)
      let deps = try def.dependencies.map(op)
      let names = [def.spec.name] + def.alike
      let first = world.operations.count
      var actions: [Action] = []
      for (k, name) in names.enumerated() {
        var spec = def.spec
        spec.name = name
        actions.append(.createOperation(spec, dependencies: deps, queue: nil))
        if let gate = def.gate { actions.append(.gate(OpID(first + k), gate)) }
        if let steps = def.completionSteps { actions.append(.setCompletionSteps(OpID(first + k), steps)) }
      }
      if !def.hold { actions.append(.enqueueAll(names.indices.map { OpID(first + $0) }, on: q, wait: nil)) }
      let (out, _) = try perform(actions)
      for k in names.indices { history.declaredQueue[OpID(first + k)] = def.queue != nil ? target : nil }
      let list = names.joined(separator: ",")
      return Reply(output: def.hold ? "  \(list) defined, in no queue yet (`add \(list)` to enqueue them)\n" + out : out)
    }
    if def.gate != nil || def.completionSteps != nil {
      // The gate is part of its class, the completion block is set before it is added:
      // made in no queue, gated, given its block, then added.
      let target = def.queue ?? "queue"
      let q = try queue(target)
      let deps = try def.dependencies.map(op)
      let id = OpID(world.operations.count)
      var actions: [Action] = [.createOperation(def.spec, dependencies: deps, queue: nil)]
      if let gate = def.gate { actions.append(.gate(id, gate)) }
      if let steps = def.completionSteps { actions.append(.setCompletionSteps(id, steps)) }
      if !def.hold { actions.append(.enqueue(id, on: q)) }
      let (out, _) = try perform(actions)
      history.declaredQueue[id] = def.queue != nil ? target : nil
      return Reply(output: def.hold ? "  \(def.spec.name) defined, in no queue yet (`add \(def.spec.name)` to enqueue it)\n" + out : out)
    }
    let target = def.queue ?? "queue"
    let q = try queue(target)
    let deps = try def.dependencies.map(op)
    let id = OpID(world.operations.count)
    let (out, _) = try perform([.createOperation(def.spec, dependencies: deps, queue: def.hold ? nil : q)])
    history.declaredQueue[id] = def.queue != nil ? target : nil
    return Reply(output: def.hold ? "  \(def.spec.name) defined, in no queue yet (`add \(def.spec.name)` to enqueue it)\n" + out : out)
  }
}
