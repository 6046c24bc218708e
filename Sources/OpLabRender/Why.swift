import OpLabCore

/// `why OP`: a short account, from the trace, of what an operation waited for,
/// when and why it started, what went ahead of it and what cancellation did.
public enum Why {
  /// Renders the account as plain sentences, one per line.
  public static func render(_ op: OpID, in world: World) -> String {
    let h = world.history(of: op)
    let name = world.name(op)
    // Facts in the order they happened (by event sequence), then what holds it now.
    var facts: [(Int, String)] = []
    func at(_ i: Int) -> String { "t=\(world.trace[i].tick)" }
    func because(_ i: Int) -> String {
      let text = world.explain(world.trace[i].reason, about: op)
      return text.isEmpty ? "" : " (\(text))"
    }
    if let c = h.created { facts.append((c, "\(name) was created at \(at(c)).")) }
    if let q = h.enqueued {
      let queueName = world.trace[q].queue.map { world.name($0) } ?? "?"
      facts.append(
        (
          q,
          world.isRunLoopWork(op)
            ? "It reached the main thread's run loop at \(at(q))."
            : "It was added to \(queueName) at \(at(q))\(because(q))."
        ))
    }
    // When it waited on several dependencies, the ready sentence names only the last one:
    // say when each finished.
    if let r = h.firstReady ?? h.ready, let since = h.enqueued ?? h.created {
      let start = world.trace[since].tick, end = world.trace[r].tick
      let waitedFor = world.dependencies(of: op).compactMap { d in
        world.operation(d).finishedAt.flatMap { $0 >= start && $0 <= end ? (tick: $0, name: world.name(d)) : nil }
      }.sorted { $0.tick < $1.tick }
      if waitedFor.count > 1 {
        let listed = waitedFor.prefix(6).map { "\($0.name) at t=\($0.tick)" }.joined(separator: ", ")
        let more = waitedFor.count > 6 ? " and \(waitedFor.count - 6) more" : ""
        facts.append((r, "Its dependencies finished while it waited: \(listed)\(more)."))
      }
    }
    // A tap or a frame waits for the main thread, not for dependencies: no ready line.
    if let r = h.firstReady, !world.isRunLoopWork(op) { facts.append((r, "It became ready at \(at(r))\(because(r)).")) }
    for u in h.unready { facts.append((u, "It stopped being ready at \(at(u))\(because(u)).")) }
    if let r = h.ready, !world.isRunLoopWork(op) {
      facts.append((r, "It became ready\(h.firstReady == nil ? "" : " again") at \(at(r))\(because(r))."))
    }
    for i in h.priorityChanges {
      guard case .priorityChanged(let p) = world.trace[i].kind else { continue }
      facts.append((i, "Its queuePriority became \(p) at \(at(i))\(because(i))."))
    }
    let me = world.operation(op)
    for i in h.overtakenBy {
      guard let otherID = world.trace[i].op else { continue }
      let other = world.operation(otherID)
      let rule: String
      if let mainRule = mainThreadRule(me: op, other: otherID, in: world) {
        rule = mainRule
      } else if other.isBarrier {
        rule = "a barrier goes before every priority"
      } else if let a = other.filedPriority, let b = me.filedPriority, a != b {
        rule = a > b ? "\(a) beats \(b)" : "it was picked before \(name) was ready"
      } else if let moved = h.priorityChanges.last(where: { $0 < i }) {
        // Its place in the line is where the change put it, not where it was added (rule 23).
        rule = "same priority, ahead in the line: \(World.possessive(name)) priority change at \(at(moved)) put it at the tail"
      } else {
        rule = "same priority, ahead in the line: first in, first out"
      }
      // A cancelled operation ahead of it was only started to be skipped (rule 13): it took a
      // slot for an instant but never ran. An asynchronous one's start() is its own.
      let skippedBy =
        if case .async = other.spec.kind { "its own start() saw isCancelled and did not do the work" } else {
          "start() returned without running main()"
        }
      let went =
        switch world.trace[i].kind {
        case .skipped: "\(other.name) was skipped at \(at(i)): it was cancelled, so \(skippedBy)"
        case .dispatched: "\(other.name) took a slot at \(at(i)), to wait behind the running barrier block"
        default: "\(other.name) started at \(at(i))"
        }
      // Once OperationQueue.main has dispatched it, an operation on main waits for the main
      // thread, as a tap or a frame does, not for a slot.
      let forMainThread = world.isRunLoopWork(op) || world.mainThreadDispatches[op].map { $0 <= world.trace[i].tick } == true
      facts.append((i, "While it waited for \(forMainThread ? "the main thread" : "a slot"), \(went) (\(rule))."))
    }
    if let d = world.mainThreadDispatches[op], let r = h.ready, world.trace[r].tick < d || me.startedAt != d {
      let waited = me.startedAt.map { $0 > d } ?? true
      facts.append(
        (
          indexOfTick(d, in: world, after: r),
          "OperationQueue.main dispatched it to the main thread at t=\(d), when it was ready and main's one operation slot was free"
            + (waited
              ? ": from then on it waited for the main thread behind the work that became runnable there before it (the main thread takes work in the order it became runnable)."
              : ".")
        ))
    }
    if let d = h.dispatched, case .dispatchQueueBusy(let dq, let running) = world.trace[d].reason {
      facts.append(
        (
          d,
          "It took a slot at \(at(d)), and its queue handed it to \(world.dispatchQueueName(dq)), its underlying dispatch queue, "
            + "which is serial: it waited there, not executing, for \(World.possessive(world.name(running))) work item to return "
            + "(one at a time, whatever maxConcurrentOperationCount). From then on it held its slot: suspending the queue could not "
            + "stop it, a cancel was seen only when it started, and which operations got the slots was decided then, by priority at that moment."
        ))
    } else if let d = h.dispatched {
      let barrier = h.started.flatMap { s -> String? in
        if case .dispatchBarrierEnded(let b) = world.trace[s].reason { world.name(b) } else { nil }
      }
      facts.append(
        (
          d,
          "It took a slot at \(at(d))\(because(d)), while the barrier block\(barrier.map { " " + $0 } ?? "") ran: "
            + "the queue handed it to its dispatch queue, where it waited behind the block. From then on it held its slot: "
            + "suspending the queue could not stop it, a cancel was seen only when it started, and which operations got the slots "
            + "was decided then, by priority at that moment."
        ))
    }
    for i in h.cancelRequests { facts.append((i, "cancel() reached it at \(at(i))\(because(i)).")) }
    if let s = h.started, world.isRunLoopWork(op) {
      let why = because(s).replacing("slot freed by", with: "freed by")
        .replacing("a slot was free when it was enqueued", with: "the main thread was free")
      facts.append((s, "The main thread took it at \(at(s))\(why)."))
    } else if let s = h.started {
      let verb = world.trace[s].kind == .skipped ? "was skipped (start() saw isCancelled)" : "started"
      facts.append((s, "It \(verb) at \(at(s))\(because(s))."))
    }
    if let o = h.cancelObserved { facts.append((o, "It saw isCancelled at \(at(o))\(because(o)).")) }
    if let f = h.finished, case .finished(.succeeded) = world.trace[f].kind, let s = h.started,
      let c = h.cancelRequests.first(where: { world.trace[$0].reason != .alreadyFinished }), c > s
    {
      let why: String =
        switch me.spec.cancellation {
        case .never: "its code never checks isCancelled, so cancel() could not stop it"
        case .atStart: "its code checks isCancelled only when main() begins, and it had already begun"
        case .every(let k): "its next isCancelled check (every \(k) ticks) would have come after its work was done"
        }
      facts.append((f, "It ran to the end although cancelled: \(why)."))
    }
    for stretch in h.favoured where stretch.to != stretch.from {
      let span = stretch.to.map { "From t=\(stretch.from) to t=\($0)" } ?? "From t=\(stretch.from)"
      let cores = stretch.cores.map { "\($0) \($0 == 1 ? "core" : "cores")" } ?? "the cores"
      let others =
        stretch.lighter.prefix(3).map { world.name($0) }.joined(separator: ", ")
        + (stretch.lighter.count > 3 ? " and \(stretch.lighter.count - 3) more" : "")
      facts.append(
        (
          indexOfTick(stretch.from, in: world, after: h.started ?? 0),
          "\(span) it kept a whole core while \(stretch.units) running jobs shared \(cores): its \(world.effectiveQualityOfService(of: op)) outweighed \(others)."
        ))
    }
    for stretch in h.contention where stretch.to != stretch.from {
      facts.append((indexOfTick(stretch.from, in: world, after: h.started ?? 0), contentionSentence(stretch, of: op, in: world)))
    }
    if let f = h.finished { facts.append((f, "It finished at \(at(f))\(because(f)).")) }
    if let kind = me.mainThreadWork, kind == .tap || kind == .frame, let enq = me.enqueuedAt {
      let what = kind == .tap ? "The tap" : "The frame"
      if let s = me.startedAt {
        let waited = s - enq
        do {
          let text =
            waited == 0
            ? "\(what) got the main thread at once: the user interface stayed responsive."
            : "\(what) waited \(waited) \(waited == 1 ? "tick" : "ticks") for the main thread: the user interface was frozen that long."
          facts.append((h.started ?? 0, text))
        }
      } else if me.outcome == .dropped {
        facts.append((h.finished ?? 0, "The frame never got the main thread: it was dropped, and the user saw a stutter."))
      }
    }
    if let cs = h.completionStarted {
      facts.append((cs, "Its completion block ran from \(at(cs))" + (h.completionFinished.map { " to \(at($0))." } ?? " and is still running.")))
    }
    facts += unspecifiedOrders(of: op, history: h, in: world)
    facts += sharedStateFacts(of: op, in: world)
    // Stable: facts of one event keep the order they were added in.
    var lines = facts.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    if h.enqueued == nil, h.finished == nil, h.started == nil {
      lines.append("It was never added to a queue, so it cannot start (unless `start \(name)` calls start() by hand).")
    }
    if let current = Status.current(of: op, in: world) { lines.append("Now it " + current + ".") }
    if h.blockage != nil, let chain = Diagnoses.chainSentence(of: op, in: world) { lines.append("Now: " + chain) }
    return lines.joined(separator: "\n") + "\n"
  }
}

extension Why {
  /// Why `other` went ahead of `me` on the main thread, when one of them is user-interface
  /// work and the other an operation of OperationQueue.main (rule 42): the main thread takes
  /// work in the order it became runnable there; `nil` when that is not the case.
  static func mainThreadRule(me: OpID, other: OpID, in world: World) -> String? {
    let mine = world.operation(me), theirs = world.operation(other)
    guard mine.queue == .main, theirs.queue == .main else { return nil }
    let ui: (OperationRecord) -> Bool = { $0.mainThreadWork == .tap || $0.mainThreadWork == .frame }
    if mine.mainThreadWork == nil, ui(theirs), let came = theirs.enqueuedAt {
      let what = theirs.mainThreadWork == .tap ? "the tap" : "the frame"
      guard let d = world.mainThreadDispatches[me], came <= d else {
        return
          "\(what) came at t=\(came), while \(mine.name) was not yet dispatched to the main thread (OperationQueue.main runs one operation at a time)"
      }
      return
        "\(what) had waited for the main thread since t=\(came); \(mine.name) became runnable there only at t=\(d), when OperationQueue.main dispatched it, and the main thread takes work in the order it became runnable"
    }
    if ui(mine), theirs.mainThreadWork == nil, let d = world.mainThreadDispatches[other], let came = mine.enqueuedAt, d <= came {
      return
        "OperationQueue.main had dispatched it to the main thread at t=\(d), before \(mine.mainThreadWork == .tap ? "the tap" : "the frame") came, and the main thread takes work in the order it became runnable"
    }
    return nil
  }

  /// Whether the lab chose `op`'s place among orders the real queue leaves open (dependents
  /// released together, a dependent racing `cancelAllOperations()`): a real run may differ there.
  public static func orderIsOpen(_ op: OpID, in world: World) -> Bool {
    !unspecifiedOrders(of: op, history: world.history(of: op), in: world).isEmpty
  }

  /// Each step's access to shared state and each lock wait, in the trace's words.
  static func sharedStateFacts(of op: OpID, in world: World) -> [(Int, String)] {
    guard world.shared != nil else { return [] }
    var facts: [(Int, String)] = []
    for (i, e) in world.trace.enumerated() {
      if e.kind == .enqueued, case .addedByStep(let adder, let inCompletion) = e.reason, adder == op, let added = e.op {
        // The add step's event is the added operation's: told here too, as the adder's step.
        let queue = world.operation(added).queue.map { " to \(world.name($0))" } ?? ""
        facts.append(
          (i, "At t=\(e.tick): \(inCompletion ? "its completion block" : "a step of its work") added \(world.name(added))\(queue) (addOperation)."))
        continue
      }
      guard e.op == op else { continue }
      switch e.kind {
      case .variableRead, .computed, .variableWritten, .lockAcquired, .lockWaiting, .lockReleased, .touchedUI, .addRefused:
        facts.append((i, "At t=\(e.tick): \(world.describe(e))."))
      default: continue
      }
    }
    let report = world.raceReport()
    for race in report.races where race.first.op == op || race.second.op == op {
      facts.append((race.second.event, Races.sentences(for: race, in: world).map { String($0.drop { $0 == " " }) }.joined(separator: " ")))
    }
    for call in report.offMainThread where call.op == op {
      facts.append((call.event, "That call into the user interface was off the main thread: UIKit and AppKit must be called on main."))
    }
    return facts
  }

  /// Where the real queue's order is unspecified and the lab chose one, what the choice was
  /// (rule 4(b), rule 33), placed by the event it explains.
  ///
  /// - Dependents released together: a finishing operation keeps its dependents in a `Set`,
  ///   so when several become ready at once on a queue that cannot start them all, which one
  ///   takes the free slot is one of several possible orders.
  /// - `cancelAllOperations()` racing a dependent it released: the loop cancels on the
  ///   calling thread while a skipped operation finishes on a worker, so a dependent may start
  ///   before the loop reaches it, or be cancelled first.
  static func unspecifiedOrders(of op: OpID, history h: OperationHistory, in world: World) -> [(Int, String)] {
    var facts: [(Int, String)] = []
    let name = world.name(op)
    if let r = h.ready, case .dependencyFinished(let released) = world.trace[r].reason, let q = world.operation(op).queue {
      let tick = world.trace[r].tick
      var group: [OpID] = []
      var i = world.trace.firstIndex(atOrAfter: tick)
      while i < world.trace.count, world.trace[i].tick == tick {
        let e = world.trace[i]
        if e.kind == .ready, e.queue == q, e.reason == .dependencyFinished(released), let other = e.op { group.append(other) }
        i += 1
      }
      let startedAtOnce = group.filter { world.operation($0).startedAt == tick }
      if group.count > 1, !startedAtOnce.isEmpty, startedAtOnce.count < group.count {
        let names = Chains.list(count: group.count, limit: 6) { world.name(group[$0]) }
        let winners = Chains.list(count: startedAtOnce.count, limit: 6) { world.name(startedAtOnce[$0]) }
        facts.append(
          (
            r,
            "\(world.name(released)) released \(names) at once, onto \(world.name(q)), which could not start them all: "
              + "the real queue keeps an operation's dependents in a Set, so the order they become ready, and so which one takes the free slot, "
              + "is one of several possible. The lab releases them in the order their dependencies were added, so \(winners) went first."
          ))
      }
    }
    if let s = h.started, world.trace[s].kind == .started,
      let c = h.cancelRequests.first(where: { $0 > s && world.trace[$0].tick == world.trace[s].tick }),
      case .cancelAll(let q) = world.trace[c].reason
    {
      // The same loop cancelled something before it started this one.
      var i = s - 1, loopBefore = false
      while i >= 0, world.trace[i].tick == world.trace[s].tick, !loopBefore {
        if world.trace[i].kind == .cancelRequested, world.trace[i].reason == .cancelAll(q) { loopBefore = true }
        i -= 1
      }
      if loopBefore {
        facts.append(
          (
            c,
            "\(name) started during cancelAllOperations() on \(world.name(q)), before the loop reached it: "
              + "the real loop cancels on the calling thread while skipped operations finish on worker threads, so \(name) may start first "
              + "or be cancelled first (and skipped); the order is one of several possible. The lab lets each cancel's consequences happen "
              + "before the next cancel, so \(name) started."
          ))
      }
    }
    if let s = h.started, world.trace[s].kind == .started, case .picked(let trigger, _) = world.trace[s].reason,
      Self.startedByWorker(trigger, readiness: h.ready.map { world.trace[$0].reason }),
      let c = h.cancelRequests.first(where: { $0 > s && world.trace[$0].tick == world.trace[s].tick }),
      world.trace[c].reason == .command
    {
      // A cancel typed at the tick a worker's finish let the operation start.
      let tick = world.trace[s].tick
      facts.append(
        (
          c,
          "\(name) started at t=\(tick) and was cancelled at that same tick: the lab lets a tick's work happen (the finish "
            + "that let \(name) start) before the commands typed at that tick, but in a real program the cancel() and that "
            + "finish on a worker thread race, so the cancel may come first and \(name) be skipped; the order is one of several possible."
        ))
    }
    facts += lockRaces(of: op, in: world)
    return facts
  }

  /// Whether a start was caused by work on another thread (a finish freeing a slot or
  /// making the operation ready), not by a command of the lab's own thread.
  static func startedByWorker(_ trigger: StartTrigger, readiness: Reason?) -> Bool {
    switch trigger {
    case .slotFreed: true
    case .becameReady: if case .dependencyFinished? = readiness { true } else { false }
    case .enqueued, .resumed, .maxRaised, .cancelled: false
    }
  }

  /// Locks the operation and another called lock() on at the same tick: which thread gets
  /// the lock first is up to the threads; the lab gives it to the step due first.
  static func lockRaces(of op: OpID, in world: World) -> [(Int, String)] {
    guard world.shared != nil else { return [] }
    var facts: [(Int, String)] = []
    for (i, e) in world.trace.enumerated() where e.op == op {
      // Its own `lock` step (a lock handed over by an unlock is no attempt).
      guard !e.reason.isLockHandoff, let lock = Self.lockAttempted(e) else { continue }
      // Another operation's attempt on the same lock at the same tick, won or lost.
      var j = world.trace.firstIndex(atOrAfter: e.tick)
      var rival: OpID?
      var winner: OpID?
      while j < world.trace.count, world.trace[j].tick == e.tick {
        let other = world.trace[j]
        if let o = other.op, !other.reason.isLockHandoff, Self.lockAttempted(other) == lock {
          if other.kind == .lockAcquired(lock), winner == nil { winner = o }
          if o != op, rival == nil { rival = o }
        }
        j += 1
      }
      guard let rival, let winner else { continue }
      facts.append(
        (
          i,
          "\(world.name(op)) and \(world.name(rival)) called lock() on \(world.lockName(lock)) at the same tick (t=\(e.tick)): "
            + "which thread gets it first is up to the threads; the lab gave it to \(world.name(winner)), whose step was due first (`explore` tries the other)."
        ))
    }
    return facts
  }

  /// The lock a `lock` step took or began to wait for, if the event is one.
  static func lockAttempted(_ e: Event) -> Int32? {
    switch e.kind {
    case .lockWaiting(let l), .lockAcquired(let l): l
    default: nil
    }
  }

  /// The trace index of the first event at or after `tick`, from `start` on (for ordering facts).
  static func indexOfTick(_ tick: Tick, in world: World, after start: Int) -> Int {
    Swift.max(start, world.trace.firstIndex(atOrAfter: tick))
  }

  /// "From t=4 to t=10 it ran at 1/3 of a core: 3 running jobs on 1 core; userInitiated
  /// outweighed its utility (d1)."
  static func contentionSentence(_ s: CPUStretch, of op: OpID, in world: World) -> String {
    let span = s.to.map { "From t=\(s.from) to t=\($0)" } ?? "From t=\(s.from)"
    let machine = s.cores.map { "\(s.units) running jobs on \($0) \($0 == 1 ? "core" : "cores")" } ?? "\(s.units) running jobs"
    let mine = world.effectiveQualityOfService(of: op)
    func names(_ ops: [OpID]) -> String {
      let shown = ops.prefix(3).map { world.name($0) }.joined(separator: ", ")
      return ops.count > 3 ? shown + " and \(ops.count - 3) more" : shown
    }
    var why: String
    if !s.heavier.isEmpty {
      let qos = Set(s.heavier.map { world.effectiveQualityOfService(of: $0) }).sorted(by: >).map(\.description).joined(separator: " and ")
      why = "; \(qos) outweighed its \(mine) (\(names(s.heavier)))"
    } else if !s.lighter.isEmpty {
      why = "; its \(mine) outweighed \(names(s.lighter)), but there was not enough CPU for everyone"
    } else {
      why = "; the same quality of service (\(mine)) shares equally"
    }
    if s.heavier.isEmpty && s.lighter.isEmpty && s.equal.isEmpty { why = "" }
    return "\(span) it ran at \(Machine.describe(s.share)): \(machine)\(why)."
  }
}
