import OpLabCore

/// `status`: every queue with its settings and counts, and every operation's state now.
public enum Status {
  /// Renders the status table.
  public static func render(_ world: World) -> String {
    var out = "t=\(world.now)  platform \(world.platform.rawValue)\n"
    for q in world.queueIDs {
      let queue = world.queue(q)
      let members = world.operationIDs.filter { world.operation($0).queue == q }
      func count(_ phase: OpPhase) -> Int { members.count { world.operation($0).phase == phase } }
      let max = queue.isMain ? "1 (main)" : queue.maxConcurrent.map(String.init) ?? "default"
      var line = "\(queue.name): max \(max)"
      if queue.isSuspended { line += ", SUSPENDED" }
      line += ", qos \(queue.reportedQualityOfService)"
      line += " | executing \(count(.executing)), ready \(count(.ready)), pending \(count(.pending)), finished \(count(.finished))"
      out += line + "\n"
      for op in members { out += "  " + describe(op, in: world) + "\n" }
    }
    let held = world.operationIDs.filter { world.operation($0).queue == nil }
    if !held.isEmpty {
      out += "in no queue:\n"
      for op in held { out += "  " + describe(op, in: world) + "\n" }
    }
    if world.runningCompletions > 0 { out += "completion blocks running: \(world.runningCompletions)\n" }
    return out
  }

  /// One operation's state in a few words, e.g. `d2  executing since t=3 (cancel requested)`.
  public static func describe(_ op: OpID, in world: World) -> String {
    let r = world.operation(op)
    var text = "\(r.name)  "
    switch r.phase {
    case .created: text += "not in a queue"
    case .pending: text += "pending (waiting on dependencies)"
    case .ready:
      let queue = r.queue.map { world.queue($0) }
      if r.dispatched {
        text += "dispatched, waiting behind a barrier block"
      } else if queue?.isSuspended == true {
        text += "ready, but its queue is suspended"
      } else if queue?.effectiveMax == 0 {
        text += "ready, but its queue's max is 0"
      } else {
        text += "ready, waiting for a slot"
      }
    case .executing:
      text += r.jammed ? "executing forever (never calls finish())" : "executing since t=\(r.startedAt ?? 0)"
    case .finished: text += "finished at t=\(r.finishedAt ?? 0): \(r.outcome.map { "\($0)" } ?? "?")"
    }
    var notes: [String] = []
    if r.isCancelled && r.phase != .finished { notes.append("cancelled") }
    if r.isBarrier { notes.append("barrier") }
    if r.completionRunning { notes.append("completion block running") }
    if !notes.isEmpty { text += " — " + notes.joined(separator: ", ") }
    return text
  }
}

/// `graph`: each operation with its dependencies; cycles are marked.
public enum Graph {
  /// Renders the dependency graph as text.
  public static func render(_ world: World) -> String {
    let cycles = world.dependencyCycles()
    var inCycle: [OpID: Int] = [:]
    for (i, c) in cycles.enumerated() { for op in c { inCycle[op] = i + 1 } }
    var out = ""
    for op in world.operationIDs {
      let r = world.operation(op)
      let deps = r.dependencies.map { d in
        world.name(d) + (world.operation(d).isFinished ? " ✓" : "")
      }
      var line = r.name
      if let q = r.queue { line += " [\(world.name(q))]" }
      line += deps.isEmpty ? "" : " ← " + deps.joined(separator: ", ")
      if let c = inCycle[op] { line += "   ⟲ cycle \(c)" }
      out += line + "\n"
    }
    for (i, c) in cycles.enumerated() {
      out += "cycle \(i + 1): " + (c + [c[0]]).map { world.name($0) }.joined(separator: " → ")
        + " — none of these can ever start; cancel one to break it\n"
    }
    return out.isEmpty ? "no operations yet\n" : out
  }
}
