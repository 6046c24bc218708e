import OpLabCore

/// `status`: every queue with its settings and counts, and every operation's state now.
public enum Status {
  /// Renders the status table.
  public static func render(_ world: World) -> String {
    var out = "t=\(world.now)  platform \(world.platform.rawValue)"
    if let cores = world.cores {
      out += "  machine: \(cores) \(cores == 1 ? "core" : "cores"), \(Exporters.coresText(world.cpuLoad.used)) busy now"
    }
    out += "\n"
    let (byQueue, held) = world.operationsByQueue()
    for q in world.queueIDs {
      let queue = world.queue(q)
      // Operations are counted apart from what is no operation: the main thread's taps,
      // frames and calls, and barrier blocks (the real `operations` leaves them out, rule 37).
      let all = byQueue[Int(q.index)]
      let operations = all.filter { world.operation($0).mainThreadWork == nil && !world.operation($0).isBarrier }
      var counts: [OpPhase: Int] = [:]
      for op in operations { counts[world.operation(op).phase, default: 0] += 1 }
      func count(_ phase: OpPhase) -> Int { counts[phase, default: 0] }
      let max = queue.isMain ? "1 (main)" : queue.maxConcurrent.map(String.init) ?? "default"
      var line = "\(queue.name): max \(max)"
      if queue.isSuspended { line += ", SUSPENDED" }
      line += ", qos \(queue.reportedQualityOfService)"
      if let d = queue.underlyingQueue { line += ", underlyingQueue \(world.dispatchQueueName(d)) (\(world.dispatchQueues[Int(d)].summary))" }
      // A queue that never had an operation (the default `queue`, often) takes one line.
      if all.isEmpty, !queue.isMain {
        out += line + "; no operations yet\n"
        continue
      }
      out += line + "\n"
      out += "  operations: executing \(count(.executing)), ready \(count(.ready)), pending \(count(.pending)), finished \(count(.finished))\n"
      // What the real queue reports: operationCount and operations.
      let listed = operations.filter { !world.operation($0).isFinished }
      out += "  operationCount \(listed.count), operations [\(listed.map { world.name($0) }.joined(separator: ", "))]\n"
      for op in all where !world.operation(op).isBarrier && world.operation(op).mainThreadWork == nil {
        out += "  " + describe(op, in: world) + "\n"
        if let flags = flags(op, in: world) { out += "    " + flags + "\n" }
      }
      let barriers = all.filter { world.operation($0).isBarrier }
      if !barriers.isEmpty {
        out += "  barrier blocks, not operations: \(barriers.count) \(states(barriers, in: world))\n"
        for op in barriers { out += "  " + describe(op, in: world) + "\n" }
      }
      if queue.isMain {
        out += mainThreadWork(all, in: world)
        out += responsiveness(world)
      }
    }
    if !held.isEmpty {
      out += "in no queue:\n"
      for op in held {
        out += "  " + describe(op, in: world) + "\n"
        if let flags = flags(op, in: world) { out += "    " + flags + "\n" }
      }
    }
    out += dispatchQueues(world)
    if world.runningCompletions > 0 { out += "completion blocks running: \(world.runningCompletions)\n" }
    out += sharedState(world)
    if let stall = Verdicts.stallLine(in: world) { out += stall }
    return out
  }

  /// Each dispatch queue: what it is, the queues on it, and, serial, the work item running
  /// there and the operations waiting behind it.
  static func dispatchQueues(_ world: World) -> String {
    var out = ""
    for (i, d) in world.dispatchQueues.enumerated() {
      let users = world.queueIDs.filter { world.queue($0).underlyingQueue == Int32(i) }.map { world.name($0) }
      out += "dispatch queue \(d.name): \(d.summary); underlying queue of \(users.isEmpty ? "no queue" : users.joined(separator: ", "))\n"
      guard !d.isConcurrent, let running = d.running else { continue }
      out += "  running \(world.name(running))'s work item"
      out += d.waiting.isEmpty ? "\n" : "; waiting: \(d.waiting.map { world.name($0) }.joined(separator: ", "))\n"
    }
    return out
  }

  /// The shared variables' values and who holds each lock.
  static func sharedState(_ world: World) -> String {
    guard let shared = world.shared else { return "" }
    var out = ""
    if !shared.variableNames.isEmpty {
      out +=
        "shared: "
        + shared.variableNames.indices.map { i in
          "\(shared.variableNames[i]) = \(shared.values[i])"
            + (shared.values[i] != shared.initialValues[i] ? " (was \(shared.initialValues[i]))" : "")
        }.joined(separator: ", ") + "\n"
    }
    for (i, name) in shared.lockNames.enumerated() {
      let holder = shared.holders[i].map { "held by \(world.name($0))" } ?? "free"
      let waiting = shared.waiters[i].map { world.name($0) }
      out += "lock \(name): \(holder)" + (waiting.isEmpty ? "" : ", \(waiting.joined(separator: ", ")) waiting") + "\n"
    }
    return out
  }

  /// The main thread's work that is no operation (taps, frames, calls made there), summed
  /// up by kind and state; the calls are listed under it, as they read now.
  static func mainThreadWork(_ ops: [OpID], in world: World) -> String {
    let work = ops.filter { world.operation($0).mainThreadWork != nil }
    guard !work.isEmpty else { return "" }
    var kinds: [(name: String, plural: String, count: Int)] = [
      ("tap", "taps", 0), ("frame", "frames", 0), ("wait", "waits", 0), ("start()", "start() calls", 0),
    ]
    var calls: [OpID] = []
    for op in work {
      switch world.operation(op).mainThreadWork {
      case .tap: kinds[0].count += 1
      case .frame: kinds[1].count += 1
      case .wait, .waitForOperations:
        kinds[2].count += 1
        calls.append(op)
      default:
        kinds[3].count += 1
        calls.append(op)
      }
    }
    let summary = kinds.filter { $0.count > 0 }.map { "\($0.count) \($0.count == 1 ? $0.name : $0.plural)" }
    var out = "  main thread, besides operations: \(summary.joined(separator: ", ")) \(states(work, in: world))\n"
    for op in calls { out += "  " + describe(op, in: world) + "\n" }
    return out
  }

  /// How many of `ops` run, wait and have finished, in parentheses: `(1 running, 7
  /// finished)`, `(all waiting)`, or `(none left)` when every one has finished (`(finished)`, one).
  static func states(_ ops: [OpID], in world: World) -> String {
    var running = 0, waiting = 0, done = 0
    for op in ops {
      switch world.operation(op).phase {
      case .executing: running += 1
      case .finished: done += 1
      default: waiting += 1
      }
    }
    // A dropped frame is finished without being drawn: "all done" beside "4 dropped" read
    // as a contradiction.
    let parts = [(running, "running"), (waiting, "waiting"), (done, "finished")].filter { $0.0 > 0 }
    if parts.count == 1, done > 0 { return ops.count == 1 ? "(finished)" : "(none left)" }
    if parts.count == 1 { return "(\(ops.count == 1 ? "" : "all ")\(parts[0].1))" }
    return "(" + parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
  }

  /// The main thread's user-interface work: taps, frames, the longest freeze.
  static func responsiveness(_ world: World) -> String {
    let r = world.responsiveness()
    guard r.taps > 0 || r.frames > 0 else { return "" }
    var parts: [String] = []
    if r.taps > 0 {
      var text = "\(r.taps) \(r.taps == 1 ? "tap" : "taps")"
      if r.tapsDelayed == 0 && r.tapsWaiting == 0 { text += " answered at once" }
      if r.tapsDelayed > 0 {
        text += ", \(r.tapsDelayed) delayed (longest wait \(r.longestTapWait) \(r.longestTapWait == 1 ? "tick" : "ticks"))"
      }
      if r.tapsWaiting > 0 { text += ", \(r.tapsWaiting) still waiting" }
      parts.append(text)
    }
    if r.frames > 0 { parts.append("\(r.frames) \(r.frames == 1 ? "frame" : "frames"), \(r.framesDropped) dropped") }
    var out = "  user interface: " + parts.joined(separator: "; ") + "\n"
    if let since = r.frozenSince {
      out += "  FROZEN since t=\(since): user-interface work is waiting for the main thread now\n"
    }
    if let f = r.longestFreeze {
      out +=
        "  longest freeze: \(f.count) \(f.count == 1 ? "tick" : "ticks") (t=\(f.lowerBound)-\(f.upperBound)), user-interface work waiting for the main thread\n"
    } else if r.frozenSince == nil {
      out += "  the user interface never waited for the main thread\n"
    }
    return out
  }

  /// An operation's public flags, its dependencies and its blocks, as its properties read
  /// now, and where its code runs; `nil` for what is not an operation the learner defined
  /// (taps, frames, calls on the main thread, barriers).
  static func flags(_ op: OpID, in world: World) -> String? {
    let r = world.operation(op)
    guard r.mainThreadWork == nil, !r.isBarrier else { return nil }
    // Once an operation has finished, isExecuting is false and isReady tells nothing the
    // queue still acts on: its line keeps to what differs, so a world at rest stays short.
    var parts = [
      r.isFinished
        ? "isFinished true, isCancelled \(r.isCancelled)"
        : "isReady \(world.isReady(op)), isExecuting \(r.isExecuting), isFinished false, isCancelled \(r.isCancelled)"
    ]
    let deps = world.dependencies(of: op).filter { !world.operation($0).isBarrier }
    parts.append(deps.isEmpty ? "no dependencies" : "dependencies [\(deps.map { world.name($0) }.joined(separator: ", "))]")
    if case .blocks(let blocks) = r.spec.kind { parts.append("\(blocks.count) execution \(blocks.count == 1 ? "block" : "blocks")") }
    if let g = world.gate(of: op) { parts.append("gate \(world.gates[Int(g)].name) \(world.gates[Int(g)].isOpen ? "open" : "closed")") }
    if let current = current(of: op, in: world) { parts.append(current) }
    return parts.joined(separator: "; ")
  }

  /// `OperationQueue.current` as the running operation's code would read it: its queue, and
  /// whether that is the main thread; `nil` when it is not running.
  public static func current(of op: OpID, in world: World) -> String? {
    let r = world.operation(op)
    guard r.phase == .executing, !r.jammed, r.mainThreadWork == nil else { return nil }
    let isAsync: Bool
    if case .async = r.spec.kind { isAsync = true } else { isAsync = false }
    guard let q = r.queue else {
      // Started by hand, on the main thread.
      if isAsync { return "ran its start() on the main thread; the work it began runs elsewhere" }
      let current =
        world.platform == .linux
        ? "OperationQueue.current is main (corelibs answers main on the main thread)"
        : "Apple documents OperationQueue.current only as typically nil outside an operation a queue started"
      return "runs on the main thread (start() was called there), in no queue: \(current)"
    }
    var thread = world.queue(q).isMain ? "the main thread" : "one of \(World.possessive(world.name(q))) threads, not the main thread"
    // OperationQueue.current?.underlyingQueue reads the dispatch queue the work runs on.
    var current = world.name(q)
    if let d = world.queue(q).underlyingQueue {
      thread = "a thread of dispatch queue \(world.dispatchQueueName(d)), not the main thread"
      current += " (its underlyingQueue is \(world.dispatchQueueName(d)))"
    }
    if isAsync {
      return
        "ran its start() on \(thread) with OperationQueue.current \(current); the work it began runs elsewhere, where OperationQueue.current is nil"
    }
    return "runs on \(thread): OperationQueue.current is \(current)"
  }

  /// One operation's state in a few words, e.g. `d2  executing since t=3 (cancel requested)`.
  public static func describe(_ op: OpID, in world: World) -> String {
    let r = world.operation(op)
    var text = "\(r.name)  "
    switch r.phase {
    case .created: text += "not in a queue"
    case .pending:
      let depsDone = world.dependencies(of: op).allSatisfy { world.operation($0).isFinished }
      if depsDone, let g = world.gate(of: op), !world.gates[Int(g)].isOpen {
        text += "pending (isReady waits for gate \(world.gates[Int(g)].name), closed)"
      } else {
        text += "pending (waiting on dependencies)"
      }
    case .ready:
      let queue = r.queue.map { world.queue($0) }
      if let d = world.dispatchQueueHolding(op) {
        text += "dispatched, waiting on \(world.dispatchQueueName(d)) (serial) for the work item before it"
      } else if r.dispatched {
        text += "dispatched, waiting behind a barrier block"
      } else if queue?.isSuspended == true {
        text += "ready, but its queue is suspended"
      } else if queue?.effectiveMax == 0 {
        text += "ready, but its queue's max is 0"
      } else {
        text += "ready, waiting for a slot"
      }
    case .executing:
      if case .wait(let scope) = r.mainThreadWork {
        text += "blocking the main thread since t=\(r.startedAt ?? 0), waiting for \(scope.map { world.name($0) } ?? "every queue")"
      } else if r.mainThreadWork == .waitForOperations {
        text +=
          "blocking the main thread since t=\(r.startedAt ?? 0) in waitUntilFinished(), waiting for "
          + world.callTargets(of: op).map { world.name($0) }.joined(separator: ", ")
      } else if r.mainThreadWork == .start {
        text +=
          "blocking the main thread since t=\(r.startedAt ?? 0) in start(), running "
          + world.callTargets(of: op).map { world.name($0) }.joined(separator: ", ")
      } else {
        text += r.jammed ? "executing forever (never calls finish())" : "executing since t=\(r.startedAt ?? 0)"
        if let l = world.lockWaitedFor(by: op) { text += ", waiting for lock \(world.lockName(Int32(l)))" }
        if let rate = world.cpuRate(of: op), rate < Machine.subTicks {
          text += " at \(Machine.describe(rate))"
        }
      }
    case .finished: text += "finished at t=\(r.finishedAt ?? 0): \(r.outcome.map { "\($0)" } ?? "?")"
    }
    var notes: [String] = []
    // The effective quality of service, where it matters: set somewhere, or deciding CPU shares.
    // An underlying dispatch queue's overrides its queue's (Darwin's documentation).
    let dispatchQoS = r.queue.flatMap { world.queue($0).underlyingQueue }.flatMap { world.dispatchQueues[Int($0)].qualityOfService }
    let qosSet = r.spec.qualityOfService != nil || dispatchQoS != nil || r.queue.map { world.queue($0).qualityOfService != nil } ?? false
    if r.mainThreadWork == nil, !r.isBarrier, qosSet || world.cores != nil {
      let qos = world.effectiveQualityOfService(of: op)
      let whose = dispatchQoS != nil ? " (its underlying queue's)" : " (its queue's)"
      notes.append("qos \(qos)" + (r.spec.qualityOfService == nil ? whose : ""))
    }
    if r.isCancelled {
      // A finished operation keeps its flag: one that never looked at it finished its work
      // all the same, and isCancelled still reads true (lesson 7).
      if r.phase != .finished {
        notes.append("cancelled")
      } else if r.outcome != .cancelled {
        notes.append("isCancelled is true")
      }
    }
    if r.isBarrier { notes.append("barrier") }
    if r.completionRunning { notes.append("completion block running") }
    if !notes.isEmpty { text += " — " + notes.joined(separator: ", ") }
    return text
  }
}

/// `graph`: each operation with its dependencies; cycles are marked.
public enum Graph {
  /// Renders the dependency graph as text: each finished operation marked with how it ended,
  /// and each finished dependency with what its dependent saw. The main thread's taps,
  /// frames and calls appear only when they are in a dependency.
  public static func render(_ world: World) -> String {
    let cycles = world.dependencyCycles()
    var inCycle: [OpID: Int] = [:]
    for (i, c) in cycles.enumerated() { for op in c { inCycle[op] = i + 1 } }
    var out = ""
    var marked = false, ranOnCancelled = false
    for op in world.operationIDs {
      let r = world.operation(op)
      // Taps, frames and calls on the main thread are left out, unless in a dependency.
      if r.mainThreadWork != nil, world.dependencies(of: op).isEmpty, world.dependents(of: op).isEmpty { continue }
      let deps = world.dependencies(of: op).map { d in
        world.name(d) + (seen(d, in: world).map { " " + $0 } ?? "")
      }
      var line = r.name
      if let q = r.queue { line += " [\(world.name(q))]" }
      if let outcome = r.outcome {
        marked = true
        line += " " + mark(outcome)
        if r.isCancelled, outcome != .cancelled, outcome != .dropped {
          line += " (isCancelled is true)"
          ranOnCancelled = true
        }
      }
      line += deps.isEmpty ? "" : " ← " + deps.joined(separator: ", ")
      if let c = inCycle[op] { line += "   ⟲ cycle \(c)" }
      out += line + "\n"
    }
    for (i, c) in cycles.enumerated() {
      out +=
        "cycle \(i + 1): " + Chains.cycle(c, in: world)
        + " — none of these can ever start; cancel one to break it\n"
    }
    if marked {
      out +=
        "(finished: succeeded ✓, cancelled ✗, failed !, returned early ↩"
        + (ranOnCancelled ? "; after ←, a dependency cancelled while it ran is ✗: its dependents see isCancelled" : "") + ")\n"
    }
    return out.isEmpty ? "no operations yet\n" : out
  }

  /// A finished dependency as its dependents see it: cancelled (isCancelled reads true, even
  /// when its work ran to the end, so a dependency check returns early), else how it ended.
  static func seen(_ dependency: OpID, in world: World) -> String? {
    let r = world.operation(dependency)
    guard let outcome = r.outcome else { return nil }
    return r.isCancelled ? mark(.cancelled) : mark(outcome)
  }

  /// How a finished operation ended, with the timeline's marks: finished is not succeeded.
  static func mark(_ outcome: Outcome) -> String {
    switch outcome {
    case .succeeded: "✓"
    case .cancelled, .dropped: "✗"
    case .failed: "!"
    case .bailed: "↩"
    }
  }
}
