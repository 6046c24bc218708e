/// The world's shared memory: integer variables, `NSLock`s, and how far each operation
/// written as steps has got (see ``Step``).
///
/// A world without `var` or `lock` has none (``World/shared`` is `nil`), so the kernel's
/// usual paths never touch it.
public struct SharedState: Hashable, Sendable {
  /// Variable names, in creation order (a variable's index is its place here).
  public internal(set) var variableNames: [String] = []
  /// Each variable's value when it was created.
  public internal(set) var initialValues: [Int] = []
  /// Each variable's value now.
  public internal(set) var values: [Int] = []
  /// Lock names, in creation order.
  public internal(set) var lockNames: [String] = []
  /// The operation holding each lock now, if any.
  public internal(set) var holders: [OpID?] = []
  /// The operations waiting for each lock, in the order they began to wait.
  public internal(set) var waiters: [[OpID]] = []
  /// Completion blocks written as steps (`completion does …`), by operation: a side table,
  /// so that an operation's spec, which every operation of a big world carries, stays small.
  public internal(set) var completionSteps: [OpID: [Step]] = [:]
  /// Each started step-by-step operation's progress: its `main()`'s steps, then, once it has
  /// finished, its completion block's (the two never overlap: the block runs after finish).
  var runs = StepRuns()
  /// When set, the order of conflicting steps due at one tick is chosen by it (see
  /// ``StepOrder``), not left to the order they were scheduled in.
  public internal(set) var order: StepOrder?

  /// The index of the variable with this name.
  public func variable(named name: String) -> Int? { variableNames.firstIndex(of: name) }
  /// The index of the lock with this name.
  public func lock(named name: String) -> Int? { lockNames.firstIndex(of: name) }
  /// Whether a variable or a lock has this name.
  public func hasName(_ name: String) -> Bool { variableNames.contains(name) || lockNames.contains(name) }
}

/// The step-by-step operations' progress, by operation: an array by slot, not a dictionary
/// (the kernel reads an operation's progress several times a step, and `explore` runs many
/// steps: hashing each lookup was a profile's top item). It reaches only as far as the last
/// operation that started steps; two are equal when they hold the same progress for the same
/// operations, however far each reaches.
struct StepRuns: Hashable, Sendable {
  private var slots: [StepRun?] = []

  /// The operation's progress, if it has started steps.
  subscript(_ op: OpID) -> StepRun? {
    get { op.slot >= 0 && op.slot < slots.count ? slots[op.slot] : nil }
    set {
      guard op.slot >= 0 else { return }
      if op.slot >= slots.count {
        guard newValue != nil else { return }
        slots.append(contentsOf: repeatElement(nil, count: op.slot + 1 - slots.count))
      }
      slots[op.slot] = newValue
    }
  }

  /// Whether no operation has started steps.
  var isEmpty: Bool { !slots.contains { $0 != nil } }

  static func == (a: StepRuns, b: StepRuns) -> Bool {
    for i in 0..<Swift.max(a.slots.count, b.slots.count) where a[OpID(i)] != b[OpID(i)] { return false }
    return true
  }
  func hash(into h: inout Hasher) {
    for i in slots.indices {
      guard let run = slots[i] else { continue }
      h.combine(i)
      h.combine(run)
    }
  }
}

/// A step-by-step operation's progress: the next step, its register, and the lock it waits for.
struct StepRun: Hashable, Sendable {
  /// The index of the next step to run.
  var next: Int32 = 0
  /// The operation's own register: what `read` loads, `compute` changes and `write` stores.
  var register = 0
  /// The lock it is waiting for, or -1.
  var waitingFor: Int32 = -1
  /// Its wake-up due now is to be skipped: its step ran ahead of it, or was put off a tick.
  var skipNext = false
  /// The steps are the completion block's, not `main()`'s.
  var inCompletion = false
}

/// A point where the real order is open and a ``StepOrder`` chooses, and the choice made.
public struct OpenPoint: Hashable, Sendable {
  /// What is open there.
  public enum Kind: Hashable, Sendable {
    /// Two or more operations have a step due, and the order can matter.
    case steps
    /// A lock (its index) was released with two or more operations waiting for it: NSLock
    /// documents no order in which waiters get it.
    case lock(Int32)
  }

  /// The tick it came at.
  public var tick: Tick
  /// What is open.
  public var kind: Kind
  /// How many choices it had: 0 to `options - 1`.
  public var options: Int
  /// The choice taken.
  public var chosen: Int
  /// At ``Kind/steps``: the operations with a step due, in creation order (choice k ≥ 1
  /// names the k-th). At ``Kind/lock(_:)``: the waiters, the one that waited longest first
  /// (choice 0, what happens without choices), then the others in creation order (choice k
  /// names `candidates[k]`).
  public var candidates: [OpID]
  /// At ``Kind/steps``: each candidate's step due there.
  public var steps: [Step]
  /// At ``Kind/steps``: why the order matters there, one pair that conflicts.
  public var conflict: Conflict?

  /// Two operations whose steps conflict: `first`'s step due now, and `otherStep`, which
  /// `other` has still to take (the same variable with a write, or the same lock).
  public struct Conflict: Hashable, Sendable {
    public var first: OpID
    public var other: OpID
    public var otherStep: Step
  }

  /// The operation choice `k` names (at ``Kind/steps``, `nil` for 0: every one in turn).
  public func candidate(for k: Int) -> OpID? {
    switch kind {
    case .steps: k >= 1 && k <= candidates.count ? candidates[k - 1] : nil
    case .lock: k >= 0 && k < candidates.count ? candidates[k] : nil
    }
  }
}

/// The choices at a world's open points (see ``OpenPoint``).
///
/// At a tick where two or more operations have a step due and the order can matter — one's
/// next step conflicts with a step the other has left (the same variable with a write, or
/// the same lock) — the options are: 0, every due step in the order they were scheduled (what
/// happens without choices); k ≥ 1, only the k-th of them (in creation order) steps now and the
/// others' steps are put off a tick, as if their threads were slower. Each tick at least one
/// step runs, so choosing again at each tick reaches every interleaving of the operations'
/// steps. Ticks where nothing conflicts offer no choice: those steps commute.
///
/// Where an `unlock` leaves two or more operations waiting for the lock, the choice says which
/// takes it: 0, the one that waited longest (what happens without choices), k ≥ 1 the k-th
/// of the others in creation order.
public struct StepOrder: Hashable, Sendable {
  /// The choices to make, in order; past its end, 0.
  public var script: [Int]
  /// Every open point met so far, with the choice taken there.
  public internal(set) var taken: [OpenPoint] = []
  /// The last tick a step choice was made at: one such choice a tick.
  var decidedTick: Tick = -1

  /// An order that makes these choices.
  public init(_ script: [Int] = []) { self.script = script }

  /// The choice for the next open point: the script's, else 0, kept within `options`.
  func nextChoice(options: Int) -> Int {
    let wanted = taken.count < script.count ? script[taken.count] : 0
    return Swift.min(Swift.max(0, wanted), options - 1)
  }

  public static func == (a: StepOrder, b: StepOrder) -> Bool {
    a.script == b.script && a.taken.map(\.options) == b.taken.map(\.options) && a.taken.map(\.chosen) == b.taken.map(\.chosen)
  }
  public func hash(into h: inout Hasher) {
    h.combine(script)
    for t in taken { h.combine(t.options); h.combine(t.chosen) }
  }
}
