/// The simulated machine: CPU cores that run the work, and the main thread the user
/// interface needs.
///
/// With unlimited cores (the default) every unit of work progresses one tick of work per
/// tick, whatever else runs. With `N` cores, when more than `N` units of work run at once
/// they share the cores, weighted by quality of service, so each progresses by a share of
/// a tick and its duration stretches.
///
/// Everything is integer and deterministic:
/// - A core gives ``subTicks`` units of work per tick (720,720, the least common multiple
///   of 1…16, so every share of 1/2 … 1/16 is exact). A duration of `d` ticks is
///   `d × subTicks` units.
/// - Shares are set whenever the set of running work changes, and stay fixed until the
///   next change. Running units are taken heaviest first (then in the order they started);
///   each gets `min(subTicks, spare × weight ÷ remaining weight)`, rounded down, where
///   `spare` is the capacity not yet given out (`cores × subTicks` at first). So no unit
///   gets more than one core, a unit that cannot use its full share leaves the rest to
///   the others, and the units never get more than the cores have.
/// - The trace records each operation's share when it changes, while at most
///   ``shareRecordLimit`` units run; beyond that only the machine's load is recorded, so a
///   world with thousands of operations on two cores keeps a trace linear in its size.
/// - A unit finishes at the first tick by whose end its work is done (the rest of that
///   tick is not given to anyone else).
public enum Machine {
  /// Units of work one core does in one tick.
  public static let subTicks: Int64 = 720_720
  /// The most units of work running at once for which per-operation shares are recorded.
  public static let shareRecordLimit: Int32 = 256
  /// The most cores a machine can have.
  public static let maxCores = 1024

  /// Work per tick in words: "a full core", "1/3 of a core", "2 cores", "94% of a core".
  public static func describe(_ share: Int64) -> String {
    if share == subTicks { return "a full core" }
    if share > 0, share % subTicks == 0 { return "\(share / subTicks) cores" }
    if share > subTicks { return "\(String(format1: Double(share) / Double(subTicks))) cores" }
    for d: Int64 in 2...16 where (share * d) % subTicks == 0 {
      return "\(share * d / subTicks)/\(d) of a core"
    }
    let percent = max(1, min(99, Int((share * 100 + subTicks / 2) / subTicks)))
    return "\(percent)% of a core"
  }

  /// The weight a unit of work carries when the cores are shared: each level of quality
  /// of service counts twice the one below it.
  public static func weight(of qos: QualityOfService) -> Int64 {
    switch qos {
    case .background: 1
    case .utility: 2
    case .default: 4
    case .userInitiated: 8
    case .userInteractive: 16
    }
  }
}

extension String {
  /// A number with one decimal, without Foundation.
  init(format1 value: Double) {
    let tenths = Int((value * 10).rounded())
    self = "\(tenths / 10).\(tenths % 10)"
  }
}

/// Work that needs the main thread without being an operation the learner defined.
public enum MainThreadWork: Hashable, Sendable {
  /// A tap: one tick of user-interface work, answered when the main thread gets to it.
  case tap
  /// A frame the display asks for: one tick of drawing; dropped when it cannot start
  /// before the next frame is due.
  case frame
  /// `waitUntilAllOperationsAreFinished()` called on the main thread, for one queue or for
  /// every queue: the main thread is blocked until it returns.
  case wait(QueueID?)
  /// `waitUntilFinished()` called on the main thread on some operations, one after another
  /// (`wait OP from main`, `add A,B wait from main`): the main thread is blocked until they
  /// have all finished. The operations are ``World/callTargets(of:)``.
  case waitForOperations
  /// `start()` called by hand on the main thread: the operation (``World/callTargets(of:)``)
  /// starts when the main thread gets to the call, and a synchronous one runs there, so the
  /// call holds the main thread until it finishes.
  case start

  /// The compact form an operation record stores: a queue's index for a wait on it, and
  /// negative codes for the rest (``noneCode`` for no main-thread work).
  var code: Int32 {
    switch self {
    case .tap: -2
    case .frame: -3
    case .wait(nil): -4
    case .waitForOperations: -5
    case .start: -6
    case .wait(let q?): q.index
    }
  }
  static let noneCode: Int32 = -1

  @inline(__always) init?(code: Int32) {
    switch code {
    case Self.noneCode: return nil
    case -2: self = .tap
    case -3: self = .frame
    case -4: self = .wait(nil)
    case -5: self = .waitForOperations
    case -6: self = .start
    default: self = .wait(QueueID(Int(code)))
    }
  }
}

/// The display's frame requests: `frames every N from T to T`.
public struct FrameClock: Hashable, Sendable {
  /// Ticks between two frames.
  public var every: Tick
  /// When the next frame is due.
  public var next: Tick
  /// The last tick a frame may be due at; `nil`: frames come as long as the world has
  /// other work (a run until idle does not wait for them).
  public var until: Tick?
  /// The frame due before the next one, if it has not started yet.
  var waiting: OpID?
  /// Frames brought so far.
  var count = 0

  /// Creates a frame clock.
  public init(every: Tick, next: Tick, until: Tick?) {
    self.every = every
    self.next = next
    self.until = until
  }
}

/// A unit of work running on the CPU model: an operation's `main()`, one of a block
/// operation's blocks, a completion block, or user-interface work.
struct CPUJob: Sendable {
  enum Work: Hashable, Sendable {
    case main(OpID)
    case block(OpID, Int32)
    case completion(OpID)

    var op: OpID {
      switch self {
      case .main(let op), .block(let op, _), .completion(let op): op
      }
    }
  }

  var work: Work
  /// What happens when the work is done.
  var action: Wakeup.Action
  /// Units of work in all, and done so far.
  var total: Int64
  var done: Int64 = 0
  /// When set, the operation's code checks `isCancelled` once this much work is done.
  var checkAt: Int64?
  var weight: Int64
  /// Units of work done per tick at the current share.
  var rate: Int64 = 0
  /// Start order, for ties.
  var serial: Int
}

/// The CPU model's state inside a ``World``.
struct CPUState: Sendable {
  /// `nil`: unlimited.
  var cores: Int?
  /// Whether work runs as ``CPUJob``s. Set once cores are first limited; a world that never
  /// limits them schedules work exactly as the plain simulator does.
  var engaged = false
  var jobs: [CPUJob] = []
  /// The tick `done` was last brought up to date at.
  var syncedAt: Tick = 0
  /// Whether the shares must be recomputed before the clock moves.
  var dirty = false
  var generation: UInt32 = 0
  var nextSerial = 0
  /// The work per tick last recorded.
  var recordedUsed: Int64 = 0
  /// Per operation, the work per tick last recorded (absent: a full core per unit, or not running).
  var recordedShare: [OpID: Int64] = [:]
  /// Running units per weight class: index `k` counts units of weight `1 << k`.
  var unitsByWeight: [Int] = [0, 0, 0, 0, 0]
  /// Whether every unit has work left before its end and its cancellation check, so the
  /// next CPU wake-up is after `now` (kept conservatively: `false` may be wrong, `true` not).
  var nothingDueNow = true
  /// Set by a deferred recomputation (see `World.flushCPU()`): the sequence number its
  /// wake-up was given. The units' `rate`s are not up to date, and the wake-up is not in the
  /// agenda yet; both are settled before the clock moves or a rate is read.
  var deferredWakeup: Int?
  /// Whether recomputations may be deferred (tests turn it off to compare the two ways).
  var defers = true
  /// Units given their share one by one so far, over all recomputations: the work they
  /// cost, which tests bound.
  var unitsShared = 0
}
