/// Why operations can never finish: the answer to a stalled run or wait.
///
/// The real `OperationQueue` hangs silently in every one of these situations; the
/// simulator names the cause of each stuck operation and every dependency cycle.
public struct Diagnosis: Hashable, Sendable {
  /// Each unfinished operation in scope, with what holds it.
  public var stuck: [StuckOperation]
  /// Dependency cycles among unfinished operations, each in dependency order.
  public var cycles: [[OpID]]
  /// Lock-order deadlocks: wait-for cycles of operations each waiting for a lock the next
  /// holds (the last's lock held by the first); one operation alone relocked its own lock.
  public var lockCycles: [[OpID]]

  /// Creates a diagnosis.
  public init(stuck: [StuckOperation], cycles: [[OpID]], lockCycles: [[OpID]] = []) {
    self.stuck = stuck
    self.cycles = cycles
    self.lockCycles = lockCycles
  }
}

/// One operation that cannot make progress, and why.
public struct StuckOperation: Hashable, Sendable {
  /// The operation.
  public var op: OpID
  /// What holds it.
  public var cause: StallCause

  /// Creates an entry.
  public init(op: OpID, cause: StallCause) {
    self.op = op
    self.cause = cause
  }
}

/// What holds an operation that can never finish.
public enum StallCause: Hashable, Sendable {
  /// An asynchronous operation whose work ended without calling `finish()`: it executes forever.
  case neverCallsFinish
  /// Ready, but its queue is suspended.
  case queueSuspended(QueueID)
  /// Ready, but its queue's `maxConcurrentOperationCount` is 0.
  case queueMaxZero(QueueID)
  /// Ready, but every slot of its queue is held by operations that never finish.
  case slotsHeld(QueueID, by: [OpID])
  /// In a dependency cycle (the index into ``Diagnosis/cycles``).
  case inCycle(Int)
  /// Waiting on a dependency that is itself stuck.
  case waitingOn(OpID)
  /// Waiting on a dependency that is in no queue, so it never starts (rule 11).
  case dependencyNotInQueue(OpID)
  /// Linux: `removeDependency` removed an unfinished dependency without releasing it (rule 9).
  case strandedByRemoveDependency
  /// Linux: `removeDependency` of a finished dependency from a cancelled operation took its
  /// unfinished count to −1; only another `cancel()` makes it ready (rule 9).
  case countBelowZero
  /// Created but never added to a queue.
  case notInQueue
  /// A wait called on the main thread, holding it until this unfinished operation finishes.
  case mainThreadWaitingFor(OpID)
  /// Its dependencies are done, but its custom `isReady` waits for a closed gate (an index into ``World/gates``).
  case gateClosed(Int32)
  /// Dispatched while a barrier block ran: it holds a slot on the queue's dispatch queue and
  /// waits behind the block, which suspending the queue does not change (rule 32).
  case heldBehindBarrier(QueueID)
  /// Dispatched to its queue's serial underlying queue (an index into
  /// ``World/dispatchQueues``): it holds a slot and waits there for `behind`'s work item.
  case heldByDispatchQueue(Int32, behind: OpID?)
  /// Executing, and waiting in a `lock` step for a lock (its index in
  /// ``SharedState/lockNames``) that this operation holds (itself, for a second `lock()`;
  /// `nil` never happens while it waits, but a view must not trap on it).
  case waitingForLock(Int32, heldBy: OpID?)
}

extension StallCause {
  /// The one operation this cause waits for, whose own cause a wait chain follows
  /// (``World/waitChain(of:)``): a dependency, the only holder of the queue's slots, or what a
  /// wait on the main thread waits for; `nil` when the cause names none, or several.
  public var heldBy: OpID? {
    switch self {
    case .waitingOn(let op), .dependencyNotInQueue(let op), .mainThreadWaitingFor(let op): op
    case .waitingForLock(_, let holder): holder
    case .heldByDispatchQueue(_, let behind): behind
    case .slotsHeld(_, let by): by.count == 1 ? by[0] : nil
    case .neverCallsFinish, .queueSuspended, .queueMaxZero, .inCycle, .strandedByRemoveDependency, .countBelowZero, .notInQueue, .gateClosed,
      .heldBehindBarrier:
      nil
    }
  }
}

extension World {
  /// Every unfinished operation: those in a queue (waits called from the main thread, taps
  /// and frames included), then those in no queue, each group in creation order.
  ///
  /// The one list every report of unfinished work counts from: a stalled run or wait
  /// (``diagnose(startingWith:)`` lists exactly these), `run`'s idle verdict (which names
  /// the ones in no queue) and `status`.
  /// - Complexity: O(operations).
  public func unfinishedOperations() -> [OpID] {
    var inQueues: [OpID] = [], inNoQueue: [OpID] = []
    for i in operations.indices where !operations[i].isFinished {
      if operations[i].queue == nil { inNoQueue.append(OpID(i)) } else { inQueues.append(OpID(i)) }
    }
    return inQueues + inNoQueue
  }

  /// Diagnoses every unfinished operation (``unfinishedOperations()``), beginning with the
  /// given ones and what holds them.
  ///
  /// Each cause is followed to what holds it in turn, so the root cause is always listed;
  /// the operations of `scope` (a stalled wait's, or `run until OP`'s) and their causes come
  /// first, then every other unfinished operation, so every stall report counts the same
  /// operations. The diagnosis describes the present; it is meaningful when nothing is
  /// scheduled (``nextEventTick`` is `nil`), as after a stalled run.
  /// - Complexity: O(operations + dependencies).
  public func diagnose(startingWith scope: [OpID] = []) -> Diagnosis {
    let cycles = dependencyCycles()
    let cycleOf = cycleIndex(cycles)
    var listed = Set<OpID>()
    var stuck: [StuckOperation] = []
    var work = scope.filter { !operations[$0.slot].isFinished }
    var cyclesAdded = Set<Int>()
    var next = 0
    for pass in 0..<2 {
      if pass == 1 { work += unfinishedOperations() }
      while next < work.count {
        let op = work[next]
        next += 1
        guard listed.insert(op).inserted else { continue }
        let cause = stallCause(of: op, cycleOf: cycleOf)
        stuck.append(StuckOperation(op: op, cause: cause))
        switch cause {
        case .waitingOn(let dep), .dependencyNotInQueue(let dep), .mainThreadWaitingFor(let dep): work.append(dep)
        case .slotsHeld(_, let holders): work += holders
        case .inCycle(let c): if cyclesAdded.insert(c).inserted { work += cycles[c] }
        case .waitingForLock(_, let holder?): work.append(holder)
        default: break
        }
      }
    }
    return Diagnosis(stuck: stuck, cycles: cycles, lockCycles: lockCycles())
  }

  /// What holds an unfinished operation right now, if anything does.
  ///
  /// Returns `nil` for an operation that is finished, or that will progress on its own
  /// (executing with its work scheduled, or ready with a free slot coming).
  public func blockage(of op: OpID) -> StallCause? {
    guard needsCause(op) else { return blockageWithoutCycles(of: op) }
    return stallCause(of: op, cycleOf: cycleIndex(dependencyCycles(from: op)))
  }

  /// What holds an operation, followed from cause to cause down to the root: why `show`
  /// waits on `parse`, which waits on `fetch`, which never calls `finish()`.
  ///
  /// The first link is `op` and what holds it (``blockage(of:)``). A cause that names one
  /// operation — a dependency, the only holder of the queue's slots, what a wait on the
  /// main thread waits for — is followed to that operation's own link. The chain ends at
  /// a cause that names no operation (a suspended queue, a cycle, an operation in no
  /// queue…), at a slot held by several operations, at an operation that is not held (it
  /// runs, and will finish), or at an operation already in the chain: a deadlock.
  /// - Returns: the links in order, each cause naming the next link's operation; empty
  ///   when `op` is not held.
  /// - Complexity: O(operations + dependencies), iterative whatever the chain's length.
  public func waitChain(of op: OpID) -> [StuckOperation] {
    var links: [StuckOperation] = []
    var seen = Set<OpID>()
    // Cycles reachable from `op` suffice for its own link; past a slot holder or a wait on the
    // main thread the chain can reach any operation, so the others share one full search.
    var cycleOf: [Int32: Int]?
    var current = op
    while seen.insert(current).inserted {
      let cause: StallCause?
      if !needsCause(current) {
        cause = blockageWithoutCycles(of: current)
      } else if current == op {
        cause = stallCause(of: current, cycleOf: cycleIndex(dependencyCycles(from: op)))
      } else {
        let index = cycleOf ?? cycleIndex(dependencyCycles())
        cycleOf = index
        cause = stallCause(of: current, cycleOf: index)
      }
      guard let cause else { break }
      links.append(StuckOperation(op: current, cause: cause))
      guard let next = cause.heldBy else { break }
      current = next
    }
    return links
  }

  /// Whether the operation waits to start, so that a dependency cycle may hold it; else
  /// ``blockageWithoutCycles(of:)`` says what holds it.
  private func needsCause(_ op: OpID) -> Bool {
    let r = operations[op.slot]
    return !r.isFinished && r.phase != .executing
  }

  /// The blockage of a finished or executing operation, which no cycle can hold.
  private func blockageWithoutCycles(of op: OpID) -> StallCause? {
    let r = operations[op.slot]
    if r.isFinished { return nil }
    switch r.mainThreadWork {
    case .wait?, .waitForOperations?, .start?: return stallCause(of: op, cycleOf: [:])
    default: break
    }
    if shared != nil, let l = lockWaitedFor(by: op) { return .waitingForLock(Int32(l), heldBy: shared?.holders[l]) }
    return r.jammed ? .neverCallsFinish : nil
  }

  /// Each operation's cycle: its index into `cycles`.
  private func cycleIndex(_ cycles: [[OpID]]) -> [Int32: Int] {
    var cycleOf = [Int32: Int]()
    for (i, cycle) in cycles.enumerated() { for o in cycle { cycleOf[o.index] = i } }
    return cycleOf
  }

  private func stallCause(of op: OpID, cycleOf: [Int32: Int]) -> StallCause {
    let r = operations[op.slot]
    if r.jammed { return .neverCallsFinish }
    guard let q = r.queue else { return .notInQueue }
    if case .wait(let scope) = r.mainThreadWork, r.phase == .executing {
      for sq in scope.map({ [$0] }) ?? queueIDs {
        if let holdout = queues[sq.slot].members.first(where: {
          !operations[$0.slot].isFinished && operations[$0.slot].mainThreadWork == nil
        }) {
          return .mainThreadWaitingFor(holdout)
        }
      }
    }
    if readiness[op.slot].countBelowZero, r.phase != .executing { return .countBelowZero }
    if r.phase == .executing, let work = r.mainThreadWork, work == .waitForOperations || work == .start,
      let holdout = callTargets(of: op).first(where: { !operations[$0.slot].isFinished })
    {
      return .mainThreadWaitingFor(holdout)
    }
    if shared != nil, let l = lockWaitedFor(by: op) { return .waitingForLock(Int32(l), heldBy: shared?.holders[l]) }
    switch r.phase {
    case .ready, .executing:
      let queue = queues[q.slot]
      if r.dispatched, r.phase == .ready, let d = dispatchQueueHolding(op) {
        return .heldByDispatchQueue(d, behind: dispatchQueues[Int(d)].running)
      }
      if r.dispatched, r.phase == .ready { return .heldBehindBarrier(q) }
      if queue.isSuspended { return .queueSuspended(q) }
      if queue.effectiveMax == 0 { return .queueMaxZero(q) }
      let holders = queue.members.filter { operations[$0.slot].phase == .executing && operations[$0.slot].holdsSlot }
      return .slotsHeld(q, by: holders)
    default:
      if let c = cycleOf[op.index] { return .inCycle(c) }
      let blocking = dependencies(of: op).filter { !operations[$0.slot].isFinished }
      if let inCycle = blocking.first(where: { cycleOf[$0.index] != nil }) { return .waitingOn(inCycle) }
      if let loose = blocking.first(where: { operations[$0.slot].queue == nil }) { return .dependencyNotInQueue(loose) }
      if let first = blocking.first { return .waitingOn(first) }
      if readiness[op.slot].gateClosed, let g = gateOfOperation[op] { return .gateClosed(g) }
      return .strandedByRemoveDependency
    }
  }

  /// Wait-for cycles among operations waiting for locks: each waits for a lock the next one
  /// holds. Each cycle starts at its lowest operation; the cycles are ordered by it.
  public func lockCycles() -> [[OpID]] {
    guard let shared else { return [] }
    // Each waiting operation waits for one holder: the graph has at most one edge out of each.
    var next: [OpID: OpID] = [:]
    for (l, waiting) in shared.waiters.enumerated() {
      guard let holder = shared.holders[l] else { continue }
      for op in waiting { next[op] = holder }
    }
    var cycles: [[OpID]] = []
    var done = Set<OpID>()
    for start in next.keys.sorted() where !done.contains(start) {
      var path: [OpID] = []
      var current: OpID? = start
      while let c = current, !done.contains(c), !path.contains(c) {
        path.append(c)
        current = next[c]
      }
      if let c = current, let i = path.firstIndex(of: c) {
        let cycle = Array(path[i...])
        let low = cycle.indices.min { cycle[$0] < cycle[$1] } ?? 0
        cycles.append(Array(cycle[low...] + cycle[..<low]))
      }
      done.formUnion(path)
    }
    return cycles.sorted { $0[0] < $1[0] }
  }

  /// Whether `op` depends on `target` through the dependency edges of operations that
  /// still wait for their dependencies (see ``waitsForDependencies(_:)``).
  /// - Complexity: O(operations + dependencies) in the worst case; iterative.
  func dependsTransitively(_ op: OpID, on target: OpID) -> Bool {
    var seen = Set<Int32>([op.index])
    var stack = [op]
    while let current = stack.popLast() {
      for dep in dependencies(of: current) {
        if dep == target { return true }
        if waitsForDependencies(dep.slot), seen.insert(dep.index).inserted { stack.append(dep) }
      }
    }
    return false
  }

  /// Whether the operation can still be held by its dependencies: not finished, not
  /// started (a started operation's dependencies no longer hold it, so a dependency added
  /// to it closes no deadlock), not handed to a dispatch queue, and not cancelled before
  /// starting (it ignores its dependencies, rule 13, which is how a cancel breaks a
  /// cycle, rule 10).
  func waitsForDependencies(_ slot: Int) -> Bool {
    let phase = operations[slot].phase
    return phase != .finished && phase != .executing && !operations[slot].dispatched && !readiness[slot].ignoresDependencies
  }

  /// Dependency cycles among operations that wait for their dependencies (see
  /// ``waitsForDependencies(_:)``): the cycles that hold them for ever (Tarjan's algorithm, iterative).
  /// - Parameter start: only the cycles reachable from this operation; all when `nil`.
  /// - Returns: each cycle's operations in dependency order, the cycles ordered by their first member.
  /// - Complexity: O(operations + dependencies).
  public func dependencyCycles(from start: OpID? = nil) -> [[OpID]] {
    let n = operations.count
    var index = [Int32](repeating: -1, count: n)
    var low = [Int32](repeating: 0, count: n)
    var onStack = [Bool](repeating: false, count: n)
    var stack: [Int32] = []
    var counter: Int32 = 0
    var cycles: [[OpID]] = []
    let roots = start.map { [$0.slot] } ?? Array(0..<n)
    for root in roots where index[root] == -1 && waitsForDependencies(root) {
      // Each frame: the node and the link of its next dependency to visit (-1: none left).
      var frames: [(node: Int, next: Int32)] = [(root, operations[root].dependencyList.head)]
      index[root] = counter; low[root] = counter; counter += 1
      stack.append(Int32(root)); onStack[root] = true
      while let top = frames.last {
        if top.next >= 0 {
          frames[frames.count - 1].next = edges.links[Int(top.next)].next
          let w = edges.links[Int(top.next)].op.slot
          if !waitsForDependencies(w) { continue }
          if index[w] == -1 {
            index[w] = counter; low[w] = counter; counter += 1
            stack.append(Int32(w)); onStack[w] = true
            frames.append((w, operations[w].dependencyList.head))
          } else if onStack[w] {
            low[top.node] = min(low[top.node], index[w])
          }
        } else {
          frames.removeLast()
          if let parent = frames.last { low[parent.node] = min(low[parent.node], low[top.node]) }
          if low[top.node] == index[top.node] {
            var component: [OpID] = []
            while let w = stack.popLast() {
              onStack[Int(w)] = false
              component.append(OpID(Int(w)))
              if Int(w) == top.node { break }
            }
            let selfLoop =
              component.count == 1
              && edges.first(in: operations[top.node].dependencyList, where: { $0.slot == top.node }) != nil
            if component.count > 1 || selfLoop { cycles.append(component.sorted()) }
          }
        }
      }
    }
    return cycles.sorted { $0[0] < $1[0] }
  }
}
