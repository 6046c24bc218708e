import Foundation
import OpLabCore
import Synchronization

/// A scenario run on Foundation's real `OperationQueue`, in scaled real time:
/// every operation's `main()` sleeps `ticks × tickSeconds`, and the test thread performs
/// the actions at `tick × tickSeconds` after the origin.
struct RealRun: Sendable {
  /// What the run logged, in the order it was logged.
  let marks: [RealMark]
  /// The tick length used, in seconds.
  let tickSeconds: Double
  /// How late the test thread performed its latest-running action, in ticks (the worst lateness).
  let worstActionLateness: Double
  /// Whether every queue emptied before the deadline.
  let drained: Bool

  /// Runs the scenario on a dedicated thread and returns what it logged.
  ///
  /// The driver must not block a Swift-concurrency thread: on Linux those come from the
  /// same libdispatch pool (2 workers on this machine) that runs the operations.
  /// - Parameters:
  ///   - expecting: how many events the run should log; the run stops waiting once it has them.
  ///   - endTick: the tick of the last expected event; the run gives up 25 ticks after it.
  static func perform(
    _ scenario: Scenario, tickSeconds: Double, expecting: Int, endTick: Tick
  ) async -> RealRun {
    await withCheckedContinuation { (done: CheckedContinuation<RealRun, Never>) in
      let thread = Thread {
        done.resume(returning: drive(scenario, tickSeconds: tickSeconds, expecting: expecting, endTick: endTick))
      }
      thread.name = "differential-driver"
      thread.start()
    }
  }

  /// The events grouped into simultaneous clusters: an event joins the current group when it
  /// is within `window` ticks of the group's first event. Each group's tick is the rounded
  /// tick of its first event.
  /// - Returns: the groups, and every event whose own rounded tick differs from its group's.
  func groups(window: Double = 0.35) -> (groups: [TickGroup], misrounded: [String]) {
    var groups: [TickGroup] = []
    var misrounded: [String] = []
    var groupStart = -Double.infinity
    for m in marks.sorted(by: { $0.seconds < $1.seconds }) {
      let t = m.seconds / tickSeconds
      if groups.isEmpty || t - groupStart > window {
        groupStart = t
        groups.append(TickGroup(tick: Int(t.rounded()), labels: []))
      }
      groups[groups.count - 1].labels.insert(m.label)
      if Int(t.rounded()) != groups[groups.count - 1].tick {
        misrounded.append("\(m.label) at \(Self.format(t)) ticks")
      }
    }
    return (groups, misrounded)
  }

  /// The raw log, one event a line with its time in ticks.
  var transcript: String {
    marks.sorted { $0.seconds < $1.seconds }
      .map { "  \(Self.format($0.seconds / tickSeconds))  \($0.label)" }
      .joined(separator: "\n")
  }

  static func format(_ ticks: Double) -> String {
    let hundredths = Int((ticks * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }

  // MARK: - The driver (runs on its own thread)

  private static func drive(_ scenario: Scenario, tickSeconds: Double, expecting: Int, endTick: Tick) -> RealRun {
    let clock = ContinuousClock()
    let log = EventLog(clock: clock)

    var queues: [String: OperationQueue] = [:]
    for spec in scenario.queues {
      let q = OperationQueue()
      q.name = spec.name
      if let max = spec.maxConcurrent { q.maxConcurrentOperationCount = max }
      queues[spec.name] = q
    }
    var ops: [String: Operation] = [:]
    for spec in scenario.operations {
      let op: Operation
      if let blocks = spec.blocks {
        op = TimedBlockOperation(label: spec.name, blockSeconds: blocks.map { Double($0) * tickSeconds }, log: log)
      } else {
        op = TimedOperation(spec, tickSeconds: tickSeconds, log: log)
      }
      if let p = spec.priority { op.queuePriority = Operation.QueuePriority(p) }
      if let qos = spec.qualityOfService { op.qualityOfService = Foundation.QualityOfService(qos) }
      if spec.hasCompletion {
        let label = spec.name
        op.completionBlock = { log.mark("complete \(label)") }
      }
      ops[spec.name] = op
    }
    for spec in scenario.operations {
      for dep in spec.dependencies { ops[spec.name]?.addDependency(ops[dep]!) }
    }

    log.startClock()
    var worstLateness = 0.0
    for step in scenario.steps {
      let lateness = sleep(until: Double(step.tick) * tickSeconds, since: log.origin, clock: clock)
      worstLateness = max(worstLateness, lateness / tickSeconds)
      switch step.action {
      case .enqueue(let names):
        for name in names { queues[scenario.operation(named: name).queue]!.addOperation(ops[name]!) }
      case .cancel(let name): ops[name]!.cancel()
      case .cancelAll(let q): queues[q]!.cancelAllOperations()
      case .suspend(let q): queues[q]!.isSuspended = true
      case .resume(let q): queues[q]!.isSuspended = false
      case .setMax(let q, let max):
        queues[q]!.maxConcurrentOperationCount = max ?? OperationQueue.defaultMaxConcurrentOperationCount
      case .barrier(let q, let label, let ticks):
        let seconds = Double(ticks) * tickSeconds
        queues[q]!.addBarrierBlock {
          log.mark("start \(label)")
          Thread.sleep(forTimeInterval: seconds)
          log.mark("finish \(label)")
        }
      case .setPriority(let name, let p): ops[name]!.queuePriority = Operation.QueuePriority(p)
      case .removeDependency(let name, let dep): ops[name]!.removeDependency(ops[dep]!)
      case .addBatch(let names, let q): queues[q]!.addOperations(names.map { ops[$0]! }, waitUntilFinished: false)
      case .startByHand(let name): ops[name]!.start()
      }
    }

    // Wait for the expected events and empty queues, then a little longer to catch strays.
    let deadline = Double(endTick + 25) * tickSeconds
    var drained = false
    while elapsed(since: log.origin, clock: clock) < deadline {
      if log.count >= expecting, queues.values.allSatisfy({ $0.operationCount == 0 }) {
        drained = true
        break
      }
      Thread.sleep(forTimeInterval: 0.002)
    }
    Thread.sleep(forTimeInterval: 0.5 * tickSeconds)
    if !drained {
      // Unblock whatever is stuck, and keep every operation alive for good: corelibs walks
      // unretained pointers to dependents when an operation finishes (spec rule 18).
      for q in queues.values {
        q.cancelAllOperations()
        q.isSuspended = false
      }
      _ = Unmanaged.passRetained(Array(ops.values) as NSArray)
    }
    // The operations stay alive until here, after their dependencies finished (rule 18).
    return withExtendedLifetime(ops) {
      RealRun(marks: log.snapshot, tickSeconds: tickSeconds, worstActionLateness: worstLateness, drained: drained)
    }
  }

  /// Sleeps until `offset` seconds after `origin`.
  /// - Returns: how late it woke, in seconds (0 when the offset had not yet passed).
  private static func sleep(until offset: Double, since origin: ContinuousClock.Instant, clock: ContinuousClock)
    -> Double
  {
    let remaining = offset - elapsed(since: origin, clock: clock)
    if remaining > 0 { Thread.sleep(forTimeInterval: remaining) }
    return max(0, elapsed(since: origin, clock: clock) - offset)
  }

  fileprivate static func elapsed(since origin: ContinuousClock.Instant, clock: ContinuousClock) -> Double {
    elapsed(since: origin, now: clock.now)
  }

  fileprivate static func elapsed(since origin: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Double {
    let d = now - origin
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }
}

/// One logged event: seconds since the origin, and a label such as `"start A"`.
struct RealMark: Sendable {
  var seconds: Double
  var label: String
}

/// The lock-protected log every operation, block and completion block writes to.
final class EventLog: Sendable {
  private let clock: ContinuousClock
  private let state: Mutex<(origin: ContinuousClock.Instant, marks: [RealMark])>

  init(clock: ContinuousClock) {
    self.clock = clock
    state = Mutex((clock.now, []))
  }

  /// Sets the origin to now: tick 0.
  func startClock() { state.withLock { $0.origin = clock.now } }

  /// Tick 0.
  var origin: ContinuousClock.Instant { state.withLock { $0.origin } }

  /// Records `label` at the current time.
  func mark(_ label: String) {
    let now = clock.now
    state.withLock {
      $0.marks.append(RealMark(seconds: RealRun.elapsed(since: $0.origin, now: now), label: label))
    }
  }

  /// How many events were logged.
  var count: Int { state.withLock { $0.marks.count } }

  /// Everything logged so far.
  var snapshot: [RealMark] { state.withLock { $0.marks } }
}

/// Logs a cancelled operation's skip: `start()` finds `isCancelled` and never calls `main()`.
private func startLoggingSkip(_ op: Operation, label: String, log: EventLog, start: () -> Void) {
  if op.isCancelled {
    log.mark("skip \(label)")
    start()
    log.mark("finish \(label)")
  } else {
    start()
  }
}

/// A plain operation whose `main()` sleeps, logging its start and finish.
///
/// Like the simulator's ``OpLabCore/CancellationCheck/every(_:)``, a cooperative operation
/// checks `isCancelled` when `main()` begins and after every `n` ticks of work, except at the end.
final class TimedOperation: Operation, @unchecked Sendable {
  private let label: String
  private let ticks: Tick
  private let tickSeconds: Double
  private let checkEvery: Tick?
  private let bails: Bool
  private let log: EventLog

  init(_ spec: OperationSpecification, tickSeconds: Double, log: EventLog) {
    label = spec.name
    ticks = spec.ticks
    self.tickSeconds = tickSeconds
    checkEvery = spec.checksCancellationEvery
    bails = spec.bailsIfDependencyCancelled
    self.log = log
    super.init()
    name = label
  }

  override func start() { startLoggingSkip(self, label: label, log: log) { super.start() } }

  override func main() {
    log.mark("start \(label)")
    defer { log.mark("finish \(label)") }
    if bails, dependencies.contains(where: \.isCancelled) { return }
    guard let every = checkEvery else {
      Thread.sleep(forTimeInterval: Double(ticks) * tickSeconds)
      return
    }
    var done: Tick = 0
    while done < ticks {
      if isCancelled { return }
      let chunk = min(every, ticks - done)
      Thread.sleep(forTimeInterval: Double(chunk) * tickSeconds)
      done += chunk
    }
  }
}

/// A real `BlockOperation` whose execution blocks sleep, logging each block and the whole.
final class TimedBlockOperation: BlockOperation, @unchecked Sendable {
  private let label: String
  private let log: EventLog

  init(label: String, blockSeconds: [Double], log: EventLog) {
    self.label = label
    self.log = log
    super.init()
    name = label
    for (i, seconds) in blockSeconds.enumerated() {
      addExecutionBlock {
        log.mark("start \(label)#\(i + 1)")
        Thread.sleep(forTimeInterval: seconds)
        log.mark("finish \(label)#\(i + 1)")
      }
    }
  }

  override func start() { startLoggingSkip(self, label: label, log: log) { super.start() } }

  override func main() {
    log.mark("start \(label)")
    super.main()
    log.mark("finish \(label)")
  }
}

extension Operation.QueuePriority {
  /// The Foundation priority for a simulator priority.
  init(_ p: QueuePriority) {
    switch p {
    case .veryLow: self = .veryLow
    case .low: self = .low
    case .normal: self = .normal
    case .high: self = .high
    case .veryHigh: self = .veryHigh
    }
  }
}

extension Foundation.QualityOfService {
  /// The Foundation quality of service for a simulator one.
  init(_ qos: OpLabCore.QualityOfService) {
    switch qos {
    case .background: self = .background
    case .utility: self = .utility
    case .default: self = .default
    case .userInitiated: self = .userInitiated
    case .userInteractive: self = .userInteractive
    }
  }
}
