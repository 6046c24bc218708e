/// The learner's actions on queues, and the platform setting. Each happens at
/// ``World/now`` and settles everything it triggers at the same tick before returning.
/// (Actions on operations are in `World+OperationActions.swift`; the clock's in
/// `World+Clock.swift`.)
extension World {
  /// Creates an `OperationQueue`.
  /// - Parameters:
  ///   - name: a unique identifier.
  ///   - maxConcurrent: `maxConcurrentOperationCount`; `nil` for the default (no limit).
  ///   - qualityOfService: the queue's `qualityOfService`, or `nil` for its default.
  /// - Returns: the new queue.
  /// - Throws: a ``SimulationError`` for a bad or taken name, or a negative limit.
  @discardableResult
  public mutating func createQueue(
    name: String, maxConcurrent: Int? = nil, qualityOfService: QualityOfService? = nil
  ) throws(SimulationError) -> QueueID {
    defer { checkInvariants() }
    try checkNewName(name)
    if let n = maxConcurrent, n < 0 { throw .invalidMaxConcurrent(n) }
    let id = QueueID(queues.count)
    queues.append(QueueRecord(name: name, maxConcurrent: maxConcurrent, qualityOfService: qualityOfService, isMain: false))
    queueNames[name] = id
    queueNameHashes.append(NameIndex.hash(name))
    record(.queueCreated(maxConcurrent: maxConcurrent), queue: id, reason: .command)
    return id
  }

  /// Sets `maxConcurrentOperationCount`. Lowering never stops running operations;
  /// raising starts waiting ones at once (rule 28). `0` runs nothing. The main queue
  /// ignores it: it is always serial (rule 26).
  /// - Parameter max: the new limit, or `nil` for the default (−1, no limit).
  /// - Throws: for a limit below 0 (the real setter checks it first, on every queue).
  public mutating func setMaxConcurrent(_ q: QueueID, to max: Int?) throws(SimulationError) {
    defer { checkInvariants() }
    if let n = max, n < 0 { throw .invalidMaxConcurrent(n) }
    if mainQueueIgnores(.maxConcurrent(max), on: q) { return }
    queues[q.slot].maxConcurrent = max
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    record(.maxChanged(max), queue: q, reason: .command)
    pick(on: q, trigger: .maxRaised)
    settle()
  }

  /// `isSuspended = true`: stops new starts only; running operations finish (rule 31).
  /// The main queue ignores it (``mainQueueIgnores(_:on:)``).
  /// - Throws: nothing at present; kept throwing like the other queue settings.
  public mutating func suspend(_ q: QueueID) throws(SimulationError) {
    defer { checkInvariants() }
    if mainQueueIgnores(.suspend, on: q) { return }
    queues[q.slot].isSuspended = true
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    record(.suspended, queue: q, reason: .command)
  }

  /// `isSuspended = false`: the queue picks at once. The main queue ignores it.
  /// - Throws: nothing at present; kept throwing like the other queue settings.
  public mutating func resume(_ q: QueueID) throws(SimulationError) {
    defer { checkInvariants() }
    if mainQueueIgnores(.resume, on: q) { return }
    queues[q.slot].isSuspended = false
    record(.resumed, queue: q, reason: .command)
    pick(on: q, trigger: .resumed)
    settle()
  }

  /// Sets the queue's `qualityOfService`. The main queue's stays `userInteractive` (rule 41).
  public mutating func setQualityOfService(_ q: QueueID, to qos: QualityOfService) {
    defer { checkInvariants() }
    if mainQueueIgnores(.qualityOfService(qos), on: q) { return }
    queues[q.slot].qualityOfService = qos
    record(.qualityOfServiceChanged(qos), queue: q, reason: .command)
  }

  /// `addBarrierBlock`: an internal operation at the top priority that depends on
  /// everything unfinished in the queue; operations added while it waits depend on it
  /// (rule 40). On Linux a barrier on an empty queue bypasses suspension and the
  /// limit (rule 32).
  /// - Parameter duration: ticks the barrier block takes.
  /// - Returns: the barrier operation.
  @discardableResult
  public mutating func addBarrier(to q: QueueID, duration: Tick = 1) throws(SimulationError) -> OpID {
    defer { checkInvariants() }
    if duration < 0 || duration > OperationSpec.maxDuration { throw .invalidDuration(duration) }
    queues[q.slot].barrierCount += 1
    var name = "\(queues[q.slot].name).barrier\(queues[q.slot].barrierCount)"
    while operationID(named: name) != nil { name += "'" }
    let id = newOperation(OperationSpec(name: name, duration: duration), reason: .barrier)
    operations[id.slot].isBarrier = true
    record(.barrierAdded, op: id, queue: q, reason: .barrier)
    let waitFor = unfinishedMembers(of: q)
    if waitFor.isEmpty, platform == .linux {
      // Submitted straight to the backing dispatch queue as a dispatch barrier: it runs at
      // once, outside the slots, and operations the queue dispatches meanwhile wait behind it.
      operations[id.slot].queue = q
      operations[id.slot].enqueuedAt = now
      setPhase(id, .ready)
      record(.enqueued, op: id, queue: q, from: .created, to: .pending, reason: .emptyQueueBarrier)
      record(.ready, op: id, queue: q, from: .pending, to: .ready, reason: .noUnfinishedDependencies)
      // With an underlying queue it goes to the backing queue all the same (`addBarrierBlock`
      // calls `_synthesizeBackingQueue()`): what the queue dispatches is not held behind it.
      if queues[q.slot].underlyingQueue == nil { queues[q.slot].dispatchBarrier = id }
      start(id, reason: .emptyQueueBarrier, holdsSlot: false)
    } else {
      for member in waitFor { link(id, on: member, reason: .barrier) }
      file(id, on: q, reason: .barrier)
      queues[q.slot].openBarrier = id
      pick(on: q, trigger: .enqueued)
    }
    settle()
    return id
  }

  // MARK: Platform

  /// Switches the platform mode. Decisions taken from now on follow it.
  public mutating func setPlatform(_ newPlatform: Platform) {
    defer { checkInvariants() }
    platform = newPlatform
    record(.platformChanged(newPlatform), reason: .command)
  }

  // MARK: - Helpers

  /// Whether the main queue ignores `request` on the current platform; when it does, the
  /// request is recorded as ignored, with the reason, and nothing else changes.
  ///
  /// Linux: corelibs wraps `cancelAllOperations()` and the setters of `isSuspended`,
  /// `maxConcurrentOperationCount` and `qualityOfService` in `if !__mainQ`, so all four do
  /// nothing there. Apple: the main queue is documented to run one operation at a time and to
  /// keep the quality of service `userInteractive` ("cannot be changed");
  /// `cancelAllOperations()` is documented with no exception, so it cancels. What suspending
  /// the main queue does is not documented: the lab ignores it as corelibs does.
  mutating func mainQueueIgnores(_ request: MainQueueRequest, on q: QueueID) -> Bool {
    guard queues[q.slot].isMain else { return false }
    if platform == .apple, request == .cancelAll { return false }
    record(.ignoredOnMainQueue(request), queue: q, reason: .ignoredOnMainQueue(platform))
    return true
  }
}
