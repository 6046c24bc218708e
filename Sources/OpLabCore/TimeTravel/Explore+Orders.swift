/// An access a run made that another's order with can matter (see ``World/dependentPairs(from:)``).
struct DependentAccess: Hashable, Sendable {
  var tick: Tick
  var op: OpID
  var isStart = false
}

extension World {
  /// The pairs of accesses in this run (from the trace's event `start`) by two operations
  /// whose order can matter, first one first: for each access and each other operation, the
  /// last earlier access of that operation it depends on. Two accesses are dependent when
  /// they are by different operations and
  /// - are to one variable, and one of them writes it;
  /// - are to one lock: taking it, waiting for it, releasing it (a hand-off included);
  /// - both touch the user interface;
  /// - both are starts of operations written as steps (which a queue's slot or a
  ///   dependency lets in first depends on when others finish, and the lost-update check
  ///   replays them in the order they started);
  /// - either is a step's `add` (what it adds changes which operations are ready and which
  ///   slots are free): dependent with everything.
  /// Nothing else is a shared access: `compute` touches only the operation's own register.
  /// - Complexity: O(accesses · operations).
  func dependentPairs(from start: Int) -> [(DependentAccess, DependentAccess)] {
    guard let shared else { return [] }
    // Resources by index: the variables, then the locks, then the user interface, then starts.
    let locks = shared.variableNames.count, ui = locks + shared.lockNames.count, starts = ui + 1
    // Per resource, the operations that accessed it, each with its last access and its last
    // write (for variables): a short list, searched in place (a dictionary per resource,
    // copied out and back at each access, was a profile's top item).
    var last: [[(op: OpID, access: DependentAccess, write: DependentAccess?)]] = Array(repeating: [], count: starts + 1)
    var everything: [DependentAccess?] = Array(repeating: nil, count: operations.count)  // each operation's last access
    var adds: [(op: OpID, access: DependentAccess)] = []  // each operation's last `add`
    var pairs: [(DependentAccess, DependentAccess)] = []
    for e in trace.events(from: start) {
      guard let op = e.op else { continue }
      var access = DependentAccess(tick: e.tick, op: op)
      let resource: Int
      var writes = true
      switch e.kind {
      case .variableRead(let v, _):
        resource = Int(v)
        writes = false
      case .variableWritten(let v, _): resource = Int(v)
      case .lockAcquired(let l), .lockWaiting(let l), .lockReleased(let l): resource = locks + Int(l)
      case .touchedUI: resource = ui
      case .started where isStepped(op):
        resource = starts
        access.isStart = true
      case .enqueued, .addRefused:
        guard case .addedByStep(let adder, _) = e.reason else { continue }
        access.op = adder
        // The add step took the tick before its filing (stamped with the tick it took).
        if e.kind == .enqueued { access.tick = e.tick - 1 }
        for case let a? in everything where a.op != adder { pairs.append((a, access)) }
        if let i = adds.firstIndex(where: { $0.op == adder }) { adds[i].access = access } else { adds.append((adder, access)) }
        everything[adder.slot] = access
        continue
      default: continue
      }
      guard resource >= 0, resource < last.count else { continue }
      for a in adds where a.op != op { pairs.append((a.access, access)) }
      var mine: Int?
      for i in last[resource].indices {
        let before = last[resource][i]
        if before.op == op {
          mine = i
        } else if writes {
          pairs.append((before.access, access))
        } else if let w = before.write {
          pairs.append((w, access))
        }
      }
      if let i = mine {
        last[resource][i].access = access
        if writes { last[resource][i].write = access }
      } else {
        last[resource].append((op, access, writes ? access : nil))
      }
      everything[op.slot] = access
    }
    return pairs
  }

  /// Whether the operation's `main()` or completion block is written as steps.
  private func isStepped(_ op: OpID) -> Bool {
    if case .steps = operations[op.slot].spec.kind { return true }
    return shared?.completionSteps[op] != nil
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
