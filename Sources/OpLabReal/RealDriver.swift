import Foundation
import OpLabCore
import OpLabSwift

/// What a real run logged, and how well the driver kept time.
public struct RealRun: Sendable {
  /// What the run logged, in the order it was logged.
  public var marks: [RealMark]
  /// The tick length used, in seconds.
  public var tickSeconds: Double
  /// How late the driver performed its latest action, in ticks (the worst lateness).
  public var worstActionLateness: Double
  /// Whether every operation added to a queue had finished, every queue emptied and the
  /// expected marks were logged when the run ended.
  public var drained: Bool
  /// Whether `interrupt` stopped the run early.
  public var interrupted: Bool
  /// The operations not finished when the run ended, in the order they were made.
  public var unfinished: [String]
  /// The tick the run ended at (the driver's clock, rounded).
  public var endTick: Tick
  /// Whether main-queue work could run: the driver ran on the main thread and kept its run loop going.
  public var pumpedMain: Bool
  /// The shared variables' values at the end, in the order they were made.
  public var finalValues: [(name: String, value: Int)] = []
  /// The calls into the user interface the steps made, and on which thread.
  public var uiTouches: [RealUITouch] = []
  /// The operations an `add` step found already in a queue (the real call would raise).
  public var refusedAdds: [String] = []

  /// The mark's time in ticks.
  public func ticks(_ mark: RealMark) -> Double { mark.seconds / tickSeconds }
}

/// Performs a ``RealScript`` on Foundation's `OperationQueue` in scaled real time.
///
/// The driver sleeps to each action's tick and performs it on the calling thread. On the main
/// thread it runs the main run loop meanwhile, so `OperationQueue.main` work runs, as in an app;
/// elsewhere main-queue work waits (``RealRun/pumpedMain`` says which). When the script's
/// actions are done it waits until `endTick`, then up to `grace` more ticks for work still
/// finishing, and stops early once everything has finished.
///
/// Operations that never finish (work that forgets `finish()`, a queue left suspended) are
/// cancelled, finished and their queues resumed at the end, the main queue too, so one run
/// never holds up the next (``release(ops:queues:gates:pumpingMain:)``); every operation is
/// kept alive for good: corelibs walks unretained pointers to dependents when an operation
/// finishes (rule 18).
public enum RealDriver {
  /// Plays `script` on Foundation's queues, a tick being `tickSeconds`, and logs what they did.
  ///
  /// - Parameters:
  ///   - script: what to make and when, in ticks.
  ///   - tickSeconds: how long a tick lasts on the real clock.
  ///   - endTick: the tick the lab's own run ended at; the real run is given `grace` ticks
  ///     more before what is left is called unfinished.
  ///   - grace: ticks past `endTick` to wait for late work.
  ///   - expectedMarks: how many entries the log should reach before the run may end
  ///     early (within the grace), when every operation has finished too.
  ///   - interrupt: asked on the calling thread between slices of waiting (Ctrl-C); on the
  ///     main thread, work sleeping there asks it too.
  ///   - progress: told the driver's clock, in ticks, between slices of waiting (at least
  ///     every 20 ms), on the calling thread.
  public static func run(
    _ script: RealScript, tickSeconds: Double, until endTick: Tick, grace: Tick = 2, expectedMarks: Int = 0,
    interrupt: (() -> Bool)? = nil, progress: ((_ tick: Double) -> Void)? = nil
  ) -> RealRun {
    let onMain = Thread.isMainThread
    let log = RealLog(
      hooks: onMain ? MainThreadHooks(interrupt: interrupt, progress: progress) : nil, tickSeconds: tickSeconds)
    let memory = SharedMemory(log: log, deadline: Double(endTick + grace + 1) * tickSeconds)
    var queues: [String: OperationQueue] = [:]
    var ops: [String: Operation] = [:]
    var made: [String] = []
    var added: Set<String> = []
    var gates: [String: Gate] = [:]
    var dispatchQueues: [String: DispatchQueue] = [:]
    func queue(_ name: String) -> OperationQueue {
      if name == "main" { return OperationQueue.main }
      if let q = queues[name] { return q }
      let q = OperationQueue()
      q.name = name
      queues[name] = q
      memory.register(queue: q, named: name)
      return q
    }
    var interrupted = false
    /// Lets time pass until `offset` seconds after tick 0; false when interrupted.
    func pass(until offset: Double, pumping: Bool = true) -> Bool {
      while true {
        if interrupt?() == true {
          interrupted = true
          return false
        }
        progress?(log.elapsed / tickSeconds)
        let remaining = offset - log.elapsed
        if remaining <= 0 { return true }
        let slice = min(remaining, 0.02)
        if onMain, pumping {
          // Returns at once when the run loop has nothing to wait on: then sleep a little.
          let before = log.elapsed
          _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: slice))
          if log.elapsed - before < 0.001 { Thread.sleep(forTimeInterval: min(slice, 0.001)) }
        } else {
          Thread.sleep(forTimeInterval: slice)
        }
      }
    }

    warmUp()
    log.startClock()
    var worstLateness = 0.0
    for timed in script.actions where !interrupted {
      guard pass(until: Double(timed.tick) * tickSeconds) else { break }
      worstLateness = max(worstLateness, log.elapsed / tickSeconds - Double(timed.tick))
      switch timed.action {
      case .makeQueue(let name): _ = queue(name)
      case .makeOperation(let work):
        let gate = work.gate.map { name in
          gates[name]
            ?? {
              let g = Gate(); gates[name] = g; return g
            }()
        }
        let op = standIn(for: work, tickSeconds: tickSeconds, log: log, gate: gate, memory: memory)
        ops[work.name] = op
        memory.register(operation: op, named: work.name)
        made.append(work.name)
      case .add(let name, let q):
        if let op = ops[name] {
          memory.noteAdded(name)
          queue(q).addOperation(op)
          added.insert(name)
        }
      case .addBatch(let names, let q):
        let batch = names.compactMap { ops[$0] }
        for name in names { memory.noteAdded(name) }
        queue(q).addOperations(batch, waitUntilFinished: false)
        added.formUnion(names)
      case .makeVariable(let name, let value): memory.makeVariable(name, value)
      case .makeLock(let name): memory.makeLock(name)
      case .makeDispatchQueue(let name, let concurrent, let qos):
        dispatchQueues[name] = DispatchQueue(
          label: name, qos: qos.map(DispatchQoS.init) ?? .unspecified, attributes: concurrent ? .concurrent : [])
      case .setUnderlyingQueue(let q, let d):
        // The main queue ignores the setter on Linux (`if !__mainQ`); Darwin documents that it
        // cannot be set, so the driver leaves it alone.
        // The setter crashes the process while the queue has operations: the lab set it when
        // its queue was empty, so wait up to half a tick for the real one's last to leave, and
        // leave it unset (a difference `real` then shows) rather than crash.
        let target = queue(q)
        let limit = log.elapsed + tickSeconds / 2
        while target.operationCount > 0, log.elapsed < limit { Thread.sleep(forTimeInterval: 0.001) }
        if q != "main", target.operationCount == 0 { target.underlyingQueue = d.flatMap { dispatchQueues[$0] } }
      case .startByHand(let name):
        guard let op = ops[name] else { break }
        if onMain {
          DispatchQueue.main.async { op.start() }  // when the main thread gets to it
        } else {
          op.start()
        }
      case .addBlock(let name, let ticks):
        (ops[name] as? TimedBlockOperation)?.addBlock(seconds: Double(ticks) * tickSeconds)
      case .openGate(let name): gates[name]?.open()
      case .addDependency(let op, let dep):
        if let op = ops[op], let dep = ops[dep] { op.addDependency(dep) }
      case .removeDependency(let op, let dep):
        if let op = ops[op], let dep = ops[dep] { op.removeDependency(dep) }
      case .setPriority(let op, let p): ops[op]?.queuePriority = Operation.QueuePriority(p)
      case .setOperationQoS(let op, let q): ops[op]?.qualityOfService = Foundation.QualityOfService(q)
      case .setQueueQoS(let q, let qos): queue(q).qualityOfService = Foundation.QualityOfService(qos)
      case .setMax(let q, let max):
        queue(q).maxConcurrentOperationCount = max ?? OperationQueue.defaultMaxConcurrentOperationCount
      case .cancel(let op): ops[op]?.cancel()
      case .cancelAll(let q): queue(q).cancelAllOperations()
      case .suspend(let q): queue(q).isSuspended = true
      case .resume(let q): queue(q).isSuspended = false
      case .barrier(let q, let label, let ticks):
        let seconds = Double(ticks) * tickSeconds
        queue(q).addBarrierBlock {
          log.mark(label, .started)
          log.nap(seconds)
          log.mark(label, .finished(.succeeded))
        }
      case .onMainThread(let call, let until):
        // Resolved now, on the driver's thread; the call itself runs when the main thread gets to it.
        var targets: [Operation] = [], waitedQueues: [OperationQueue] = []
        var batch: (names: [String], queue: OperationQueue)?
        switch call {
        case .waitForOperations(let names): targets = names.compactMap { ops[$0] }
        case .waitForQueue(let name?): waitedQueues = [queue(name)]
        case .waitForQueue(nil): waitedQueues = Array(queues.values) + [OperationQueue.main]
        case .addAndWait(let names, let q):
          targets = names.compactMap { ops[$0] }
          batch = (names, queue(q))
        }
        let limit = min(until.map { Double($0) * tickSeconds } ?? .infinity, memory.deadline)
        let made = MainThreadCall(
          log: log, memory: memory, targets: targets, queues: waitedQueues, batch: batch, limit: limit)
        if onMain {
          DispatchQueue.main.async { made.perform() }  // when the main thread gets to it
        } else {
          made.perform()
        }
      }
    }

    // Until the end tick, then a little longer while work is still finishing.
    let allFinished = {
      log.count >= expectedMarks && memory.gaveUp.isEmpty && added.union(memory.added).allSatisfy { ops[$0]?.isFinished != false }
        && queues.values.allSatisfy { $0.operationCount == 0 }
    }
    if !interrupted, pass(until: Double(endTick) * tickSeconds + 0.45 * tickSeconds) {
      let deadline = Double(endTick + grace) * tickSeconds
      while !allFinished(), log.elapsed < deadline, pass(until: min(deadline, log.elapsed + 0.01)) {}
      // A moment more, for what finishes just after (a completion block, a late mark).
      if allFinished() { _ = pass(until: log.elapsed + 0.5 * tickSeconds) }
    }
    added.formUnion(memory.added)
    let stuck = Set(memory.gaveUp)
    let unfinished = made.filter { added.contains($0) && (ops[$0]?.isFinished == false || stuck.contains($0)) }
    let drained = allFinished()
    let marks = log.snapshot
    log.abandon()  // nothing more is logged; sleeping work and lock waits stop at their next slice
    if !drained { release(ops: Array(ops.values), queues: Array(queues.values), gates: Array(gates.values), pumpingMain: onMain) }
    // Kept alive for good (rule 18): a dependency still running may yet touch its dependents.
    _ = Unmanaged.passRetained(Array(ops.values) as NSArray)
    _ = Unmanaged.passRetained(Array(queues.values) as NSArray)
    return RealRun(
      marks: marks, tickSeconds: tickSeconds, worstActionLateness: worstLateness, drained: drained,
      interrupted: interrupted, unfinished: unfinished, endTick: Int((log.elapsed / tickSeconds).rounded()),
      pumpedMain: onMain, finalValues: memory.values, uiTouches: memory.touches, refusedAdds: memory.refusedAdds)
  }

  /// A blocking call on the main thread, played: it adds its batch, if it has one, then
  /// blocks the thread (the run loop does not turn) until what it waits for has finished, as
  /// the real call does. It polls, so that a wait that can never return (work it waits for
  /// needs the main thread) lets go when the run ends, or at its `until`.
  struct MainThreadCall: @unchecked Sendable {
    // Operations and queues are made on the driver's thread and only read or added here.
    let log: RealLog
    let memory: SharedMemory
    let targets: [Operation]
    let queues: [OperationQueue]
    let batch: (names: [String], queue: OperationQueue)?
    /// Seconds after tick 0 past which the call stops blocking.
    let limit: Double

    func perform() {
      if let batch {
        for name in batch.names { memory.noteAdded(name) }
        batch.queue.addOperations(targets, waitUntilFinished: false)
      }
      while !targets.allSatisfy(\.isFinished) || !queues.allSatisfy({ $0.operationCount == 0 }) {
        if log.shouldStop || log.elapsed >= limit { return }
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
  }

  /// Leaves the process as the run found it, so that the next run starts on a clean slate:
  /// work that never finished (an asynchronous operation that forgets `finish()`, one
  /// behind a closed gate, a dependency or a suspended queue) would otherwise hold its queue
  /// for good, and `OperationQueue.main` is the process's own, shared by every run. Every
  /// operation is cancelled, gates opened, forgotten `finish()` calls made, queues (main
  /// too) resumed; on the main thread its run loop turns until the main queue is empty.
  static func release(ops: [Operation], queues: [OperationQueue], gates: [Gate], pumpingMain: Bool) {
    for op in ops { op.cancel() }
    for gate in gates where !gate.isOpen { gate.open() }
    for op in ops { (op as? TimedAsyncOperation)?.finishLeftover() }
    for q in queues { q.isSuspended = false }
    OperationQueue.main.isSuspended = false
    guard pumpingMain else { return }
    let until = Date(timeIntervalSinceNow: 2)
    while OperationQueue.main.operationCount > 0, Date() < until {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005))
    }
  }

  /// Wakes libdispatch's worker threads before tick 0, so a cold pool's first thread start
  /// (tens of ms) does not pass for the queue being late.
  static func warmUp() {
    let q = OperationQueue()
    q.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
      q.addOperation { Thread.sleep(forTimeInterval: 0.002) }
    }
    q.waitUntilAllOperationsAreFinished()
  }
}
