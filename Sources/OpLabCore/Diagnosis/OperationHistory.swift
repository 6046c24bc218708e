/// An operation's story, read from the trace: the facts `why` explains.
public struct OperationHistory: Hashable, Sendable {
  /// The operation.
  public var op: OpID
  /// Index of the `created` event.
  public var created: Int?
  /// Index of the `enqueued` event.
  public var enqueued: Int?
  /// Index of the `ready` event (the last one, if it became ready more than once).
  public var ready: Int?
  /// Index of the first `ready` event, when it became ready more than once.
  public var firstReady: Int?
  /// Indices of `unready` events: a new dependency made it wait again.
  public var unready: [Int] = []
  /// Index of the `dispatched` event: it took a slot while a barrier block ran, and waited
  /// behind the block (rule 40).
  public var dispatched: Int?
  /// Index of the `started` or `skipped` event.
  public var started: Int?
  /// Indices of the `cancelRequested` events.
  public var cancelRequests: [Int] = []
  /// Index of the `cancelObserved` event.
  public var cancelObserved: Int?
  /// Index of the `finished` event.
  public var finished: Int?
  /// Index of the completion block's start.
  public var completionStarted: Int?
  /// Index of the completion block's end.
  public var completionFinished: Int?
  /// Indices of the `started`, `skipped` or `dispatched` events of operations of the same
  /// queue that took a slot ahead of this one while it was ready and waiting (a skipped one
  /// was cancelled and never ran; a dispatched one took its slot to wait behind a barrier
  /// block: read the event's kind before saying it started).
  public var overtakenBy: [Int] = []
  /// Its queuePriority changes (each sends a waiting operation to the tail of its new level, rule 23).
  public var priorityChanges: [Int] = []
  /// Stretches of time its work ran at less than a full core because the cores were shared.
  public var contention: [CPUStretch] = []
  /// Stretches of time its work kept a whole core while others shared theirs, because its
  /// quality of service outweighed theirs (`share` is a full core).
  public var favoured: [CPUStretch] = []
  /// What holds it now, if anything (see ``World/blockage(of:)``).
  public var blockage: StallCause?
}

/// A stretch of time an operation's work got a share of a core, and what it shared with.
public struct CPUStretch: Hashable, Sendable {
  /// When the share began, and when it ended (`nil`: it still runs at it).
  public var from: Tick
  public var to: Tick?
  /// Work per tick (``Machine/subTicks`` is a full core).
  public var share: Int64
  /// Units of work running, and the cores (`nil`: unlimited).
  public var units: Int32
  public var cores: Int32?
  /// Operations running alongside, when the share began, with a higher or lower
  /// quality of service, and with the same.
  public var heavier: [OpID] = []
  public var lighter: [OpID] = []
  public var equal: [OpID] = []
}

extension World {
  /// Reads one operation's story from the trace, for `why`.
  /// - Complexity: O(trace).
  public func history(of op: OpID) -> OperationHistory {
    var h = OperationHistory(op: op)
    let queue = operations[op.slot].queue
    var waitingSince: Int?
    // Operations whose work runs, for naming what this one shared the cores with.
    var running: Set<OpID> = []
    let mine = effectiveQualityOfService(of: op)
    var myShare = Machine.subTicks
    var contention: (units: Int32, cores: Int32)?
    /// Files `other` under the stretch by how its quality of service compares with this op's.
    func classify(_ other: OpID, into stretch: inout CPUStretch) {
      guard other != op, !(stretch.heavier + stretch.lighter + stretch.equal).contains(other) else { return }
      let qos = effectiveQualityOfService(of: other)
      if qos > mine { stretch.heavier.append(other) } else if qos < mine { stretch.lighter.append(other) } else { stretch.equal.append(other) }
    }
    /// Ends the open contention stretch at `tick`: work that started only then did not share it.
    func closeContention(at tick: Tick) {
      guard let k = h.contention.indices.last, h.contention[k].to == nil else { return }
      h.contention[k].to = tick
      let before: (OpID) -> Bool = { (self.operations[$0.slot].startedAt ?? tick) < tick }
      h.contention[k].heavier = h.contention[k].heavier.filter(before)
      h.contention[k].lighter = h.contention[k].lighter.filter(before)
      h.contention[k].equal = h.contention[k].equal.filter(before)
    }
    for (i, e) in trace.enumerated() {
      if let other = e.op {
        switch e.kind {
        case .started:
          running.insert(other)
          // Whatever starts while this op runs on a share of a core shares the cores with it.
          if other != op, let last = h.contention.last, last.to == nil {
            classify(other, into: &h.contention[h.contention.count - 1])
          }
        case .finished, .workEnded: running.remove(other)
        default: break
        }
      }
      let ends: Bool
      switch e.kind {
      case .finished, .workEnded: ends = e.op == op
      default: ends = false
      }
      if e.op == op, e.kind == .started { myShare = Machine.subTicks }
      if case .cpuShared(let units, let cores) = e.reason {
        // Load and share events carry the machine's units and cores.
        contention = cores.flatMap { units > $0 ? (units, $0) : nil }
        if e.op == op, case .cpuShare(let share) = e.kind {
          myShare = share
          closeContention(at: e.tick)
          if share < Machine.subTicks {
            var stretch = CPUStretch(from: e.tick, share: share, units: units, cores: cores)
            for other in running.sorted() { classify(other, into: &stretch) }
            h.contention.append(stretch)
          }
        }
        // A whole core while the cores are shared: its quality of service won it.
        let open = h.favoured.last.map { $0.to == nil } ?? false
        if running.contains(op), myShare == Machine.subTicks, let c = contention {
          if !open {
            h.favoured.append(CPUStretch(from: e.tick, share: myShare, units: c.units, cores: c.cores))
          }
          let k = h.favoured.count - 1
          h.favoured[k].units = Swift.max(h.favoured[k].units, c.units)
          for other in running.sorted() where effectiveQualityOfService(of: other) < mine { classify(other, into: &h.favoured[k]) }
        } else if open {
          h.favoured[h.favoured.count - 1].to = e.tick
        }
      }
      if ends {
        closeContention(at: e.tick)
        if let last = h.favoured.last, last.to == nil { h.favoured[h.favoured.count - 1].to = e.tick }
      }
      if e.op == op {
        switch e.kind {
        case .created: h.created = i
        case .enqueued: h.enqueued = i
        case .ready:
          if let first = h.ready, h.firstReady == nil { h.firstReady = first }
          h.ready = i
          waitingSince = i
        case .unready:
          waitingSince = nil
          h.unready.append(i)
        case .dispatched:
          h.dispatched = i
          waitingSince = nil
        case .started, .skipped:
          h.started = i
          waitingSince = nil
        case .cancelRequested: h.cancelRequests.append(i)
        case .priorityChanged: h.priorityChanges.append(i)
        case .cancelObserved: h.cancelObserved = i
        case .finished: h.finished = i
        case .completionStarted: h.completionStarted = i
        case .completionFinished: h.completionFinished = i
        default: break
        }
      } else if waitingSince != nil, e.queue == queue, e.kind == .started || e.kind == .skipped || e.kind == .dispatched {
        // One that was dispatched behind a barrier block took its slot then, not when it starts.
        if case .dispatchBarrierEnded = e.reason {} else { h.overtakenBy.append(i) }
      }
    }
    h.favoured.removeAll { $0.lighter.isEmpty }
    h.blockage = blockage(of: op)
    return h
  }
}
