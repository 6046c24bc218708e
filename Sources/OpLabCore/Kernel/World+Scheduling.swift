import HeapModule

/// The queue's pick (`_schedule()`), and starting and finishing operations.
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
        start(op, reason: .picked(trigger, beat: beat), holdsSlot: true)
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
    queues[q.slot].readyHeap = ReadyQueue(queues[q.slot].readyHeap.unordered.filter {
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

  /// Asks for what the finish of an operation starting now will read at random, in two
  /// steps a start apart (see ``Swift/Array/prefetch(_:)``): now, its oldest dependent's
  /// readiness and its first pooled link; at the next start, with those in cache, the
  /// record of that dependent if this finish will make it ready, and the readiness of the
  /// dependent the link names. A hint only: nothing here changes the world's behaviour.
  mutating func prepareRelease(startingNow op: OpID) {
    readiness.prefetch(Int(readiness[op.slot].firstDependent))
    edges.links.prefetch(Int(readiness[op.slot].dependents))
    let earlier = startedBefore
    startedBefore = op
    guard earlier.slot >= 0, earlier.slot < readiness.count else { return }
    let first = Int(readiness[earlier.slot].firstDependent)
    if first >= 0, first < readiness.count, readiness[first].unfinishedCount == 1 { operations.prefetch(first) }
    let head = Int(readiness[earlier.slot].dependents)
    if head >= 0, head < edges.links.count {
      readiness.prefetch(edges.links[head].op.slot)
      edges.links.prefetch(Int(edges.links[head].next))
    }
  }

  /// The queue starts an operation: `start()` either skips a cancelled one or begins `main()`.
  mutating func start(_ op: OpID, reason: Reason, holdsSlot: Bool) {
    let q = operations[op.slot].queue
    let generation = operations[op.slot].generation
    // Ready in its queue, or (started by hand) created in none.
    let from: OpPhase = operations[op.slot].phase == .created ? .created : .ready
    if holdsSlot, !operations[op.slot].dispatched, let q { queues[q.slot].executingCount += 1 }
    operations[op.slot].holdsSlot = holdsSlot
    operations[op.slot].dispatched = false
    operations[op.slot].startedAt = now
    setPhase(op, .executing)
    // A barrier is dispatched as a dispatch barrier (rule 40): what the queue dispatches
    // while it runs waits behind it, and operations added from now on no longer depend on it.
    if operations[op.slot].isBarrier, let q {
      queues[q.slot].dispatchBarrier = op
      if queues[q.slot].openBarrier == op { queues[q.slot].openBarrier = nil }
    }
    prepareRelease(startingNow: op)
    let kind = operations[op.slot].spec.kind
    if operations[op.slot].isCancelled {
      record(.skipped, op: op, queue: q, from: from, to: .executing, reason: reason)
      // An asynchronous operation overrides start(): its own code must see isCancelled and
      // call finish(). One that forgets (`forgets-finish`) holds its slot forever.
      if case .async(let forgetsFinish) = kind {
        if forgetsFinish {
          operations[op.slot].jammed = true
          record(.workEnded, op: op, queue: q, reason: .asyncStartForgotFinish)
        } else {
          schedule(.finishNow(op, .cancelled, .asyncStartSawCancellation, generation: generation), at: now)
        }
        return
      }
      // start() runs on a worker after the pick loop: finish it as the next thing at this tick.
      schedule(.finishNow(op, .cancelled, .skippedBecauseCancelled, generation: generation), at: now)
      return
    }
    let isAsync: Bool
    if case .async = kind { isAsync = true } else { isAsync = false }
    if isAsync { record(.kvoWillChange(.isExecuting), op: op, queue: q, reason: reason) }
    record(.started, op: op, queue: q, from: from, to: .executing, reason: reason)
    if isAsync { record(.kvoDidChange(.isExecuting), op: op, queue: q, reason: reason) }

    if operations[op.slot].spec.bailsIfDependencyCancelled,
      let cancelled = edges.first(in: operations[op.slot].dependencyList, where: { operations[$0.slot].isCancelled })
    {
      schedule(.finishNow(op, .bailed, .dependencyWasCancelled(cancelled), generation: generation), at: now)
      return
    }
    if operations[op.slot].spec.bailsUnlessDependenciesSucceeded,
      // `dependencies` hides the queue's barrier operations (rule 7): only the learner's count.
      let failed = edges.first(in: operations[op.slot].dependencyList, where: {
        // Cancelled counts as not succeeded even when its work ran to the end (the README's
        // definition, and the exported `succeeded(_:)`).
        (operations[$0.slot].outcome != .succeeded || operations[$0.slot].isCancelled) && !operations[$0.slot].isBarrier
      })
    {
      schedule(.finishNow(op, .bailed, .dependencyDidNotSucceed(failed), generation: generation), at: now)
      return
    }
    if let work = operations[op.slot].mainThreadWork, work == .waitForOperations || work == .start {
      beginMainThreadCall(op)
      return
    }
    if case .wait(let scope) = operations[op.slot].mainThreadWork {
      mainThreadWait = op
      record(.waitStarted, op: op, queue: scope, reason: .command)
      if isWaitOver(scope) { schedule(.finishNow(op, .succeeded, .waitReturned, generation: generation), at: now) }
      return
    }
    switch kind {
    case .steps:
      beginSteps(op)
    case .plain, .async:
      scheduleWork(.workDone(op, generation: generation), ticks: operations[op.slot].spec.workLength(on: platform), work: .main(op))
    case .blocks(let blocks):
      switch platform {
      case .apple:
        for (i, length) in blocks.enumerated() {
          record(.blockStarted(Int32(i)), op: op, queue: q, reason: .blockSchedule)
          scheduleWork(.blockDone(op, block: Int32(i), generation: generation), ticks: length, work: .block(op, Int32(i)))
        }
      case .linux:
        operations[op.slot].blocksSequential = true
        record(.blockStarted(0), op: op, queue: q, reason: .blockSchedule)
        scheduleWork(.blockDone(op, block: 0, generation: generation), ticks: blocks[0], work: .block(op, 0))
      }
    }
  }

  /// The operation becomes `isFinished`. In order (rule 4): dependents are released and
  /// their queues pick; the completion block is submitted; the slot is freed and the
  /// operation's own queue picks.
  mutating func finish(_ op: OpID, outcome: Outcome, reason: Reason) {
    let q = operations[op.slot].queue
    let phase = operations[op.slot].phase
    let wasExecuting = phase == .executing
    let holdsSlot = operations[op.slot].holdsSlot
    let mainThreadWork = operations[op.slot].mainThreadWork
    let kvo: Bool
    if case .async = operations[op.slot].spec.kind { kvo = wasExecuting && reason != .skippedBecauseCancelled } else { kvo = false }
    // An asynchronous operation finishing from its start() was never executing: only isFinished changes.
    let executingChanges = reason != .asyncStartSawCancellation
    if kvo {
      record(.kvoWillChange(.isFinished), op: op, queue: q, reason: reason)
      if executingChanges { record(.kvoWillChange(.isExecuting), op: op, queue: q, reason: reason) }
    }
    setPhase(op, .finished)
    operations[op.slot].finishedAt = now
    operations[op.slot].outcome = outcome
    operations[op.slot].generation &+= 1
    dropWork(of: op)
    if mainThreadWait == op { mainThreadWait = nil }
    record(.finished(outcome), op: op, queue: q, from: phase, to: .finished, reason: reason)
    if case .wait(let scope) = mainThreadWork, reason == .waitReturned {
      record(.waitEnded, op: op, queue: scope, reason: .allFinished)
    } else if mainThreadWork == .waitForOperations, reason == .waitReturned {
      record(.waitEnded, op: op, queue: .main, reason: .allFinished)
    }
    if kvo {
      if executingChanges { record(.kvoDidChange(.isExecuting), op: op, queue: q, reason: reason) }
      record(.kvoDidChange(.isFinished), op: op, queue: q, reason: reason)
    }

    // A barrier block's end first starts what waited behind it, in the order it was
    // dispatched (rule 40): those were ahead, on the dispatch queue, of whatever this finish
    // releases (the release runs inside the block's work item).
    if let q, queues[q.slot].dispatchBarrier == op {
      queues[q.slot].dispatchBarrier = nil
      let held = queues[q.slot].heldBehindBarrier
      queues[q.slot].heldBehindBarrier = []
      for waiting in held { start(waiting, reason: .dispatchBarrierEnded(op), holdsSlot: true) }
    }

    // Dependents are released in the order their edges were added; the pooled list reads
    // newest first and the oldest is kept apart, so they are copied out (the oldest last)
    // and reversed. The buffer is reused (taken out of the world meanwhile, so a
    // finish this one causes gets a buffer of its own).
    var released = releaseBuffer
    releaseBuffer = []
    released.removeAll(keepingCapacity: true)
    var link = readiness[op.slot].dependents
    while link >= 0 {
      released.append(edges.links[Int(link)].op)
      link = edges.links[Int(link)].next
    }
    if readiness[op.slot].firstDependent >= 0 { released.append(OpID(Int(readiness[op.slot].firstDependent))) }
    released.reverse()
    // Read from `readiness`, not the records: a dependent that stays pending is not read
    // at all. The finished ones are filtered out first, in a loop of their own: its reads
    // do not depend on one another, so the processor overlaps their cache misses (at a
    // million operations most of them miss), where the loop below, with its calls between
    // reads, took them one at a time. Nothing below finishes an operation (finishing is
    // always a scheduled wake-up), so the filter still holds when each one is reached.
    var waiting = 0
    for i in released.indices where readiness[released[i].slot].phase != .finished {
      released[waiting] = released[i]
      waiting += 1
      // One that is about to become ready has its record read (its queue, level, place).
      if readiness[released[i].slot].unfinishedCount == 1 { operations.prefetch(released[i].slot) }
    }
    for dependent in released[..<waiting] {
      readiness[dependent.slot].unfinishedCount -= 1
      becomeReadyIfPossible(dependent, reason: .dependencyFinished(op))
    }
    releaseBuffer = released

    if let length = operations[op.slot].spec.completion {
      operations[op.slot].completionRunning = true
      runningCompletions += 1
      record(.completionStarted, op: op, queue: q, reason: .afterFinish)
      if shared?.completionSteps[op] != nil {
        // Step by step, a step a tick, whatever the cores (as a `main()` written as steps).
        beginCompletionSteps(op)
      } else {
        scheduleWork(.completionDone(op), ticks: length, work: .completion(op))
      }
    }

    releaseMainThreadCall(after: op)
    guard let q else { return }
    if queues[q.slot].openBarrier == op { queues[q.slot].openBarrier = nil }
    // OperationQueue.main's operation slot frees: the pick below dispatches its next one.
    if queues[q.slot].dispatchedOperation == op { queues[q.slot].dispatchedOperation = nil }
    // Every operation filed in a queue finishes from a slot; a corelibs empty-queue barrier holds none.
    if wasExecuting, holdsSlot {
      queues[q.slot].finishedMembers += 1
      queues[q.slot].executingCount -= 1
      pick(on: q, trigger: .slotFreed(op))
    }
    if let wait = mainThreadWait, wait != op, mainThreadWork == nil, case .wait(let scope) = operations[wait.slot].mainThreadWork,
      scope == nil || scope == q, isWaitOver(scope)
    {
      schedule(.finishNow(wait, .succeeded, .waitReturned, generation: operations[wait.slot].generation), at: now)
    }
  }
}
