/// A world with its history: time travel and what-if forks.
///
/// Every performed ``Action`` is appended to a journal. Going back to tick `T`
/// replays the journal from the nearest checkpoint at or before `T`, stopping the
/// clock at `T`; checkpoints are taken at growing intervals of the trace, so time
/// travel never copies the world per tick. Checkpoints are immutable and shared by every
/// copy, and the journal is a ``SharedLog``, so a ``Bookmark`` (the journal and the
/// checkpoints, no world) costs O(1) to take and keep: a shell keeps one per `fork` and
/// rebuilds the world from it with ``init(restoring:)``. A copy of a whole `Simulation`
/// also keeps its present world, which the first change to either copy duplicates.
///
/// ```swift
/// var sim = Simulation()
/// try sim.perform(.createOperation(OperationSpec(name: "a", duration: 5), dependencies: [], queue: .main))
/// try sim.perform(.runUntilIdle)
/// try sim.rewind(to: 2)   // the world as it was at tick 2
/// let mark = sim.bookmark // a fork: O(1), no world kept
/// try sim.perform(.step(1))
/// sim = try Simulation(restoring: mark)  // the world at the fork, replayed
/// ```
public struct Simulation: Sendable {
  /// The present state.
  public private(set) var world: World
  /// Every action performed, in order.
  public private(set) var journal = SharedLog<Action>()
  /// The newest checkpoint, at or before the journal's end; older ones hang off it.
  private var checkpoint: Checkpoint

  /// The world right after the journal's first `journalCount` actions, and the checkpoint
  /// before it: immutable, so every copy and bookmark of a simulation shares it.
  final class Checkpoint: Sendable {
    let journalCount: Int
    let world: World
    let previous: Checkpoint?
    init(journalCount: Int, world: World, previous: Checkpoint?) {
      self.journalCount = journalCount
      self.world = world
      self.previous = previous
    }

    /// This checkpoint or the newest before it that satisfies `isAt` (the first, at
    /// journal count 0, when none does).
    func latest(where isAt: (Checkpoint) -> Bool) -> Checkpoint {
      var c = self
      while !isAt(c), let p = c.previous { c = p }
      return c
    }
  }

  /// Where a simulation stands, without its world: the journal and the checkpoints, both
  /// shared with the simulation it was taken from. ``Simulation/init(restoring:)`` rebuilds
  /// the world by replaying the journal from the newest checkpoint.
  public struct Bookmark: Sendable {
    public let journal: SharedLog<Action>
    let checkpoint: Checkpoint
  }

  /// The journal and checkpoints now, to come back to (a `fork`). O(1); shares them.
  public var bookmark: Bookmark { Bookmark(journal: journal, checkpoint: checkpoint) }

  /// Checkpoints kept (each a world), counting those already in `seen` as nothing and
  /// adding the rest, so that simulations and bookmarks that share them can be measured together.
  public static func storedCheckpoints(_ bookmark: Bookmark, seen: inout Set<ObjectIdentifier>) -> Int {
    var total = 0
    var c: Checkpoint? = bookmark.checkpoint
    while let k = c, seen.insert(ObjectIdentifier(k)).inserted {
      total += 1
      c = k.previous
    }
    return total
  }

  /// The world the journal starts from (what `explore` replays the journal on).
  public var origin: World { checkpoint.latest { $0.previous == nil }.world }

  /// Starts a simulation from a world (a fresh one by default).
  public init(world: World = World()) {
    self.world = world
    checkpoint = Checkpoint(journalCount: 0, world: world, previous: nil)
  }

  /// The simulation as it was when `bookmark` was taken: its journal and checkpoints, and
  /// its world replayed from the newest checkpoint.
  /// - Throws: an action's ``SimulationError`` (not expected: each ran on the same world before).
  /// - Complexity: replays the actions after the newest checkpoint, like ``truncate(toActions:)``.
  public init(restoring bookmark: Bookmark) throws(SimulationError) {
    journal = bookmark.journal
    checkpoint = bookmark.checkpoint
    world = checkpoint.world
    world = try replayed(upTo: journal.count).world
  }

  /// Lends the present world where it is stored, for reading during `body` only: a world
  /// read through a class that holds a simulation, or through an accessor, was copied for
  /// each call on it, retaining each of its arrays (#34).
  public mutating func withWorldInPlace<R>(_ body: (UnsafePointer<World>) -> R) -> R {
    withUnsafePointer(to: &world, body)
  }

  /// Lends the present world for reading during `body`, borrowed: as
  /// ``withWorldInPlace(_:)``, for a call on the world itself (read through a pointer, its
  /// `self` was copied).
  public mutating func withWorldBorrowed<R>(_ body: (borrowing World) -> R) -> R {
    body(world)
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
    guard tick >= 0 else { throw .invalidTick(.beforeZero) }
    guard tick <= world.now else { throw .tickNotReached(requested: tick, now: world.now) }
    let start = checkpoint.latest { $0.world.now <= tick }
    guard start.world.now <= tick else { return false }
    var cut = false
    var replay = start.world
    var kept = journal
    kept.truncate(to: start.journalCount)
    for action in journal.elements(from: start.journalCount) {
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
    checkpoint = start
    return cut
  }

  /// The world right after the journal's first `count` actions, replayed from the nearest
  /// checkpoint at or before them.
  /// (The first checkpoint, at journal count 0, always qualifies.)
  private func replayed(upTo count: Int) throws(SimulationError) -> (world: World, checkpoint: Checkpoint) {
    let start = checkpoint.latest { $0.journalCount <= count }
    var replay = start.world
    for action in journal.elements(from: start.journalCount, to: count) { _ = try replay.perform(action) }
    return (replay, start)
  }

  /// Keeps only the first `count` actions of the journal: the world as it was right after
  /// them (undo). Replays from the nearest checkpoint at or before that point.
  public mutating func truncate(toActions count: Int) throws(SimulationError) {
    guard count >= 0, count < journal.count else { return }
    let (replay, start) = try replayed(upTo: count)
    world = replay
    journal.truncate(to: count)
    checkpoint = start
  }

  /// Goes back `ticks` ticks (not before tick 0).
  /// - Returns: as ``rewind(to:)``.
  @discardableResult
  public mutating func back(_ ticks: Tick = 1) throws(SimulationError) -> Bool {
    guard ticks >= 0 else { throw .invalidTick(.negativeBack(ticks)) }
    return try rewind(to: max(0, world.now - ticks))
  }

  private mutating func checkpointIfDue() {
    let last = checkpoint.world.trace.count
    let grown = world.trace.count - last
    if grown >= 256 && grown >= last / 4 {
      checkpoint = Checkpoint(journalCount: journal.count, world: world, previous: checkpoint)
    }
  }
}
