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

/// The detector's vector clocks, in one flat array: a clock is a row of one entry a thread
/// (an operation's slot, or -1, the lab's own thread), and each operation's clocks (running,
/// finished, enqueued at), each serial queue's and each lock's are found through one table of
/// rows (-1: none). A clock is copied into a row of its own where the one it came from
/// changes on; a finish takes the running row over. (Arrays of clocks, one array a clock,
/// made a dozen allocations a report, and `explore` builds a report for every run.)
private struct Clocks {
  /// Entries a row: the lab's thread, then one an operation.
  let width: Int
  /// The rows, one after another.
  var entries: [Int] = []
  /// Where each clock's row starts in `entries`, or -1: ``running``, ``finished``,
  /// ``enqueuedAt`` (by operation slot), ``serial`` (by queue slot), ``lock`` (by lock index).
  var rows: [Int]
  let operations: Int, queues: Int
  /// The lab's own clock.
  let lab = 0

  init(operations: Int, queues: Int, locks: Int) {
    width = operations + 1
    self.operations = operations
    self.queues = queues
    rows = Array(repeating: -1, count: 3 * operations + queues + locks)
    entries.reserveCapacity(width * 8)  // a lesson world's rows
    entries.append(contentsOf: repeatElement(0, count: width))  // the lab's row
  }

  func running(_ op: OpID) -> Int { op.slot }
  func finished(_ op: OpID) -> Int { operations + op.slot }
  func enqueuedAt(_ op: OpID) -> Int { 2 * operations + op.slot }
  func serial(_ q: Int) -> Int { 3 * operations + q }
  func lock(_ l: Int) -> Int { 3 * operations + queues + l }

  /// The start of the clock's row, or -1 when it has none.
  func row(_ clock: Int) -> Int { rows[clock] }

  /// Thread `t`'s entry of the row starting at `r`.
  subscript(_ r: Int, _ t: Int) -> Int {
    get { entries[r + t + 1] }
    set { entries[r + t + 1] = newValue }
  }

  /// The clock's row, made (all zeros) if it has none.
  mutating func rowMade(_ clock: Int) -> Int {
    if rows[clock] >= 0 { return rows[clock] }
    rows[clock] = entries.count
    entries.append(contentsOf: repeatElement(0, count: width))
    return rows[clock]
  }

  /// Makes the clock a copy of the row starting at `source`.
  mutating func set(_ clock: Int, to source: Int) {
    let r = rowMade(clock)
    if r != source { for i in 0..<width { entries[r + i] = entries[source + i] } }
  }

  /// Joins the row starting at `source` into the one starting at `r`.
  mutating func join(_ r: Int, _ source: Int) {
    for i in 0..<width where entries[source + i] > entries[r + i] { entries[r + i] = entries[source + i] }
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
    let labThread = -1
    var c = Clocks(operations: operations.count, queues: queues.count, locks: shared.lockNames.count)
    c[c.lab, labThread] = 1
    var maxOf: [Int?] = Array(repeating: nil, count: queues.count)
    func isSerial(_ q: QueueID?) -> Bool {
      guard let q, q.slot < maxOf.count else { return false }
      return maxOf[q.slot] == 1
    }
    var accesses: [[(access: RaceReport.Access, epoch: Int)]] = Array(repeating: [], count: shared.variableNames.count)
    var reported = ReportedPairs(variables: shared.variableNames.count, operations: operations.count)
    var startOrder: [(op: OpID, ranMain: Bool)] = []
    // Each operation started by hand, with the main-thread call it runs inside (`start()`).
    var startedByHand: [OpID: OpID] = [:]
    /// The lab's own thread saw the finishes of these operations' work.
    func labSees(finishedOn q: QueueID?) {
      for slot in operations.indices where q == nil || operations[slot].queue == q {
        let f = c.row(c.finished(OpID(slot)))
        if f >= 0 { c.join(c.lab, f) }
      }
      c[c.lab, labThread] += 1
    }

    for (i, e) in trace.enumerated() {
      if e.op == nil, let q = e.queue {
        switch e.kind {
        case .queueCreated(let max), .maxChanged(let max): if q.slot < maxOf.count { maxOf[q.slot] = q == .main ? 1 : max }
        case .waitEnded:
          // The lab's own thread waited for the queue (or every queue): it saw their finishes.
          labSees(finishedOn: q)
        default: break
        }
        continue
      }
      if e.op == nil, e.queue == nil, e.kind == .waitEnded {
        labSees(finishedOn: nil)
        continue
      }
      guard let op = e.op else { continue }
      let me = op.slot
      switch e.kind {
      case .enqueued:
        if case .addedByStep(let adder, _) = e.reason, case let r = c.row(c.running(adder)), r >= 0 {
          // A step's addOperation: the adder's work so far happens before the added one starts.
          c.set(c.enqueuedAt(op), to: r)
          c[r, adder.slot] += 1
        } else {
          c.set(c.enqueuedAt(op), to: c.lab)
          c[c.lab, labThread] += 1
        }
      case .started, .skipped:
        let from = c.row(c.enqueuedAt(op))
        c.set(c.running(op), to: from >= 0 ? from : c.lab)
        let r = c.row(c.running(op))
        for dep in dependencies(of: op) {
          let f = c.row(c.finished(dep))
          if f >= 0 { c.join(r, f) }
        }
        if let q = operations[op.slot].queue, isSerial(q), case let last = c.row(c.serial(q.slot)), last >= 0 { c.join(r, last) }
        // Started by hand, it runs inside the start() call on the main thread: after what the
        // call's thread did before, and before what it does after (its finish, below).
        if case .startedByHand(let call) = e.reason, case let caller = c.row(c.running(call)), caller >= 0 {
          c.join(r, caller)
          startedByHand[op] = call
        }
        c[r, me] += 1
        if isStepped(op) { startOrder.append((op, e.kind == .started)) }
      case .variableRead(let v, _), .variableWritten(let v, _):
        // Past the first race, when only that is asked, the clocks order nothing more that is looked at.
        guard !firstRaceOnly || report.races.isEmpty, Int(v) < accesses.count, case let r = c.row(c.running(op)), r >= 0 else { break }
        let isWrite: Bool
        if case .variableWritten = e.kind { isWrite = true } else { isWrite = false }
        let access = RaceReport.Access(op: op, tick: e.tick, isWrite: isWrite, event: i, inCompletion: e.reason.isCompletionStep)
        for earlier in accesses[Int(v)] where earlier.access.op != op && (earlier.access.isWrite || isWrite) {
          let other = earlier.access.op.slot
          guard c[r, other] < earlier.epoch else { continue }  // ordered
          if reported.insert(variable: v, other, me) {
            report.races.append(RaceReport.DataRace(variable: v, first: earlier.access, second: access))
          }
        }
        accesses[Int(v)].append((access, c[r, me]))
        c[r, me] += 1
      case .lockAcquired(let l):
        if Int(l) < shared.lockNames.count, case let held = c.row(c.lock(Int(l))), held >= 0, case let r = c.row(c.running(op)), r >= 0 {
          c.join(r, held)
        }
      case .lockReleased(let l):
        let r = c.row(c.running(op))
        if Int(l) < shared.lockNames.count {
          if r >= 0 { c.set(c.lock(Int(l)), to: r) } else { c.rows[c.lock(Int(l))] = -1 }
        }
        if r >= 0 { c[r, me] += 1 }
      case .touchedUI:
        if !Self.isOnMainThread(e) {
          report.offMainThread.append(RaceReport.OffMainThread(op: op, tick: e.tick, event: i, inCompletion: e.reason.isCompletionStep))
        }
      case .finished:
        // The running clock becomes the finished one (taken over: it runs no more).
        let r = c.row(c.running(op))
        if r >= 0 {
          c.rows[c.finished(op)] = r
          c.rows[c.running(op)] = -1
        } else {
          let from = c.row(c.enqueuedAt(op))
          c.set(c.finished(op), to: from >= 0 ? from : c.lab)
        }
        if let q = operations[op.slot].queue, isSerial(q) {
          let last = c.rowMade(c.serial(q.slot)), f = c.row(c.finished(op))
          c.join(last, f)
        }
        if let call = startedByHand[op], case let caller = c.row(c.running(call)), caller >= 0, case let f = c.row(c.finished(op)), f >= 0 {
          c.join(caller, f)
        }
      case .completionStarted where shared.completionSteps[op] != nil:
        // The completion block goes on from the finish, on a thread of its own: what the
        // finish released (dependents, the next operation of a serial queue) is not ordered with it.
        let f = c.row(c.finished(op))
        c.set(c.running(op), to: f >= 0 ? f : c.lab)
        let r = c.row(c.running(op))
        c[r, me] += 1
      case .completionFinished:
        c.rows[c.running(op)] = -1
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
    guard !startOrder.isEmpty, startOrder.allSatisfy({ operations[$0.op.slot].isFinished && !operations[$0.op.slot].completionRunning })
    else { return [] }
    var values = shared.initialValues
    // main() and the completion block are two closures: each has its own register.
    func run(_ steps: [Step]) {
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
    for (op, ranMain) in startOrder {
      if ranMain, case .steps(let body) = operations[op.slot].spec.kind { run(body) }
      if let completion = shared.completionSteps[op] { run(completion) }
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
