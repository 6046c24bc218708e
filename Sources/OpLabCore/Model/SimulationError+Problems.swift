/// What is wrong with an operation's definition or its steps, as data: worded by
/// ``SimulationError/description``.
public enum SpecProblem: Hashable, Sendable {
  /// A length of work below 0 or above ``OperationSpec/maxDuration``.
  case ticksOutOfRange(SpecPart, ticks: Tick)
  /// `cancel-check every N` with N below 1.
  case cancelCheckPeriod(Int)
  /// `fails at` outside the operation's work.
  case failsOutsideWork(at: Tick, duration: Tick)
  /// A BlockOperation with no block.
  case noBlocks
  /// A BlockOperation's blocks that add up past ``OperationSpec/maxDuration``.
  case blocksTooLong
  /// An operation's work (`does`) or a completion block (`completion does`) with no step.
  case noSteps(SpecPart)
  /// More steps than ticks of work: a step takes a tick.
  case moreStepsThanTicks(steps: Int, duration: Tick)
  /// An `unlock` of a lock the operation did not lock before it.
  case unlockBeforeLock(String)
  /// `compute` steps whose amounts could take a value past `Int`'s range, where Swift's
  /// `+` traps: from `variable`'s starting value (`nil`: 0, no variable in particular),
  /// by `total` in all (`nil`: more than `Int.max`).
  case computeOverflow(variable: String?, start: Int, total: Int?)
  /// An `add OP` step naming no operation.
  case addsUnknownOperation(String)
  /// An `add OP` step naming an operation already in a queue.
  case addsQueuedOperation(String)
  /// A step naming no shared variable.
  case unknownVariable(String)
  /// A step naming no lock.
  case unknownLock(String)
  /// A lock step in a completion block.
  case lockInCompletion(String)
  /// A completion block set on an operation that has started.
  case completionAfterStart(String)

  /// The sentence a learner reads.
  public var description: String {
    switch self {
    case .ticksOutOfRange(let part, let ticks):
      ticks < 0
        ? "\(part.phrase) takes 0 or more ticks, not \(ticks)"
        : "\(part.phrase) takes at most \(OperationSpec.maxDuration) ticks, not \(ticks)"
    case .cancelCheckPeriod(let n): "cancel-check every N needs N of at least 1, not \(n)"
    case .failsOutsideWork(let f, let duration):
      "fails at \(f) is outside the operation's \(duration) \(duration == 1 ? "tick" : "ticks") of work"
    case .noBlocks: "a BlockOperation needs at least one block"
    case .blocksTooLong: "a BlockOperation's blocks take at most \(OperationSpec.maxDuration) ticks in all"
    case .noSteps(let part): part == .completionBlock ? "`completion does` needs at least one step" : "`does` needs at least one step"
    case .moreStepsThanTicks(let steps, let duration):
      "\(steps) steps take \(steps) ticks (one a tick), more than the operation's \(duration): use takes \(steps) or more"
    case .unlockBeforeLock(let l):
      "`unlock \(l)` comes before any `lock \(l)` of this operation: only the thread that locked an NSLock may unlock it"
    case .computeOverflow(let variable, let start, let total):
      (variable.map { "\($0) starts at \(start) and the compute steps" } ?? "the compute steps")
        + " add up to \(total.map(String.init) ?? "more than \(Int.max)") in size, so a value could go past "
        + "\(start < 0 ? "Int.min" : "Int.max"), where Swift's + traps (the program crashes: arithmetic overflow); "
        + "use smaller numbers"
    case .addsUnknownOperation(let name): "there is no operation named '\(name)': define it first with `op \(name) … hold`"
    case .addsQueuedOperation(let name):
      "\(name) is already in a queue, and an operation can be added only once: define it with `hold` for a step to add it"
    case .unknownVariable(let v): "there is no shared variable named '\(v)': create it first with `var \(v) = 0`"
    case .unknownLock(let l): "there is no lock named '\(l)': create it first with `lock \(l)`"
    case .lockInCompletion(let l): "a completion block in the lab takes no locks (`lock \(l)`): take the lock in an operation's work"
    case .completionAfterStart(let name): "\(name) has started: set its completion block before it runs"
    }
  }
}

/// The part of an operation a ``SpecProblem`` is about.
public enum SpecPart: Hashable, Sendable {
  case operation, block, completionBlock

  var phrase: String {
    switch self {
    case .operation: "an operation"
    case .block: "a block"
    case .completionBlock: "a completion block"
    }
  }
}

/// What is wrong with a tick or a number of ticks, as data: worded by
/// ``SimulationError/description``.
public enum TickProblem: Hashable, Sendable {
  /// A tick before the clock.
  case inThePast(Tick, now: Tick)
  /// A tick past ``World/maxTick``.
  case pastLastTick(Tick)
  /// `step` by a negative number of ticks.
  case negativeStep(Tick)
  /// `back` by a negative number of ticks.
  case negativeBack(Tick)
  /// `step N` that would move the clock past ``World/maxTick``.
  case stepPastLastTick(Tick)
  /// A tick before 0.
  case beforeZero
  /// Frames every N with N outside 1 to ``OperationSpec/maxDuration``.
  case framePeriod(Tick)
  /// Frames that would end before they start.
  case framesEndBeforeStart(until: Tick, first: Tick)
  /// More frames than ``World/maxFrames``.
  case tooManyFrames(Tick)

  /// The tick or number of ticks the problem is about, as typed.
  public var tick: Tick? {
    switch self {
    case .inThePast(let t, _), .pastLastTick(let t), .negativeStep(let t), .negativeBack(let t), .stepPastLastTick(let t),
      .framePeriod(let t):
      t
    case .framesEndBeforeStart(let until, _): until
    case .beforeZero, .tooManyFrames: nil
    }
  }

  /// The sentence a learner reads.
  public var description: String {
    switch self {
    case .inThePast(let tick, let now): "tick \(tick) is in the past (the clock is at \(now))"
    case .pastLastTick(let tick): "tick \(tick) is past the last tick (\(World.maxTick))"
    case .negativeStep(let ticks): "step takes 0 or more ticks, not \(ticks)"
    case .negativeBack(let ticks): "back takes 0 or more ticks, not \(ticks)"
    case .stepPastLastTick(let ticks): "step \(ticks) would move the clock past the last tick (\(World.maxTick))"
    case .beforeZero: "there is no tick before 0"
    case .framePeriod(let every): "frames come every 1 to \(OperationSpec.maxDuration) ticks, not \(every)"
    case .framesEndBeforeStart(let until, let first): "the frames would end (t=\(until)) before they start (t=\(first))"
    case .tooManyFrames(let count):
      "that is \(count) frames; the lab draws at most \(World.maxFrames) (use a longer period or an earlier end)"
    }
  }
}
