import HeapModule

/// The queue's pick (`_schedule()`) and its ready heaps; starting and finishing are in
/// `World+Lifecycle.swift`.
extension World {
  /// `_schedule()` (rule 20): while the queue is not suspended and has free slots,
  /// start the best ready operation — highest level first, FIFO inside a level.
  /// Not-ready operations are never in the ready heap, so they keep their place.
  /// While a barrier block runs, what the queue picks is dispatched and held behind it
  /// (rule 40): it takes its slot now, picked by priority now, and starts when the block returns.
  mutating func pick(on q: QueueID, trigger: StartTrigger) {
    if queues[q.slot].isMain { dispatchToMainThread() }
    while !queues[q.slot].isSuspended, queues[q.slot].executingCount < queues[q.slot].effectiveMax,
      let op = popReady(q)
    {
      let beat = peekReady(q)
      if let barrier = queues[q.slot].dispatchBarrier, !operations[barrier.slot].isFinished {
        dispatchBehindBarrier(op, on: q, reason: .picked(trigger, beat: beat))
      } else {
        dispatchOrStart(op, on: q, reason: .picked(trigger, beat: beat))
      }
    }
  }

  /// The queue hands the operation to its backing dispatch queue, where it waits behind a
  /// running barrier block (rules 32 and 40). It holds its slot; suspension no longer stops it,
  /// and a cancel is seen only when it starts.
  mutating func dispatchBehindBarrier(_ op: OpID, on q: QueueID, reason: Reason) {
    queues[q.slot].executingCount += 1
    operations[op.slot].holdsSlot = true
    operations[op.slot].dispatched = true
    queues[q.slot].heldBehindBarrier.append(op)
    record(.dispatched, op: op, queue: q, reason: reason)
  }

  /// The main thread as a run loop (rule 42): OperationQueue.main picks its best ready
  /// operation (priority, then FIFO) when its one operation slot is free, and dispatches it
  /// to the main thread, where it takes its turn after the taps, frames and work that became
  /// runnable there before it: its place in the main thread's line is taken now, not when
  /// it was enqueued.
  mutating func dispatchToMainThread() {
    let m = QueueID.main.slot
    guard queues[m].dispatchedOperation == nil else { return }
    while let e = queues[m].operationsHeap.popMax() {
      guard isCurrent(e, in: .main) else { continue }  // made unready, re-filed or started since
      queues[m].dispatchedOperation = e.op
      mainThreadDispatches[e.op] = now
      operations[e.op.slot].place = takePlace()
      queues[m].readyHeap.insert(ReadyEntry(level: QueuePriority.normal.rawValue, place: operations[e.op.slot].place, op: e.op))
      return
    }
  }

  /// Whether OperationQueue.main has dispatched the operation to the main thread, where it
  /// waits for its turn: past its queue's pick, like one held behind a barrier block.
  func isDispatchedToMainThread(_ op: OpID) -> Bool {
    queues[QueueID.main.slot].dispatchedOperation == op && operations[op.slot].phase == .ready
  }

  /// Whether a ready-heap entry still stands for an operation waiting to start (not a stale one).
  func isReadyToStart(_ e: ReadyEntry, on q: QueueID) -> Bool { isCurrent(e, in: q) }

  private func isCurrent(_ e: ReadyEntry, in q: QueueID) -> Bool {
    // Field by field: copying the whole record would retain its name, spec and edges.
    // An operation OperationQueue.main dispatched waits in the main thread's line at the
    // level of taps and frames, whatever its priority (see ``dispatchToMainThread()``).
    let level = q == .main && queues[q.slot].dispatchedOperation == e.op ? QueuePriority.normal.rawValue : operations[e.op.slot].level
    return operations[e.op.slot].phase == .ready && !operations[e.op.slot].dispatched && operations[e.op.slot].queue == q
      && level == e.level && operations[e.op.slot].place == e.place
  }

  /// Counts an entry of `q`'s ready heap that may have gone stale (see
  /// ``QueueRecord/possiblyStaleReadyEntries``): every place that makes one must call this.
  mutating func notePossiblyStaleReadyEntry(on q: QueueID) {
    queues[q.slot].possiblyStaleReadyEntries += 1
  }

  /// Notes that a dropped frame's entry of `q`'s ready heap went stale, and rebuilds the
  /// heap without its stale entries once they are most of it. Amortised O(1) per call; it
  /// keeps scans of the heap (``onlyFramesGoOn()``) proportional to the operations really
  /// waiting.
  mutating func noteStaleReadyEntry(on q: QueueID) {
    notePossiblyStaleReadyEntry(on: q)
    queues[q.slot].staleReadyEntries += 1
    let stale = queues[q.slot].staleReadyEntries
    guard stale >= 32, stale * 2 >= queues[q.slot].readyHeap.count else { return }
    // Current entries only; an operation made ready twice keeps both of its (alike)
    // entries, as it always has, and the second is what may still be stale.
    var seen = Set<OpID>()
    var twins = 0
    queues[q.slot].readyHeap = ReadyQueue(
      queues[q.slot].readyHeap.unordered.filter {
        guard isCurrent($0, in: q) else { return false }
        if !seen.insert($0.op).inserted { twins += 1 }
        return true
      })
    queues[q.slot].staleReadyEntries = 0
    queues[q.slot].possiblyStaleReadyEntries = twins
  }

  /// The stale entries of `q`'s ready heap, by the records: those not current, and the
  /// second of two alike. For the invariants.
  func staleReadyEntryCount(in q: QueueID) -> Int {
    var seen = Set<OpID>()
    return queues[q.slot].readyHeap.unordered.count { !isCurrent($0, in: q) || !seen.insert($0.op).inserted }
  }

  mutating func popReady(_ q: QueueID) -> OpID? {
    while let e = queues[q.slot].readyHeap.popMax() {
      // With nothing counted stale, the entry is current: its record is not read here
      // (peekReady asked for it already, and start reads it).
      if queues[q.slot].possiblyStaleReadyEntries == 0 || isCurrent(e, in: q) { return e.op }
      queues[q.slot].possiblyStaleReadyEntries -= 1
    }
    return nil
  }

  mutating func peekReady(_ q: QueueID) -> OpID? {
    while let e = queues[q.slot].readyHeap.max {
      if queues[q.slot].possiblyStaleReadyEntries == 0 || isCurrent(e, in: q) {
        // The next to start, unless a better one comes: its record is read when it starts,
        // a slot's release from now, and is asked for now (see Array.prefetch).
        operations.prefetch(e.op.slot)
        return e.op
      }
      _ = queues[q.slot].readyHeap.popMax()
      queues[q.slot].possiblyStaleReadyEntries -= 1
    }
    return nil
  }
}
