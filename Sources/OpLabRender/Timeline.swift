import OpLabCore

/// `timeline`: one lane per operation, grouped by queue, one column per tick.
///
/// A pure function of the trace and a width. Long runs are windowed to fit.
public enum Timeline {
  /// Glyphs for each kind of cell.
  public struct Glyphs: Sendable {
    public var pending, ready, executing, cancelledExecuting, finished, cancelled, failed, completion, empty: Character
    public static let unicode = Glyphs(
      pending: "·", ready: "░", executing: "█", cancelledExecuting: "▓", finished: "✓", cancelled: "✗", failed: "!",
      completion: "c", empty: " ")
    public static let ascii = Glyphs(
      pending: ".", ready: "-", executing: "#", cancelledExecuting: "=", finished: "v", cancelled: "x", failed: "!",
      completion: "c", empty: " ")
  }

  /// Renders the timeline.
  /// - Parameters:
  ///   - queues: only these queues (all when empty).
  ///   - from, to: the tick window (default: the last ticks that fit).
  ///   - width: the columns available.
  ///   - ascii: use only ASCII.
  public static func render(
    _ world: World, queues: [QueueID] = [], from: Tick? = nil, to: Tick? = nil, width: Int = 80, ascii: Bool = false
  ) -> String {
    let g = ascii ? Glyphs.ascii : Glyphs.unicode
    let shown = queues.isEmpty ? world.queueIDs : queues
    let ops = world.operationIDs.filter { op in world.operation(op).queue.map { shown.contains($0) } ?? false }
    let names = ops.map { world.name($0) } + shown.map { world.name($0) }
    let labelWidth = min(16, max(6, (names.map(\.count).max() ?? 0) + 2))
    let columns = max(10, width - labelWidth - 1)
    let end = to ?? world.now
    let start = from ?? max(0, end + 1 - columns)
    let last = min(end, start + columns - 1)
    guard last >= start else { return "nothing to show between t=\(start) and t=\(end)\n" }

    var lanes: [OpID: [Character]] = [:]
    for op in ops { lanes[op] = Array(repeating: g.empty, count: last - start + 1) }
    // Replay phases per operation from the trace.
    var phase: [OpID: (Character, since: Tick)] = [:]
    func paint(_ op: OpID, _ c: Character, from a: Tick, to b: Tick) {
      guard lanes[op] != nil, b >= start, a <= last else { return }
      for t in max(a, start)...min(b, last) { lanes[op]![t - start] = c }
    }
    var cancelled: Set<OpID> = []
    for e in world.trace {
      guard let op = e.op, lanes[op] != nil else { continue }
      switch e.kind {
      case .enqueued, .unready: close(op, at: e.tick); phase[op] = (g.pending, e.tick)
      case .ready: close(op, at: e.tick); phase[op] = (g.ready, e.tick)
      case .started: close(op, at: e.tick); phase[op] = (cancelled.contains(op) ? g.cancelledExecuting : g.executing, e.tick)
      case .skipped: close(op, at: e.tick); phase[op] = nil
      case .cancelRequested:
        cancelled.insert(op)
        if let p = phase[op], p.0 == g.executing { close(op, at: e.tick); phase[op] = (g.cancelledExecuting, e.tick) }
      case .finished(let outcome):
        close(op, at: e.tick)
        phase[op] = nil
        let mark = switch outcome {
        case .succeeded: g.finished
        case .failed: g.failed
        case .cancelled, .bailed: g.cancelled
        }
        paint(op, mark, from: e.tick, to: e.tick)
      default: break
      }
    }
    func close(_ op: OpID, at t: Tick) {
      if let p = phase[op], t > p.since { paint(op, p.0, from: p.since, to: t - 1) }
    }
    for (op, p) in phase { paint(op, p.0, from: p.since, to: world.now) }

    func pad(_ s: String) -> String {
      let cut = s.count > labelWidth - 1 ? String(s.prefix(labelWidth - 2)) + "…" : s
      return cut + String(repeating: " ", count: max(0, labelWidth - cut.count))
    }
    var out = pad("tick")
    var axis = ""
    var t = start
    while t <= last {
      let label = String(t)
      if (t - start) % 5 == 0 && axis.count <= t - start {
        axis += String(repeating: " ", count: t - start - axis.count) + label
      }
      t += 1
    }
    out = (out + axis).replacingTrailingSpaces() + "\n"
    for q in shown {
      let queue = world.queue(q)
      let max = queue.isMain ? "1" : queue.maxConcurrent.map(String.init) ?? "default"
      out += pad(queue.name) + "max \(max)" + (queue.isSuspended ? "  (suspended)" : "") + "\n"
      for op in ops where world.operation(op).queue == q {
        out += (pad("  " + world.name(op)) + String(lanes[op] ?? [])).replacingTrailingSpaces() + "\n"
      }
    }
    out += "\(g.executing) executing  \(g.ready) ready, waiting for a slot  \(g.pending) waiting on dependencies  "
      + "\(g.cancelledExecuting) executing, cancel requested  \(g.finished) finished  \(g.cancelled) cancelled  \(g.failed) failed\n"
    return out
  }
}

extension String {
  fileprivate func replacingTrailingSpaces() -> String {
    var s = self
    while s.last == " " { s.removeLast() }
    return s
  }
}
