/// Filing: creating operations' records, linking dependencies, putting operations into
/// queues and making them ready. The kernel's part of the actions, without settling.
extension World {
  /// Creates an operation's record, its readiness and its name's place in the index, and
  /// records its creation.
  /// - Parameter nameHash: the name's ``NameIndex/hash(_:)``, when the caller has it already.
  mutating func newOperation(_ spec: OperationSpec, nameHash: Int? = nil, reason: Reason) -> OpID {
    let id = OpID(operations.count)
    operations.append(OperationRecord(spec: spec))
    readiness.append(Readiness())
    opNames.insert(id, named: spec.name, hash: nameHash ?? NameIndex.hash(spec.name), in: operations)
    record(.created, op: id, to: .created, reason: reason)
    return id
  }

  /// The next place in FIFO order. Four billion filings (each recorded in the trace, so
  /// tens of gigabytes of it) would wrap it; the counter is kept small because every
  /// record and every ready-heap entry carries a place.
  mutating func takePlace() -> UInt32 {
    nextPlace &+= 1
    return nextPlace
  }

  /// Adds the edge op → dep and counts it when it blocks.
  mutating func link(_ op: OpID, on dep: OpID, reason: Reason) {
    edges.append(dep, to: &operations[op.slot].dependencyList)
    // Only `readiness` of the dependency is touched, not its (usually cold) record.
    addDependent(op, to: dep)
    record(.dependencyAdded(dep), op: op, queue: operations[op.slot].queue, reason: reason)
    // A finished dependency does not block. Any other is counted, whatever the operation's
    // state (rules 5 and 6: `isReady` is independent of it), since its finish will release
    // it: an operation already handed to the dispatch queue is past waiting, so it stays
    // where it is, but reads `isReady == false` until the dependency finishes. (Not
    // counting it here while the finish still released it took the count to −1.)
    // Stored fields, not computed ones: those were read through a copy of the whole record.
    guard readiness[dep.slot].phase != .finished else { return }
    readiness[op.slot].unfinishedCount += 1
    if readiness[op.slot].phase == .ready, !readiness[op.slot].ignoresDependencies, !operations[op.slot].dispatched,
      !isDispatchedToMainThread(op)
    {
      setPhase(op, .pending)
      record(.unready, op: op, queue: operations[op.slot].queue, from: .ready, to: .pending, reason: .dependencyAdded(dep))
      if let q = operations[op.slot].queue { notePossiblyStaleReadyEntry(on: q) }
    }
  }

  /// Puts a new operation into a queue's lists: the enqueue part of `addOperation`, without the pick.
  mutating func file(_ op: OpID, on q: QueueID, reason: Reason) {
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    operations[op.slot].queue = q
    operations[op.slot].enqueuedAt = now
    queues[q.slot].members.append(op)
    let spec = operations[op.slot].spec
    if operations[op.slot].isBarrier {
      operations[op.slot].level = 12
    } else if operations[op.slot].mainThreadWork != nil {
      // Work on the main thread — a tap, a frame, a call made there (a wait, a start()) —
      // arrives now and takes its turn after what already waits for the main thread: the
      // code that makes a call runs there only when the main thread gets to it.
      operations[op.slot].level = QueuePriority.normal.rawValue
    } else if let p = spec.priority {
      operations[op.slot].level = p.rawValue
    } else if platform == .linux, queues[q.slot].effectiveMax != 1, let qos = spec.qualityOfService {
      operations[op.slot].level = qos.mappedPriority.rawValue
    } else {
      operations[op.slot].level = QueuePriority.normal.rawValue
    }
    operations[op.slot].place = takePlace()
    setPhase(op, .pending)
    let unfinished = readiness[op.slot].ignoresDependencies ? 0 : readiness[op.slot].unfinishedCount
    record(
      .enqueued, op: op, queue: q, from: .created, to: .pending,
      reason: reason == .command && unfinished > 0 ? .waitingOnDependencies(unfinished) : reason)
    if let barrier = queues[q.slot].openBarrier, !operations[op.slot].isBarrier, operations[op.slot].mainThreadWork == nil,
      !operations[barrier.slot].isFinished
    {
      link(op, on: barrier, reason: .barrier)
    }
    becomeReadyIfPossible(op, reason: operations[op.slot].isCancelled ? .cancelledWhilePending : .noUnfinishedDependencies, pick: false)
  }

  /// Moves a pending operation to ready when nothing blocks it, and lets its queue pick.
  mutating func becomeReadyIfPossible(_ op: OpID, reason: Reason, pick shouldPick: Bool = true) {
    guard readiness[op.slot].phase == .pending, readiness[op.slot].isReady, let q = operations[op.slot].queue else { return }
    let isAsync: Bool
    if case .async = operations[op.slot].spec.kind { isAsync = true } else { isAsync = false }
    if isAsync { record(.kvoWillChange(.isReady), op: op, queue: q, reason: reason) }
    setPhase(op, .ready)
    record(.ready, op: op, queue: q, from: .pending, to: .ready, reason: reason)
    if isAsync { record(.kvoDidChange(.isReady), op: op, queue: q, reason: reason) }
    pushReady(op, on: q)
    if shouldPick {
      let trigger: StartTrigger = operations[op.slot].isCancelled ? .cancelled : .becameReady
      pick(on: q, trigger: trigger)
    }
  }

  /// Files a ready operation in its queue's ready heap, under its level and place; one on
  /// OperationQueue.main waits in the queue's own heap until the queue dispatches it.
  mutating func pushReady(_ op: OpID, on q: QueueID) {
    let entry = ReadyEntry(level: operations[op.slot].level, place: operations[op.slot].place, op: op)
    if queues[q.slot].isMain, operations[op.slot].mainThreadWork == nil {
      queues[q.slot].operationsHeap.insert(entry)  // until OperationQueue.main dispatches it (rule 42)
    } else {
      queues[q.slot].readyHeap.insert(entry)
    }
  }
}
