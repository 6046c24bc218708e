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
  /// Advances the clock by `ticks`, running everything due on the way (the learner's
  /// `step`; the kernel's own step, one wake-up, is ``step(_:)-(Wakeup)``).
  /// - Throws: ``SimulationError/invalidTick(_:)`` for a negative count or an overflow.
  public mutating func step(_ ticks: Tick = 1) throws(SimulationError) {
    guard ticks >= 0 else { throw .invalidTick(.negativeStep(ticks)) }
    let (target, overflow) = now.addingReportingOverflow(ticks)
    guard !overflow, target <= Swift.max(Self.maxTick, now) else {
      throw .invalidTick(.stepPastLastTick(ticks))
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

  /// Throws unless ``run(until:)`` may run to `tick`.
  func checkRunTarget(_ tick: Tick) throws(SimulationError) {
    guard tick >= now else { throw .invalidTick(.inThePast(tick, now: now)) }
    guard tick <= Self.maxTick || !nothingScheduled else {
      throw .invalidTick(.pastLastTick(tick))
    }
  }

  /// Runs every step due up to and including `target`, then sets the clock to it; the
  /// checks are the caller's (``checkRunTarget(_:)``).
  mutating func advance(to target: Tick) {
    _ = advance(to: target, interrupt: nil)
  }

  /// Like ``advance(to:)``, but asks `interrupt` between ticks.
  /// - Returns: `false` when interrupted (the clock then stands at the last tick it finished).
  mutating func advance(to target: Tick, interrupt: Interrupt?) -> Bool {
    defer { checkInvariants() }
    var processed = 0
    while let next = nextWakeup(), next.tick <= target {
      if let interrupt, next.tick > now, processed >= Self.interruptInterval {
        processed = 0
        if interrupt() { return false }
      }
      step(next)
      processed += 1
    }
    // The clock idles up to the target, but never past the last tick on its own.
    now = max(now, target <= Self.maxTick || !nothingScheduled ? target : Self.maxTick)
    skipUndrawnFrames()
    return true
  }

  /// Runs every step due at the current tick (an action settling); the clock stays, and a
  /// recomputation of the CPU shares may be left for later (see ``shareCPU(deferring:)``).
  mutating func settle() {
    while let next = nextWakeup(deferringShares: true), next.tick <= now { step(next) }
  }

  /// How many wake-ups run between two questions to an ``Interrupt``.
  static let interruptInterval = 1024

  /// Runs until nothing is left to happen, or until nothing more can happen.
  /// - Parameter cap: stop at this tick at the latest.
  /// - Returns: `.idle`, or `.stalled` with a diagnosis of what can never finish.
  /// - Complexity: O(events · log events).
  @discardableResult
  public mutating func runUntilIdle(cap: Tick? = nil, interrupt: Interrupt? = nil) -> RunVerdict {
    defer { checkInvariants() }
    return runLoop(cap: cap, interrupt: interrupt) { world in
      world.nothingScheduled ? (world.isIdle ? .idle : .stalled(world.diagnose())) : nil
    }
  }

  /// Runs until the operation finishes, or until nothing more can happen.
  @discardableResult
  public mutating func run(untilFinished op: OpID, cap: Tick? = nil, interrupt: Interrupt? = nil) -> RunVerdict {
    defer { checkInvariants() }
    return runLoop(cap: cap, interrupt: interrupt) { world in
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
    defer { checkInvariants() }
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

  /// Runs wake-ups one step at a time until `goal` gives a verdict or the cap is reached.
  /// - Parameter goal: asked before each step; it reads the world and must not change it.
  mutating func runLoop(cap: Tick?, interrupt: Interrupt?, goal: (inout World) -> RunVerdict?) -> RunVerdict {
    var processed = 0
    while true {
      let next = nextWakeup()
      // A frame due at this tick belongs to it: it is drawn before any verdict. (The
      // goal is asked between the agenda's wake-ups at one tick, and may stop among them.)
      if let next, next.isFrame, next.tick <= now {
        step(next)
        continue
      }
      if let verdict = goal(&self) { return verdict }
      // Every goal answers once nothing is scheduled, so something is next. Frames without
      // an end come due only while other work remains: a frame's own drawing does not keep
      // the run going (with `frames every 1` each frame ends as the next is due, so they
      // would otherwise go on to the limit, long after the last operation).
      guard let next else { return isIdle ? .idle : .stalled(diagnose()) }
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
      step(next)
      processed += 1
    }
  }
}
