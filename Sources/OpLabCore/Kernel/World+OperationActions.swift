/// The learner's actions on operations. Each happens at ``World/now`` and settles
/// everything it triggers at the same tick before returning.
extension World {
  /// Defines an operation without adding it to a queue (`hold`).
  /// - Parameters:
  ///   - spec: what the operation does.
  ///   - dependencies: operations it depends on, added in order.
  /// - Returns: the new operation.
  /// - Throws: a ``SimulationError`` for a bad spec or a taken name.
  @discardableResult
  public mutating func createOperation(
    _ spec: OperationSpec, dependencies: [OpID] = []
  ) throws(SimulationError) -> OpID {
    defer { checkInvariants() }
    // The name is hashed once, for the check and for filing it. The cache lines this add
    // will read at random (the name's place in the index, each dependency's readiness) are
    // asked for first, so that at a million operations their loads overlap the checks.
    let hash = NameIndex.hash(spec.name)
    opNames.prefetch(hash: hash)
    for dep in dependencies { readiness.prefetch(dep.slot) }
    try checkNewName(spec.name, hash: hash)
    try spec.validate()
    if case .steps(let steps) = spec.kind { try checkSteps(steps) }
    if let bad = dependencies.first(where: { $0.slot < 0 || $0.slot >= operations.count }) {
      throw .unknownOperation("\(bad)")
    }
    let id = newOperation(spec, nameHash: hash, reason: .command)
    if case .steps(let steps) = spec.kind { countCompute(steps) }
    // A new operation has no dependents, so no cycle can close; duplicates are ignored
    // (as addDependency does): by looking back over a short list, with a set for a long
    // one, so a wide fan-in stays linear and a narrow one allocates nothing.
    if dependencies.count <= 16 {
      for (i, dep) in dependencies.enumerated() where !dependencies[..<i].contains(dep) { link(id, on: dep, reason: .command) }
    } else {
      var seen = Set<OpID>()
      for dep in dependencies where seen.insert(dep).inserted { link(id, on: dep, reason: .command) }
    }
    return id
  }

  /// Defines an operation and adds it to a queue: `queue.addOperation(op)`.
  /// - Throws: as ``createOperation(_:dependencies:)``.
  @discardableResult
  public mutating func addOperation(
    _ spec: OperationSpec, to q: QueueID, dependencies: [OpID] = []
  ) throws(SimulationError) -> OpID {
    let id = try createOperation(spec, dependencies: dependencies)
    try enqueue(id, on: q)
    return id
  }

  /// `queue.addOperation(op)`: the queue files it under its priority level and picks at once (rule 21).
  /// - Throws: ``SimulationError/cannotEnqueue(operation:phase:platform:)`` unless the
  ///   operation is new (rule 39).
  public mutating func enqueue(_ op: OpID, on q: QueueID) throws(SimulationError) {
    defer { checkInvariants() }
    guard operations[op.slot].phase == .created else {
      throw .cannotEnqueue(operation: operations[op.slot].name, phase: operations[op.slot].phase, platform: platform)
    }
    if !addCalls.isEmpty, let adding = pendingAdd(of: op) {
      throw .cannotEnqueueWhileAdding(operation: operations[op.slot].name, queue: queues[adding.slot].name)
    }
    file(op, on: q, reason: .command)
    pick(on: q, trigger: .enqueued)
    settle()
  }

  /// `cancel()`. Cooperative: an executing operation stops only if its code checks
  /// (rule 12); one that has not started becomes ready at once, its dependencies
  /// ignored, and is skipped when started (rule 13).
  public mutating func cancel(_ op: OpID) {
    defer { checkInvariants() }
    cancel(op, because: .command)
    settle()
  }

  /// `cancelAllOperations()`: cancels the queue's unfinished operations (barriers included)
  /// one at a time, in insertion order. Not atomic: each cancel's consequences happen before
  /// the next one (rule 33), so a dependent can start during the loop. On Linux the main
  /// queue ignores it (``mainQueueIgnores(_:on:)``).
  public mutating func cancelAll(_ q: QueueID) {
    defer { checkInvariants() }
    if mainQueueIgnores(.cancelAll, on: q) { return }
    for op in unfinishedMembers(of: q) where operations[op.slot].mainThreadWork == nil {
      cancel(op, because: .cancelAll(q))
      settle()
    }
  }

  /// Sets `queuePriority`. A waiting operation moves to the tail of its new level (rule 23);
  /// setting the level it already has changes nothing. On Linux, corelibs works out the old
  /// level from the QoS (rule 24's last bullet): when that guess is the new level nothing
  /// happens, and when it is not where the operation is filed, the operation stays put.
  public mutating func setPriority(_ op: OpID, to priority: QueuePriority) {
    defer { checkInvariants() }
    let r = operations[op.slot]
    let waiting = r.phase == .pending || r.phase == .ready
    record(.priorityChanged(priority), op: op, reason: waiting || r.phase == .created ? .command : .alreadyStarted)
    guard waiting, !r.isBarrier, !r.dispatched, !isDispatchedToMainThread(op), let q = r.queue else {
      operations[op.slot].spec.priority = priority
      return
    }
    switch platform {
    case .apple:
      operations[op.slot].spec.priority = priority
      guard r.level != priority.rawValue else { return }
    case .linux:
      let assumed =
        r.spec.priority?.rawValue
        ?? (queues[q.slot].effectiveMax != 0 ? r.spec.qualityOfService?.mappedPriority.rawValue : nil)
        ?? QueuePriority.normal.rawValue
      guard assumed != priority.rawValue else { return }
      operations[op.slot].spec.priority = priority
      guard assumed == r.level else { return }  // not found in the list it searched: left in place
    }
    operations[op.slot].level = priority.rawValue
    operations[op.slot].place = takePlace()
    if r.phase == .ready {
      notePossiblyStaleReadyEntry(on: q)  // the entry under the old level and place
      pushReady(op, on: q)
    }
  }

  /// Sets the operation's `qualityOfService`. It decides nothing about order on Darwin;
  /// on Linux it files an operation with no explicit priority when it is enqueued (rule 24).
  public mutating func setQualityOfService(_ op: OpID, to qos: QualityOfService) {
    defer { checkInvariants() }
    operations[op.slot].spec.qualityOfService = qos
    let started = operations[op.slot].phase == .executing || operations[op.slot].phase == .finished
    record(.qualityOfServiceChanged(qos), op: op, reason: started ? .alreadyStarted : .command)
  }

  /// `op.addDependency(dep)`. Works across queues and before or after enqueueing.
  /// A dependency on a finished operation is listed but does not block (rule 5).
  /// Closing a cycle is allowed, as in the real API, and recorded as a warning.
  /// - Returns: `false` when the dependency already existed (the real API ignores duplicates).
  @discardableResult
  public mutating func addDependency(_ op: OpID, on dep: OpID) throws(SimulationError) -> Bool {
    defer { checkInvariants() }
    if edges.first(in: operations[op.slot].dependencyList, where: { $0 == dep }) != nil { return false }
    // A cycle holds only operations that wait for their dependencies: not one that has
    // started, finished, or was cancelled before starting (it ignores them, rule 13).
    let mayCloseCycle =
      waitsForDependencies(op.slot) && waitsForDependencies(dep.slot)
      && (op == dep || hasDependents(op))
    let started = operations[op.slot].phase == .executing || operations[op.slot].isFinished || operations[op.slot].dispatched
    link(op, on: dep, reason: started ? .alreadyStarted : .command)
    if mayCloseCycle, dependsTransitively(dep, on: op) {
      record(.cycleClosed(dep), op: op, reason: .command)
    }
    return true
  }

  /// `op.removeDependency(dep)`. On Darwin a pending operation whose last unfinished
  /// dependency is removed becomes ready. On Linux (corelibs) the count is decremented only
  /// when the removed dependency is finished and the operation cancelled (rule 9): an
  /// unfinished one strands the operation until it is cancelled; a finished one, removed
  /// from an operation cancelled before it started, takes the count that `cancel()` zeroed
  /// to −1, so the operation is not ready until it is cancelled again.
  /// - Throws: ``SimulationError/notADependency(operation:dependency:)``.
  public mutating func removeDependency(_ op: OpID, on dep: OpID) throws(SimulationError) {
    defer { checkInvariants() }
    guard edges.remove(dep, from: &operations[op.slot].dependencyList) else {
      throw .notADependency(operation: operations[op.slot].name, dependency: operations[dep.slot].name)
    }
    removeDependent(op, from: dep)
    let r = operations[op.slot]
    let waitsToStart =
      (r.phase == .created || r.phase == .pending || r.phase == .ready) && !r.dispatched
      && !isDispatchedToMainThread(op)
    if operations[dep.slot].isFinished {
      guard platform == .linux, r.isCancelled, waitsToStart else {
        record(.dependencyRemoved(dep), op: op, reason: .command)
        return
      }
      readiness[op.slot].countBelowZero = true
      record(.dependencyRemoved(dep), op: op, queue: r.queue, reason: .unfinishedCountBelowZero)
      if r.phase == .ready, let q = r.queue {
        setPhase(op, .pending)
        record(.unready, op: op, queue: q, from: .ready, to: .pending, reason: .unfinishedCountBelowZero)
        notePossiblyStaleReadyEntry(on: q)
      }
      return
    }
    record(.dependencyRemoved(dep), op: op, reason: .command)
    guard platform == .apple else {
      operations[op.slot].stranded = true
      return
    }
    readiness[op.slot].unfinishedCount -= 1
    becomeReadyIfPossible(op, reason: .dependencyRemoved(dep))
    settle()
  }

  // MARK: - Helpers

  /// `cancel()` for a reason (the learner's command, or a `cancelAll` on the queue),
  /// without settling: ``cancel(_:)`` and ``cancelAll(_:)`` settle after it.
  mutating func cancel(_ op: OpID, because cause: Reason) {
    let r = operations[op.slot]
    if r.isFinished {
      record(.cancelRequested, op: op, queue: r.queue, reason: .alreadyFinished)
      return
    }
    if r.isCancelled {
      // Linux: cancel() sets the unfinished count to 0 again, whatever it was (rule 9).
      if readiness[op.slot].countBelowZero, r.phase != .executing {
        readiness[op.slot].countBelowZero = false
        record(.cancelRequested, op: op, queue: r.queue, reason: .cancelledAgain)
        becomeReadyIfPossible(op, reason: .cancelledAgain)
        return
      }
      record(.cancelRequested, op: op, queue: r.queue, reason: .alreadyCancelled)
      return
    }
    operations[op.slot].isCancelled = true
    operations[op.slot].cancelledAt = now
    record(.cancelRequested, op: op, queue: r.queue, reason: cause)
    switch r.phase {
    case .created:
      readiness[op.slot].ignoresDependencies = true
      if platform == .apple { finish(op, outcome: .cancelled, reason: .cancelledOutsideQueue) }
    case .pending, .ready:
      readiness[op.slot].ignoresDependencies = true
      if r.phase == .pending {
        becomeReadyIfPossible(op, reason: .cancelledWhilePending)
      } else if let q = r.queue {
        pick(on: q, trigger: .cancelled)
      }
    case .executing:
      scheduleCancellationCheck(op)
    case .finished:
      break
    }
  }

  /// Schedules the moment an executing operation's code next checks `isCancelled`, if it ever does.
  mutating func scheduleCancellationCheck(_ op: OpID) {
    let r = operations[op.slot]
    guard let started = r.startedAt, !r.jammed else { return }
    if case .blocks = r.spec.kind { return }  // rule 17: the blocks never check
    if scheduleCancellationCheckOnCPU(op) { return }
    let elapsed = now - started
    let end = r.spec.workLength(on: platform)
    let next: Tick
    switch r.spec.cancellation {
    case .never: return
    case .atStart:
      guard elapsed == 0 else { return }
      next = 0
    case .every(let k):
      next = (elapsed + k - 1) / k * k
    }
    guard next < end else { return }
    schedule(.cancelCheck(op, generation: r.generation), at: started.addingReportingOverflow(next).overflow ? Tick.max : started + next)
  }
}
