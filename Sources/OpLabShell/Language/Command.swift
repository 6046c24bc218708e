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
  /// `explore [N]`: every order of the open points, up to N (default 1000).
  case explore(limit: Int?)
  /// `order C[,C...]`: the choices at the open points from now on.
  case order([Int])
  /// `choose [K[,K...]]`: show the next open point, or make the choice there (and go on to it).
  case choose([Int])
  /// `choose back`: take back the last choice made at an open point, and show that point again.
  case chooseBack
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

extension Command {
  /// Whether the command only looks at the world (or the help): it changes nothing, so a
  /// lesson lets it run while a question about the world waits for its answer.
  public var onlyLooks: Bool {
    switch self {
    case .timeline, .events, .slots, .narrate, .why, .status, .graph, .swift, .real, .set, .help, .export, .races, .explore, .choose([]): true
    case .machine(cores: nil), .platform(nil): true
    default: false
    }
  }
}
