/// The CPU model: work shared among a limited number of cores (see ``Machine``).
extension World {
  /// The machine's cores; `nil` for unlimited.
  public var cores: Int? { cpu.cores }

  /// Sets the number of CPU cores (`nil`: unlimited). Work already running keeps the work
  /// it has done and continues at its new share.
  /// - Throws: ``SimulationError/invalidCores(_:)`` outside 1…``Machine/maxCores``, and
  ///   ``SimulationError/machineBusy(_:)`` when limiting the cores of a world whose work
  ///   already runs on unlimited ones.
  public mutating func setCores(_ n: Int?) throws(SimulationError) {
    defer { checkInvariants() }
    if let n, n < 1 || n > Machine.maxCores { throw .invalidCores(n) }
    if n != nil, !cpu.engaged {
      if let busy = operations.firstIndex(where: { $0.phase == .executing && !$0.jammed && $0.mainThreadWork == nil })
        ?? operations.firstIndex(where: { $0.completionRunning })
      {
        throw .machineBusy(operations[busy].name)
      }
      cpu.engaged = true
      cpu.syncedAt = now
    }
    syncCPU()
    cpu.cores = n
    cpu.dirty = cpu.engaged
    record(.machineChanged(cores: n), reason: .command)
    settle()
  }

  /// The effective quality of service an operation's work runs at: its own, else its queue's
  /// (spec rule 41: an operation without one runs on its queue's dispatch queue).
  public func effectiveQualityOfService(of op: OpID) -> QualityOfService {
    let r = operations[op.slot]
    if let own = r.spec.qualityOfService { return own }
    if r.mainThreadWork != nil { return .userInteractive }
    // An underlying dispatch queue's quality of service overrides the queue's (Darwin's
    // documentation of underlyingQueue; an empty-queue barrier runs on the backing queue).
    if let q = r.queue, let d = queues[q.slot].underlyingQueue, let qos = dispatchQueues[Int(d)].qualityOfService,
      !r.isBarrier || r.holdsSlot
    {
      return qos
    }
    return r.queue.map { queues[$0.slot].reportedQualityOfService } ?? .default
  }

  /// Work done per tick by the running units of an operation (its `main()` or blocks), in
  /// ``Machine/subTicks`` per core; `nil` when it runs no work on the CPU model.
  public func cpuRate(of op: OpID) -> Int64? {
    let rates = cpu.deferredWakeup == nil ? nil : sharedRates()
    var sum: Int64 = 0
    var found = false
    for (i, j) in cpu.jobs.enumerated() where j.work.op == op {
      if case .completion = j.work { continue }
      sum += rates?[i] ?? j.rate
      found = true
    }
    return found ? sum : nil
  }

  /// Units of work running now and units of work done per tick, on the CPU model.
  public var cpuLoad: (units: Int, used: Int64) {
    (cpu.jobs.count, cpu.deferredWakeup == nil ? cpu.jobs.reduce(0) { $0 + $1.rate } : cpu.recordedUsed)
  }

  // MARK: - Kernel

  /// Starts `ticks` of work that ends with `action`: a wake-up after `ticks` on unlimited
  /// cores, a ``CPUJob`` sharing the cores otherwise.
  mutating func scheduleWork(_ action: Wakeup.Action, ticks: Tick, work: CPUJob.Work) {
    guard cpu.engaged else {
      schedule(action, at: later(ticks))
      return
    }
    syncCPU()
    let qos = effectiveQualityOfService(of: work.op)
    let weight = Machine.weight(of: qos)
    let total = Int64(ticks) * Machine.subTicks
    cpu.jobs.append(CPUJob(work: work, action: action, total: total, weight: weight, serial: cpu.nextSerial))
    cpu.unitsByWeight[weight.trailingZeroBitCount] += 1
    cpu.nextSerial += 1
    cpu.dirty = true
    if total <= 0 { cpu.nothingDueNow = false }
  }

  /// Whole ticks of work an operation's `main()` has done (the clock time since it started
  /// on unlimited cores).
  func workElapsed(_ op: OpID) -> Tick {
    guard cpu.engaged else { return now - (operations[op.slot].startedAt ?? now) }
    guard let j = cpu.jobs.first(where: { $0.work == .main(op) }) else { return 0 }
    let (progress, overflow) = j.rate.multipliedReportingOverflow(by: Int64(now - cpu.syncedAt))
    return Tick((overflow ? j.total : Swift.min(j.total, j.done + progress)) / Machine.subTicks)
  }

  /// On the CPU model, schedules the operation's next `isCancelled` check: at the first
  /// multiple of its check period, in work done, that it has not passed.
  /// - Returns: `false` when the cores were never limited (use a wake-up instead).
  mutating func scheduleCancellationCheckOnCPU(_ op: OpID) -> Bool {
    guard cpu.engaged else { return false }
    guard let i = cpu.jobs.firstIndex(where: { $0.work == .main(op) }) else { return true }
    syncCPU()
    let r = operations[op.slot]
    let done = cpu.jobs[i].done
    let target: Int64
    switch r.spec.cancellation {
    case .never: return true
    case .atStart:
      guard done == 0 else { return true }
      target = 0
    case .every(let k):
      let period = Int64(k) * Machine.subTicks
      target = (done + period - 1) / period * period
    }
    guard target < Int64(r.spec.workLength(on: platform)) * Machine.subTicks else { return true }
    cpu.jobs[i].checkAt = target
    cpu.dirty = true
    if target <= done { cpu.nothingDueNow = false }
    return true
  }

  /// Removes an operation's running `main()` and blocks (it finished, or stopped).
  mutating func dropWork(of op: OpID) {
    guard cpu.engaged, cpu.jobs.contains(where: { $0.work.op == op }) else { return }
    syncCPU()
    cpu.jobs.removeAll { j in
      if case .completion = j.work { return false }
      guard j.work.op == op else { return false }
      cpu.unitsByWeight[j.weight.trailingZeroBitCount] -= 1
      return true
    }
    cpu.dirty = true
  }

  /// The CPU phase of every step (see ``prepareStep(deferringShares:)``): once nothing more
  /// is due at this tick, the shares changed since the last phase are worked out anew
  /// (``flushCPU()``), which may schedule the CPU's next milestone and leaves its earlier
  /// wake-up stale (dropped here); before the clock moves, a recomputation left for later
  /// is done too (``settleDeferredShares()``). Nothing happens while the CPU model is idle
  /// or off, so worlds on unlimited cores pay two tests a step.
  /// - Parameter deferring: `true` when the clock stays at this tick afterwards (an action
  ///   settling): a recomputation may then be left for later.
  @inline(__always) mutating func shareCPU(deferring: Bool) {
    if cpu.dirty, (agenda.min?.tick ?? .max) > now {
      flushCPU()
      pruneStale()
    }
    if !deferring { settleDeferredShares() }
  }

  /// Brings every job's work up to `now` at its current share.
  mutating func syncCPU() {
    guard cpu.engaged, cpu.syncedAt < now else { return }
    // Deferred shares are settled before the clock moves (shareCPU); this is a safeguard.
    settleDeferredShares()
    let elapsed = Int64(now - cpu.syncedAt)
    var nothingDue = true
    for i in cpu.jobs.indices {
      let (progress, overflow) = cpu.jobs[i].rate.multipliedReportingOverflow(by: elapsed)
      let done = overflow ? cpu.jobs[i].total : Swift.min(cpu.jobs[i].total, cpu.jobs[i].done + progress)
      cpu.jobs[i].done = done
      if Swift.min(cpu.jobs[i].total, cpu.jobs[i].checkAt ?? cpu.jobs[i].total) <= done { nothingDue = false }
    }
    cpu.nothingDueNow = nothingDue
    cpu.syncedAt = now
  }

  /// Recomputes the shares after a change, records what changed, and schedules the next
  /// moment a job reaches its end or its cancellation check.
  ///
  /// When more units run than ``Machine/shareRecordLimit`` (so only the machine's load is
  /// recorded), nothing is due now, and the load follows from the units per weight class
  /// (``deferredLoad()``), the units' shares and the wake-up's tick are not worked out: the
  /// wake-up takes its sequence number now, and ``settleDeferredShares()`` gives the shares
  /// and files the wake-up before the clock moves. A script adding thousands of operations
  /// at one tick then costs O(1) per operation instead of O(units) each; the trace is the
  /// same, byte for byte.
  /// - Complexity: O(1) when deferred, else O(jobs).
  mutating func flushCPU() {
    guard cpu.dirty else { return }
    cpu.dirty = false
    syncCPU()
    let count = cpu.jobs.count
    if cpu.defers, cpu.nothingDueNow, count > Int(Machine.shareRecordLimit), let used = deferredLoad() {
      recordLoad(used: used, reason: .cpuShared(units: Int32(count), cores: cpu.cores.map { Int32($0) }))
      cpu.generation &+= 1
      cpu.deferredWakeup = nextWakeupSequence
      nextWakeupSequence += 1
      return
    }
    cpu.deferredWakeup = nil
    let rates = sharedRates()
    cpu.unitsShared += rates.count
    for i in cpu.jobs.indices { cpu.jobs[i].rate = rates[i] }
    recordCPUChanges(units: Int32(count))
    let next = nextCPUMilestone()
    cpu.nothingDueNow = next.map { $0 > now } ?? true
    cpu.generation &+= 1
    if let next { schedule(.cpu(generation: cpu.generation), at: next) }
  }

  /// Gives the units the shares a deferred recomputation left out, and files its wake-up
  /// under the sequence number it was given then.
  /// - Complexity: O(jobs + log agenda).
  mutating func settleDeferredShares() {
    guard let sequence = cpu.deferredWakeup else { return }
    cpu.deferredWakeup = nil
    let rates = sharedRates()
    cpu.unitsShared += rates.count
    for i in cpu.jobs.indices { cpu.jobs[i].rate = rates[i] }
    if let next = nextCPUMilestone() {
      agenda.insert(Wakeup(tick: next, sequence: sequence, action: .cpu(generation: cpu.generation)))
    }
  }

  /// The tick a deferred recomputation's wake-up will have (see ``nextEventTick``).
  func deferredWakeupTick() -> Tick? {
    guard cpu.deferredWakeup != nil else { return nil }
    return nextCPUMilestone(rates: sharedRates())
  }

  /// Each unit's work per tick (in the order of `cpu.jobs`), by the integer rule: heaviest
  /// first, then in start order, each takes `min(one core, spare × weight ÷ remaining
  /// weight)`, rounded down, and never less than 1.
  /// - Complexity: O(jobs): the jobs are kept in start order, so the order is one pass
  ///   per weight class.
  func sharedRates() -> [Int64] {
    guard let cores = cpu.cores else { return Array(repeating: Machine.subTicks, count: cpu.jobs.count) }
    var rates = Array(repeating: Int64(0), count: cpu.jobs.count)
    var spare = Int64(cores) * Machine.subTicks
    var weight = cpu.jobs.reduce(0) { $0 + $1.weight }
    for level in (0..<cpu.unitsByWeight.count).reversed() where cpu.unitsByWeight[level] > 0 {
      let w = Int64(1) << level
      for i in cpu.jobs.indices where cpu.jobs[i].weight == w {
        let share = weight > 0 ? spare / weight * w + (spare % weight) * w / weight : 0
        // Never zero, so work always ends (only reachable with ~45,000 units per core).
        let rate = Swift.max(1, Swift.min(Machine.subTicks, share))
        rates[i] = rate
        spare = Swift.max(0, spare - rate)
        weight -= w
      }
    }
    return rates
  }

  /// The total of ``sharedRates()`` worked out per weight class, when that is exact without
  /// giving each unit its share; `nil` when rounding could matter (then the shares are
  /// worked out one by one).
  ///
  /// With `S` to give out and remaining weight `W`, a unit of weight `w` gets
  /// `⌊S·w/W⌋`; that never lowers `S/W` for those after it, and raises it by less than
  /// `1/W'` per unit (`W'` the weight left), so by less than `H(m-1) < 2 + log2 m` over
  /// `m` units. Hence, heaviest class first:
  /// - if `S·w ≥ core·W`, every unit of the class gets a full core;
  /// - if `S ≥ W` and `w·(S + (2 + log2 m)·W) ≤ core·W`, no unit from here on reaches a
  ///   full core or falls to the minimum of 1, the last one takes what is left, and the
  ///   units use all of `S`.
  /// - Complexity: O(1) (five weight classes).
  func deferredLoad() -> Int64? {
    guard let cores = cpu.cores else { return Int64(cpu.jobs.count) * Machine.subTicks }
    var spare = Int64(cores) * Machine.subTicks
    var weight: Int64 = 0
    for (level, n) in cpu.unitsByWeight.enumerated() { weight += Int64(n) << level }
    var remaining = cpu.jobs.count
    var used: Int64 = 0
    for level in (0..<cpu.unitsByWeight.count).reversed() where cpu.unitsByWeight[level] > 0 {
      let w = Int64(1) << level
      let n = Int64(cpu.unitsByWeight[level])
      if spare.multipliedReportingOverflow(by: w).partialValue >= Machine.subTicks * weight {
        used += n * Machine.subTicks
        spare -= n * Machine.subTicks
        weight -= n * w
        remaining -= Int(n)
        continue
      }
      let harmonic = Int64(2 + Int.bitWidth - remaining.leadingZeroBitCount)
      let (bound, overflow) = (spare + harmonic * weight).multipliedReportingOverflow(by: w)
      guard spare >= weight, !overflow, bound <= Machine.subTicks * weight else { return nil }
      return used + spare
    }
    return used
  }

  /// The first tick at which a unit reaches its end or its cancellation check at `rates`
  /// (the units' own by default); `nil` when no unit runs.
  func nextCPUMilestone(rates: [Int64]? = nil) -> Tick? {
    var next: Tick?
    for (i, j) in cpu.jobs.enumerated() {
      let rate = rates?[i] ?? j.rate
      let target = Swift.min(j.total, j.checkAt ?? j.total)
      let need = Swift.max(0, target - j.done)
      let ticks = Tick((need + rate - 1) / rate)
      let at = later(ticks)
      next = Swift.min(next ?? at, at)
    }
    return next
  }

  private mutating func recordCPUChanges(units: Int32) {
    let used = cpu.jobs.reduce(0) { $0 + $1.rate }
    let reason = Reason.cpuShared(units: units, cores: cpu.cores.map { Int32($0) })
    // Per operation: the work per tick of its main() or blocks, when it changed. Past
    // `shareRecordLimit` units the shares are not recorded, so the trace stays linear.
    guard units <= Machine.shareRecordLimit else {
      recordLoad(used: used, reason: reason)
      return
    }
    var shares: [OpID: Int64] = [:]
    var order: [OpID] = []
    for j in cpu.jobs {
      if case .completion = j.work { continue }
      let op = j.work.op
      if shares[op] == nil { order.append(op) }
      shares[op, default: 0] += j.rate
    }
    for op in order {
      let units = Int64(cpu.jobs.count { $0.work.op == op && $0.work != .completion(op) })
      let share = (shares[op] ?? 0) / Swift.max(1, units)
      if share != (cpu.recordedShare[op] ?? Machine.subTicks) {
        record(.cpuShare(share), op: op, queue: operations[op.slot].queue, reason: reason)
      }
      cpu.recordedShare[op] = share == Machine.subTicks ? nil : share
    }
    // Operations that stopped running forget their share.
    for op in Array(cpu.recordedShare.keys) where shares[op] == nil { cpu.recordedShare[op] = nil }
    recordLoad(used: used, reason: reason)
  }

  private mutating func recordLoad(used: Int64, reason: Reason) {
    if used != cpu.recordedUsed {
      cpu.recordedUsed = used
      record(.cpuLoad(used: used), reason: reason)
    }
  }

  /// The CPU wake-up: jobs that reached their end or their check act, in start order.
  mutating func processCPU(generation: UInt32) {
    guard generation == cpu.generation else { return }
    syncCPU()
    var due: [Wakeup.Action] = []
    var kept: [CPUJob] = []
    kept.reserveCapacity(cpu.jobs.count)
    for var j in cpu.jobs {
      if j.done >= j.total {
        due.append(j.action)
        cpu.unitsByWeight[j.weight.trailingZeroBitCount] -= 1
      } else {
        if let check = j.checkAt, j.done >= check, case .main(let op) = j.work {
          j.checkAt = nil
          due.append(.cancelCheck(op, generation: operations[op.slot].generation))
        }
        kept.append(j)
      }
    }
    cpu.jobs = kept
    cpu.dirty = true
    // What was due is done or its check taken: everything kept has work left before both.
    cpu.nothingDueNow = true
    for action in due { process(Wakeup(tick: now, sequence: -1, action: action)) }
  }

  /// Checks of the CPU model for ``invariantViolations()``.
  func cpuViolations() -> [String] {
    guard cpu.engaged else { return [] }
    var problems: [String] = []
    let rates = sharedRates()
    let used = rates.reduce(0, +)
    if let cores = cpu.cores, !cpu.dirty, used > Int64(cores) * Machine.subTicks, used > Int64(cpu.jobs.count) {
      problems.append("the CPU gives \(used) units of work per tick, more than \(cores) cores have")
    }
    if !cpu.dirty, used != cpu.recordedUsed {
      problems.append("the CPU gives \(used) units of work per tick, but \(cpu.recordedUsed) were recorded")
    }
    if !cpu.dirty, cpu.deferredWakeup == nil, zip(cpu.jobs, rates).contains(where: { $0.rate != $1 }) {
      problems.append("a unit of work runs at another share than the rule gives")
    }
    var byWeight = [0, 0, 0, 0, 0]
    var lastSerial = Int.min
    for j in cpu.jobs {
      let level = j.weight.trailingZeroBitCount
      if j.weight.nonzeroBitCount != 1 || level >= byWeight.count {
        problems.append("a unit of work weighs \(j.weight)")
      } else {
        byWeight[level] += 1
      }
      if j.serial <= lastSerial { problems.append("the units of work are out of start order") }
      lastSerial = j.serial
    }
    if byWeight != cpu.unitsByWeight { problems.append("the units per weight class are miscounted") }
    for j in cpu.jobs {
      let r = operations[j.work.op.slot]
      switch j.work {
      case .completion: if !r.completionRunning { problems.append("\(r.name): a completion job but no completion running") }
      case .main, .block: if r.phase != .executing { problems.append("\(r.name): a CPU job while \(r.phase)") }
      }
      if j.rate > Machine.subTicks { problems.append("\(r.name): a unit of work gets more than one core") }
      if j.done > j.total { problems.append("\(r.name): more work done than there is") }
    }
    return problems
  }
}
