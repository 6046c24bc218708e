/// Shared variables, `NSLock`s and operations written as steps (see ``Step``).
///
/// How steps map onto ticks: a step takes one tick, from t to t+1, and the trace stamps it
/// t, the tick it took — the column the timeline draws it in. Its access takes effect as
/// that tick ends: the kernel runs it at the wake-up at t+1, so the world at t (`status`,
/// `goto t`) does not show it yet and the world at t+1 does. An operation that starts at
/// tick t does step 1 during [t, t+1) — stamped t — step 2 during [t+1, t+2), and so on;
/// after its last step its remaining ticks (`takes` minus the number of steps) are plain
/// work, so unhindered it finishes at t + `takes`, like any operation. Step 1 runs only
/// once its tick ends, so operations added by separate commands at one tick all start
/// before any of their steps. At each tick the steps ending there run first (their events,
/// stamped the tick before, come before anything stamped this one), then the filing of
/// the operations their `add` steps added, then everything else. Steps of two operations
/// ending at the same tick run in the order their wake-ups were scheduled (the one that
/// started first goes first): the real order is up to the threads, which is what `explore`
/// is for.
///
/// A `lock L` step on a free lock takes it. On a held lock the operation waits (it keeps its
/// queue slot, and the clock goes on without it) from the tick of its `lock` step; when the
/// holder's `unlock L` step runs, the operation that has waited longest takes the lock in
/// that step's tick, and its next step takes the tick after. A second `lock L` by the
/// holder waits forever (NSLock is not reentrant).
/// Step-by-step work runs a step a tick whatever `machine cores` says.
extension World {
  /// Creates a shared integer variable (`var NAME = N`).
  /// - Throws: ``SimulationError/invalidName(_:)`` or ``SimulationError/duplicateName(_:)``.
  @discardableResult
  public mutating func createVariable(name: String, initial: Int = 0) throws(SimulationError) -> Int {
    defer { checkInvariants() }
    try checkSharedName(name)
    try checkOverflow(compute: 0, initial: initial, name: name)
    var state = shared ?? SharedState()
    state.variableNames.append(name)
    state.initialValues.append(initial)
    state.values.append(initial)
    shared = state
    let index = state.variableNames.count - 1
    record(.variableCreated(Int32(index), value: initial), reason: .command)
    return index
  }

  /// Creates an `NSLock` (`lock NAME`).
  @discardableResult
  public mutating func createLock(name: String) throws(SimulationError) -> Int {
    defer { checkInvariants() }
    try checkSharedName(name)
    var state = shared ?? SharedState()
    state.lockNames.append(name)
    state.holders.append(nil)
    state.waiters.append([])
    shared = state
    let index = state.lockNames.count - 1
    record(.lockCreated(Int32(index)), reason: .command)
    return index
  }

  private func checkSharedName(_ name: String) throws(SimulationError) {
    guard Self.isValidName(name), name.lowercased() != "ui" else { throw .invalidName(name) }
    if operationID(named: name) != nil || queueID(named: name) != nil || shared?.hasName(name) == true {
      throw .duplicateName(name)
    }
  }

  /// Refuses a world in which a `compute` step could overflow `Int`: Swift's `+` traps on
  /// overflow (the program crashes with "arithmetic overflow"), where the lab would wrap
  /// silently. Every value a step makes is a variable's starting value plus `compute` steps'
  /// amounts, each step run once, so the largest starting value in size plus all the
  /// amounts in size bounds them all: a world whose bound fits in `Int` cannot overflow.
  /// - Parameters:
  ///   - compute: the amounts, in size, of the `compute` steps about to be added.
  ///   - initial: the starting value of a variable about to be created.
  func checkOverflow(compute: Int, initial: Int?, name: String? = nil) throws(SimulationError) {
    let (amounts, tooMany) = computeBound.addingReportingOverflow(compute)
    guard tooMany || amounts > 0 else { return }  // no compute step: no value ever changes
    var starts = Array(zip(shared?.variableNames ?? [], shared?.initialValues ?? []))
    if let initial { starts.append((name ?? "", initial)) }
    // The value furthest beyond its limit: Int.max above, Int.min (one further) below.
    for (variable, value) in starts + [("", 0)] {
      let room = value < 0 ? Int.min.magnitude - value.magnitude : Int.max.magnitude - value.magnitude
      guard tooMany || UInt(amounts) > room else { continue }
      throw .invalidSpec(.computeOverflow(variable: variable.isEmpty ? nil : variable, start: value, total: tooMany ? nil : amounts))
    }
  }

  /// The amounts, in size, of the `compute` steps among `steps`, added up (saturating).
  static func computeAmount(_ steps: [Step]) -> Int {
    var total = 0
    for case .compute(let n) in steps {
      let (sum, overflow) = total.addingReportingOverflow(n.magnitude > Int.max.magnitude ? Int.max : Int(n.magnitude))
      total = overflow ? Int.max : sum
    }
    return total
  }

  /// Counts the `compute` steps of an operation or a completion block just added into
  /// ``computeBound``.
  mutating func countCompute(_ steps: [Step]) {
    let (sum, overflow) = computeBound.addingReportingOverflow(Self.computeAmount(steps))
    computeBound = overflow ? Int.max : sum
  }

  /// Checks that every variable, lock, operation and queue the steps name exists, that
  /// an operation a step adds is in no queue yet, and that the world's values cannot
  /// overflow (``checkOverflow(compute:initial:name:)``).
  func checkSteps(_ steps: [Step]) throws(SimulationError) {
    try checkOverflow(compute: Self.computeAmount(steps), initial: nil)
    for step in steps {
      if case .add(let name, let queue) = step {
        guard let target = operationID(named: name) else {
          throw .invalidSpec(.addsUnknownOperation(name))
        }
        guard operations[target.slot].phase == .created else {
          throw .invalidSpec(.addsQueuedOperation(name))
        }
        guard queueID(named: queue) != nil else { throw .unknownQueue(queue) }
      }
      if let v = step.variable, shared?.variable(named: v) == nil {
        throw .invalidSpec(.unknownVariable(v))
      }
      if let l = step.lockName, shared?.lock(named: l) == nil {
        throw .invalidSpec(.unknownLock(l))
      }
    }
  }

  /// The value of a shared variable now.
  public func value(of variable: String) -> Int? {
    guard let shared, let i = shared.variable(named: variable) else { return nil }
    return shared.values[i]
  }

  /// The lock an operation is waiting for now, if any.
  public func lockWaitedFor(by op: OpID) -> Int? {
    guard let run = shared?.runs[op], run.waitingFor >= 0 else { return nil }
    return Int(run.waitingFor)
  }

  /// The locks an operation holds now, by index.
  public func locksHeld(by op: OpID) -> [Int] {
    guard let shared else { return [] }
    return shared.holders.indices.filter { shared.holders[$0] == op }
  }

  /// A variable's name by index, for views of the trace.
  public func variableName(_ index: Int32) -> String {
    guard let shared, Int(index) < shared.variableNames.count, index >= 0 else { return "?" }
    return shared.variableNames[Int(index)]
  }

  /// A lock's name by index, for views of the trace.
  public func lockName(_ index: Int32) -> String {
    guard let shared, Int(index) < shared.lockNames.count, index >= 0 else { return "?" }
    return shared.lockNames[Int(index)]
  }

  /// Makes the operation's completion block the steps (`completion does …`): `op.completionBlock
  /// = { … }`, set before the operation runs. The block takes a tick a step, or longer when
  /// the spec's `completion` says so.
  /// - Throws: ``SimulationError/invalidSpec(_:)`` for a step that names nothing, a lock step
  ///   (the lab's completion blocks take no locks), or an operation that has started.
  public mutating func setCompletionSteps(_ op: OpID, _ steps: [Step]) throws(SimulationError) {
    defer { checkInvariants() }
    guard op.slot >= 0, op.slot < operations.count else { throw .unknownOperation("\(op)") }
    if steps.isEmpty { throw .invalidSpec(.noSteps(.completionBlock)) }
    if let l = steps.lazy.compactMap(\.lockName).first {
      throw .invalidSpec(.lockInCompletion(l))
    }
    guard operations[op.slot].startedAt == nil, !operations[op.slot].isFinished else {
      throw .invalidSpec(.completionAfterStart(operations[op.slot].name))
    }
    try checkSteps(steps)
    if shared == nil { shared = SharedState() }
    shared?.completionSteps[op] = steps
    countCompute(steps)
    let ticks = Swift.max(operations[op.slot].spec.completion ?? 0, Tick(steps.count))
    operations[op.slot].spec.completion = ticks
  }

  /// The operation's completion block as steps, if it was written so.
  public func completionSteps(of op: OpID) -> [Step]? { shared?.completionSteps[op] }

  /// The completion block written as steps starts, after the operation finished: its first
  /// step takes this tick and ends a tick from now, as a `main()`'s does.
  mutating func beginCompletionSteps(_ op: OpID) {
    shared?.runs[op] = StepRun(inCompletion: true)
    schedule(.completionStep(op), at: later(1))
  }

  /// A step-by-step operation starts: its first step takes this tick (it runs as the tick ends).
  mutating func beginSteps(_ op: OpID) {
    if shared == nil { shared = SharedState() }  // `touch ui` alone needs no variable
    shared?.runs[op] = StepRun()
    schedule(.step(op, generation: operations[op.slot].generation), at: later(1))
  }

  /// Sets the choices for the open points from now on (`order C1,C2,…`); an empty list
  /// goes back to the order without choices.
  public mutating func setStepOrder(_ script: [Int]) {
    defer { checkInvariants() }
    var state = shared ?? SharedState()
    state.order = script.isEmpty ? nil : StepOrder(script)
    shared = state
  }

  /// Makes `choice` the choice at the next open point, keeping the choices made so far
  /// (`choose K`); starts choosing if nothing was.
  public mutating func chooseNext(_ choice: Int) {
    defer { checkInvariants() }
    var state = shared ?? SharedState()
    var order = state.order ?? StepOrder()
    order.script = order.taken.map(\.chosen) + [Swift.max(0, choice)]
    state.order = order
    shared = state
  }

  /// The next open point from now, found on a copy (see ``OpenPoint``); `nil` when none
  /// comes within `limit` ticks, or nothing more happens.
  public func nextOpenPoint(within limit: Tick = 100_000) -> OpenPoint? {
    var copy = self
    var state = copy.shared ?? SharedState()
    var order = state.order ?? StepOrder()
    order.script = order.taken.map(\.chosen)
    state.order = order
    copy.shared = state
    let before = order.taken.count
    while let next = copy.nextEventTick, next <= now + limit {
      copy.advance(to: next)
      if let o = copy.shared?.order, o.taken.count > before { return o.taken[before] }
    }
    return nil
  }

  /// The operation's step due now: at an open point (see ``StepOrder``) the choice says
  /// whether every due step runs in its turn, or one operation steps and the others wait a tick.
  mutating func runStep(_ op: OpID) {
    if shared?.runs[op]?.skipNext == true {
      shared?.runs[op]?.skipNext = false
      return
    }
    guard shared?.order != nil, let (candidates, chosen) = chooseStep(op), chosen > 0 else {
      performStep(op)
      return
    }
    let runner = candidates[chosen - 1]
    for other in candidates where other != runner {
      // Put off a tick: its wake-up due now (if not this one) is skipped.
      if other != op { shared?.runs[other]?.skipNext = true }
      scheduleStepWakeup(other, at: later(1))
    }
    if runner != op { shared?.runs[runner]?.skipNext = true }
    performStep(runner)
  }

  /// At an open point, the operations with a step due now (in creation order) and the
  /// choice; `nil` where nothing is to choose.
  private mutating func chooseStep(_ op: OpID) -> (candidates: [OpID], chosen: Int)? {
    guard let decided = shared?.order?.decidedTick, decided != now else { return nil }
    // The operations with a step due now, this one first; the rest are then put in creation
    // order, so that choice k names the same operation however the wake-ups lie. One array,
    // allocated only when another step is due (at most ticks one operation steps alone).
    var candidates: [OpID] = []
    for w in agenda.unordered where w.tick == now && isLive(w) {
      let other: OpID
      switch w.action {
      case .step(let o, _), .completionStep(let o): other = o
      default: continue
      }
      guard other != op, shared?.runs[other]?.skipNext != true else { continue }
      if candidates.isEmpty {
        candidates.reserveCapacity(4)
        candidates.append(op)
      }
      candidates.append(other)
    }
    guard !candidates.isEmpty else { return nil }
    candidates.sort()
    // Each candidate's step due now (`compute 0`, which conflicts with nothing, for none).
    // Loops, not `map(nextStep(of:))`: a method passed as a closure would copy the world.
    var next: [Step] = []
    next.reserveCapacity(candidates.count)
    for c in candidates { next.append(nextStep(of: c) ?? .compute(0)) }
    // The first pair whose order can matter: one's step due now, a step the other has left.
    var reason: (OpID, OpID, Step)?
    search: for i in candidates.indices {
      for j in candidates.indices where j != i {
        guard let run = shared?.runs[candidates[j]] else { continue }
        let steps = stepList(of: candidates[j], inCompletion: run.inCompletion)
        guard Int(run.next) < steps.count else { continue }
        for k in Int(run.next)..<steps.count where Self.conflict(next[i], steps[k]) {
          reason = (candidates[i], candidates[j], steps[k])
          break search
        }
      }
    }
    guard let reason else { return nil }
    let options = candidates.count + 1
    let chosen = shared?.order?.nextChoice(options: options) ?? 0
    var point = OpenPoint(tick: now - 1, kind: .steps, options: options, chosen: chosen, candidates: candidates, steps: next)
    point.conflict = OpenPoint.Conflict(first: reason.0, other: reason.1, otherStep: reason.2)
    // In place: a copy of the order would copy every open point taken so far.
    shared?.order?.taken.append(point)
    shared?.order?.decidedTick = now
    return (candidates, chosen)
  }

  private func nextStep(of op: OpID) -> Step? {
    guard let run = shared?.runs[op] else { return nil }
    let steps = stepList(of: op, inCompletion: run.inCompletion)
    return Int(run.next) < steps.count ? steps[Int(run.next)] : nil
  }

  /// Schedules the operation's next step: of its `main()`, or of its completion block.
  private mutating func scheduleStepWakeup(_ op: OpID, at tick: Tick, inCompletion: Bool? = nil) {
    if inCompletion ?? (shared?.runs[op]?.inCompletion == true) {
      schedule(.completionStep(op), at: tick)
    } else {
      schedule(.step(op, generation: operations[op.slot].generation), at: tick)
    }
  }

  /// Whether two steps' order can matter: the same variable with a write, or the same lock.
  static func conflict(_ a: Step?, _ b: Step?) -> Bool {
    guard let a, let b else { return false }
    if let v = a.variable, v == b.variable {
      if case .write = a { return true }
      if case .write = b { return true }
      return false
    }
    if let l = a.lockName, l == b.lockName { return true }
    return false
  }

  /// Runs the operation's next step, and schedules the one after (or the end of its work).
  private mutating func performStep(_ op: OpID) {
    guard let run = shared?.runs[op], run.waitingFor < 0 else { return }
    let steps = stepList(of: op, inCompletion: run.inCompletion)
    guard Int(run.next) < steps.count, var state = shared.take() else { return }
    // Taken out of the world (moved, not copied) while it changes, so its arrays are not
    // copied, and moved back.
    performStep(op, run, steps, in: &state)
    shared = consume state
  }

  /// ``performStep(_:)`` on the shared state taken out of the world (``shared`` is `nil` meanwhile).
  private mutating func performStep(_ op: OpID, _ run: StepRun, _ steps: [Step], in state: inout SharedState) {
    var run = run
    let index = Int(run.next)
    let q = operations[op.slot].queue
    let reason = run.inCompletion ? Reason.completionStep(Int32(index)) : Reason.step(Int32(index))
    var released: (waiter: OpID, lock: Int)?
    var chosenOverLongest = false
    var added: (op: OpID, queue: QueueID)?
    switch steps[index] {
    case .read(let name):
      guard let v = state.variable(named: name) else { return }
      run.register = state.values[v]
      recordStep(.variableRead(Int32(v), value: run.register), op: op, queue: q, reason: reason)
    case .compute(let n):
      let before = run.register
      run.register = before &+ n
      recordStep(.computed(n, result: run.register), op: op, queue: q, reason: reason)
    case .write(let name):
      guard let v = state.variable(named: name) else { return }
      state.values[v] = run.register
      recordStep(.variableWritten(Int32(v), value: run.register), op: op, queue: q, reason: reason)
    case .lock(let name):
      guard let l = state.lock(named: name) else { return }
      if let holder = state.holders[l] {
        run.waitingFor = Int32(l)
        state.waiters[l].append(op)
        state.runs[op] = run
        recordStep(.lockWaiting(Int32(l)), op: op, queue: q, reason: .lockHeldBy(holder))
        return
      }
      state.holders[l] = op
      recordStep(.lockAcquired(Int32(l)), op: op, queue: q, reason: reason)
    case .unlock(let name):
      guard let l = state.lock(named: name) else { return }
      recordStep(.lockReleased(Int32(l)), op: op, queue: q, reason: reason)
      state.holders[l] = nil
      if !state.waiters[l].isEmpty {
        // NSLock documents no order among waiters: the one that waited longest takes it,
        // unless a step order chooses another.
        var index = 0
        if state.waiters[l].count > 1, let chosen = state.order?.nextChoice(options: state.waiters[l].count) {
          let candidates = [state.waiters[l][0]] + state.waiters[l].dropFirst().sorted()
          state.order?.taken.append(
            OpenPoint(tick: now - 1, kind: .lock(Int32(l)), options: candidates.count, chosen: chosen, candidates: candidates, steps: []))
          index = state.waiters[l].firstIndex(of: candidates[chosen]) ?? 0
        }
        let waiter = state.waiters[l].remove(at: index)
        if index > 0 { chosenOverLongest = true }
        state.holders[l] = waiter
        state.runs[waiter]?.waitingFor = -1
        state.runs[waiter]?.next += 1
        released = (waiter, l)
      }
    case .touchUI:
      recordStep(.touchedUI, op: op, queue: q, reason: reason)
    case .add(let name, let queue):
      guard let target = operationID(named: name), let to = queueID(named: queue) else { return }
      if operations[target.slot].phase == .created, !isBeingAdded(target) {
        added = (target, to)
      } else {
        // The real addOperation raises (Apple) or crashes (Linux) on an operation already added.
        recordStep(.addRefused(target), op: op, queue: q, reason: reason)
      }
    }
    run.next += 1
    state.runs[op] = run
    scheduleNextStep(op, after: run.next, of: steps.count, inCompletion: run.inCompletion)
    if let (target, to) = added {
      // Filed at this tick, once every step ending at it has run (``Wakeup/band(of:)``):
      // its events are stamped this tick, the step's the one before.
      schedule(.stepAdded(target, to: to, by: op, completion: run.inCompletion), at: now)
    }
    if let (waiter, l) = released {
      // Handed over in the unlock's tick: stamped with it.
      recordStep(
        .lockAcquired(Int32(l)), op: waiter, queue: operations[waiter.slot].queue,
        reason: chosenOverLongest ? .lockChosenAfter(op) : .lockReleasedBy(op))
      scheduleNextStep(waiter, after: state.runs[waiter]?.next ?? 0, of: stepList(of: waiter, inCompletion: false).count, inCompletion: false)
    }
  }

  /// Whether an `add` step that ended at this tick is about to file the operation
  /// (``Wakeup/Action/stepAdded(_:to:by:completion:)``): a second `add` of it is refused.
  private func isBeingAdded(_ target: OpID) -> Bool {
    agenda.unordered.contains { w in
      if case .stepAdded(let t, _, _, _) = w.action, t == target { return true }
      return false
    }
  }

  /// Files the operation an `add` step added (`queue.addOperation(op)`), at the tick the step
  /// ended.
  mutating func fileAdded(_ target: OpID, on q: QueueID, by adder: OpID, inCompletion: Bool) {
    // Still in no queue: a second `add` was refused (``isBeingAdded(_:)``), and nothing else
    // runs between the steps ending at a tick and their filings.
    assert(operations[target.slot].phase == .created, "an added operation was filed meanwhile")
    guard operations[target.slot].phase == .created else { return }
    file(target, on: q, reason: .addedByStep(adder, completion: inCompletion))
    pick(on: q, trigger: .enqueued)
  }

  /// The steps of the operation's `main()`, or of its completion block.
  private func stepList(of op: OpID, inCompletion: Bool) -> [Step] {
    if inCompletion { return shared?.completionSteps[op] ?? [] }
    if case .steps(let steps) = operations[op.slot].spec.kind { return steps }
    return []
  }

  /// Schedules the step at `next` a tick from now, or, after the last, the end of the work
  /// (of `main()`, or of the completion block).
  private mutating func scheduleNextStep(_ op: OpID, after next: Int32, of count: Int, inCompletion: Bool) {
    if Int(next) < count {
      scheduleStepWakeup(op, at: later(1), inCompletion: inCompletion)
    } else if inCompletion {
      let rest = Swift.max(0, (operations[op.slot].spec.completion ?? 0) - Tick(count))
      schedule(.completionDone(op), at: later(rest))
    } else {
      let rest = Swift.max(0, operations[op.slot].spec.duration - Tick(count))
      schedule(.workDone(op, generation: operations[op.slot].generation), at: later(rest))
    }
  }
}
