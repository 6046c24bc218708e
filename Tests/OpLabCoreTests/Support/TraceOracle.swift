@testable import OpLabCore

/// An independent reading of a trace that checks the scheduling rules hold at every event.
///
/// It rebuilds queue limits, suspension, slots, dependency edges and each queue's ready
/// set from the events alone (plus the specs the actions defined), then checks each
/// start against them. It shares no code with the kernel's scheduler.
struct TraceOracle {
  let world: World
  /// Specs as first defined, by operation name (priority and QoS at creation).
  let specs: [String: OperationSpec]

  func violations() -> [String] {
    var problems: [String] = []
    var max: [QueueID: Int?] = [:]
    var suspended: Set<QueueID> = []
    var executing: [QueueID: Int] = [:]
    var holdsSlot: Set<OpID> = []
    var deps: [OpID: [OpID]] = [:]
    var finished: Set<OpID> = []
    var cancelled: Set<OpID> = []
    var started: Set<OpID> = []
    var ready: [QueueID: Set<OpID>] = [:]
    var key: [OpID: (level: Int, place: Int)] = [:]
    var priority: [OpID: QueuePriority?] = [:]
    var barriers: Set<OpID> = []
    var phaseIsWaiting: Set<OpID> = []
    var dispatched: Set<OpID> = []
    var queueOf: [OpID: QueueID] = [:]
    var place = 0
    let platform = world.platform
    // The main thread as a run loop (rule 42): OperationQueue.main dispatches its best ready
    // operation when none of its operations is dispatched or running; the main thread then
    // takes that one, taps, frames and waits in the order they became runnable there.
    var mainInFlight: OpID?
    var mainKey: [OpID: (level: Int, place: Int)] = [:]
    var inFlightFinishing = false
    // A corelibs barrier on an empty queue goes straight to the dispatch queue (rule 32).
    var emptyQueueBarriers: Set<OpID> = []
    func isMainOperation(_ op: OpID) -> Bool {
      queueOf[op] == .main && world.operation(op).mainThreadWork == nil && !emptyQueueBarriers.contains(op)
    }
    func dispatchOnMain() {
      guard mainInFlight == nil else { return }
      let waiting = (ready[.main] ?? []).filter { isMainOperation($0) && !started.contains($0) }
      guard
        let best = waiting.max(by: { a, b in
          let ka = key[a]!, kb = key[b]!
          return ka.level != kb.level ? ka.level < kb.level : ka.place > kb.place
        })
      else { return }
      mainInFlight = best
      place += 1
      mainKey[best] = (0, place)
    }

    for (seq, e) in world.trace.enumerated() {
      let at = "event #\(seq) (t=\(e.tick) \(world.describe(e)))"
      // The finish of the operation in flight on main releases its dependents first; then
      // the queue dispatches its next one, before anything else happens on main.
      let partOfFinish: Bool
      switch e.kind {
      case .ready, .kvoWillChange, .kvoDidChange: partOfFinish = true
      default: partOfFinish = false
      }
      if inFlightFinishing, !partOfFinish, e.queue == .main || e.op.map({ queueOf[$0] == .main }) == true {
        inFlightFinishing = false
        mainInFlight = nil
        dispatchOnMain()
      }
      switch e.kind {
      case .queueCreated(let m): max[e.queue!] = m
      case .maxChanged(let m): max[e.queue!] = m
      case .suspended: suspended.insert(e.queue!)
      case .resumed: suspended.remove(e.queue!)
      case .created:
        let op = e.op!
        priority[op] = specs[world.name(op)]?.priority
      case .barrierAdded: barriers.insert(e.op!)
      case .priorityChanged(let p):
        let op = e.op!
        let waiting = phaseIsWaiting.contains(op) && !barriers.contains(op) && !dispatched.contains(op) && op != mainInFlight
        guard waiting, let k = key[op], let q = queueOf[op] else {
          priority[op] = p
          continue
        }
        // Darwin: a new level moves the op to its tail. Linux: corelibs guesses the old level
        // from the QoS and moves the op only when the guess is right and differs (rules 23, 24).
        let assumed: Int
        if platform == .apple {
          assumed = k.level
        } else if let explicit = priority[op] ?? nil {
          assumed = Int(explicit.rawValue)
        } else if (max[q] ?? nil) != 0, let qos = specs[world.name(op)]?.qualityOfService {
          assumed = Int(qos.mappedPriority.rawValue)
        } else {
          assumed = 0
        }
        if assumed == Int(p.rawValue) { continue }
        priority[op] = p
        if assumed == k.level {
          place += 1
          key[op] = (Int(p.rawValue), place)
        }
      case .dependencyAdded(let d):
        // An op already dispatched behind a corelibs barrier is past waiting on anything new.
        if !dispatched.contains(e.op!), e.op != mainInFlight { deps[e.op!, default: []].append(d) }
      case .dependencyRemoved(let d):
        if let i = deps[e.op!]?.firstIndex(of: d) { deps[e.op!]!.remove(at: i) }
      case .cancelRequested:
        if !finished.contains(e.op!) { cancelled.insert(e.op!) }
      case .enqueued:
        let op = e.op!, q = e.queue!
        if e.reason == .emptyQueueBarrier { emptyQueueBarriers.insert(op) }
        place += 1
        phaseIsWaiting.insert(op)
        queueOf[op] = q
        let level: Int
        if barriers.contains(op) {
          level = 12
        } else if world.operation(op).mainThreadWork != nil {
          level = 0  // a tap, a frame or a call made there (a wait, a start()) takes its turn on the main thread
        } else if let p = priority[op] ?? nil {
          level = Int(p.rawValue)
        } else if platform == .linux, (max[q] ?? nil) != 1, q != .main, let qos = specs[world.name(op)]?.qualityOfService {
          level = Int(qos.mappedPriority.rawValue)
        } else {
          level = 0
        }
        key[op] = (level, place)
      case .ready:
        ready[e.queue!, default: []].insert(e.op!)
        if e.queue == .main, isMainOperation(e.op!), !inFlightFinishing { dispatchOnMain() }
      case .unready: ready[e.queue!, default: []].remove(e.op!)
      case .started where e.queue == nil, .skipped where e.queue == nil:
        // start() called by hand (rule 3): in no queue, ready (or cancelled), started once.
        let op = e.op!
        guard case .startedByHand = e.reason else { problems.append("\(at): started in no queue, not by hand"); continue }
        if started.contains(op) { problems.append("\(at): started twice") }
        started.insert(op)
        if queueOf[op] != nil { problems.append("\(at): started by hand but in a queue") }
        if e.kind == .started {
          if cancelled.contains(op) { problems.append("\(at): a cancelled operation ran main()") }
          for d in deps[op] ?? [] where !finished.contains(d) {
            problems.append("\(at): started by hand before its dependency \(world.name(d)) finished")
          }
        } else if !cancelled.contains(op) {
          problems.append("\(at): skipped but not cancelled")
        }
      case .dispatched, .started, .skipped:
        let op = e.op!, q = e.queue!
        if e.kind == .dispatched {
          dispatched.insert(op)
        } else {
          if started.contains(op) { problems.append("\(at): started twice") }
          started.insert(op)
          phaseIsWaiting.remove(op)
        }
        if dispatched.contains(op), e.kind != .dispatched {
          // Already counted and checked when the queue dispatched it behind the barrier.
          if case .dispatchBarrierEnded = e.reason {} else { problems.append("\(at): a dispatched op started for another reason") }
          if e.kind == .started {
            for d in deps[op] ?? [] where !finished.contains(d) {
              problems.append("\(at): started before its dependency \(world.name(d)) finished")
            }
          }
          continue
        }
        if !(ready[q]?.contains(op) ?? false) { problems.append("\(at): started but was not ready") }
        if case .started = e.kind {
          if cancelled.contains(op) { problems.append("\(at): a cancelled operation ran main()") }
          for d in deps[op] ?? [] where !finished.contains(d) {
            problems.append("\(at): started before its dependency \(world.name(d)) finished")
          }
        } else if e.kind == .skipped, !cancelled.contains(op) {
          problems.append("\(at): skipped but not cancelled")
        }
        if e.reason == .emptyQueueBarrier {
          ready[q]?.remove(op)
          continue
        }
        let limit = q == .main ? 1 : ((max[q] ?? nil) ?? Int.max)
        if suspended.contains(q) { problems.append("\(at): started on a suspended queue") }
        if executing[q, default: 0] >= limit { problems.append("\(at): started with \(executing[q, default: 0]) of \(limit) slots busy") }
        var candidates = ready[q] ?? []
        var keyOf = key
        if q == .main {
          // Only the dispatched operation competes for the main thread, at its dispatch's place.
          if isMainOperation(op), op != mainInFlight { problems.append("\(at): an operation of main started without being dispatched") }
          candidates = candidates.filter { !isMainOperation($0) || $0 == mainInFlight }
          if let m = mainInFlight { keyOf[m] = mainKey[m] }
        }
        if let k = keyOf[op],
          let better = candidates.first(where: { c in
            guard let ck = keyOf[c] else { return false }
            return ck.level > k.level || (ck.level == k.level && ck.place < k.place)
          })
        {
          problems.append("\(at): picked over the better \(world.name(better))")
        }
        ready[q]?.remove(op)
        executing[q, default: 0] += 1
        holdsSlot.insert(op)
      case .finished:
        let op = e.op!
        if finished.contains(op) { problems.append("\(at): finished twice") }
        if !started.contains(op), e.reason != .cancelledOutsideQueue, e.reason != .frameDropped {
          problems.append("\(at): finished without starting")
        }
        if e.reason == .frameDropped {
          if started.contains(op) || world.operation(op).mainThreadWork != .frame { problems.append("\(at): dropped what is not a waiting frame") }
          ready[e.queue!]?.remove(op)
        }
        finished.insert(op)
        phaseIsWaiting.remove(op)
        if op == mainInFlight { inFlightFinishing = true }
        if holdsSlot.remove(op) != nil, let q = e.queue { executing[q, default: 0] -= 1 }
      case .completionStarted:
        if !finished.contains(e.op!) { problems.append("\(at): completion block before finish") }
      default:
        break
      }
    }
    for i in world.trace.indices.dropFirst() where world.trace[i].tick < world.trace[i - 1].tick {
      problems.append("event #\(i) goes back in time")
    }
    return problems
  }
}
