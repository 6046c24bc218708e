import HeapModule
import OrderedCollections

/// The whole simulated program: queues, operations, the virtual clock and the trace.
///
/// `World` is a discrete-event kernel on integer ticks, in the manner of SimPy's
/// `Environment`: future wake-ups sit in an agenda ordered by (tick, sequence number),
/// so events at the same tick happen in the order they were scheduled, and one step
/// (``step(_:)``, `World+Step.swift`) takes the next and runs it; every way of running the
/// clock is a loop over that step. Every action (enqueue, cancel, suspend, …) happens at
/// ``now`` and settles completely — including everything it triggers at the same tick —
/// before it returns.
///
/// The scheduling rules are those of the real `OperationQueue`
/// (`docs/operationqueue-semantics.md`); comments cite them as "rule N".
///
/// `World` is a value type: copying it forks the simulation.
///
/// ```swift
/// var world = World()
/// let q = try world.createQueue(name: "downloads", maxConcurrent: 1)
/// let d1 = try world.addOperation(OperationSpec(name: "d1", duration: 5), to: q)
/// world.runUntilIdle()
/// world.operation(d1).finishedAt  // 5
/// ```
public struct World: Sendable {
  /// The current tick.
  public internal(set) var now: Tick = 0

  /// The last tick the clock can reach: 2^62. Work that starts there still ends before
  /// `Int.max`, because no duration exceeds ``OperationSpec/maxDuration``.
  public static let maxTick: Tick = 1 << 62
  /// Which Foundation is imitated where Darwin and Linux differ.
  public internal(set) var platform: Platform
  /// Every operation, indexed by ``OpID``.
  public internal(set) var operations: [OperationRecord] = []
  /// Every queue, indexed by ``QueueID``; `main` is first.
  public internal(set) var queues: [QueueRecord] = []
  /// The append-only trace. An event's sequence number is its index.
  public internal(set) var trace = Trace()
  /// Completion blocks running now.
  public internal(set) var runningCompletions = 0

  /// The display's frame requests, when `frames every N` is on.
  public internal(set) var frames: FrameClock?
  /// The `wait … from main` blocking the main thread now, if any.
  public internal(set) var mainThreadWait: OpID?
  /// When OperationQueue.main dispatched each of its operations to the main thread (rule
  /// 42): from then on it waits there in the order work became runnable on the main thread.
  public internal(set) var mainThreadDispatches: [OpID: Tick] = [:]
  /// The dispatch queues made for `underlyingQueue`, in creation order (see ``DispatchQueueRecord``).
  public internal(set) var dispatchQueues: [DispatchQueueRecord] = []
  /// Shared variables and locks, once a `var` or a `lock` is created (see ``SharedState``).
  public internal(set) var shared: SharedState?
  /// The most that all the `compute` steps of the world's operations and completion blocks
  /// can add to a value, together (saturating at `Int.max`): with the largest starting value
  /// of a variable it bounds every value a step can make (see ``checkOverflow(compute:initial:name:)``).
  var computeBound = 0

  var cpu = CPUState()
  /// Every dependency edge, both ways (see ``OperationRecord/dependencyList`` and
  /// ``Readiness/dependents``).
  var edges = EdgePool()
  /// Each operation's phase, unfinished count and dependents, indexed like ``operations``.
  var readiness: [Readiness] = []
  /// A buffer `finish` reuses to release dependents oldest first (see ``releaseDependents(of:)``).
  var releaseBuffer: [OpID] = []
  /// The operation started before the latest, whose release ``prepareRelease(startingNow:)``
  /// takes a step further (a prefetch hint's bookkeeping; it decides nothing).
  var startedBefore = OpID(-1)
  /// User-interface work created so far, for naming: taps, frames, waits and start() calls on main.
  var mainThreadWorkCount = (taps: 0, frames: 0, waits: 0, starts: 0)
  /// What each `waitUntilFinished()` or `start()` call on the main thread is about, by the
  /// call's operation (``MainThreadWork/waitForOperations``, ``MainThreadWork/start``).
  var callTargetsByCall: [OpID: [OpID]] = [:]
  /// The `addOperations(_:waitUntilFinished: true)` calls made on the main thread, each with
  /// the queue it adds its targets to when the main thread gets to it (``enqueueOnMainThread(all:on:cap:interrupt:)``).
  var addCalls: [OpID: QueueID] = [:]
  /// The gates custom `isReady` overrides wait on, in creation order (``gate(_:named:)``).
  public internal(set) var gates: [Gate] = []
  /// Each gated operation's gate, an index into ``gates``.
  var gateOfOperation: [OpID: Int32] = [:]
  /// Names to operations (operations never lose their names, so creation order is the
  /// order of ``operations``).
  @usableFromInline var opNames = NameIndex()
  @usableFromInline var queueNames: OrderedDictionary<String, QueueID> = [:]
  /// Each queue's ``NameIndex/hash(_:)`` of its name, by index: a new operation's name is
  /// checked against the queues' by hash first (see ``isQueueName(_:hash:)``).
  var queueNameHashes: [Int] = []
  var agenda = Heap<Wakeup>()
  var nextWakeupSequence = 0
  var nextPlace: UInt32 = 0
  #if OPLAB_INVARIANTS
  /// Actions since the invariants were last checked (see ``checkInvariants()``); debug builds only.
  var actionsSinceInvariantCheck = 0
  #endif

  /// Creates a world at tick 0 with the built-in serial `main` queue.
  /// - Parameter platform: the Foundation to imitate; Darwin's by default.
  public init(platform: Platform = .apple) {
    self.platform = platform
    queues.append(QueueRecord(name: "main", maxConcurrent: 1, qualityOfService: nil, isMain: true))
    queueNames["main"] = .main
    queueNameHashes.append(NameIndex.hash("main"))
    record(.queueCreated(maxConcurrent: 1), queue: .main, reason: .command)
  }

  /// The operation with this identifier.
  @inlinable public func operation(_ id: OpID) -> OperationRecord { operations[id.slot] }
  /// The queue with this identifier.
  @inlinable public func queue(_ id: QueueID) -> QueueRecord { queues[id.slot] }
  /// What `op` depends on, in the order the dependencies were added, finished ones included (rule 7).
  public func dependencies(of op: OpID) -> [OpID] { edges.operations(in: operations[op.slot].dependencyList) }
  /// What depends on `op`, in the order the edges were added.
  public func dependents(of op: OpID) -> [OpID] {
    let first = readiness[op.slot].firstDependent
    return (first >= 0 ? [OpID(Int(first))] : []) + edges.operations(from: readiness[op.slot].dependents).reversed()
  }
  /// Whether anything depends on `op`.
  func hasDependents(_ op: OpID) -> Bool { readiness[op.slot].firstDependent >= 0 || readiness[op.slot].dependents >= 0 }

  /// Files `op` among the operations that depend on `dep`, as the newest.
  mutating func addDependent(_ op: OpID, to dep: OpID) {
    if readiness[dep.slot].firstDependent < 0, readiness[dep.slot].dependents < 0 {
      readiness[dep.slot].firstDependent = op.index
    } else {
      edges.prepend(op, toHead: &readiness[dep.slot].dependents)
    }
  }

  /// Removes the newest edge from `op` to `dep` among `dep`'s dependents.
  mutating func removeDependent(_ op: OpID, from dep: OpID) {
    if !edges.remove(op, fromHead: &readiness[dep.slot].dependents), readiness[dep.slot].firstDependent == op.index {
      readiness[dep.slot].firstDependent = -1
    }
  }
  /// Puts in `buffer` (emptied first) the operations that depend on `op` and have not
  /// finished, in the order their edges were added, for a finish to release them.
  ///
  /// The pooled list reads newest first and the oldest is kept apart, so they are copied
  /// out (the oldest last) and reversed. Read from `readiness`, not the records: a
  /// dependent that stays pending is not read at all. The finished ones are filtered out
  /// in a loop of their own: its reads do not depend on one another, so the processor
  /// overlaps their cache misses (at a million operations most of them miss), where the
  /// release loop, with its calls between reads, took them one at a time; and the record
  /// of each one the release will make ready (its queue, level, place) is asked for.
  /// Nothing a release does finishes an operation (finishing is always a scheduled
  /// wake-up), so the filter still holds when each one is reached. It changes nothing in
  /// the world, but is `mutating` so as not to copy it for the call (see ``peek()``).
  mutating func waitingDependents(of op: OpID, into buffer: inout [OpID]) {
    buffer.removeAll(keepingCapacity: true)
    edges.appendOperations(from: readiness[op.slot].dependents, to: &buffer)
    if readiness[op.slot].firstDependent >= 0 { buffer.append(OpID(Int(readiness[op.slot].firstDependent))) }
    buffer.reverse()
    var waiting = 0
    for i in buffer.indices where readiness[buffer[i].slot].phase != .finished {
      buffer[waiting] = buffer[i]
      waiting += 1
      if readiness[buffer[i].slot].unfinishedCount == 1 { operations.prefetch(buffer[i].slot) }
    }
    buffer.removeSubrange(waiting...)
  }

  /// Asks for what the finish of an operation starting now will read at random, in two
  /// steps a start apart (see ``Swift/Array/prefetch(_:)``): now, its oldest dependent's
  /// readiness and its first pooled link; at the next start, with those in cache, the
  /// record of that dependent if this finish will make it ready, and the readiness of the
  /// dependent the link names (``waitingDependents(of:into:)`` reads them). A hint only:
  /// nothing here changes the world's behaviour.
  mutating func prepareRelease(startingNow op: OpID) {
    readiness.prefetch(Int(readiness[op.slot].firstDependent))
    edges.prefetchLink(readiness[op.slot].dependents)
    let earlier = startedBefore
    startedBefore = op
    guard earlier.slot >= 0, earlier.slot < readiness.count else { return }
    let first = Int(readiness[earlier.slot].firstDependent)
    if first >= 0, first < readiness.count, readiness[first].unfinishedCount == 1 { operations.prefetch(first) }
    if let second = edges.operationReadingAhead(at: readiness[earlier.slot].dependents) { readiness.prefetch(second.slot) }
  }

  /// `isReady`: no unfinished dependency is counted against the operation (or, cancelled
  /// before it started, it ignores them). Like the real flag, this is independent of the
  /// phase: a finished operation is ready.
  public func isReady(_ op: OpID) -> Bool { readiness[op.slot].isReady }
  /// Unfinished dependencies still counted against `isReady`.
  func unfinishedCount(of op: OpID) -> Int { Int(readiness[op.slot].unfinishedCount) }
  /// Looks an operation up by name. Inlined where it is called, so a caller that holds the
  /// world in a class or behind an accessor (the shell) reads the index and the records,
  /// where a call copied the whole `World` value, retaining each array it holds (#34).
  @inlinable public func operationID(named name: String) -> OpID? { opNames.find(name, in: operations) }
  /// Looks a queue up by name (inlined, as ``operationID(named:)`` is).
  @inlinable public func queueID(named name: String) -> QueueID? { queueNames[name] }
  /// Every operation's identifier, in creation order.
  public var operationIDs: [OpID] { operations.indices.map { OpID($0) } }
  /// Every queue's identifier, in creation order.
  public var queueIDs: [QueueID] { queues.indices.map { QueueID($0) } }
  /// Operation names in creation order (for completion and "did you mean").
  public var operationNames: [String] { operations.map(\.spec.name) }
  /// Queue names in creation order.
  public var allQueueNames: [String] { Array(queueNames.keys) }

  /// The operations added to a queue and not yet finished, in insertion order
  /// (like `OperationQueue.operations`, but including the queue's barriers).
  /// - Complexity: O(operations ever added to the queue).
  public func unfinishedMembers(of q: QueueID) -> [OpID] {
    queues[q.slot].members.filter { !operations[$0.slot].isFinished }
  }

  /// Every operation filed under the queue it was added to, each list in creation order,
  /// indexed by queue; and those in no queue. One pass, for views that list by queue.
  public func operationsByQueue() -> (queued: [[OpID]], inNoQueue: [OpID]) {
    var queued = [[OpID]](repeating: [], count: queues.count)
    var none: [OpID] = []
    for i in operations.indices {
      if let q = operations[i].queue { queued[q.slot].append(OpID(i)) } else { none.append(OpID(i)) }
    }
    return (queued, none)
  }

  /// `operationCount`: unfinished operations in the queue, barriers excluded (rule 37).
  public func operationCount(of q: QueueID) -> Int {
    unfinishedMembers(of: q).count { !operations[$0.slot].isBarrier && operations[$0.slot].mainThreadWork == nil }
  }

  /// Whether nothing is left to happen: every enqueued operation finished and no completion block running.
  public var isIdle: Bool { nothingScheduled && queues.allSatisfy { $0.members.count == $0.finishedMembers } }

  /// Whether nothing is scheduled to happen: no wake-up, and no frames with an end
  /// (frames without one come only while other work remains).
  var nothingScheduled: Bool { agenda.isEmpty && cpu.deferredWakeup == nil && frames?.until == nil }

  /// The next tick at which something is scheduled to happen, if any.
  public var nextEventTick: Tick? {
    guard let deferred = deferredWakeupTick() else { return agenda.min?.tick }
    return Swift.min(agenda.min?.tick ?? deferred, deferred)
  }

  /// Makes room for `operations` more operations and `dependencies` more dependency
  /// edges, so a world built in bulk (a long script, a benchmark's DAG) grows its arrays
  /// once instead of doubling them, like `Array.reserveCapacity`. Nothing else changes.
  /// Requests beyond what an ``OpID`` can number are cut to that.
  public mutating func reserveCapacity(operations more: Int, dependencies edgesMore: Int = 0) {
    defer { checkInvariants() }
    let limit = Int(Int32.max)
    let total = self.operations.count + Swift.min(Swift.max(0, more), limit - self.operations.count)
    let links = edges.links.count + 2 * Swift.min(Swift.max(0, edgesMore), limit / 2)
    self.operations.reserveCapacity(total)
    readiness.reserveCapacity(total)
    opNames.reserveCapacity(total, in: self.operations)
    edges.links.reserveCapacity(links)
  }

  // MARK: - Recording

  @discardableResult
  mutating func record(
    _ kind: EventKind, op: OpID? = nil, queue: QueueID? = nil,
    from: OpPhase? = nil, to: OpPhase? = nil, reason: Reason
  ) -> Int {
    trace.append(tick: now, kind: kind, op: op, queue: queue, from: from, to: to, reason: reason)
    return trace.count - 1
  }

  /// Records what a step did, stamped with the tick the step took: it runs at the wake-up
  /// as that tick ends (``now``), and is stamped `now - 1`, the column the timeline draws
  /// it in. The trace stays in tick order because the steps ending at a tick run before
  /// anything else at it (see ``Wakeup/band(of:)``).
  @discardableResult
  mutating func recordStep(
    _ kind: EventKind, op: OpID, queue: QueueID?, reason: Reason
  ) -> Int {
    trace.append(tick: now - 1, kind: kind, op: op, queue: queue, from: nil, to: nil, reason: reason)
    return trace.count - 1
  }

  /// Moves an operation to a phase, in its record and in ``readiness``.
  mutating func setPhase(_ op: OpID, _ phase: OpPhase) {
    operations[op.slot].phase = phase
    readiness[op.slot].phase = phase
  }

  /// `now + ticks`, saturating at `Tick.max` rather than overflowing.
  func later(_ ticks: Tick) -> Tick {
    let (t, overflow) = now.addingReportingOverflow(ticks)
    return overflow ? Tick.max : t
  }

  /// Files a wake-up in the agenda, after every one of its band (``Wakeup/band(of:)``)
  /// scheduled before it for the same tick.
  mutating func schedule(_ action: Wakeup.Action, at tick: Tick) {
    agenda.insert(Wakeup(tick: tick, sequence: Wakeup.band(of: action) + nextWakeupSequence, action: action))
    nextWakeupSequence += 1
  }
}
