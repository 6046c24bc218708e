/// The main thread: user-interface work (taps, frames) and waits called from it.
///
/// The `main` queue is the main thread. A tap or a frame joins it like any work on a
/// serial queue, at the normal priority level, and waits while the main thread is busy:
/// that wait is the user interface frozen. A `wait … from main` takes the main thread and
/// keeps it until the wait returns — the classic way to freeze an app, or to deadlock it.
extension World {
  /// Schedules a tap at `tick` (now or later): one tick of work on the main thread.
  /// - Throws: ``SimulationError/invalidTick(_:)`` for a tick in the past or past the last one.
  public mutating func tap(at tick: Tick) throws(SimulationError) {
    defer { checkInvariants() }
    guard tick >= now else { throw .invalidTick(.inThePast(tick, now: now)) }
    guard tick <= Self.maxTick else { throw .invalidTick(.pastLastTick(tick)) }
    record(.tapScheduled(tick), queue: .main, reason: .command)
    schedule(.tap, at: tick)
    settle()
  }

  /// `frames every N from T to T`: the display asks for a frame every `every` ticks, each
  /// one tick of work on the main thread. A frame that has not started when the next one
  /// is due is dropped. `nil` stops the frames.
  /// - Parameters:
  ///   - from: the first frame's tick (default: now).
  ///   - until: the last tick a frame may be due at; without one, frames come while the
  ///     world has other work, and a run until idle does not wait for them.
  /// - Throws: ``SimulationError/invalidTick(_:)`` for a period below 1 or bad ticks.
  public mutating func setFrames(every: Tick?, from: Tick? = nil, until: Tick? = nil) throws(SimulationError) {
    defer { checkInvariants() }
    guard let every else {
      frames = nil
      record(.framesChanged(every: nil), queue: .main, reason: .command)
      return
    }
    guard every >= 1, every <= OperationSpec.maxDuration else {
      throw .invalidTick(.framePeriod(every))
    }
    let first = from ?? now
    guard first >= now else { throw .invalidTick(.inThePast(first, now: now)) }
    guard first <= Self.maxTick else { throw .invalidTick(.pastLastTick(first)) }
    if let until, until < first { throw .invalidTick(.framesEndBeforeStart(until: until, first: first)) }
    if let until, (until - first) / every >= Self.maxFrames {
      throw .invalidTick(.tooManyFrames((until - first) / every + 1))
    }
    frames = FrameClock(every: every, next: first, until: until)
    record(.framesChanged(every: every), queue: .main, reason: .command)
    settle()
  }

  /// `waitUntilAllOperationsAreFinished()` called on the main thread: the call takes the
  /// main thread (after the work running there now) and keeps it until every operation in
  /// the queue — or in every queue — has finished. Taps and frames wait meanwhile; work
  /// that needs the main thread before the wait can return deadlocks it.
  @discardableResult
  public mutating func waitOnMainThread(_ q: QueueID?, cap: Tick? = nil, interrupt: Interrupt? = nil) -> RunVerdict {
    defer { checkInvariants() }
    // The wait begins (and ends) in the kernel, when it has the main thread.
    let wait = addMainThreadWork(.wait(q), reason: .command)
    let verdict = runLoop(cap: cap, interrupt: interrupt) { world in
      if world.operations[wait.slot].isFinished { return .reached }
      return world.nothingScheduled ? .stalled(world.diagnose(startingWith: [wait])) : nil
    }
    if case .stalled = verdict { record(.waitStalled, op: wait, queue: q, reason: .stalled) }
    return verdict
  }

  /// The most frames one `frames` setting brings; frames without an end stop there.
  public static let maxFrames = 100_000

  // MARK: - Kernel

  /// Creates user-interface work (or a call made there) and adds it to the main thread's queue.
  /// - Parameters:
  ///   - targets: the operations a ``MainThreadWork/waitForOperations`` or
  ///     ``MainThreadWork/start`` call is about.
  ///   - queue: for `addOperations(_:waitUntilFinished: true)`, the queue the call adds its
  ///     targets to when the main thread gets to it.
  @discardableResult
  mutating func addMainThreadWork(_ work: MainThreadWork, targets: [OpID] = [], adding queue: QueueID? = nil, reason: Reason) -> OpID {
    let base: String
    switch work {
    case .tap:
      mainThreadWorkCount.taps += 1
      base = "main.tap\(mainThreadWorkCount.taps)"
    case .frame:
      mainThreadWorkCount.frames += 1
      base = "main.frame\(mainThreadWorkCount.frames)"
    case .wait, .waitForOperations:
      mainThreadWorkCount.waits += 1
      base = "main.wait\(mainThreadWorkCount.waits)"
    case .start:
      mainThreadWorkCount.starts += 1
      base = "main.start\(mainThreadWorkCount.starts)"
    }
    var name = base
    while operationID(named: name) != nil || queueNames[name] != nil { name += "'" }
    let duration: Tick = work == .tap || work == .frame ? 1 : 0
    let id = newOperation(OperationSpec(name: name, duration: duration), reason: reason)
    operations[id.slot].mainThreadWork = work
    if !targets.isEmpty { callTargetsByCall[id] = targets }
    if let queue { addCalls[id] = queue }  // before the pick below, which may begin the call at once
    file(id, on: .main, reason: reason)
    pick(on: .main, trigger: .enqueued)
    return id
  }

  /// Brings the frames due by `tick` (the current one): each drops the frame before it if
  /// that one has not started, and joins the main thread.
  mutating func fireFramesDue(through tick: Tick) {
    while var clock = frames, clock.next <= tick {
      // A frame already handed to the dispatch queue (behind a corelibs barrier block) runs.
      if let previous = clock.waiting, !operations[previous.slot].dispatched {
        let phase = operations[previous.slot].phase
        if phase == .pending || phase == .ready { drop(previous) }
      }
      clock.waiting = addMainThreadWork(.frame, reason: .frameDue)
      clock.count += 1
      let (next, overflow) = clock.next.addingReportingOverflow(clock.every)
      clock.next = next
      if clock.count >= Self.maxFrames {
        frames = nil
        record(.framesChanged(every: nil), queue: .main, reason: .frameLimit)
      } else if overflow || next > Self.maxTick || clock.until.map({ next > $0 }) == true {
        frames = nil
      } else {
        frames = clock
      }
    }
  }

  /// The display's next frame as a wake-up, when it comes due before `first` (the agenda's
  /// first wake-up): due at ``FrameClock/next``, after everything else scheduled for that
  /// tick (it has the last sequence number: a tap at the tick is handled before the frame
  /// is drawn). `nil` when frames are off, when `first` comes first, and while frames
  /// without an end are all that goes on (``onlyFramesGoOn()``). `mutating` only so as not
  /// to copy the world (see ``peek()``).
  @inline(__always) mutating func frameWakeup(before first: Wakeup?) -> Wakeup? {
    guard let f = frames?.next else { return nil }
    let frame = Wakeup(tick: f, sequence: Wakeup.frameSequence, action: .frame)
    guard first.map({ frame < $0 }) ?? true, !onlyFramesGoOn() else { return nil }
    return frame
  }

  /// Moves the frame clock past frames that came due while only frames went on, and so
  /// were never asked for, to the first due tick at or after the clock; else work that
  /// comes later would bring them all at once, each dropping the one before.
  mutating func skipUndrawnFrames() {
    guard var clock = frames, clock.next < now else { return }
    let steps = (now - clock.next + clock.every - 1) / clock.every
    let (jump, overflow) = steps.multipliedReportingOverflow(by: clock.every)
    let (next, overflowAgain) = clock.next.addingReportingOverflow(jump)
    if overflow || overflowAgain || next > Self.maxTick || clock.until.map({ next > $0 }) == true {
      frames = nil
    } else {
      clock.next = next
      frames = clock
    }
  }

  /// Whether frames without an end are all that goes on: no live wake-up, no CPU job and
  /// no ready operation on `main` belongs to anything but a frame. Runs until idle (or
  /// until a goal) draw no more frames then: what remains either ends with the frames'
  /// own work or can never happen, and the goal gives its verdict.
  /// - Complexity: O(wake-ups + CPU jobs + ready entries on `main`) at worst; it stops
  ///   at the first entry that is not a frame's, and runs once per frame due.
  func onlyFramesGoOn() -> Bool {
    guard let f = frames, f.until == nil else { return false }
    func isFrame(_ op: OpID) -> Bool { operations[op.slot].mainThreadWork == .frame }
    if cpu.jobs.contains(where: { !isFrame($0.work.op) }) { return false }
    for w in agenda.unordered where isLive(w) {
      switch w.action {
      case .workDone(let op, _), .cancelCheck(let op, _), .finishNow(let op, _, _, _), .step(let op, _):
        if !isFrame(op) { return false }
      case .cpu:
        continue  // the jobs are checked above
      case .frame:
        continue  // never filed in the agenda
      case .blockDone, .completionDone, .completionStep, .tap, .stepAdded:
        return false
      }
    }
    return !queues[QueueID.main.slot].readyHeap.unordered.contains { isReadyToStart($0, on: .main) && !isFrame($0.op) }
  }

  /// A frame that could not start before the next one was due: it never runs.
  private mutating func drop(_ frame: OpID) {
    let wasReady = operations[frame.slot].phase == .ready
    finish(frame, outcome: .dropped, reason: .frameDropped)
    if wasReady { noteStaleReadyEntry(on: .main) }
    queues[QueueID.main.slot].finishedMembers += 1
  }

  /// Whether a wait on the main thread can return: everything the learner put in the
  /// queue (or in every queue) has finished. User-interface work does not count.
  func isWaitOver(_ scope: QueueID?) -> Bool {
    for q in scope.map({ [$0] }) ?? queueIDs {
      let queue = queues[q.slot]
      if queue.members.count == queue.finishedMembers { continue }
      if !queue.isMain { return false }
      if queue.members.contains(where: { !operations[$0.slot].isFinished && operations[$0.slot].mainThreadWork == nil }) {
        return false
      }
    }
    return true
  }
}

/// How responsive the user interface was: what `status` reports about taps and frames.
public struct ResponsivenessReport: Hashable, Sendable {
  /// Taps so far, taps that had to wait for the main thread, and the longest wait.
  public var taps = 0
  public var tapsDelayed = 0
  public var longestTapWait: Tick = 0
  /// Frames so far (drawn, waiting or dropped) and frames dropped.
  public var frames = 0
  public var framesDropped = 0
  /// The longest stretch during which user-interface work waited for the main thread,
  /// `[from, to)`; `nil` when it never waited.
  public var longestFreeze: Range<Tick>?
  /// Taps still waiting for the main thread now.
  public var tapsWaiting = 0
  /// When the user-interface work waiting now began to wait: work that has waited a tick
  /// or more, or that came at this tick while the main thread is held by other work (a
  /// frame due behind another frame is just drawn next, not frozen).
  public var frozenSince: Tick?
}

extension World {
  /// Taps, frames and freezes so far.
  /// - Complexity: O(operations · log operations).
  public func responsiveness() -> ResponsivenessReport {
    var report = ResponsivenessReport()
    var waits: [(Tick, Tick)] = []
    var cameNowAndWaits = false, mainHeldByOtherWork = false
    for r in operations {
      if r.phase == .executing, r.queue == .main, r.mainThreadWork != .tap, r.mainThreadWork != .frame {
        mainHeldByOtherWork = true
      }
      guard let kind = r.mainThreadWork, let enq = r.enqueuedAt else { continue }
      let end = r.startedAt ?? r.finishedAt ?? now
      let waitingNow = r.startedAt == nil && r.finishedAt == nil
      if waitingNow, kind == .tap || kind == .frame {
        if enq == now { cameNowAndWaits = true } else if report.frozenSince.map({ enq < $0 }) ?? true { report.frozenSince = enq }
      }
      switch kind {
      case .tap:
        report.taps += 1
        if waitingNow { report.tapsWaiting += 1 } else if end > enq { report.tapsDelayed += 1 }
        report.longestTapWait = Swift.max(report.longestTapWait, end - enq)
      case .frame:
        report.frames += 1
        if r.outcome == .dropped { report.framesDropped += 1 }
      case .wait, .waitForOperations, .start: continue
      }
      if end > enq { waits.append((enq, end)) }
    }
    waits.sort { $0 < $1 }
    var current: (Tick, Tick)?
    func consider(_ stretch: (Tick, Tick)) {
      if let best = report.longestFreeze, best.count >= stretch.1 - stretch.0 { return }
      report.longestFreeze = stretch.0..<stretch.1
    }
    for w in waits {
      if let c = current, w.0 <= c.1 {
        current = (c.0, Swift.max(c.1, w.1))
      } else {
        if let c = current { consider(c) }
        current = w
      }
    }
    if let c = current { consider(c) }
    if report.frozenSince == nil, cameNowAndWaits, mainHeldByOtherWork { report.frozenSince = now }
    return report
  }
}
