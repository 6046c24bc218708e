/// Shared variables, `NSLock`s and operations written as steps (see ``Step``).
///
/// How steps map onto ticks: a step takes one tick, and its access happens as that tick
/// ends. An operation that starts at tick t does step 1 during [t, t+1) — the trace records
/// its read, write or lock at t+1 — step 2 at t+2, and so on; after its last step its
/// remaining ticks (`takes` minus the number of steps) are plain work, so unhindered it
/// finishes at t + `takes`, like any operation. No step happens at the tick its operation
/// starts, so operations added by separate commands at one tick all start before any of
/// their steps. Steps of two operations due at the same tick run in the order their
/// wake-ups were scheduled (the one that started first goes first): the real order is up
/// to the threads, which is what `explore` is for.
///
/// A `lock L` step on a free lock takes it. On a held lock the operation waits (it keeps its
/// queue slot, and the clock goes on without it); when the holder's `unlock L` step runs,
/// the operation that has waited longest takes the lock at that tick, and its next step
/// ends a tick later. A second `lock L` by the holder waits forever (NSLock is not reentrant).
/// Step-by-step work runs a step a tick whatever `machine cores` says.
extension World {
  /// Creates a shared integer variable (`var NAME = N`).
  /// - Throws: ``SimulationError/invalidName(_:)`` or ``SimulationError/duplicateName(_:)``.
  @discardableResult
  public mutating func createVariable(name: String, initial: Int = 0) throws(SimulationError) -> Int {
    try checkSharedName(name)
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

  /// Checks that every variable and lock the steps name exists.
  func checkSteps(_ steps: [Step]) throws(SimulationError) {
    for step in steps {
      if let v = step.variable, shared?.variable(named: v) == nil {
        throw .invalidSpec("there is no shared variable named '\(v)': create it first with `var \(v) = 0`")
      }
      if let l = step.lockName, shared?.lock(named: l) == nil {
        throw .invalidSpec("there is no lock named '\(l)': create it first with `lock \(l)`")
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

  /// A step-by-step operation starts: its first step runs at this tick.
  mutating func beginSteps(_ op: OpID) {
    if shared == nil { shared = SharedState() }  // `touch ui` alone needs no variable
    shared?.runs[op] = StepRun()
    schedule(.step(op, generation: operations[op.slot].generation), at: later(1))
  }

  /// Runs the operation's next step, and schedules the one after (or the end of its work).
  mutating func runStep(_ op: OpID) {
    guard case .steps(let steps) = operations[op.slot].spec.kind, var state = shared, var run = state.runs[op],
      run.waitingFor < 0, Int(run.next) < steps.count
    else { return }
    // Taken out of the world while it changes, so its arrays are not copied; put back on every way out.
    shared = nil
    defer { shared = state }
    let index = Int(run.next)
    let q = operations[op.slot].queue
    let reason = Reason.step(Int32(index))
    var released: (waiter: OpID, lock: Int)?
    switch steps[index] {
    case .read(let name):
      guard let v = state.variable(named: name) else { return }
      run.register = state.values[v]
      record(.variableRead(Int32(v), value: run.register), op: op, queue: q, reason: reason)
    case .compute(let n):
      let before = run.register
      run.register = before &+ n
      record(.computed(n, result: run.register), op: op, queue: q, reason: reason)
    case .write(let name):
      guard let v = state.variable(named: name) else { return }
      state.values[v] = run.register
      record(.variableWritten(Int32(v), value: run.register), op: op, queue: q, reason: reason)
    case .lock(let name):
      guard let l = state.lock(named: name) else { return }
      if let holder = state.holders[l] {
        run.waitingFor = Int32(l)
        state.waiters[l].append(op)
        state.runs[op] = run
        record(.lockWaiting(Int32(l)), op: op, queue: q, reason: .lockHeldBy(holder))
        return
      }
      state.holders[l] = op
      record(.lockAcquired(Int32(l)), op: op, queue: q, reason: reason)
    case .unlock(let name):
      guard let l = state.lock(named: name) else { return }
      record(.lockReleased(Int32(l)), op: op, queue: q, reason: reason)
      state.holders[l] = nil
      if !state.waiters[l].isEmpty {
        let waiter = state.waiters[l].removeFirst()
        state.holders[l] = waiter
        state.runs[waiter]?.waitingFor = -1
        state.runs[waiter]?.next += 1
        released = (waiter, l)
      }
    case .touchUI:
      record(.touchedUI, op: op, queue: q, reason: reason)
    }
    run.next += 1
    state.runs[op] = run
    scheduleNextStep(op, after: run.next, of: steps.count)
    if let (waiter, l) = released {
      record(.lockAcquired(Int32(l)), op: waiter, queue: operations[waiter.slot].queue, reason: .lockReleasedBy(op))
      scheduleNextStep(waiter, after: state.runs[waiter]?.next ?? 0, of: stepList(of: waiter).count)
    }
  }

  private func stepList(of op: OpID) -> [Step] {
    if case .steps(let steps) = operations[op.slot].spec.kind { return steps }
    return []
  }

  /// Schedules the step at `next` a tick from now, or, after the last, the end of the work.
  private mutating func scheduleNextStep(_ op: OpID, after next: Int32, of count: Int) {
    let generation = operations[op.slot].generation
    if Int(next) < count {
      schedule(.step(op, generation: generation), at: later(1))
    } else {
      let rest = Swift.max(0, operations[op.slot].spec.duration - Tick(count))
      schedule(.workDone(op, generation: generation), at: later(rest))
    }
  }
}
