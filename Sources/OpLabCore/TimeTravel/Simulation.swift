/// A world with its history: time travel and what-if forks.
///
/// Every performed ``Action`` is appended to a journal. Going back to tick `T`
/// replays the journal from the nearest checkpoint at or before `T`, stopping the
/// clock at `T`; checkpoints are taken at growing intervals of the trace, so time
/// travel never copies the world per tick. A fork is simply a copy: `Simulation`
/// is a value type, and copies share their common history (the journal is a
/// ``SharedLog``, the trace is kept in shared chunks), so a fork followed by a command
/// costs that command, not the history.
///
/// ```swift
/// var sim = Simulation()
/// try sim.perform(.createOperation(OperationSpec(name: "a", duration: 5), dependencies: [], queue: .main))
/// try sim.perform(.runUntilIdle)
/// try sim.rewind(to: 2)   // the world as it was at tick 2
/// var whatIf = sim        // a fork
/// ```
public struct Simulation: Sendable {
  /// The present state.
  public private(set) var world: World
  /// Every action performed, in order.
  public private(set) var journal = SharedLog<Action>()
  private var checkpoints: [Checkpoint]

  private struct Checkpoint: Sendable {
    var journalCount: Int
    var world: World
  }

  /// The world the journal starts from (what `explore` replays the journal on).
  public var origin: World { checkpoints[0].world }

  /// Starts a simulation from a world (a fresh one by default).
  public init(world: World = World()) {
    self.world = world
    checkpoints = [Checkpoint(journalCount: 0, world: world)]
  }

  /// Performs an action on the present world and journals it.
  /// - Throws: the action's ``SimulationError``; nothing changes then.
  /// - Parameter interrupt: asked between ticks during clock actions. An interrupted run is
  ///   journalled as a run to the tick where it stopped, so replays stay exact.
  @discardableResult
  public mutating func perform(_ action: Action, interrupt: Interrupt? = nil) throws(SimulationError) -> ActionResult {
    let (result, completed) = try world.perform(action, interrupt: interrupt)
    if completed {
      journal.append(action)
    } else {
      let cut = action.cut(at: world.now)
      if action.isWait {
        // An interrupted wait is replayed as its cut form from the state before it, which
        // the journal rebuilds (not a copy taken before every wait: on a big world each
        // copy would cost the whole world at its first change).
        world = try replayed(upTo: journal.count).world
        _ = try world.perform(cut)
      }
      journal.append(cut)
    }
    checkpointIfDue()
    return result
  }

  /// Restores the world as it was at `tick`: every action performed while the clock
  /// stood at or before it, and nothing after. The journal is cut to match, so the
  /// future is discarded (fork first to keep it).
  /// - Throws: ``SimulationError/tickNotReached(requested:now:)`` for a future tick, or
  ///   ``SimulationError/invalidTick(_:)`` for a negative one.
  /// - Returns: `true` when a clock action was cut at the tick and replaced by its cut form
  ///   (``Action/cut(at:)``), the journal's last action.
  /// - Complexity: replays at most the actions since the nearest checkpoint.
  @discardableResult
  public mutating func rewind(to tick: Tick) throws(SimulationError) -> Bool {
    guard tick >= 0 else { throw .invalidTick("there is no tick before 0") }
    guard tick <= world.now else { throw .tickNotReached(requested: tick, now: world.now) }
    guard let start = checkpoints.lastIndex(where: { $0.world.now <= tick }) else { return false }
    var cut = false
    var replay = checkpoints[start].world
    var kept = journal
    kept.truncate(to: checkpoints[start].journalCount)
    for action in journal.elements(from: checkpoints[start].journalCount) {
      // A wait records its start; one cut short is replaced by a plain run to the tick,
      // so it must be replayed as that from the state before it.
      let beforeWait: World? = action.isWait ? replay : nil
      let (_, completed) = try replay.perform(action, cap: tick)
      if completed {
        kept.append(action)
      } else {
        let cutForm = action.cut(at: tick)
        if let beforeWait {
          replay = beforeWait
          _ = try replay.perform(cutForm)
        }
        kept.append(cutForm)
        cut = true
        break
      }
    }
    world = replay
    journal = kept
    checkpoints.removeSubrange((start + 1)...)
    return cut
  }

  /// The world right after the journal's first `count` actions, replayed from the nearest
  /// checkpoint at or before them.
  /// (The first checkpoint, at journal count 0, always qualifies.)
  private func replayed(upTo count: Int) throws(SimulationError) -> (world: World, checkpoint: Int) {
    let start = checkpoints.lastIndex(where: { $0.journalCount <= count }) ?? 0
    var replay = checkpoints[start].world
    for action in journal.elements(from: checkpoints[start].journalCount, to: count) { _ = try replay.perform(action) }
    return (replay, start)
  }

  /// Keeps only the first `count` actions of the journal: the world as it was right after
  /// them (undo). Replays from the nearest checkpoint at or before that point.
  public mutating func truncate(toActions count: Int) throws(SimulationError) {
    guard count >= 0, count < journal.count else { return }
    let (replay, start) = try replayed(upTo: count)
    world = replay
    journal.truncate(to: count)
    checkpoints.removeSubrange((start + 1)...)
  }

  /// Goes back `ticks` ticks (not before tick 0).
  /// - Returns: as ``rewind(to:)``.
  @discardableResult
  public mutating func back(_ ticks: Tick = 1) throws(SimulationError) -> Bool {
    guard ticks >= 0 else { throw .invalidTick("back takes 0 or more ticks, not \(ticks)") }
    return try rewind(to: max(0, world.now - ticks))
  }

  private mutating func checkpointIfDue() {
    let last = checkpoints[checkpoints.count - 1].world.trace.count
    let grown = world.trace.count - last
    if grown >= 256 && grown >= last / 4 {
      checkpoints.append(Checkpoint(journalCount: journal.count, world: world))
    }
  }
}
