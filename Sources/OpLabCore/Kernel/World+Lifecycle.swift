/// Starting and finishing operations, each as a few named phases.
///
/// `start` takes the operation from ready (or created, started by hand) to executing;
/// `finish` takes it to finished. Both run inside a step of the kernel (``step(_:)``) or an
/// action, at ``now``; nothing here moves the clock, and an operation never finishes
/// inside `start`: a finish that follows at once is a wake-up scheduled for this tick.
extension World {
  // MARK: - start

  /// The queue starts an operation: `start()` either skips a cancelled one or begins `main()`.
  ///
  /// In phases: it begins executing (``beginExecuting(_:holdsSlot:)``); a cancelled one is
  /// skipped (``skipCancelled(_:from:reason:)``); else it is recorded as started
  /// (``recordStarted(_:from:reason:)``), bails out if a dependency tells it to
  /// (``bailOverDependencies(_:)``), and begins its work: a call or wait on the main
  /// thread (``beginMainThreadWork(_:)``), or its steps, `main()` or blocks (``beginWork(_:)``).
  /// - Parameter holdsSlot: whether it takes one of its queue's slots (an operation the
  ///   queue picked) or none (started by hand, a corelibs empty-queue barrier).
  mutating func start(_ op: OpID, reason: Reason, holdsSlot: Bool) {
    let from = beginExecuting(op, holdsSlot: holdsSlot)
    if holdsSlot, !dispatchQueues.isEmpty { occupyDispatchQueue(with: op) }
    // An asynchronous operation's start() returns at once: a serial dispatch queue it runs
    // on goes on to its next work item now, while the operation still executes.
    defer { if case .async = operations[op.slot].spec.kind, !dispatchQueues.isEmpty { workItemReturned(op) } }
    prepareRelease(startingNow: op)
    if operations[op.slot].isCancelled {
      skipCancelled(op, from: from, reason: reason)
      return
    }
    recordStarted(op, from: from, reason: reason)
    if bailOverDependencies(op) || beginMainThreadWork(op) { return }
    beginWork(op)
  }

  /// Moves the operation to executing: it takes its slot (unless it holds one already,
  /// dispatched behind a barrier block), and a barrier becomes its queue's dispatch barrier.
  /// - Returns: the phase it started from: ready in its queue, or created (started by hand).
  private mutating func beginExecuting(_ op: OpID, holdsSlot: Bool) -> OpPhase {
    let q = operations[op.slot].queue
    let from: OpPhase = operations[op.slot].phase == .created ? .created : .ready
    if holdsSlot, !operations[op.slot].dispatched, let q { queues[q.slot].executingCount += 1 }
    operations[op.slot].holdsSlot = holdsSlot
    operations[op.slot].dispatched = false
    operations[op.slot].startedAt = now
    setPhase(op, .executing)
    // A barrier is dispatched as a dispatch barrier (rule 40): what the queue dispatches
    // while it runs waits behind it, and operations added from now on no longer depend on it.
    // On a serial underlying queue it is one item among the others, and an empty-queue
    // barrier (corelibs) runs on the queue's backing queue, not on its underlying one.
    if operations[op.slot].isBarrier, let q {
      if barrierHoldsDispatches(on: q), holdsSlot || queues[q.slot].underlyingQueue == nil { queues[q.slot].dispatchBarrier = op }
      if queues[q.slot].openBarrier == op { queues[q.slot].openBarrier = nil }
    }
    return from
  }

  /// `start()` on a cancelled operation: it is skipped and finishes as the next thing at
  /// this tick (start() runs on a worker after the pick loop). An asynchronous operation
  /// overrides start(): its own code must see isCancelled and call finish(); one that
  /// forgets (`forgets-finish`) holds its slot forever.
  private mutating func skipCancelled(_ op: OpID, from: OpPhase, reason: Reason) {
    let q = operations[op.slot].queue
    let generation = operations[op.slot].generation
    record(.skipped, op: op, queue: q, from: from, to: .executing, reason: reason)
    guard case .async(let forgetsFinish) = operations[op.slot].spec.kind else {
      schedule(.finishNow(op, .cancelled, .skippedBecauseCancelled, generation: generation), at: now)
      return
    }
    if forgetsFinish {
      operations[op.slot].jammed = true
      record(.workEnded, op: op, queue: q, reason: .asyncStartForgotFinish)
    } else {
      schedule(.finishNow(op, .cancelled, .asyncStartSawCancellation, generation: generation), at: now)
    }
  }

  /// Records the start; an asynchronous operation posts its `isExecuting` KVO pair around it.
  private mutating func recordStarted(_ op: OpID, from: OpPhase, reason: Reason) {
    let q = operations[op.slot].queue
    let isAsync: Bool
    if case .async = operations[op.slot].spec.kind { isAsync = true } else { isAsync = false }
    if isAsync { record(.kvoWillChange(.isExecuting), op: op, queue: q, reason: reason) }
    record(.started, op: op, queue: q, from: from, to: .executing, reason: reason)
    if isAsync { record(.kvoDidChange(.isExecuting), op: op, queue: q, reason: reason) }
  }

  /// An operation written to bail out when a dependency was cancelled, or did not succeed,
  /// finishes as `bailed` as the next thing at this tick instead of working.
  /// - Returns: whether it bails out.
  private mutating func bailOverDependencies(_ op: OpID) -> Bool {
    let generation = operations[op.slot].generation
    if operations[op.slot].spec.bailsIfDependencyCancelled,
      let cancelled = edges.first(in: operations[op.slot].dependencyList, where: { operations[$0.slot].isCancelled })
    {
      schedule(.finishNow(op, .bailed, .dependencyWasCancelled(cancelled), generation: generation), at: now)
      return true
    }
    if operations[op.slot].spec.bailsUnlessDependenciesSucceeded,
      // `dependencies` hides the queue's barrier operations (rule 7): only the learner's count.
      let failed = edges.first(
        in: operations[op.slot].dependencyList,
        where: {
          // Cancelled counts as not succeeded even when its work ran to the end (the README's
          // definition, and the exported `succeeded(_:)`).
          (operations[$0.slot].outcome != .succeeded || operations[$0.slot].isCancelled) && !operations[$0.slot].isBarrier
        })
    {
      schedule(.finishNow(op, .bailed, .dependencyDidNotSucceed(failed), generation: generation), at: now)
      return true
    }
    return false
  }

  /// A call made on the main thread begins (``beginMainThreadCall(_:)``), or a
  /// `wait … from main` takes the main thread, returning at once if nothing is left to wait for.
  /// - Returns: whether the operation was such a call or wait (taps and frames just work).
  private mutating func beginMainThreadWork(_ op: OpID) -> Bool {
    switch operations[op.slot].mainThreadWork {
    case .waitForOperations?, .start?:
      beginMainThreadCall(op)
      return true
    case .wait(let scope)?:
      mainThreadWait = op
      record(.waitStarted, op: op, queue: scope, reason: .command)
      if isWaitOver(scope) {
        schedule(.finishNow(op, .succeeded, .waitReturned, generation: operations[op.slot].generation), at: now)
      }
      return true
    case .tap?, .frame?, nil:
      return false
    }
  }

  /// The operation's work begins: its steps, its `main()` (an asynchronous one's work), or
  /// its blocks — all at once on Darwin, one after another on Linux (rule 38).
  private mutating func beginWork(_ op: OpID) {
    let q = operations[op.slot].queue
    let generation = operations[op.slot].generation
    switch operations[op.slot].spec.kind {
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

  // MARK: - finish

  /// The operation becomes `isFinished`. In order (rule 4):
  ///
  /// 1. it is marked finished, with its KVO and the end of a wait it was (``markFinished(_:outcome:reason:)``);
  /// 2. a barrier block's end starts what waited behind it (``startHeldBehindBarrier(_:)``);
  /// 3. its dependents are released and their queues pick (``releaseDependents(of:)``);
  /// 4. its completion block is submitted (``startCompletion(_:)``);
  /// 5. a call on the main thread that waited for it may return (``releaseMainThreadCall(after:)``);
  /// 6. its slot is freed and its own queue picks (``freeSlot(of:in:wasExecuting:holdsSlot:)``);
  /// 7. a `wait … from main` on its queue may return (``endMainThreadWaitIfOver(after:in:)``);
  /// 8. its work item returns: a serial dispatch queue it ran on starts its next item
  ///    (``workItemReturned(_:)``), behind what step 6 dispatched there.
  mutating func finish(_ op: OpID, outcome: Outcome, reason: Reason) {
    defer { if !dispatchQueues.isEmpty { workItemReturned(op) } }
    let holdsSlot = operations[op.slot].holdsSlot
    let wasExecuting = markFinished(op, outcome: outcome, reason: reason) == .executing
    startHeldBehindBarrier(op)
    releaseDependents(of: op)
    startCompletion(op)
    releaseMainThreadCall(after: op)
    guard let q = operations[op.slot].queue else { return }
    freeSlot(of: op, in: q, wasExecuting: wasExecuting, holdsSlot: holdsSlot)
    endMainThreadWaitIfOver(after: op, in: q)
  }

  /// Moves the operation to finished with its outcome, stops its work, and records it: an
  /// asynchronous operation that was executing posts `isFinished` (and `isExecuting`, unless
  /// it finished from its own start()) KVO pairs around it, and a wait on the main thread
  /// that returned records its end.
  /// - Returns: the phase it finished from.
  private mutating func markFinished(_ op: OpID, outcome: Outcome, reason: Reason) -> OpPhase {
    let q = operations[op.slot].queue
    let phase = operations[op.slot].phase
    let kvo: Bool
    if case .async = operations[op.slot].spec.kind { kvo = phase == .executing && reason != .skippedBecauseCancelled } else { kvo = false }
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
    let mainThreadWork = operations[op.slot].mainThreadWork
    if case .wait(let scope) = mainThreadWork, reason == .waitReturned {
      record(.waitEnded, op: op, queue: scope, reason: .allFinished)
    } else if mainThreadWork == .waitForOperations, reason == .waitReturned {
      record(.waitEnded, op: op, queue: .main, reason: .allFinished)
    }
    if kvo {
      if executingChanges { record(.kvoDidChange(.isExecuting), op: op, queue: q, reason: reason) }
      record(.kvoDidChange(.isFinished), op: op, queue: q, reason: reason)
    }
    return phase
  }

  /// A barrier block's end first starts what waited behind it, in the order it was
  /// dispatched (rule 40): those were ahead, on the dispatch queue, of whatever this finish
  /// releases (the release runs inside the block's work item).
  private mutating func startHeldBehindBarrier(_ op: OpID) {
    guard let q = operations[op.slot].queue, queues[q.slot].dispatchBarrier == op else { return }
    queues[q.slot].dispatchBarrier = nil
    let held = queues[q.slot].heldBehindBarrier
    queues[q.slot].heldBehindBarrier = []
    for waiting in held { start(waiting, reason: .dispatchBarrierEnded(op), holdsSlot: true) }
  }

  /// Each dependent still waiting counts one unfinished dependency fewer; those it leaves
  /// ready become ready and their queues pick, in the order the edges were added
  /// (``waitingDependents(of:into:)``). The buffer is reused, taken out of the world
  /// meanwhile, so a finish this one causes gets a buffer of its own.
  private mutating func releaseDependents(of op: OpID) {
    var released = releaseBuffer
    releaseBuffer = []
    waitingDependents(of: op, into: &released)
    for dependent in released {
      readiness[dependent.slot].unfinishedCount -= 1
      becomeReadyIfPossible(dependent, reason: .dependencyFinished(op))
    }
    releaseBuffer = released
  }

  /// The completion block is submitted: it runs as CPU work, or step by step (a step a
  /// tick, whatever the cores, as a `main()` written as steps).
  private mutating func startCompletion(_ op: OpID) {
    guard let length = operations[op.slot].spec.completion else { return }
    operations[op.slot].completionRunning = true
    runningCompletions += 1
    record(.completionStarted, op: op, queue: operations[op.slot].queue, reason: .afterFinish)
    if shared?.completionSteps[op] != nil {
      beginCompletionSteps(op)
    } else {
      scheduleWork(.completionDone(op), ticks: length, work: .completion(op))
    }
  }

  /// The operation no longer holds its queue: an open barrier waiting for it is closed,
  /// OperationQueue.main's operation slot frees (the pick dispatches its next one), and an
  /// operation that finished from a slot frees it and its queue picks. Every operation
  /// filed in a queue finishes from a slot; a corelibs empty-queue barrier holds none.
  /// - Parameters:
  ///   - wasExecuting: whether it finished from executing (see ``markFinished(_:outcome:reason:)``).
  ///   - holdsSlot: whether it held a slot, read before it finished.
  private mutating func freeSlot(of op: OpID, in q: QueueID, wasExecuting: Bool, holdsSlot: Bool) {
    if queues[q.slot].openBarrier == op { queues[q.slot].openBarrier = nil }
    if queues[q.slot].dispatchedOperation == op { queues[q.slot].dispatchedOperation = nil }
    guard wasExecuting, holdsSlot else { return }
    queues[q.slot].finishedMembers += 1
    queues[q.slot].executingCount -= 1
    pick(on: q, trigger: .slotFreed(op))
  }

  /// After an operation of `q` finished: a `wait … from main` on `q` (or on every queue)
  /// returns, as the next thing at this tick, once nothing it waits for is left. A wait or
  /// call finishing is not such an operation.
  private mutating func endMainThreadWaitIfOver(after op: OpID, in q: QueueID) {
    guard let wait = mainThreadWait, wait != op, operations[op.slot].mainThreadWork == nil,
      case .wait(let scope) = operations[wait.slot].mainThreadWork, scope == nil || scope == q, isWaitOver(scope)
    else { return }
    schedule(.finishNow(wait, .succeeded, .waitReturned, generation: operations[wait.slot].generation), at: now)
  }
}
