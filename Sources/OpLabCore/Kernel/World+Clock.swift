/// How a run of the clock ended.
public enum RunVerdict: Hashable, Sendable {
  /// Nothing is left to happen: every enqueued operation finished and no completion block runs.
  case idle
  /// The requested tick, operation or wait was reached.
  case reached
  /// Nothing more can happen, yet operations are unfinished. The real program would hang.
  case stalled(Diagnosis)
  /// The run stopped at the tick cap before its goal.
  case capped
  /// The learner interrupted the run (Ctrl-C). It stopped between two ticks, so the world
  /// is exactly as it was at ``World/now``.
  case interrupted
}

/// Asked between ticks during a long run: `true` stops the run there.
public typealias Interrupt = () -> Bool

/// The virtual clock.
extension World {
  /// Advances the clock by `ticks`, running everything due on the way.
  /// - Throws: ``SimulationError/invalidTick(_:)`` for a negative count or an overflow.
  public mutating func step(_ ticks: Tick = 1) throws(SimulationError) {
    guard ticks >= 0 else { throw .invalidTick("step takes 0 or more ticks, not \(ticks)") }
    let (target, overflow) = now.addingReportingOverflow(ticks)
    guard !overflow, target <= Swift.max(Self.maxTick, now) else {
      throw .invalidTick("step \(ticks) would move the clock past the last tick (\(Self.maxTick))")
    }
    advance(to: target)
  }

  /// Runs everything up to and including `tick`, then sets the clock to it.
  ///
  /// Past ``maxTick`` only running work carries the clock: a `tick` beyond it is accepted
  /// while something is scheduled (so a run cut short out there — by Ctrl-C or time
  /// travel — can be saved and replayed as `run until` that tick), and the clock stops
  /// where the work ends if that comes first.
  /// - Throws: ``SimulationError/invalidTick(_:)`` when `tick` is in the past, or past
  ///   ``maxTick`` with nothing scheduled.
  public mutating func run(until tick: Tick) throws(SimulationError) {
    try checkRunTarget(tick)
    advance(to: tick)
  }

  func checkRunTarget(_ tick: Tick) throws(SimulationError) {
    guard tick >= now else { throw .invalidTick("tick \(tick) is in the past (the clock is at \(now))") }
    guard tick <= Self.maxTick || !nothingScheduled else {
      throw .invalidTick("tick \(tick) is past the last tick (\(Self.maxTick))")
    }
  }

  mutating func advance(to target: Tick) {
    _ = advance(to: target, interrupt: nil)
  }

  /// Like ``advance(to:)``, but asks `interrupt` between ticks.
  /// - Returns: `false` when interrupted (the clock then stands at the last tick it finished).
  mutating func advance(to target: Tick, interrupt: Interrupt?) -> Bool {
    var processed = 0
    while true {
      prepareNext()
      guard let next = nextHappening(), next.tick <= target else { break }
      if let interrupt, next.tick > now, processed >= Self.interruptInterval {
        processed = 0
        if interrupt() { return false }
      }
      happen(next)
      processed += 1
    }
    // The clock idles up to the target, but never past the last tick on its own.
    now = max(now, target <= Self.maxTick || !nothingScheduled ? target : Self.maxTick)
    skipUndrawnFrames()
    return true
  }

  /// The next thing to happen: the agenda's first wake-up, or a frame coming due first.
  @inline(__always) func nextHappening() -> (tick: Tick, frame: Bool)? {
    let first = agenda.min?.tick
    // At the same tick, everything else goes first: a tap is handled before the frame is drawn.
    // Frames without an end come due only while other work goes on (see onlyFramesGoOn()).
    if let f = frames?.next, first.map({ f < $0 }) ?? true, !onlyFramesGoOn() { return (f, true) }
    return first.map { ($0, false) }
  }

  mutating func happen(_ next: (tick: Tick, frame: Bool)) {
    if next.frame {
      now = max(now, next.tick)
      fireFramesDue(through: now)
    } else {
      _ = processNext()
      skipUndrawnFrames()
    }
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
      case .blockDone, .completionDone, .completionStep, .tap:
        return false
      }
    }
    return !queues[QueueID.main.slot].readyHeap.unordered.contains { isReadyToStart($0, on: .main) && !isFrame($0.op) }
  }

  /// How many wake-ups run between two questions to an ``Interrupt``.
  static let interruptInterval = 1024

  /// Runs until nothing is left to happen, or until nothing more can happen.
  /// - Parameter cap: stop at this tick at the latest.
  /// - Returns: `.idle`, or `.stalled` with a diagnosis of what can never finish.
  /// - Complexity: O(events · log events).
  @discardableResult
  public mutating func runUntilIdle(cap: Tick? = nil, interrupt: Interrupt? = nil) -> RunVerdict {
    runLoop(cap: cap, interrupt: interrupt) { world in
      world.nothingScheduled ? (world.isIdle ? .idle : .stalled(world.diagnose())) : nil
    }
  }

  /// Runs until the operation finishes, or until nothing more can happen.
  @discardableResult
  public mutating func run(untilFinished op: OpID, cap: Tick? = nil, interrupt: Interrupt? = nil) -> RunVerdict {
    runLoop(cap: cap, interrupt: interrupt) { world in
      if world.operations[op.slot].isFinished { return .reached }
      return world.nothingScheduled ? .stalled(world.diagnose(startingWith: [op])) : nil
    }
  }

  /// `waitUntilAllOperationsAreFinished()` on one queue, or on every queue: advances the
  /// clock until every operation in it is finished — not their completion blocks (rule 34).
  /// When it could never return, it stops and says why instead of hanging.
  @discardableResult
  public mutating func waitUntilAllOperationsAreFinished(
    _ q: QueueID? = nil, cap: Tick? = nil, interrupt: Interrupt? = nil
  ) -> RunVerdict {
    record(.waitStarted, queue: q, reason: .command)
    let verdict = runLoop(cap: cap, interrupt: interrupt) { world in
      let scope = q.map { [$0] } ?? world.queueIDs
      if scope.allSatisfy({ world.queues[$0.slot].members.count == world.queues[$0.slot].finishedMembers }) {
        return .reached
      }
      guard world.nothingScheduled else { return nil }
      return .stalled(world.diagnose(startingWith: scope.flatMap { world.unfinishedMembers(of: $0) }))
    }
    switch verdict {
    case .reached: record(.waitEnded, queue: q, reason: .allFinished)
    case .stalled: record(.waitStalled, queue: q, reason: .stalled)
    case .idle, .capped, .interrupted: break
    }
    return verdict
  }

  /// Processes wake-ups one at a time until `goal` gives a verdict or the cap is reached.
  mutating func runLoop(cap: Tick?, interrupt: Interrupt?, goal: (inout World) -> RunVerdict?) -> RunVerdict {
    var processed = 0
    while true {
      prepareNext()
      // A frame due at this tick belongs to it: it comes before any verdict — unless
      // frames are all that goes on (below).
      if let f = frames, f.next <= now, agenda.min.map({ $0.tick > now }) ?? true, !onlyFramesGoOn() {
        fireFramesDue(through: now)
        continue
      }
      if let verdict = goal(&self) { return verdict }
      // Every goal answers once nothing is scheduled, so something is next. Frames without
      // an end come due only while other work remains: a frame's own drawing does not keep
      // the run going (with `frames every 1` each frame ends as the next is due, so they
      // would otherwise go on to the limit, long after the last operation).
      guard let next = nextHappening() else { return isIdle ? .idle : .stalled(diagnose()) }
      if next.tick > now {
        if let cap, next.tick > cap {
          now = max(now, cap)
          skipUndrawnFrames()
          return .capped
        }
        if let interrupt, processed >= Self.interruptInterval {
          processed = 0
          if interrupt() { return .interrupted }
        }
      }
      happen(next)
      processed += 1
    }
  }
}
