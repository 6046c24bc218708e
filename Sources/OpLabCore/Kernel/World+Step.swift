import HeapModule

/// Something the kernel must do at a future (or the current) tick.
///
/// Wake-ups are ordered by (tick, sequence number), so those due at the same tick run in
/// the order they were scheduled (SimPy's `eid`), band by band (``band(of:)``): first the
/// steps that end at the tick (stamped with the tick before, the one they took), then the
/// operations those steps added, then everything else. A frame is a wake-up too, but the
/// frame clock makes it (see ``World/frameWakeup(before:)``): it has the last sequence
/// number, so it comes after everything else due at its tick.
struct Wakeup: Comparable, Sendable {
  enum Action: Sendable {
    /// The operation's work ends (success, failure or — for a forgetful async op — a jam).
    case workDone(OpID, generation: UInt32)
    /// The operation's code checks `isCancelled` and sees it.
    case cancelCheck(OpID, generation: UInt32)
    /// One BlockOperation block ends.
    case blockDone(OpID, block: Int32, generation: UInt32)
    /// The operation finishes without running `main()` to the end.
    case finishNow(OpID, Outcome, Reason, generation: UInt32)
    /// The completion block ends.
    case completionDone(OpID)
    /// The CPU model's next milestone: a job ends or reaches its cancellation check.
    case cpu(generation: UInt32)
    /// The user taps: a tap joins the main thread's work.
    case tap
    /// A step-by-step operation runs its next step (see ``Step``).
    case step(OpID, generation: UInt32)
    /// A completion block written as steps runs its next step.
    case completionStep(OpID)
    /// An `add` step that ended at this tick files the operation it added (after every
    /// step ending at the tick, so the trace stays in tick order).
    case stepAdded(OpID, to: QueueID, by: OpID, completion: Bool)
    /// The display asks for the frames due by now (never filed in the agenda: see
    /// ``World/frameWakeup(before:)``).
    case frame
  }

  var tick: Tick
  var sequence: Int
  var action: Action

  /// The sequence number of a frame's wake-up: after every other one at its tick.
  static let frameSequence = Int.max

  /// Whether this is the display's frame, from the frame clock rather than the agenda.
  var isFrame: Bool { sequence == Self.frameSequence }

  /// Where the wake-ups of an action come among those due at one tick, added to its
  /// sequence number: a step's first (its events are stamped with the tick before, which
  /// must not follow an event of this tick), then an `add` step's filing (its events are
  /// this tick's first), then the rest (from 0 up). Schedule order holds within a band.
  @inline(__always) static func band(of action: Action) -> Int {
    switch action {
    case .step, .completionStep: stepBand
    case .stepAdded: stepAddedBand
    default: 0
    }
  }
  /// The bands' offsets: far enough apart that no world's count of wake-ups reaches the next.
  static let stepBand = Int.min / 2
  static let stepAddedBand = Int.min / 4

  static func < (a: Wakeup, b: Wakeup) -> Bool {
    a.tick != b.tick ? a.tick < b.tick : a.sequence < b.sequence
  }
  static func == (a: Wakeup, b: Wakeup) -> Bool { a.tick == b.tick && a.sequence == b.sequence }
}

/// The kernel's one step, in the manner of SimPy's `Environment.step()`: every way the
/// clock runs — a learner's action settling at ``now`` (``settle()``), `step`/`run until`
/// (``advance(to:interrupt:)``), a run towards a goal (``runLoop(cap:interrupt:goal:)``) —
/// is a driver that repeats
///
/// 1. ``prepareStep(deferringShares:)``: drop stale wake-ups, then the CPU phase
///    (``shareCPU(deferring:)``), which may schedule the CPU's next milestone;
/// 2. ``peek()``: the next wake-up — the agenda's first, or a frame due before it;
/// 3. ``step(_:)``: take it, move the clock to its tick, run it (``process(_:)``);
///
/// and decides only when to stop: at a tick, at a goal, at a cap or when interrupted.
extension World {
  /// Makes ``peek()`` give the next thing to happen: drops stale wake-ups from the front
  /// of the agenda, then runs the CPU phase (``shareCPU(deferring:)``).
  /// - Parameter deferring: `true` when the clock stays at this tick afterwards (an action
  ///   settling), so a recomputation of the shares may be left for later (``flushCPU()``);
  ///   `false` (before the clock moves) settles any that was.
  @inline(__always) mutating func prepareStep(deferringShares deferring: Bool) {
    pruneStale()
    shareCPU(deferring: deferring)
  }

  /// The next wake-up, without taking it: the agenda's first, or the display's frame when
  /// one comes due before that (see ``frameWakeup(before:)``). Call
  /// ``prepareStep(deferringShares:)`` first, or a stale wake-up may be the answer.
  ///
  /// It changes nothing, but is `mutating` so that it reads the world in place: a
  /// non-mutating call on an inout `World` that reaches a call not inlined (here
  /// ``onlyFramesGoOn()``) copies the whole world first, at every step.
  @inline(__always) mutating func peek() -> Wakeup? {
    let first = agenda.min
    return frameWakeup(before: first) ?? first
  }

  /// ``prepareStep(deferringShares:)``, then ``peek()``.
  @inline(__always) mutating func nextWakeup(deferringShares deferring: Bool = false) -> Wakeup? {
    prepareStep(deferringShares: deferring)
    return peek()
  }

  /// Takes `next` — what ``peek()`` has just returned — off the agenda (a frame comes from
  /// the frame clock instead), moves the clock to its tick, runs it, and moves the frame
  /// clock past frames that came due meanwhile while only frames went on (``skipUndrawnFrames()``).
  mutating func step(_ next: Wakeup) {
    if !next.isFrame { _ = agenda.removeMin() }
    now = Swift.max(now, next.tick)
    process(next)
    skipUndrawnFrames()
  }

  /// Whether a wake-up still means something: work that was cut short (a cancel seen, a
  /// finish) leaves its old wake-ups behind, and they must not move the clock.
  @inline(__always) func isLive(_ w: Wakeup) -> Bool {
    switch w.action {
    case .workDone(let op, let g), .cancelCheck(let op, let g), .blockDone(let op, _, let g), .finishNow(let op, _, _, let g),
      .step(let op, let g):
      return operations[op.slot].generation == g
    case .completionDone, .tap, .stepAdded:
      return true
    case .completionStep(let op):
      return operations[op.slot].completionRunning
    case .cpu(let g):
      return g == cpu.generation
    case .frame:
      return frames != nil
    }
  }

  /// Drops stale wake-ups from the front of the agenda, so its first entry is always live.
  mutating func pruneStale() {
    while let first = agenda.min, !isLive(first) { _ = agenda.removeMin() }
  }

  /// Runs a wake-up at ``now``.
  mutating func process(_ w: Wakeup) {
    switch w.action {
    case .workDone(let op, let generation):
      guard operations[op.slot].generation == generation, operations[op.slot].phase == .executing, !operations[op.slot].jammed
      else { return }
      let kind = operations[op.slot].spec.kind
      if case .async(forgetsFinish: true) = kind {
        operations[op.slot].jammed = true
        record(.workEnded, op: op, queue: operations[op.slot].queue, reason: .forgotFinish)
        return
      }
      if let f = operations[op.slot].spec.failsAt {
        finish(op, outcome: .failed, reason: .failedAt(f))
      } else if case .async = kind {
        finish(op, outcome: .succeeded, reason: .finishCalled)
      } else {
        finish(op, outcome: .succeeded, reason: .workDone)
      }

    case .cancelCheck(let op, let generation):
      let r = operations[op.slot]
      guard r.generation == generation, r.phase == .executing, !r.jammed, r.startedAt != nil else { return }
      operations[op.slot].generation &+= 1  // the work will not reach its end
      record(.cancelObserved, op: op, queue: r.queue, reason: .checkedIsCancelled(elapsed: workElapsed(op)))
      if case .async(forgetsFinish: true) = r.spec.kind {
        operations[op.slot].jammed = true
        record(.workEnded, op: op, queue: r.queue, reason: .forgotFinish)
        return
      }
      finish(op, outcome: .cancelled, reason: .sawCancellation)

    case .blockDone(let op, let block, let generation):
      let r = operations[op.slot]
      guard r.generation == generation, r.phase == .executing, case .blocks(let blocks) = r.spec.kind else { return }
      record(.blockFinished(block), op: op, queue: r.queue, reason: .blockSchedule)
      operations[op.slot].blocksDone += 1
      if operations[op.slot].blocksDone == Int32(blocks.count) {
        finish(op, outcome: .succeeded, reason: .workDone)
      } else if r.blocksSequential {
        let nextBlock = block + 1
        record(.blockStarted(nextBlock), op: op, queue: r.queue, reason: .blockSchedule)
        scheduleWork(.blockDone(op, block: nextBlock, generation: generation), ticks: blocks[Int(nextBlock)], work: .block(op, nextBlock))
      }

    case .finishNow(let op, let outcome, let reason, let generation):
      guard operations[op.slot].generation == generation, !operations[op.slot].isFinished else { return }
      finish(op, outcome: outcome, reason: reason)

    case .cpu(let generation):
      processCPU(generation: generation)

    case .tap:
      addMainThreadWork(.tap, reason: .tapped)

    case .step(let op, let generation):
      guard operations[op.slot].generation == generation, operations[op.slot].phase == .executing else { return }
      runStep(op)

    case .completionStep(let op):
      guard operations[op.slot].completionRunning else { return }
      runStep(op)

    case .stepAdded(let target, let q, let adder, let inCompletion):
      fileAdded(target, on: q, by: adder, inCompletion: inCompletion)

    case .completionDone(let op):
      operations[op.slot].completionRunning = false
      runningCompletions -= 1
      record(.completionFinished, op: op, queue: operations[op.slot].queue, reason: .afterFinish)

    case .frame:
      fireFramesDue(through: now)
    }
  }
}
