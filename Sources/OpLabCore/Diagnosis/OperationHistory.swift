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
  /// Operations of the same queue that started while this one was ready and waiting, with their event indices.
  public var overtakenBy: [Int] = []
  /// What holds it now, if anything (see ``World/blockage(of:)``).
  public var blockage: StallCause?
}

extension World {
  /// Reads one operation's story from the trace, for `why`.
  /// - Complexity: O(trace).
  public func history(of op: OpID) -> OperationHistory {
    var h = OperationHistory(op: op)
    let queue = operations[op.slot].queue
    var waitingSince: Int?
    for (i, e) in trace.enumerated() {
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
        case .started, .skipped:
          h.started = i
          waitingSince = nil
        case .cancelRequested: h.cancelRequests.append(i)
        case .cancelObserved: h.cancelObserved = i
        case .finished: h.finished = i
        case .completionStarted: h.completionStarted = i
        case .completionFinished: h.completionFinished = i
        default: break
        }
      } else if waitingSince != nil, e.queue == queue, e.kind == .started || e.kind == .skipped {
        h.overtakenBy.append(i)
      }
    }
    h.blockage = blockage(of: op)
    return h
  }
}
