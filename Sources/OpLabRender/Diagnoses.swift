import OpLabCore

/// Sentences for stall causes and whole diagnoses.
public enum Diagnoses {
  /// One sentence naming what holds `op`.
  public static func sentence(for cause: StallCause, of op: OpID, in world: World) -> String {
    let name = world.name(op)
    switch cause {
    case .neverCallsFinish:
      if world.operation(op).isCancelled, world.operation(op).startedAt != nil,
        world.history(of: op).started.map({ world.trace[$0].kind == .skipped }) == true
      {
        return
          "\(name) was cancelled before it started; its own start() saw that and returned without calling finish(), so it holds its slot forever."
      }
      if world.operation(op).queue == nil {
        return "\(name) finished its work but never called finish(), so it never finishes (started by hand, it holds no queue's slot)."
      }
      return "\(name) finished its work but never called finish(), so it holds its slot forever."
    case .queueSuspended(let q):
      return "\(name) is ready, but \(world.name(q)) is suspended: resume it."
    case .heldBehindBarrier(let q):
      return "\(name) holds a slot of \(world.name(q)), dispatched behind the barrier block running there: it "
        + (world.operation(op).isCancelled ? "is skipped" : "starts") + " when the block returns, suspended or not."
    case .heldByDispatchQueue(let d, let behind):
      return "\(name) holds a slot of its queue, dispatched to \(world.dispatchQueueName(d)), a serial dispatch queue: it "
        + (world.operation(op).isCancelled ? "is skipped" : "starts")
        + " when the work item\(behind.map { " of " + world.name($0) } ?? "") before it returns, whatever the queue's maxConcurrentOperationCount."
    case .queueMaxZero(let q):
      return "\(name) is ready, but \(world.name(q)) has maxConcurrentOperationCount 0, which runs nothing."
    case .slotsHeld(let q, let by):
      let holders = Chains.list(count: by.count, limit: stuckShown) { world.name(by[$0]) }
      return by.isEmpty
        ? "\(name) is ready and waits for a free slot of \(world.name(q))."
        : "\(name) is ready, but every slot of \(world.name(q)) is held by \(holders)."
    case .inCycle:
      let cycle = world.dependencyCycles(from: op).first(where: { $0.contains(op) }) ?? [op]
      return "\(name) is in a dependency cycle (\(Chains.cycle(cycle, in: world))): none of them can ever start; cancel one to break it."
    case .waitingOn(let dep):
      return "\(name) waits on \(world.name(dep)), which has not finished."
    case .dependencyNotInQueue(let dep):
      return "\(name) waits on \(world.name(dep)), which is in no queue and so never runs."
    case .strandedByRemoveDependency:
      return "\(name) is stranded: on Linux, removeDependency did not release it (a corelibs bug); only cancel() frees it."
    case .countBelowZero:
      return
        "\(name) is not ready: on Linux, removeDependency of a finished dependency took its unfinished count to −1 after cancel() had zeroed it (a corelibs bug); cancel() it again to set it back to 0."
    case .notInQueue:
      return "\(name) is in no queue."
    case .mainThreadWaitingFor(let dep):
      return
        "\(name) blocks the main thread in \(call(op, in: world)), waiting for \(world.name(dep)), which has not finished: nothing else can run on the main thread meanwhile."
    case .gateClosed(let g):
      return
        "\(World.possessive(name)) dependencies are done, but its isReady waits for gate \(world.gateName(g)), which is closed: `open \(world.gateName(g))` opens it."
    case .waitingForLock:
      return "\(name) " + predicate(cause, of: op, in: world) + "."
    }
  }

  /// What holds `op`, followed from cause to cause down to the root
  /// (``World/waitChain(of:)``), as one sentence: "show waits on parse, which waits on
  /// fetch, which started at t=0 and never called finish() (async, forgets-finish)."
  ///
  /// A chain of one link whose cause names no other operation reads as
  /// ``sentence(for:of:in:)``. A chain that ends at an operation that is not held says what
  /// that one is doing; one that comes back to an operation already in it is a deadlock.
  /// Past `2 × Chains.shownAtEachEnd + 2` links, the middle ones are counted, not told.
  /// - Returns: `nil` when nothing holds `op`.
  /// - Complexity: O(operations + dependencies) to follow the chain; the text is O(links shown).
  public static func chainSentence(of op: OpID, in world: World) -> String? {
    let links = world.waitChain(of: op)
    guard let first = links.first, let last = links.last else { return nil }
    if links.count == 1, first.cause.heldBy == nil { return sentence(for: first.cause, of: op, in: world) }
    let ends = Chains.shownAtEachEnd
    let shown: [Int] = links.count > 2 * ends + 2 ? Array(0..<ends) + Array(links.count - ends..<links.count) : Array(links.indices)
    var parts: [String] = []
    for (k, i) in shown.enumerated() {
      if k > 0, shown[k - 1] != i - 1 { parts.append("… \(Chains.grouped(i - shown[k - 1] - 1)) more …") }
      let text = predicate(links[i].cause, of: links[i].op, in: world)
      parts.append(i == 0 ? "\(world.name(links[i].op)) \(text)" : "which \(text)")
    }
    var text = parts.joined(separator: ", ")
    if let next = last.cause.heldBy {
      if links.contains(where: { $0.op == next }) {
        text += ": a deadlock, so none of them can ever finish"
      } else if let since = world.operation(next).startedAt, world.operation(next).phase == .executing {
        text += ", which has been executing since t=\(since)"
      } else {
        text += ", which has not finished"
      }
    }
    return text + "."
  }

  /// What a cause says of the operation it holds, as a predicate for a wait chain:
  /// "waits on parse", "is ready, but downloads is suspended: resume it".
  static func predicate(_ cause: StallCause, of op: OpID, in world: World) -> String {
    switch cause {
    case .neverCallsFinish:
      let r = world.operation(op)
      let kind = if case .async(forgetsFinish: true) = r.spec.kind { " (async, forgets-finish)" } else { "" }
      let at = r.startedAt.map { " at t=\($0)" } ?? ""
      if r.isCancelled, world.history(of: op).started.map({ world.trace[$0].kind == .skipped }) == true {
        return "was cancelled before it started, and its own start()\(at) returned without calling finish()\(kind)"
      }
      return "started\(at) and never called finish()\(kind)"
    case .queueSuspended(let q):
      return "is ready, but \(world.name(q)) is suspended: resume it"
    case .heldBehindBarrier(let q):
      return "holds a slot of \(world.name(q)), dispatched behind the barrier block running there: it "
        + (world.operation(op).isCancelled ? "is skipped" : "starts") + " when the block returns, suspended or not"
    case .heldByDispatchQueue(let d, let behind):
      return "holds a slot of its queue, dispatched to \(world.dispatchQueueName(d)), a serial dispatch queue: it "
        + (world.operation(op).isCancelled ? "is skipped" : "starts")
        + " when the work item\(behind.map { " of " + world.name($0) } ?? "") before it returns"
    case .queueMaxZero(let q):
      return "is ready, but \(world.name(q)) has maxConcurrentOperationCount 0, which runs nothing"
    case .slotsHeld(let q, let by):
      return by.isEmpty
        ? "is ready and waits for a free slot of \(world.name(q))"
        : "is ready, but every slot of \(world.name(q)) is held by \(Chains.list(count: by.count, limit: stuckShown) { world.name(by[$0]) })"
    case .inCycle:
      let cycle = world.dependencyCycles(from: op).first(where: { $0.contains(op) }) ?? [op]
      return "is in a dependency cycle (\(Chains.cycle(cycle, in: world))): none of them can ever start; cancel one to break it"
    case .waitingOn(let dep), .dependencyNotInQueue(let dep):
      return "waits on \(world.name(dep))"
    case .strandedByRemoveDependency:
      return "is stranded: on Linux, removeDependency did not release it (a corelibs bug); only cancel() frees it"
    case .countBelowZero:
      return
        "is not ready: on Linux, removeDependency of a finished dependency took its unfinished count to −1 after cancel() had zeroed it (a corelibs bug); cancel() it again to set it back to 0"
    case .notInQueue:
      return "is in no queue, so it never starts (`add \(world.name(op))` enqueues it; `start \(world.name(op))` runs it by hand)"
    case .mainThreadWaitingFor(let dep):
      return "blocks the main thread in \(call(op, in: world)), waiting for \(world.name(dep))"
    case .gateClosed(let g):
      return "waits for gate \(world.gateName(g)), which is closed (`open \(world.gateName(g))` opens it)"
    case .waitingForLock(let l, let holder):
      let lock = world.lockName(l)
      guard let holder else { return "waits for lock \(lock)" }
      if holder == op { return "waits for lock \(lock), which it holds itself (an NSLock is not reentrant)" }
      let held = world.operation(holder).isFinished ? ", which finished without unlocking it" : ""
      return "waits for lock \(lock), held by \(world.name(holder))\(held)"
    }
  }

  /// The call a piece of main-thread work is: the wait or start() that blocks the main thread.
  static func call(_ op: OpID, in world: World) -> String {
    switch world.operation(op).mainThreadWork {
    case .waitForOperations?: world.queueAdded(by: op) != nil ? "addOperations(_:waitUntilFinished: true)" : "waitUntilFinished()"
    case .start?: "start()"
    default: "waitUntilAllOperationsAreFinished()"
    }
  }

  /// A lock-order deadlock: who holds what and wants what, and the fix.
  public static func lockCycleSentence(_ cycle: [OpID], in world: World) -> String {
    guard cycle.count > 1 else {
      let op = cycle.first.map { world.name($0) } ?? "?"
      return "deadlock: \(op) locked a lock it already holds; an NSLock is not reentrant (NSRecursiveLock is)"
    }
    let parts = cycle.map { op -> String in
      let wants = world.lockWaitedFor(by: op).map { world.lockName(Int32($0)) } ?? "?"
      let holds = world.locksHeld(by: op).map { world.lockName(Int32($0)) }.joined(separator: ", ")
      return "\(world.name(op)) holds \(holds.isEmpty ? "nothing" : holds) and wants \(wants)"
    }
    return "lock-order deadlock: " + parts.joined(separator: "; ")
      + " — each waits for the next forever. Take the locks in the same order in every operation."
  }

  /// The most lines a diagnosis shows before it counts the rest.
  public static let stuckShown = 20

  /// A diagnosis as lines: what holds each stuck operation, in the diagnosis' order, with
  /// each dependency cycle once (where its first member comes), shortened by ``Chains``;
  /// past ``stuckShown`` lines, how many operations are left and where to see them.
  /// - Complexity: O(stuck operations), whatever the length of the cycles.
  public static func render(_ d: Diagnosis, in world: World) -> String {
    var lines: [String] = []
    var cyclesShown = Set<Int>()
    var covered = 0
    for entry in d.stuck {
      if case .inCycle(let c) = entry.cause {
        guard !cyclesShown.contains(c) else { continue }
        guard lines.count < stuckShown else { break }
        cyclesShown.insert(c)
        let members = c < d.cycles.count ? d.cycles[c] : [entry.op]
        lines.append("  cycle: \(Chains.cycle(members, in: world)) — none of these can ever start; cancel one to break it")
        covered += members.count
      } else {
        guard lines.count < stuckShown else { break }
        lines.append("  " + sentence(for: entry.cause, of: entry.op, in: world))
        covered += 1
      }
    }
    // Cycles outside the scope (a wait on one queue) are still named, once.
    var cyclesLeft = 0
    for c in d.cycles.indices where !cyclesShown.contains(c) {
      if lines.count < stuckShown {
        lines.append("  cycle: \(Chains.cycle(d.cycles[c], in: world)) — none of these can ever start; cancel one to break it")
      } else {
        cyclesLeft += 1
      }
    }
    // Lock-order deadlocks, each as its wait-for cycle and the fix.
    for cycle in d.lockCycles where lines.count < stuckShown {
      lines.append("  " + lockCycleSentence(cycle, in: world))
    }
    let left = d.stuck.count - covered
    if left > 0 {
      lines.append(
        "  … and \(Chains.grouped(left)) more stuck \(left == 1 ? "operation" : "operations") (status lists them all; why OP says what holds one)")
    }
    if cyclesLeft > 0 {
      lines.append("  … and \(Chains.grouped(cyclesLeft)) more \(cyclesLeft == 1 ? "cycle" : "cycles") (graph lists them all)")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
