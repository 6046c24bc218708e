/// What `explore` found: every distinct order of the open points, and how they ended.
///
/// Different choices at the open points can give the same order: two runs are the same order
/// when every pair of conflicting accesses happened in the same order in both (see
/// ``World/orderFingerprint(from:ending:numbering:)``). The counts are over distinct orders; ``runs``
/// says how many runs it took to meet them.
public struct Exploration: Hashable, Sendable {
  /// How one order ended.
  public struct Outcome: Hashable, Sendable {
    /// The choices that made it (trailing defaults dropped).
    public var choices: [Int]
    /// Whether the race detector found a data race.
    public var race: Bool
    /// Whether a variable ended differently from the one-at-a-time run.
    public var lostUpdate: Bool
    /// Whether the run stalled in a lock-order deadlock (or a relocked lock).
    public var deadlock: Bool
    /// Whether user-interface work ran off the main thread.
    public var offMainThread: Bool
    /// The variables' values at the end, in creation order.
    public var finalValues: [Int]
    /// Whether anything went wrong.
    public var isBad: Bool { race || lostUpdate || deadlock || offMainThread }
  }

  /// Orders run (some of them the same order as one run before, reached by other choices).
  public var runs = 0
  /// Distinct orders met: what the counts below count.
  public var orders = 0
  /// Whether the learner stopped it (Ctrl-C) before it was done.
  public var interrupted = false
  /// Whether every distinct order was met (the cap on runs was not reached).
  public var complete = false
  /// How many distinct orders ended with a data race, a lost update, a deadlock, ui off the main thread.
  public var races = 0, lostUpdates = 0, deadlocks = 0, offMainThread = 0
  /// Each distinct final state (the variables' values), with how many distinct orders ended in it, in the order first met.
  public var finals: [(values: [Int], count: Int)] = []
  /// The bad outcome with the fewest choices, if any order went wrong: among those that
  /// deadlock or lose an update, if any does (a data race alone, found by happens-before,
  /// is usually in every order).
  public var shortestBad: Outcome?
  /// The order without choices.
  public var first: Outcome?
  /// Runs whose order was met before but that ended otherwise (other values, a race, a
  /// deadlock where the first had none): 0 when the fingerprint is right, which tests check.
  var sameOrderOtherEnd = 0

  /// An exploration that ran nothing.
  public init() {}

  public static func == (a: Exploration, b: Exploration) -> Bool {
    a.runs == b.runs && a.orders == b.orders && a.complete == b.complete && a.races == b.races && a.lostUpdates == b.lostUpdates
      && a.deadlocks == b.deadlocks && a.offMainThread == b.offMainThread && a.finals.map(\.values) == b.finals.map(\.values)
      && a.finals.map(\.count) == b.finals.map(\.count) && a.shortestBad == b.shortestBad && a.first == b.first
  }
  public func hash(into h: inout Hasher) {
    h.combine(runs)
    h.combine(orders)
    h.combine(races)
    h.combine(shortestBad)
  }
}

extension World {
  /// How many runs `explore` makes unless told: every order of three short step-by-step
  /// operations several times over (three increments take 2,320 runs); a release build makes
  /// about 30,000 runs a second of a lesson-sized world.
  public static let exploreLimit = 20_000

  /// Runs the actions again in every distinct order of their open points (see
  /// ``StepOrder``), depth first, up to `limit` runs; each run ends with a run until idle.
  /// - Parameter base: the world the actions start from (a ``Simulation/origin``).
  /// - Parameter interrupt: asked between runs and, during each, between ticks; `true`
  ///   stops the exploration with what it found so far.
  /// - Parameter progress: told after each run the runs made and the distinct orders found
  ///   so far (the caller decides how often to show them).
  ///
  /// Only steps that conflict are permuted (a partial-order reduction: steps that touch
  /// different variables, or only read, commute), so the orders run are the ones that
  /// can differ. Still, different choices can give the same order (one thread held back
  /// at one tick or at the next, before a step that no other touches): a run whose
  /// ``orderFingerprint(from:ending:numbering:)`` was met before adds to ``Exploration/runs`` only,
  /// and the counts are over distinct orders. Each run starts from `base`.
  /// - Complexity: O(limit · the cost of one run).
  public static func explore(
    _ actions: [Action], from base: World, limit: Int = World.exploreLimit, interrupt: Interrupt? = nil,
    progress: ((_ runs: Int, _ orders: Int) -> Void)? = nil
  ) -> Exploration {
    var result = Exploration()
    var script: [Int] = []
    var seen: [OrderFingerprint: Exploration.Outcome] = [:]
    var accessors: [OrderFingerprint.Accessor: Int] = [:]
    while result.runs < Swift.max(1, limit) {
      if result.runs > 0, interrupt?() == true {
        result.interrupted = true
        return result
      }
      var world = base
      world.setStepOrder([])
      world.shared?.order = StepOrder(script)
      var verdict: RunVerdict?
      for action in actions {
        // The exploration makes the choices.
        if case .setStepOrder = action { continue }
        if case .chooseNext = action { continue }
        if let (r, _) = try? world.perform(action, interrupt: interrupt), case .verdict(let v) = r { verdict = v }
      }
      if world.nextEventTick != nil { verdict = world.runUntilIdle(interrupt: interrupt) }
      if verdict == .interrupted {
        result.interrupted = true
        return result
      }
      let taken = world.shared?.order?.taken ?? []
      let report = world.raceReport()
      var deadlock = false
      if case .stalled(let d)? = verdict { deadlock = !d.lockCycles.isEmpty }
      var choices = taken.map(\.chosen)
      while choices.last == 0 { choices.removeLast() }
      let outcome = Exploration.Outcome(
        choices: choices, race: !report.races.isEmpty, lostUpdate: !report.lostUpdates.isEmpty, deadlock: deadlock,
        offMainThread: !report.offMainThread.isEmpty, finalValues: world.shared?.values ?? [])
      result.runs += 1
      if result.first == nil { result.first = outcome }
      // The same order as a run before (other choices, same conflicting accesses in the same
      // order) ends the same way: counted once.
      let fingerprint = world.orderFingerprint(from: base.trace.count, ending: verdict, numbering: &accessors)
      if let before = seen[fingerprint] {
        var same = outcome
        same.choices = before.choices
        if same != before { result.sameOrderOtherEnd += 1 }
      } else {
        seen[fingerprint] = outcome
        result.orders += 1
        if outcome.race { result.races += 1 }
        if outcome.lostUpdate { result.lostUpdates += 1 }
        if outcome.deadlock { result.deadlocks += 1 }
        if outcome.offMainThread { result.offMainThread += 1 }
        if let i = result.finals.firstIndex(where: { $0.values == outcome.finalValues }) {
          result.finals[i].count += 1
        } else {
          result.finals.append((outcome.finalValues, 1))
        }
      }
      progress?(result.runs, result.orders)
      // Every run may give the shortest replay, a repeated order too (its choices may be fewer).
      if outcome.isBad {
        func failed(_ o: Exploration.Outcome) -> Bool { o.deadlock || o.lostUpdate }
        let better =
          result.shortestBad.map { best in
            failed(outcome) != failed(best) ? failed(outcome) : outcome.choices.count < best.choices.count
          } ?? true
        if better { result.shortestBad = outcome }
      }
      // The next order: the last choice point with an option left takes its next one.
      guard let i = taken.indices.last(where: { taken[$0].chosen + 1 < taken[$0].options }) else {
        result.complete = true
        return result
      }
      script = taken[..<i].map(\.chosen) + [taken[i].chosen + 1]
    }
    return result
  }
}

/// Which order a run took, up to the order of accesses that commute (a Mazurkiewicz trace):
/// two runs with equal fingerprints did every pair of conflicting accesses in the same order,
/// so they end alike (the same values, races, deadlocks).
struct OrderFingerprint: Hashable, Sendable {
  /// Per variable (by index), its accesses in order: each write, with the reads between two
  /// writes as a sorted set (reads commute). An access is `2 × thread` for a read, `2 × thread + 1`
  /// for a write, `thread` numbering the accessors (``Accessor``) in the order first met in
  /// the exploration (one numbering for all its runs).
  var variables: [[Int]] = []
  /// Per lock (by index), who took it, in order.
  var locks: [[Int]] = []
  /// The operations that took a step on shared state, in the order they started (what a
  /// queue with a limit let in first, and what the lost-update check runs them in).
  var starts: [OpID] = []
  /// How the run ended.
  var ending: Int = 0

  /// Who made an access: the event's operation and its reason as recorded (the step), so
  /// two threads of one operation with steps under different reasons stay apart. A lock's
  /// acquisitions are told apart by operation alone: a waiter that gets a released lock is
  /// recorded with the releaser as its reason, not its step; an operation's threads run one
  /// after the other (its work, then its completion block), so the operation's n-th
  /// acquisition of a lock is the same step in every order.
  struct Accessor: Hashable {
    var op: OpID
    var reason: Reason?
  }
}

extension World {
  /// The order this run took, from the trace after its first `start` events (the base
  /// world's): see ``OrderFingerprint``. `ending` is how the run ended; `numbering` numbers
  /// the accessors, kept from run to run so that a number means the same accessor in each.
  /// - Complexity: O(events since `start` + accesses · log accesses).
  func orderFingerprint(
    from start: Int, ending: RunVerdict?, numbering ids: inout [OrderFingerprint.Accessor: Int]
  ) -> OrderFingerprint {
    typealias Accessor = OrderFingerprint.Accessor
    var f = OrderFingerprint()
    guard let shared else { return f }
    func id(_ a: Accessor) -> Int {
      if let known = ids[a] { return known }
      ids[a] = ids.count
      return ids.count - 1
    }
    f.variables = Array(repeating: [], count: shared.variableNames.count)
    f.locks = Array(repeating: [], count: shared.lockNames.count)
    var reads: [[Int]] = Array(repeating: [], count: shared.variableNames.count)
    var started: [OpID] = []
    var accessed = Set<OpID>()
    for e in trace.events(from: start) {
      guard let op = e.op else { continue }
      switch e.kind {
      case .started:
        started.append(op)
      case .variableRead(let v, _) where Int(v) < reads.count:
        reads[Int(v)].append(2 * id(Accessor(op: op, reason: e.reason)))
        accessed.insert(op)
      case .variableWritten(let v, _) where Int(v) < reads.count:
        f.variables[Int(v)] += reads[Int(v)].sorted() + [2 * id(Accessor(op: op, reason: e.reason)) + 1]
        reads[Int(v)] = []
        accessed.insert(op)
      case .lockAcquired(let l) where Int(l) < f.locks.count:
        f.locks[Int(l)].append(id(Accessor(op: op, reason: nil)))
        accessed.insert(op)
      default: break
      }
    }
    for v in reads.indices { f.variables[v] += reads[v].sorted() }
    f.starts = started.filter(accessed.contains)
    switch ending {
    case .idle?: f.ending = 0
    case .reached?: f.ending = 1
    case .stalled(let d)?: f.ending = d.lockCycles.isEmpty ? 2 : 3
    case .capped?: f.ending = 4
    case .interrupted?: f.ending = 5
    case nil: f.ending = 6
    }
    return f
  }
}
