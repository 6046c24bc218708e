import OpLabCore

/// `slots QUEUE`: which operation held each of a queue's concurrency slots, and when (a
/// cancelled one the queue skipped is said to be skipped).
public enum Slots {
  /// Renders the slot table. Each start takes the lowest free slot; each finish frees it.
  public static func render(_ world: World, queue q: QueueID) -> String {
    var slots: [[(op: OpID, from: Tick, to: Tick?, skipped: Bool)]] = []
    var held: [OpID: Int] = [:]
    for e in world.trace where e.queue == q {
      guard let op = e.op else { continue }
      switch e.kind {
      case .dispatched, .started, .skipped:
        if e.reason == .emptyQueueBarrier || held[op] != nil { continue }
        if case .dispatchBarrierEnded = e.reason { continue }
        let free = slots.firstIndex { $0.last.map { $0.to != nil } ?? true } ?? slots.count
        if free == slots.count { slots.append([]) }
        slots[free].append((op, e.tick, nil, e.kind == .skipped))
        held[op] = free
      case .finished:
        if let s = held.removeValue(forKey: op), let i = slots[s].indices.last { slots[s][i].to = e.tick }
      default: break
      }
    }
    let queue = world.queue(q)
    var out = "\(queue.name): max \(queue.isMain ? "1 (main)" : queue.maxConcurrent.map(String.init) ?? "default")"
    out += ", \(slots.count) slot\(slots.count == 1 ? "" : "s") used so far\n"
    if slots.isEmpty { return out + "  nothing has started on \(queue.name) yet\n" }
    for (i, uses) in slots.enumerated() {
      // A skipped operation took the slot only to finish at once: said, not drawn as work.
      let list = uses.map {
        $0.skipped && $0.to == $0.from
          ? "\(world.name($0.op)) skipped at t=\($0.from)" : "\(world.name($0.op)) t=\($0.from)-\($0.to.map(String.init) ?? "now")"
      }
      out += "  slot \(i + 1): " + list.joined(separator: ", ") + "\n"
    }
    return out
  }
}

/// `narrate`: the trace as plain sentences, one per event, for reading aloud (screen readers).
public enum Narrate {
  /// Renders the events (all, or one operation's) as sentences.
  public static func render(_ world: World, only op: OpID? = nil) -> String {
    var out = ""
    var lastTick: Tick?
    for e in world.trace where op == nil || e.op == op {
      if case .queueCreated = e.kind, e.queue == .main { continue }
      let when = e.tick == lastTick ? "Then" : "At tick \(e.tick),"
      lastTick = e.tick
      out += "\(when) \(world.describe(e, prose: true)).\n"
    }
    return out.isEmpty ? "Nothing has happened yet.\n" : out
  }
}
