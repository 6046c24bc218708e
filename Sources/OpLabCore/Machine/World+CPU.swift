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
    return r.queue.map { queues[$0.slot].reportedQualityOfService } ?? .default
  }

  /// Work done per tick by the running units of an operation (its `main()` or blocks), in
  /// ``Machine/subTicks`` per core; `nil` when it runs no work on the CPU model.
  public func cpuRate(of op: OpID) -> Int64? {
    var sum: Int64 = 0
    var found = false
    for j in cpu.jobs where j.work.op == op {
      if case .completion = j.work { continue }
      sum += j.rate
      found = true
    }
    return found ? sum : nil
  }

  /// Units of work running now and units of work done per tick, on the CPU model.
  public var cpuLoad: (units: Int, used: Int64) {
    (cpu.jobs.count, cpu.jobs.reduce(0) { $0 + $1.rate })
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
    cpu.jobs.append(CPUJob(
      work: work, action: action, total: Int64(ticks) * Machine.subTicks, weight: Machine.weight(of: qos),
      serial: cpu.nextSerial))
    cpu.nextSerial += 1
    cpu.dirty = true
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
    return true
  }

  /// Removes an operation's running `main()` and blocks (it finished, or stopped).
  mutating func dropWork(of op: OpID) {
    guard cpu.engaged, cpu.jobs.contains(where: { $0.work.op == op }) else { return }
    syncCPU()
    cpu.jobs.removeAll { j in
      if case .completion = j.work { return false }
      return j.work.op == op
    }
    cpu.dirty = true
  }

  /// Brings every job's work up to `now` at its current share.
  mutating func syncCPU() {
    guard cpu.engaged, cpu.syncedAt < now else { return }
    let elapsed = Int64(now - cpu.syncedAt)
    for i in cpu.jobs.indices {
      let (progress, overflow) = cpu.jobs[i].rate.multipliedReportingOverflow(by: elapsed)
      cpu.jobs[i].done = overflow ? cpu.jobs[i].total : Swift.min(cpu.jobs[i].total, cpu.jobs[i].done + progress)
    }
    cpu.syncedAt = now
  }

  /// Recomputes the shares after a change, records what changed, and schedules the next
  /// moment a job reaches its end or its cancellation check.
  /// - Complexity: O(jobs · log jobs).
  mutating func flushCPU() {
    guard cpu.dirty else { return }
    cpu.dirty = false
    syncCPU()
    let count = cpu.jobs.count
    // Heaviest first, then in start order: each takes at most one core of what is left.
    let order = cpu.jobs.indices.sorted {
      cpu.jobs[$0].weight != cpu.jobs[$1].weight
        ? cpu.jobs[$0].weight > cpu.jobs[$1].weight : cpu.jobs[$0].serial < cpu.jobs[$1].serial
    }
    if let cores = cpu.cores {
      var spare = Int64(cores) * Machine.subTicks
      var weight = cpu.jobs.reduce(0) { $0 + $1.weight }
      for i in order {
        let w = cpu.jobs[i].weight
        let share = weight > 0 ? spare / weight * w + (spare % weight) * w / weight : 0
        // Never zero, so work always ends (only reachable with ~45,000 units per core).
        let rate = Swift.max(1, Swift.min(Machine.subTicks, share))
        cpu.jobs[i].rate = rate
        spare = Swift.max(0, spare - rate)
        weight -= w
      }
    } else {
      for i in cpu.jobs.indices { cpu.jobs[i].rate = Machine.subTicks }
    }
    recordCPUChanges(units: Int32(count))
    // The next milestone.
    var next: Tick?
    for j in cpu.jobs {
      let target = Swift.min(j.total, j.checkAt ?? j.total)
      let need = Swift.max(0, target - j.done)
      let ticks = Tick((need + j.rate - 1) / j.rate)
      let at = later(ticks)
      next = Swift.min(next ?? at, at)
    }
    cpu.generation &+= 1
    if let next { schedule(.cpu(generation: cpu.generation), at: next) }
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
    for action in due { process(Wakeup(tick: now, sequence: -1, action: action)) }
  }

  /// Checks of the CPU model for ``invariantViolations()``.
  func cpuViolations() -> [String] {
    guard cpu.engaged else { return [] }
    var problems: [String] = []
    let used = cpu.jobs.reduce(0) { $0 + $1.rate }
    if let cores = cpu.cores, !cpu.dirty, used > Int64(cores) * Machine.subTicks, used > Int64(cpu.jobs.count) {
      problems.append("the CPU gives \(used) units of work per tick, more than \(cores) cores have")
    }
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
