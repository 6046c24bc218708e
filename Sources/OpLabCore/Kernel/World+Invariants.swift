/// Consistency checks of the live state, for tests and debugging.
extension World {
  /// Every broken invariant of the present state, as sentences; empty when all hold.
  ///
  /// Checked: slot counts match executing operations; no queue runs more than its
  /// limit unless the limit was lowered under it; finished operations have an outcome
  /// and times in order; readiness counts match unfinished dependencies (except the
  /// Linux `removeDependency` strand); each phase and its copy in ``readiness`` agree;
  /// every dependency edge is listed as often on both sides (as a dependency of one
  /// operation and a dependent of the other); neither the agenda nor the frame clock holds
  /// anything in the past.
  /// - Complexity: O(operations + dependencies + agenda).
  public func invariantViolations() -> [String] {
    var problems: [String] = []
    for (qi, q) in queues.enumerated() {
      let holding = q.members.filter {
        (operations[$0.slot].phase == .executing || operations[$0.slot].dispatched) && operations[$0.slot].holdsSlot
      }
      if holding.count != q.executingCount {
        problems.append("\(q.name): executingCount \(q.executingCount) but \(holding.count) operations hold slots")
      }
      let finished = q.members.count { operations[$0.slot].isFinished }
      if finished != q.finishedMembers {
        problems.append("\(q.name): finishedMembers \(q.finishedMembers) but \(finished) members finished")
      }
      for m in q.members where operations[m.slot].queue != QueueID(qi) {
        problems.append("\(operations[m.slot].name) is a member of \(q.name) but belongs elsewhere")
      }
    }
    problems += dispatchQueueViolations()
    for q in queueIDs where staleReadyEntryCount(in: q) > queues[q.slot].possiblyStaleReadyEntries {
      problems.append(
        "\(queues[q.slot].name): \(staleReadyEntryCount(in: q)) stale ready entries, \(queues[q.slot].possiblyStaleReadyEntries) counted")
    }
    if queueNameHashes != queues.map({ NameIndex.hash($0.name) }) {
      problems.append("the queues' name hashes are not those of their names")
    }
    if readiness.count != operations.count {
      problems.append("\(readiness.count) readiness entries for \(operations.count) operations")
    }
    // Each edge dep → op: +1 where op lists dep as a dependency, -1 where dep lists op as a dependent.
    var balance: [Int64: Int] = [:]
    func edge(_ dep: OpID, _ op: OpID) -> Int64 { Int64(dep.index) << 32 | Int64(UInt32(bitPattern: op.index)) }
    for i in operations.indices {
      for dep in dependencies(of: OpID(i)) { balance[edge(dep, OpID(i)), default: 0] += 1 }
      for dependent in dependents(of: OpID(i)) { balance[edge(OpID(i), dependent), default: 0] -= 1 }
    }
    for (key, surplus) in balance.sorted(by: { $0.key < $1.key }) where surplus != 0 {
      let dep = operations[Int(key >> 32)].name, op = operations[Int(Int32(truncatingIfNeeded: key))].name
      problems.append(
        "\(op) lists \(dep) as a dependency \(surplus > 0 ? "\(surplus) more" : "\(-surplus) fewer") times than \(dep) lists it as a dependent")
    }
    for (i, r) in zip(readiness.indices, operations) {
      let unfinishedCount = readiness[i].unfinishedCount, isReady = readiness[i].isReady
      if readiness[i].phase != r.phase { problems.append("\(r.name) is \(r.phase) but readiness says \(readiness[i].phase)") }
      if r.isFinished {
        if r.outcome == nil || r.finishedAt == nil { problems.append("\(r.name) finished without an outcome or time") }
        if let s = r.startedAt, let f = r.finishedAt, f < s { problems.append("\(r.name) finished before it started") }
      } else if r.outcome != nil {
        problems.append("\(r.name) has an outcome but is not finished")
      }
      let unfinishedDeps = edges.operations(in: r.dependencyList).count { !operations[$0.slot].isFinished }
      let handedOver = r.dispatched || isDispatchedToMainThread(OpID(i))
      let waiting = r.phase == .created || r.phase == .pending || (r.phase == .ready && !handedOver)
      if waiting, Int(unfinishedCount) < unfinishedDeps {
        problems.append("\(r.name) counts \(unfinishedCount) unfinished dependencies but has \(unfinishedDeps)")
      }
      if waiting, platform == .apple, !r.stranded, Int(unfinishedCount) != unfinishedDeps {
        // On Darwin the count always equals the unfinished dependencies listed.
        problems.append("\(r.name) counts \(unfinishedCount) unfinished dependencies but lists \(unfinishedDeps)")
      }
      // One handed to the dispatch queue keeps the ready phase, whatever it waits on since.
      if r.phase == .ready && !handedOver && !isReady { problems.append("\(r.name) is in the ready phase but not isReady") }
      if unfinishedCount < 0 { problems.append("\(r.name) counts \(unfinishedCount) unfinished dependencies") }
      if r.phase == .pending && isReady { problems.append("\(r.name) is pending but isReady") }
    }
    problems += cpuViolations()
    if let first = agenda.min, first.tick < now {
      problems.append("the agenda holds a wake-up at tick \(first.tick), before now (\(now))")
    }
    if let f = frames, f.next < now {
      problems.append("the next frame is due at tick \(f.next), before now (\(now))")
    }
    return problems
  }
}

/// The invariants checked as actions return, in debug builds.
extension World {
  /// Whether this build checks the invariants as every action returns
  /// (``checkInvariants()``): debug builds, for which Package.swift defines
  /// `OPLAB_INVARIANTS`; never release builds.
  static var checksInvariants: Bool {
    #if OPLAB_INVARIANTS
    true
    #else
    false
    #endif
  }

  /// Stops the program if an invariant is broken (``invariantViolations()``), in builds
  /// with `OPLAB_INVARIANTS`, as swift-collections' `_checkInvariants()` does under
  /// `COLLECTIONS_INTERNAL_CHECKS`; in other builds it is empty and costs nothing. A broken
  /// invariant is the kernel's error, never the learner's: the message names every one.
  ///
  /// Every public mutating method of `World` calls it as it returns (in a `defer`), or
  /// leaves it to the one it ends with (`step`, `run(until:)` to ``advance(to:interrupt:)``,
  /// which time travel also calls directly; `addOperation` to `createOperation` and
  /// `enqueue`). A check reads the whole world, so it runs after every action while the
  /// world is small (see ``isInvariantCheckDue(size:actionsSinceCheck:)``) and less often
  /// in a large one.
  @inline(__always) mutating func checkInvariants() {
    #if OPLAB_INVARIANTS
    actionsSinceInvariantCheck += 1
    let size = operations.count + edges.links.count + agenda.count
    guard Self.isInvariantCheckDue(size: size, actionsSinceCheck: actionsSinceInvariantCheck) else { return }
    actionsSinceInvariantCheck = 0
    let problems = invariantViolations()
    precondition(problems.isEmpty, "broken invariants at tick \(now): " + problems.joined(separator: "; "))
    #endif
  }

  /// Whether an action ends with a check of the invariants: always while the world's size
  /// (operations, dependency links and wake-ups) is at most ``invariantCheckSize`` — lessons,
  /// sessions, the random sweeps — and past that once the actions since the last check are
  /// half its size. A check costs O(size), so checks cost O(1) per action, amortised: a
  /// debug build adding 100,000 operations does about three whole checks' worth of work,
  /// not 100,000.
  static func isInvariantCheckDue(size: Int, actionsSinceCheck: Int) -> Bool {
    size <= invariantCheckSize || actionsSinceCheck * 2 >= size
  }

  /// The largest world checked after every action (see ``isInvariantCheckDue(size:actionsSinceCheck:)``).
  static let invariantCheckSize = 256

  /// A serial dispatch queue's running item executes, and it is busy while items wait; each
  /// waiting operation is dispatched, ready, holds its slot, and its queue is on that
  /// dispatch queue; a concurrent one keeps no line.
  func dispatchQueueViolations() -> [String] {
    var problems: [String] = []
    for (i, d) in dispatchQueues.enumerated() {
      if d.isConcurrent, d.running != nil || !d.waiting.isEmpty { problems.append("dispatch queue \(d.name) is concurrent but keeps a line") }
      if let r = d.running, operations[r.slot].phase != .executing {
        problems.append("dispatch queue \(d.name) runs \(operations[r.slot].name)'s work item, which is \(operations[r.slot].phase)")
      }
      if d.running == nil, !d.waiting.isEmpty { problems.append("dispatch queue \(d.name) is idle while \(d.waiting.count) items wait") }
      for w in d.waiting {
        let r = operations[w.slot]
        if !r.dispatched || r.phase != .ready || !r.holdsSlot || r.queue.flatMap({ queues[$0.slot].underlyingQueue }) != Int32(i) {
          problems.append("\(r.name) waits on dispatch queue \(d.name) but is not a ready operation of a queue on it, dispatched with its slot")
        }
      }
    }
    return problems
  }
}
