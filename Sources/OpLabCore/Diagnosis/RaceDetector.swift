/// What the race detector found in a world's trace: data races, calls into the user
/// interface off the main thread, and updates lost against a one-at-a-time run.
public struct RaceReport: Hashable, Sendable {
  /// One read or write of a shared variable.
  public struct Access: Hashable, Sendable {
    /// Who accessed it.
    public var op: OpID
    /// When.
    public var tick: Tick
    /// A write (`false`: a read).
    public var isWrite: Bool
    /// The event's index in the trace.
    public var event: Int
    /// Made by the operation's completion block, not its `main()`.
    public var inCompletion = false
  }

  /// Two accesses to one variable, at least one a write, that nothing orders.
  public struct DataRace: Hashable, Sendable {
    /// The variable's index in ``SharedState/variableNames``.
    public var variable: Int32
    /// The earlier access in this run.
    public var first: Access
    /// The later access, which nothing made wait for the first.
    public var second: Access
  }

  /// A call into the user interface from a thread that is not the main thread.
  public struct OffMainThread: Hashable, Sendable {
    public var op: OpID
    public var tick: Tick
    public var event: Int
    /// Made by the operation's completion block, which never runs on the main thread.
    public var inCompletion = false
  }

  /// A variable whose final value differs from a one-at-a-time run of the same operations.
  public struct LostUpdate: Hashable, Sendable {
    public var variable: Int32
    /// Its value now.
    public var actual: Int
    /// Its value had the operations run one at a time, in the order they started.
    public var serial: Int
  }

  /// Data races, in the order their second access happened; one per pair of operations and variable.
  public var races: [DataRace] = []
  /// Calls into the user interface off the main thread.
  public var offMainThread: [OffMainThread] = []
  /// Variables whose final value an unordered run changed (only once every step-by-step
  /// operation that started has finished).
  public var lostUpdates: [LostUpdate] = []

  /// Whether nothing was found.
  public var isEmpty: Bool { races.isEmpty && offMainThread.isEmpty && lostUpdates.isEmpty }
}

/// A vector clock: for each thread (an operation's slot, or -1, the lab's own thread), the
/// last of its moments known to have happened before. One entry a thread, in an array (not
/// a dictionary: `explore` builds a report for every run).
private struct VectorClock {
  var c: [Int]
  /// A clock at 0 for the lab's thread and `operations` operations.
  init(operations: Int) { c = Array(repeating: 0, count: operations + 1) }
  subscript(_ t: Int) -> Int {
    get { c[t + 1] }
    set { c[t + 1] = newValue }
  }
  mutating func join(_ o: VectorClock) {
    for i in c.indices where o.c[i] > c[i] { c[i] = o.c[i] }
  }
}

/// A vector clock for some operations, by slot: an array, not a dictionary (hashing each
/// lookup was a profile's top item under `explore`).
private struct ClocksByOperation {
  var clocks: [VectorClock?]
  init(count: Int) { clocks = Array(repeating: nil, count: count) }
  subscript(_ op: OpID) -> VectorClock? {
    get { clocks[op.slot] }
    set { clocks[op.slot] = newValue }
  }
  mutating func removeValue(forKey op: OpID) -> VectorClock? {
    defer { clocks[op.slot] = nil }
    return clocks[op.slot]
  }
  /// The clocks set, with their operations.
  var set: [(op: OpID, clock: VectorClock)] {
    clocks.indices.compactMap { i in clocks[i].map { (OpID(i), $0) } }
  }
}

/// The pairs of operations already reported racing on a variable (each pair is reported
/// once): a table of bits while the world is small (`explore` builds a report for every
/// run), a set beyond that.
private struct ReportedPairs {
  struct Pair: Hashable {
    var variable: Int32
    var low: Int32
    var high: Int32
  }
  let operations: Int
  var bits: [Bool]
  var set = Set<Pair>()

  init(variables: Int, operations: Int) {
    self.operations = operations
    bits = operations <= 256 ? Array(repeating: false, count: variables * operations * operations) : []
  }

  /// Marks the pair; `true` when it was not marked before.
  mutating func insert(variable: Int32, _ a: Int, _ b: Int) -> Bool {
    let (low, high) = (Swift.min(a, b), Swift.max(a, b))
    guard !bits.isEmpty else { return set.insert(Pair(variable: variable, low: Int32(low), high: Int32(high))).inserted }
    let i = (Int(variable) * operations + low) * operations + high
    if bits[i] { return false }
    bits[i] = true
    return true
  }
}

extension World {
  /// Finds data races the way ThreadSanitizer does, by happens-before, in the trace so far.
  ///
  /// Each operation's work is a thread. What orders two pieces of work: an operation's own
  /// steps, in order; a dependency (its finish happens before the dependent starts); a serial
  /// queue (`maxConcurrentOperationCount` 1 when it starts: the finish of the one before
  /// happens before; the main queue is one); a lock (an `unlock` happens before the next
  /// `lock` of it); and the lab's own thread, which enqueues (an operation starts after it was
  /// added) and, by `wait`, sees every operation it waited for finish. Time alone orders
  /// nothing: an operation that ran earlier, with nothing of these between, may as well run later.
  /// - Complexity: O(events + accesses · earlier accesses of the same variable); only worlds
  ///   with shared state have any.
  public func raceReport() -> RaceReport { raceReport(firstRaceOnly: false) }

  /// The race report, or with `firstRaceOnly` one that stops looking for data races at the
  /// first (what `explore` asks of every order: whether there is one), with the same calls
  /// off the main thread and lost updates.
  func raceReport(firstRaceOnly: Bool) -> RaceReport {
    var report = RaceReport()
    guard let shared else { return report }
    let lab = -1
    let zero = VectorClock(operations: operations.count)
    var labClock = zero
    labClock[lab] = 1
    var running = ClocksByOperation(count: operations.count)
    var finished = ClocksByOperation(count: operations.count)
    var enqueuedAt = ClocksByOperation(count: operations.count)
    // By queue and by lock index: arrays, not dictionaries (`explore` builds a report for every run).
    var serialQueue: [VectorClock?] = Array(repeating: nil, count: queues.count)
    var maxOf: [Int?] = Array(repeating: nil, count: queues.count)
    var lockClock: [VectorClock?] = Array(repeating: nil, count: shared.lockNames.count)
    func isSerial(_ q: QueueID?) -> Bool {
      guard let q, q.slot < maxOf.count else { return false }
      return maxOf[q.slot] == 1
    }
    var accesses: [[(access: RaceReport.Access, epoch: Int)]] = Array(repeating: [], count: shared.variableNames.count)
    var reported = ReportedPairs(variables: shared.variableNames.count, operations: operations.count)
    var startOrder: [(op: OpID, ranMain: Bool)] = []

    for (i, e) in trace.enumerated() {
      if e.op == nil, let q = e.queue {
        switch e.kind {
        case .queueCreated(let max), .maxChanged(let max): if q.slot < maxOf.count { maxOf[q.slot] = q == .main ? 1 : max }
        case .waitEnded:
          // The lab's own thread waited for the queue (or every queue): it saw their finishes.
          for (op, clock) in finished.set where operations[op.slot].queue == q { labClock.join(clock) }
          labClock[lab] += 1
        default: break
        }
        continue
      }
      if e.op == nil, e.queue == nil, e.kind == .waitEnded {
        for (_, clock) in finished.set { labClock.join(clock) }
        labClock[lab] += 1
        continue
      }
      guard let op = e.op else { continue }
      let me = op.slot
      switch e.kind {
      case .enqueued:
        if case .addedByStep(let adder, _) = e.reason, let clock = running[adder] {
          // A step's addOperation: the adder's work so far happens before the added one starts.
          enqueuedAt[op] = clock
          running[adder]?[adder.slot] += 1
        } else {
          enqueuedAt[op] = labClock
          labClock[lab] += 1
        }
      case .started, .skipped:
        var clock = enqueuedAt[op] ?? labClock
        for dep in dependencies(of: op) { if let f = finished[dep] { clock.join(f) } }
        if let q = operations[op.slot].queue, isSerial(q), let last = serialQueue[q.slot] { clock.join(last) }
        clock[me] += 1
        running[op] = clock
        if isStepped(op) { startOrder.append((op, e.kind == .started)) }
      case .variableRead(let v, _), .variableWritten(let v, _):
        // Taken out while it changes, so its array is not copied. Past the first race, when
        // only that is asked, the clocks order nothing more that is looked at.
        guard !firstRaceOnly || report.races.isEmpty, Int(v) < accesses.count, var clock = running.removeValue(forKey: op) else { break }
        let isWrite: Bool
        if case .variableWritten = e.kind { isWrite = true } else { isWrite = false }
        let access = RaceReport.Access(op: op, tick: e.tick, isWrite: isWrite, event: i, inCompletion: e.reason.isCompletionStep)
        for earlier in accesses[Int(v)] where earlier.access.op != op && (earlier.access.isWrite || isWrite) {
          let other = earlier.access.op.slot
          guard clock[other] < earlier.epoch else { continue }  // ordered
          if reported.insert(variable: v, other, me) {
            report.races.append(RaceReport.DataRace(variable: v, first: earlier.access, second: access))
          }
        }
        accesses[Int(v)].append((access, clock[me]))
        clock[me] += 1
        running[op] = clock
      case .lockAcquired(let l):
        if Int(l) < lockClock.count, let held = lockClock[Int(l)] { running[op]?.join(held) }
      case .lockReleased(let l):
        if Int(l) < lockClock.count { lockClock[Int(l)] = running[op] }
        running[op]?[me] += 1
      case .touchedUI:
        if !Self.isOnMainThread(e) {
          report.offMainThread.append(RaceReport.OffMainThread(op: op, tick: e.tick, event: i, inCompletion: e.reason.isCompletionStep))
        }
      case .finished:
        let clock = running.removeValue(forKey: op) ?? enqueuedAt[op] ?? labClock
        finished[op] = clock
        if let q = operations[op.slot].queue, isSerial(q) {
          var last = serialQueue[q.slot] ?? zero
          serialQueue[q.slot] = nil  // taken out while it changes, so its array is not copied
          last.join(clock)
          serialQueue[q.slot] = last
        }
      case .completionStarted where shared.completionSteps[op] != nil:
        // The completion block goes on from the finish, on a thread of its own: what the
        // finish released (dependents, the next operation of a serial queue) is not ordered with it.
        var clock = finished[op] ?? labClock
        clock[me] += 1
        running[op] = clock
      case .completionFinished:
        running[op] = nil
      default: break
      }
    }
    report.lostUpdates = lostUpdates(shared, startOrder: startOrder)
    return report
  }

  /// Whether the operation's `main()` or its completion block is written as steps.
  private func isStepped(_ op: OpID) -> Bool {
    if case .steps = operations[op.slot].spec.kind { return true }
    return shared?.completionSteps[op] != nil
  }

  /// Variables whose value differs from running the step-by-step operations one at a time,
  /// whole (`main()`, then the completion block), in the order they started; none while one
  /// of them, or its completion block, is unfinished.
  private func lostUpdates(_ shared: SharedState, startOrder: [(op: OpID, ranMain: Bool)]) -> [RaceReport.LostUpdate] {
    let stepped = startOrder.map(\.op.slot)
    guard !stepped.isEmpty, stepped.allSatisfy({ operations[$0].isFinished && !operations[$0].completionRunning }) else { return [] }
    var values = shared.initialValues
    for (op, ranMain) in startOrder {
      // main() and the completion block are two closures: each has its own register.
      var threads: [[Step]] = []
      if ranMain, case .steps(let body) = operations[op.slot].spec.kind { threads.append(body) }
      if let completion = shared.completionSteps[op] { threads.append(completion) }
      for steps in threads {
        var register = 0
        for step in steps {
          switch step {
          case .read(let name): if let v = shared.variable(named: name) { register = values[v] }
          case .compute(let n): register = register &+ n
          case .write(let name): if let v = shared.variable(named: name) { values[v] = register }
          case .lock, .unlock, .touchUI, .add: break
          }
        }
      }
    }
    return values.indices.compactMap { v in
      values[v] == shared.values[v] ? nil : RaceReport.LostUpdate(variable: Int32(v), actual: shared.values[v], serial: values[v])
    }
  }
}

extension World {
  /// Pairs of locks some operation takes one inside the other, as (held, then taken), in
  /// the order first met: the lock-order graph. A cycle in it (L1 inside L2 somewhere, L2
  /// inside L1 elsewhere) can deadlock in some interleaving, whatever this run did; none
  /// means every operation takes its locks in one global order.
  public func lockOrderEdges() -> [(held: String, taken: String, by: OpID)] {
    var edges: [(held: String, taken: String, by: OpID)] = []
    for (i, r) in operations.enumerated() {
      guard case .steps(let steps) = r.spec.kind else { continue }
      var held: [String] = []
      for step in steps {
        switch step {
        case .lock(let l):
          for h in held where !edges.contains(where: { $0.held == h && $0.taken == l }) { edges.append((h, l, OpID(i))) }
          held.append(l)
        case .unlock(let l):
          if let k = held.lastIndex(of: l) { held.remove(at: k) }
        default: break
        }
      }
    }
    return edges
  }

  /// A cycle in the lock-order graph (see ``lockOrderEdges()``), as its locks in order, or `nil`.
  public func lockOrderCycle() -> [String]? {
    let edges = lockOrderEdges()
    var next: [String: [String]] = [:]
    for e in edges { next[e.held, default: []].append(e.taken) }
    for start in edges.map(\.held) {
      // Depth first from `start`, looking for a way back to it.
      var stack: [[String]] = [[start]]
      var seen: Set<String> = []
      while let path = stack.popLast() {
        guard let last = path.last else { continue }
        for n in next[last] ?? [] {
          if n == start { return path }
          if seen.insert(n).inserted { stack.append(path + [n]) }
        }
      }
    }
    return nil
  }
}
