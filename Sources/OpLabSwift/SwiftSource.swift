import OpLabCore

/// What the Swift generator reads: the lines that made a world, each with its slice of the
/// core's journal.
///
/// The shell's script says which journal actions each typed line performed (its entries end
/// at a journal count); replaying those actions from the journal's origin, which the core
/// does the same way every time, gives the tick each line ran at and the world's names.
/// The generator switches over ``OpLabCore/Action`` and nothing else: a command that lowers
/// to actions has its Swift, whatever the shell calls it.
///
/// ```swift
/// let source = SwiftSource(origin: sim.origin, script: script, journal: sim.journal)
/// print(SwiftCode.render(source))
/// ```
public struct SwiftSource: Sendable {
  /// One typed line and what it did.
  public struct Entry: Sendable {
    /// The line as typed (canonical): the `// …` comment above its code.
    public var text: String
    /// The journal actions it performed, in order.
    public var actions: [Action]
    /// The tick it ran at.
    public var tick: Tick
    /// The tick when it returned: later than `tick` for a run or a wait.
    public var end: Tick
    /// A wait of the line could never return: the lab stopped it at `end` (the real call
    /// would block for ever).
    public var waitStalled = false

    /// Creates an entry.
    public init(text: String, actions: [Action], tick: Tick, end: Tick) {
      self.text = text
      self.actions = actions
      self.tick = tick
      self.end = end
    }

    /// The entry of a line whose `actions` ran in `world` from its state `before` (its
    /// clock, its trace's end) to its present: what the line took, whether a wait stalled.
    /// - Complexity: the events the line added.
    public init(text: String, actions: [Action], from before: (tick: Tick, traced: Int), in world: World) {
      self.init(text: text, actions: actions, tick: before.tick, end: world.now)
      waitStalled = world.trace.events(from: before.traced).contains { $0.kind == .waitStalled }
    }

    /// The operation or queue it makes, for pointing at `swift NAME`.
    public var subject: String? {
      for action in actions {
        if case .createOperation(let spec, _, _) = action { return spec.name }
        if case .createQueue(let name, _, _) = action { return name }
      }
      return nil
    }
  }

  /// The lines, in the order they ran.
  public var entries: [Entry]
  /// The world after them: the names of the operations and queues their actions refer to.
  public var world: World

  /// Creates a source from entries already cut, and the world they made.
  public init(entries: [Entry], world: World) {
    self.entries = entries
    self.world = world
  }

  /// Cuts `journal` into the entries of `script` and replays it from `origin`, for each
  /// entry's ticks and for the names.
  /// - Parameters:
  ///   - origin: the world the journal starts from (``OpLabCore/Simulation/origin``).
  ///   - script: each line with the journal's count after it, in order.
  ///   - journal: every action performed since `origin`.
  /// - Complexity: replays the journal once.
  public init(
    origin: World, script: some Sequence<(text: String, journalEnd: Int)>, journal: SharedLog<Action>
  ) {
    var world = origin
    var start = 0
    var entries: [Entry] = []
    for (text, end) in script {
      let actions = end > start ? journal.elements(from: start, to: end) : []
      let before = (tick: world.now, traced: world.trace.endIndex)
      // The journal replays as it ran: the core is deterministic, so nothing throws here.
      for action in actions { _ = try? world.perform(action) }
      entries.append(Entry(text: text, actions: actions, from: before, in: world))
      start = Swift.max(start, end)
    }
    self.init(entries: entries, world: world)
  }

  /// The operations one line defines, gathered from its actions (`createOperation`, then
  /// `gate`, `setCompletionSteps` and `enqueue` or `enqueueAll` about them): each made with
  /// its dependencies, its gate and its completion block, then added together, or held.
  /// A reader of the journal writes them whole, as the learner defined them.
  public struct Definition: Sendable {
    /// Each operation made, in order, with the names of its dependencies. More than one
    /// are operations defined alike (`op a,b,c`), added with one `addOperations`.
    public var operations: [(spec: OperationSpec, dependencies: [String])] = []
    /// The queue they are added to; `nil` when they are held in no queue.
    public var queue: String?
    /// The gate each operation's isReady also waits for, by name.
    public var gates: [String: String] = [:]
    /// The completion block of each operation that has one written as steps, by name.
    public var completionSteps: [String: [OpLabCore.Step]] = [:]

    /// An empty definition, filled as a line's actions are read.
    public init() {}

    /// Whether `name` is one of the operations defined.
    public func defines(_ name: String) -> Bool { operations.contains { $0.spec.name == name } }
  }

  /// A line read as a program performs it, the one reading that the Swift printer and the
  /// lowering for `real` (``lowered(playingOn:)``) share: the operations it defines gathered
  /// whole (``Definition``), done after its other actions; its other actions in their
  /// order; then `cancelAllOperations()` on each queue it cancels all of.
  public struct Line: Sendable {
    /// The operations the line defines, made and added together after ``actions``.
    public var definition = Definition()
    /// The line's actions but those gathered into ``definition`` and ``cancelledQueues``, in order.
    public var actions: [Action] = []
    /// The queues the line cancels all operations of, by name, cancelled last.
    public var cancelledQueues: [String] = []

    /// Reads `entry`'s actions, with `world`'s names (a world that has every name they use).
    public init(_ entry: Entry, in world: World) {
      for action in entry.actions {
        switch action {
        case .createOperation(let spec, let dependencies, let queue):
          definition.operations.append((spec, dependencies.map(world.name)))
          if let queue { definition.queue = world.name(queue) }
        case .gate(let op, let gate) where definition.defines(world.name(op)):
          definition.gates[world.name(op)] = gate
        case .setCompletionSteps(let op, let steps) where definition.defines(world.name(op)):
          definition.completionSteps[world.name(op)] = steps
        case .enqueue(let op, let q) where definition.defines(world.name(op)):
          definition.queue = world.name(q)
        case .enqueueAll(let ops, let q, nil) where ops.allSatisfy({ definition.defines(world.name($0)) }):
          definition.queue = world.name(q)
        case .cancelAll(let q):
          cancelledQueues.append(world.name(q))
        default:
          actions.append(action)
        }
      }
    }
  }
}
