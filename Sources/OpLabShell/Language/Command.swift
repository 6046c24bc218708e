import OpLabCore

/// A parsed command line: what the learner asked for, typed.
public enum Command: Hashable, Sendable {
  /// `queue NAME [max N|default] [qos Q]`: create, or change an existing queue.
  case queue(name: String, max: MaxSetting?, qos: QualityOfService?)
  /// `op NAME ...`: define an operation.
  case op(OperationDefinition)
  /// `add OP[,OP...] [to QUEUE] [wait [from main] [until T]]`: one operation without a wait is
  /// `addOperation(_:)`; a list, or a wait, is `addOperations(_:waitUntilFinished:)`.
  case add(ops: [String], queue: String?, wait: WaitCaller? = nil)
  /// `depend OP on A[,B...]`.
  case depend(op: String, on: [String])
  /// `undepend OP on A`.
  case undepend(op: String, on: String)
  /// `priority OP P`.
  case priority(op: String, QueuePriority)
  /// `qos OP|QUEUE Q`.
  case qos(target: String, QualityOfService)
  /// `max QUEUE N|default`.
  case max(queue: String, MaxSetting)
  /// `cancel OP`.
  case cancel(op: String)
  /// `cancel all [QUEUE]`: one queue, or every queue when `nil`.
  case cancelAll(queue: String?)
  /// `suspend QUEUE`.
  case suspend(queue: String)
  /// `resume QUEUE`.
  case resume(queue: String)
  /// `barrier QUEUE [takes N]`.
  case barrier(queue: String, takes: Int)
  /// `wait [QUEUE|OP] [from main [until T]]`: `waitUntilAllOperationsAreFinished()` on a
  /// queue (or every queue), or `waitUntilFinished()` on an operation.
  case wait(target: String?, fromMain: Bool, until: Tick? = nil)
  /// `start OP`: `start()` called by hand on the main thread.
  case start(op: String)
  /// `blocks OP +D`: `addExecutionBlock(_:)` with a block of D ticks.
  case blocks(op: String, adding: Int)
  /// `open GATE`: the gate opens, and the operations waiting for it post KVO for `isReady`.
  case open(gate: String)
  /// `machine [cores N|unlimited]`: `nil` shows the machine; `.some(nil)` is unlimited.
  case machine(cores: Int??)
  /// `tap [at T]`: `nil` is now.
  case tap(at: Int?)
  /// `frames every N [from T] [to T]`, or `frames off` (`every == nil`).
  case frames(every: Int?, from: Int?, to: Int?)
  /// `step [N]`.
  case step(Int)
  /// `run [until T | until OP]`.
  case run(RunTarget)
  /// `back [N]`.
  case back(Int)
  /// `goto T`.
  case goto(Int)
  /// `undo`.
  case undo
  /// `redo`: what the last `undo` took back.
  case redo
  /// `clear`: the screen, not the world.
  case clear
  /// `fork`.
  case fork
  /// `unfork`.
  case unfork
  /// `timeline [QUEUE...] [from T] [to T]`.
  case timeline(queues: [String], from: Int?, to: Int?)
  /// `events [OP]`.
  case events(op: String?)
  /// `slots QUEUE`.
  case slots(queue: String)
  /// `narrate [OP]`.
  case narrate(op: String?)
  /// `why OP`.
  case why(op: String)
  /// `status`.
  case status
  /// `graph`.
  case graph
  /// `swift [OP|QUEUE]`: the Swift behind what was typed.
  case swift(target: String?)
  /// `set [swift-echo on|off]`: a lab setting; alone, show them.
  case set(swiftEcho: Bool?)
  /// `real [N]`: the world on Foundation's OperationQueue, N ms a tick (default 50).
  case real(msPerTick: Int?)
  /// `export KIND FILE`.
  case export(ExportKind, file: String)
  /// `save FILE`.
  case save(file: String)
  /// `source FILE`.
  case source(file: String)
  /// `reset`.
  case reset
  /// `platform [apple|linux]`: without an argument, shows the current one.
  case platform(Platform?)
  /// `help [COMMAND]`.
  case help(command: String?)
  /// `quit`.
  case quit
  /// `var NAME [= N]`: a shared integer variable.
  case variable(name: String, initial: Int)
  /// `lock NAME`: an NSLock.
  case lock(name: String)
  /// `races`: the race detector's report.
  case races
  /// `explore [N]`: every order of the open points, up to N (default ``World/exploreLimit``).
  case explore(limit: Int?, expect: ExploreExpectation?, preemptions: Int?)
  /// `order C[,C...]`: the choices at the open points from now on.
  case order([Int])
  /// `choose [K[,K...]]`: show the next open point, or make the choice there (and go on to it).
  case choose([Int])
  /// `choose back`: take back the last choice made at an open point, and show that point again.
  case chooseBack
  /// `dispatch NAME [serial|concurrent] [qos Q]`: a `DispatchQueue`.
  case dispatchQueue(name: String, concurrent: Bool, qos: QualityOfService?)
  /// `underlying QUEUE DISPATCHQ|nil`: the queue's `underlyingQueue`.
  case underlying(queue: String, dispatchQueue: String?)
}

/// A `maxConcurrentOperationCount` setting.
public enum MaxSetting: Hashable, Sendable {
  /// −1: no limit.
  case `default`
  /// A fixed limit (0 runs nothing).
  case count(Int)

  /// As the core takes it.
  public var value: Int? {
    switch self {
    case .default: nil
    case .count(let n): n
    }
  }
}

/// Who waits for `add … wait`: the lab's own thread, or the main thread; `until` stops
/// the lab's clock there if the wait has not returned (what a wait cut short is saved as).
public struct WaitCaller: Hashable, Sendable {
  public var fromMain: Bool
  public var until: Tick?

  public init(fromMain: Bool, until: Tick? = nil) {
    self.fromMain = fromMain
    self.until = until
  }
}

/// What `run` runs until.
public enum RunTarget: Hashable, Sendable {
  /// Idle or stalled.
  case idle
  /// A tick.
  case tick(Int)
  /// An operation finishing.
  case op(String)
}

/// What `export` writes.
public enum ExportKind: String, Hashable, Sendable, CaseIterable {
  case timeline, events, trace, mermaid, swift
}

/// Everything `op` says about a new operation.
public struct OperationDefinition: Hashable, Sendable {
  /// The operation itself.
  public var spec: OperationSpec
  /// `on QUEUE`, if given.
  public var queue: String?
  /// `after A,B`.
  public var dependencies: [String]
  /// `hold`: define only, do not enqueue.
  public var hold: Bool
  /// More operations defined alike, `op a,b,c …` (the spec's name is the first): added
  /// together with one `addOperations`.
  public var alike: [String] = []
  /// `gate G`: its `isReady` also waits for this gate.
  public var gate: String?
  /// `completion does …`: its completion block, written as steps.
  public var completionSteps: [Step]?

  /// Creates a definition.
  public init(spec: OperationSpec, queue: String? = nil, dependencies: [String] = [], hold: Bool = false) {
    self.spec = spec
    self.queue = queue
    self.dependencies = dependencies
    self.hold = hold
  }
}

/// What a command does to a session besides its output: whether it is saved, journalled,
/// undoable, exported and played by `real`, what it does to the history, and whether its
/// output may page. One exhaustive switch (``Command/traits``) decides it for every command.
public struct CommandTraits: Hashable, Sendable {
  /// What the command does to the world and its history.
  public enum Effect: Hashable, Sendable {
    /// Looks at the world (or the help) and changes nothing: a lesson runs it while a
    /// question waits for its answer.
    case looks
    /// Changes neither the world nor its history, but acts on the session (the screen, a
    /// file, leaving).
    case session
    /// Changes the world: saved, journalled, undoable; its actions are what `swift`
    /// exports and `real` plays.
    case changesWorld
    /// Moves back along the present history (`back`, `goto`): what it drops stays for `redo`.
    case travels
    /// Takes back the last change (`undo`, `choose back`).
    case takesBack
    /// Gives back what `undo` or time travel took (`redo`).
    case givesBack
    /// Starts or ends a branch of history, or a new world (`fork`, `unfork`, `reset`).
    case branches
    /// Runs other commands (`source`): each is journalled as it runs.
    case runsScript
  }

  /// What it does to the world and its history.
  public var effect: Effect
  /// Whether its output may go through the pager.
  public var pages = false

  /// Whether the command only looks at the world (or the help).
  public var onlyLooks: Bool { effect == .looks }
  /// Whether it changes the world (and so is saved, journalled and undoable).
  public var changesWorld: Bool { effect == .changesWorld }

  /// Whether `redo` may still give back what the last time travel dropped after it: yes for
  /// what only looks or acts on the session, and for travel itself (which keeps the first
  /// world); no for anything that changes the world or its history.
  public var keepsTravel: Bool {
    switch effect {
    case .looks, .session, .travels, .givesBack: true
    case .changesWorld, .takesBack, .branches, .runsScript: false
    }
  }

  /// Whether, done, it leaves nothing for `redo`: a new change to the world, or time travel
  /// (what was undone belonged to a world that is no longer there).
  public var forgetsUndone: Bool {
    switch effect {
    case .changesWorld, .travels, .branches, .runsScript: true
    case .looks, .session, .takesBack, .givesBack: false
    }
  }

  /// Whether the session journal keeps the line as typed (time travel and branches: from
  /// the same world they do the same again) rather than as what it did to the world.
  public var journalledAsTyped: Bool {
    switch effect {
    case .travels, .takesBack, .branches: true
    case .looks, .session, .changesWorld, .givesBack, .runsScript: false
    }
  }
}

extension Command {
  /// What the command does to a session: an exhaustive switch, so a new command cannot
  /// be added without saying whether it is saved, undoable, exported and played.
  public var traits: CommandTraits {
    switch self {
    case .queue, .op, .add, .depend, .undepend, .priority, .qos, .max, .cancel, .cancelAll, .suspend, .resume,
      .barrier, .wait, .start, .blocks, .open, .tap, .frames, .step, .run, .variable, .lock, .dispatchQueue, .underlying:
      CommandTraits(effect: .changesWorld)
    case .order(let choices):
      CommandTraits(effect: choices.isEmpty ? .looks : .changesWorld)
    case .machine(let cores):
      CommandTraits(effect: cores == nil ? .looks : .changesWorld)
    case .platform(let platform):
      CommandTraits(effect: platform == nil ? .looks : .changesWorld)
    case .choose(let choices):
      CommandTraits(effect: choices.isEmpty ? .looks : .changesWorld)
    case .timeline, .events, .slots, .narrate, .why, .status, .graph, .swift, .real, .help:
      CommandTraits(effect: .looks, pages: true)
    case .explore(_, let expectation, _):
      // With `expect`, it loads the order that breaks it, as time travel does.
      CommandTraits(effect: expectation == nil ? .looks : .travels)
    case .set, .export, .races:
      CommandTraits(effect: .looks)
    case .clear, .save, .quit:
      CommandTraits(effect: .session)
    case .back, .goto:
      CommandTraits(effect: .travels)
    case .undo, .chooseBack:
      CommandTraits(effect: .takesBack)
    case .redo:
      CommandTraits(effect: .givesBack)
    case .fork, .unfork, .reset:
      CommandTraits(effect: .branches)
    case .source:
      CommandTraits(effect: .runsScript)
    }
  }

  /// Whether the command only looks at the world (or the help): it changes nothing, so a
  /// lesson lets it run while a question about the world waits for its answer.
  public var onlyLooks: Bool { traits.onlyLooks }
}
