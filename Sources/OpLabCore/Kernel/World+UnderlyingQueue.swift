/// `OperationQueue.underlyingQueue`: dispatch queues as things of the world, and what a
/// queue's operations do on one.
///
/// From corelibs' `Operation.swift` (checked by the differential tests): the setter crashes
/// unless the queue's `operationCount` is 0 (Darwin documents NSInvalidArgumentException)
/// and does nothing on the main queue; `_schedule()` still hands out slots by
/// `maxConcurrentOperationCount` and submits each operation it dispatches to `__dispatch_queue
/// ?? backing queue`. So on a serial dispatch queue an operation can hold a slot and wait,
/// not executing, until the item before it returns; the queue's count still decides how
/// many are handed over, and so which one, by priority, goes next.
extension World {
  /// Makes a `DispatchQueue`: `DispatchQueue(label: name, qos: qos, attributes: .concurrent)`.
  /// - Returns: its index in ``dispatchQueues``.
  /// - Throws: for a bad or taken name.
  @discardableResult
  public mutating func createDispatchQueue(
    name: String, concurrent: Bool, qualityOfService: QualityOfService?
  ) throws(SimulationError) -> Int32 {
    defer { checkInvariants() }
    try checkNewName(name)
    let d = Int32(dispatchQueues.count)
    dispatchQueues.append(DispatchQueueRecord(name: name, isConcurrent: concurrent, qualityOfService: qualityOfService))
    record(.dispatchQueueCreated(d), reason: .command)
    return d
  }

  /// The dispatch queue with this name, if any.
  public func dispatchQueueIndex(named name: String) -> Int32? {
    dispatchQueues.firstIndex { $0.name == name }.map { Int32($0) }
  }

  /// A dispatch queue's name.
  public func dispatchQueueName(_ d: Int32) -> String {
    d >= 0 && Int(d) < dispatchQueues.count ? dispatchQueues[Int(d)].name : "?"
  }

  /// Sets `underlyingQueue`: from now on the queue submits what it dispatches to dispatch
  /// queue `d` (`nil`: its own backing queue again). The main queue ignores it (corelibs
  /// wraps the setter in `if !__mainQ`; Darwin documents it cannot be set).
  /// - Throws: ``SimulationError/underlyingQueueNotEmpty(queue:operationCount:platform:)``
  ///   while the queue has operations (`operationCount` > 0), as the real setter refuses.
  public mutating func setUnderlyingQueue(_ q: QueueID, to d: Int32?) throws(SimulationError) {
    defer { checkInvariants() }
    if let d, d < 0 || Int(d) >= dispatchQueues.count { throw .unknownQueue("dispatch queue #\(d)") }
    if mainQueueIgnores(.underlyingQueue(d), on: q) { return }
    let count = operationCount(of: q)
    if count > 0 { throw .underlyingQueueNotEmpty(queue: queues[q.slot].name, operationCount: count, platform: platform) }
    queues[q.slot].underlyingQueue = d
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    record(.underlyingQueueSet(d), queue: q, reason: .command)
  }

  /// The serial dispatch queue the queue's operations run on, if it has one.
  func serialUnderlyingQueue(of q: QueueID) -> Int32? {
    guard let d = queues[q.slot].underlyingQueue, !dispatchQueues[Int(d)].isConcurrent else { return nil }
    return d
  }

  /// Whether a barrier block of the queue is a dispatch barrier that holds what the queue
  /// dispatches while it runs (rule 40): not on a serial dispatch queue, whose order of
  /// items already holds them, one at a time.
  func barrierHoldsDispatches(on q: QueueID) -> Bool { serialUnderlyingQueue(of: q) == nil }

  /// The queue dispatched `op` (it holds its slot): on a serial underlying queue busy with
  /// another item it waits there, in order; else it starts now.
  mutating func dispatchOrStart(_ op: OpID, on q: QueueID, reason: Reason) {
    guard let d = serialUnderlyingQueue(of: q), let busy = dispatchQueues[Int(d)].running else {
      start(op, reason: reason, holdsSlot: true)
      return
    }
    queues[q.slot].executingCount += 1
    operations[op.slot].holdsSlot = true
    operations[op.slot].dispatched = true
    dispatchQueues[Int(d)].waiting.append(op)
    record(.dispatched, op: op, queue: q, reason: .dispatchQueueBusy(d, running: busy))
  }

  /// An operation starting on a serial underlying queue becomes its running item.
  mutating func occupyDispatchQueue(with op: OpID) {
    guard operations[op.slot].holdsSlot, let q = operations[op.slot].queue, let d = serialUnderlyingQueue(of: q) else { return }
    dispatchQueues[Int(d)].running = op
  }

  /// `op`'s work item returned (its `start()` returned: at its finish, or at once for an
  /// asynchronous operation): its serial dispatch queue starts the next item waiting there.
  mutating func workItemReturned(_ op: OpID) {
    guard !dispatchQueues.isEmpty, let i = dispatchQueues.firstIndex(where: { $0.running == op }) else { return }
    dispatchQueues[i].running = nil
    guard !dispatchQueues[i].waiting.isEmpty else { return }
    let next = dispatchQueues[i].waiting.removeFirst()
    start(next, reason: .dispatchQueueFreed(Int32(i), after: op), holdsSlot: true)
  }

  /// The dispatch queue an operation waits on, dispatched there behind another item.
  public func dispatchQueueHolding(_ op: OpID) -> Int32? {
    guard operations[op.slot].dispatched, !dispatchQueues.isEmpty else { return nil }
    return dispatchQueues.firstIndex { $0.waiting.contains(op) }.map { Int32($0) }
  }
}
