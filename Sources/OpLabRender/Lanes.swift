import OpLabCore

/// What each operation and queue was doing over time, read once from the trace.
///
/// Timelines, slot views and exports all draw from this model, so none of them
/// re-derives phases from events on its own.
public struct Lanes: Sendable {
  /// One stretch of time an operation spent in one state, `[from, to)` in ticks.
  public struct Segment: Hashable, Sendable {
    public enum State: String, Sendable {
      case pending, ready, executing, executingCancelled, completion
      /// Executing with less than a full core per unit of work: the cores are shared.
      case executingShared
      /// Started, and waiting in a `lock` step for a lock another operation holds (its slot kept).
      case waitingForLock
      /// Given a slot of its queue, and waiting behind a running barrier block (rule 32).
      case heldBehindBarrier
      /// Given a slot of its queue, and waiting on its serial underlying dispatch queue for the
      /// work item before it (rule 45).
      case heldOnDispatchQueue
    }
    public var state: State
    public var from: Tick
    public var to: Tick
  }

  /// A moment worth marking on an operation's lane.
  public struct Mark: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
      case finished(Outcome), skipped, cancelRequested, cancelObserved
      /// A step read a shared variable, wrote one, or touched the user interface.
      case read, wrote, touchedUI
      /// One of the two accesses of a data race (see ``World/raceReport()``).
      case race
      /// A call into the user interface off the main thread (drawn as a race is).
      case uiOffMain
    }
    public var kind: Kind
    public var tick: Tick
    /// Made by the operation's completion block, which the timeline draws in a row of its own.
    public var inCompletion = false
  }

  /// Per operation: its segments in time order.
  public var segments: PerOperation<Segment>
  /// Per operation: its marks in time order.
  public var marks: PerOperation<Mark>
  /// Per queue: intervals `[from, to)` during which it was suspended.
  public var suspensions: [QueueID: [(from: Tick, to: Tick)]] = [:]
  /// Per queue: `maxConcurrentOperationCount` changes, `(tick, value)`, first at creation.
  public var limits: [QueueID: [(tick: Tick, max: Int?)]] = [:]
  /// The CPU model's load over time, `(tick, work per tick)`, when the cores were ever limited.
  public var cpuLoad: [(tick: Tick, used: Int64)] = []
  /// The machine's cores over time, `(tick, cores)`; `nil` cores is unlimited.
  public var cores: [(tick: Tick, cores: Int?)] = []
  /// The tick the world had reached.
  public var now: Tick
  /// The ticks kept, when the lanes were read for a window only (see ``init(_:window:)``).
  public var window: ClosedRange<Tick>?

  /// Reads the lanes from a world's trace.
  ///
  /// With a `window`, only segments that overlap it and marks inside it are kept (and
  /// every cancellation request, which a timeline notes wherever it happened): a window
  /// on a world of a million operations then stores a few lanes, not a million.
  /// - Complexity: O(trace).
  public init(_ world: World, window: ClosedRange<Tick>? = nil) {
    now = world.now
    self.window = window
    let keepFrom = window?.lowerBound ?? Tick.min, keepTo = window?.upperBound ?? Tick.max
    let n = world.operations.count
    segments = PerOperation(count: n)
    marks = PerOperation(count: n)
    // Dense per-operation state: a million operations hash nothing.
    var open = [(state: Segment.State, since: Tick)?](repeating: nil, count: n)
    var cancelled = [Bool](repeating: false, count: n)
    var suspendedSince: [QueueID: Tick] = [:]
    var completionSince = [Tick?](repeating: nil, count: n)
    func close(_ op: OpID, at t: Tick) {
      let i = Int(op.index)
      if let (state, since) = open[i] {
        open[i] = nil
        keep(op, Segment(state: state, from: since, to: t))
      }
    }
    // A segment [from, to) is kept when it is not empty and overlaps the window.
    func keep(_ op: OpID, _ s: Segment) {
      if s.to > s.from, s.from <= keepTo, s.to > keepFrom { segments[op, default: []].append(s) }
    }
    func mark(_ op: OpID, _ kind: Mark.Kind, at t: Tick, inCompletion: Bool = false) {
      if (keepFrom...keepTo).contains(t) || kind == .cancelRequested {
        marks[op, default: []].append(Mark(kind: kind, tick: t, inCompletion: inCompletion))
      }
    }
    func begin(_ op: OpID, _ state: Segment.State, at t: Tick) {
      close(op, at: t)
      open[Int(op.index)] = (state, t)
    }
    for e in world.trace {
      switch e.kind {
      case .cpuLoad(let used):
        if let last = cpuLoad.last, last.tick == e.tick { cpuLoad[cpuLoad.count - 1].used = used } else { cpuLoad.append((e.tick, used)) }
      case .machineChanged(let n): cores.append((e.tick, n))
      default: break
      }
      if let q = e.queue, e.op == nil {
        switch e.kind {
        case .queueCreated(let max): limits[q, default: []].append((e.tick, max))
        case .maxChanged(let max): limits[q, default: []].append((e.tick, max))
        case .suspended: if suspendedSince[q] == nil { suspendedSince[q] = e.tick }
        case .resumed:
          if let since = suspendedSince.removeValue(forKey: q), e.tick > since {
            suspensions[q, default: []].append((since, e.tick))
          }
        default: break
        }
      }
      guard let op = e.op else { continue }
      switch e.kind {
      case .enqueued, .unready: begin(op, .pending, at: e.tick)
      case .ready: begin(op, .ready, at: e.tick)
      case .dispatched:
        if case .dispatchQueueBusy = e.reason { begin(op, .heldOnDispatchQueue, at: e.tick) } else { begin(op, .heldBehindBarrier, at: e.tick) }
      case .started:
        begin(op, cancelled[Int(op.index)] ? .executingCancelled : .executing, at: e.tick)
      case .cpuShare(let share):
        if let (state, _) = open[Int(op.index)], state == .executing || state == .executingShared {
          let now: Segment.State = share < Machine.subTicks ? .executingShared : .executing
          if now != state { begin(op, now, at: e.tick) }
        }
      case .skipped:
        close(op, at: e.tick)
        mark(op, .skipped, at: e.tick)
      case .cancelRequested:
        guard e.reason != .alreadyFinished, e.reason != .alreadyCancelled else { break }
        cancelled[Int(op.index)] = true
        mark(op, .cancelRequested, at: e.tick)
        if let (state, _) = open[Int(op.index)], state == .executing || state == .executingShared {
          begin(op, .executingCancelled, at: e.tick)
        }
      case .cancelObserved: mark(op, .cancelObserved, at: e.tick)
      // A step is stamped with the tick it took, and drawn there: a `lock` step that waits
      // waits from its own tick, and a lock handed over in an `unlock` step's tick is
      // waited for through that tick (the waiter's next step takes the one after).
      case .lockWaiting: begin(op, .waitingForLock, at: e.tick)
      case .lockAcquired:
        if let (state, _) = open[Int(op.index)], state == .waitingForLock {
          begin(op, cancelled[Int(op.index)] ? .executingCancelled : .executing, at: e.tick + 1)
        }
      case .variableRead: mark(op, .read, at: e.tick, inCompletion: e.reason.isCompletionStep)
      case .variableWritten: mark(op, .wrote, at: e.tick, inCompletion: e.reason.isCompletionStep)
      case .touchedUI: mark(op, .touchedUI, at: e.tick, inCompletion: e.reason.isCompletionStep)
      case .finished(let outcome):
        close(op, at: e.tick)
        mark(op, .finished(outcome), at: e.tick)
      case .completionStarted: completionSince[Int(op.index)] = e.tick
      case .completionFinished:
        if let since = completionSince[Int(op.index)] {
          completionSince[Int(op.index)] = nil
          keep(op, Segment(state: .completion, from: since, to: e.tick))
        }
      default: break
      }
    }
    if world.shared != nil {
      let report = world.raceReport()
      for race in report.races {
        for access in [race.first, race.second] { mark(access.op, .race, at: access.tick, inCompletion: access.inCompletion) }
      }
      for call in report.offMainThread { mark(call.op, .uiOffMain, at: call.tick, inCompletion: call.inCompletion) }
      for i in 0..<n where marks.storage[i].count > 1 { marks.storage[i].sort { $0.tick < $1.tick } }
    }
    let end = now == Tick.max ? now : now + 1  // open states last through the current tick
    for i in 0..<n {
      if let (state, since) = open[i] { keep(OpID(i), Segment(state: state, from: since, to: Swift.max(end, since))) }
      if let since = completionSince[i] { keep(OpID(i), Segment(state: .completion, from: since, to: end)) }
      // A completion block's segment can end before a later state begins: keep time order.
      if segments.storage[i].count > 1 { segments.storage[i].sort { ($0.from, $0.to) < ($1.from, $1.to) } }
    }
    for (q, since) in suspendedSince { suspensions[q, default: []].append((since, end)) }
  }

  /// Whether anything of `op` is in `window`: a segment overlapping it, or a mark inside it.
  public func hasAnything(of op: OpID, in window: ClosedRange<Tick>) -> Bool {
    (segments[op] ?? []).contains { $0.from <= window.upperBound && $0.to > window.lowerBound }
      || (marks[op] ?? []).contains { window.contains($0.tick) }
  }
}

/// A list per operation, stored densely by operation index (an empty list reads as `nil`).
public struct PerOperation<Element: Sendable>: Sendable {
  var storage: [[Element]]

  init(count: Int) { storage = [[Element]](repeating: [], count: count) }

  /// The operation's list, or `nil` when it has none.
  public subscript(op: OpID) -> [Element]? {
    let list = storage[Int(op.index)]
    return list.isEmpty ? nil : list
  }

  subscript(op: OpID, default empty: [Element]) -> [Element] {
    get { storage[Int(op.index)] }
    _modify { yield &storage[Int(op.index)] }
  }
}
