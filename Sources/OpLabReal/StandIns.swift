import Foundation
import OpLabCore
import OpLabSwift

/// Builds the real operation that stands in for `work`: its code sleeps where the lab's work
/// takes ticks, and logs what it does.
func standIn(for work: RealWork, tickSeconds: Double, log: RealLog, gate: Gate?, memory: SharedMemory) -> Operation {
  let op: Operation
  if let blocks = work.blocks {
    op = TimedBlockOperation(label: work.name, blockSeconds: blocks.map { Double($0) * tickSeconds }, log: log, gate: gate)
  } else if work.isAsynchronous {
    op = TimedAsyncOperation(work, tickSeconds: tickSeconds, log: log, gate: gate)
  } else {
    op = TimedOperation(work, tickSeconds: tickSeconds, log: log, gate: gate, memory: memory)
  }
  gate?.waiting.append(op)
  op.name = work.name
  if let p = work.priority { op.queuePriority = Operation.QueuePriority(p) }
  if let q = work.qualityOfService { op.qualityOfService = Foundation.QualityOfService(q) }
  if let ticks = work.completionTicks {
    let name = work.name
    let steps = work.completionSteps
    op.completionBlock = {
      log.mark(name, .completion)
      if let steps {
        memory.play(steps, by: name, inCompletion: true, restTicks: ticks - Tick(steps.count), tickSeconds: tickSeconds)
      } else {
        log.nap(Double(ticks) * tickSeconds)
      }
    }
  }
  return op
}

/// A condition an operation's custom `isReady` waits for, opened once.
final class Gate: @unchecked Sendable {
  private let lock = NSLock()
  private var opened = false
  /// The operations whose `isReady` reads it.
  var waiting: [Operation] = []

  var isOpen: Bool { lock.withLock { opened } }

  /// Opens it, posting the KVO on `isReady` the queues watch.
  func open() {
    for op in waiting { op.willChangeValue(forKey: "isReady") }
    lock.withLock { opened = true }
    for op in waiting { op.didChangeValue(forKey: "isReady") }
  }
}

/// A stand-in that remembers how it ended, for a dependent that runs only if it succeeded.
protocol EndsKnown: AnyObject {
  var ending: Outcome? { get }
}

/// Whether every dependency (barriers aside, as `dependencies` shows them) succeeded.
private func dependenciesSucceeded(_ op: Operation) -> Bool {
  op.dependencies.allSatisfy { ($0 as? EndsKnown)?.ending == .succeeded && !$0.isCancelled }
}

/// Logs a cancelled operation's skip: `start()` finds `isCancelled` and never calls `main()`.
private func startLoggingSkip(_ op: Operation, label: String, log: RealLog, start: () -> Void) {
  if op.isCancelled {
    log.mark(label, .skipped)
    start()
    log.mark(label, .finished(.cancelled))
  } else {
    start()
  }
}

/// A plain operation whose `main()` sleeps, logging its start and finish.
///
/// Like the simulator's ``OpLabCore/CancellationCheck/every(_:)``, a cooperative operation
/// checks `isCancelled` when `main()` begins and after every `n` ticks of work, except at the end.
final class TimedOperation: Operation, EndsKnown, @unchecked Sendable {
  private let work: RealWork
  private let tickSeconds: Double
  private let log: RealLog
  private let gate: Gate?
  private let memory: SharedMemory?
  private let endLock = NSLock()
  private var ended: Outcome?

  init(_ work: RealWork, tickSeconds: Double, log: RealLog, gate: Gate? = nil, memory: SharedMemory? = nil) {
    self.work = work
    self.tickSeconds = tickSeconds
    self.log = log
    self.gate = gate
    self.memory = memory
    super.init()
    name = work.name
  }

  var ending: Outcome? { endLock.withLock { ended } }

  override var isReady: Bool { super.isReady && (gate?.isOpen ?? true || isCancelled) }

  override func start() { startLoggingSkip(self, label: work.name, log: log) { super.start() } }

  override func main() {
    log.mark(work.name, .started)
    // nil: its steps were still waiting for a lock when the run ended; it never finished there.
    guard let outcome = perform() else { return }
    endLock.withLock { ended = outcome }
    log.mark(work.name, .finished(outcome))
  }

  private func perform() -> Outcome? {
    if work.bailsIfDependencyCancelled, dependencies.contains(where: \.isCancelled) { return .bailed }
    if work.bailsUnlessDependenciesSucceeded, !dependenciesSucceeded(self) { return .bailed }
    if let steps = work.steps, let memory {
      let done = memory.play(steps, by: work.name, inCompletion: false, restTicks: work.ticks - Tick(steps.count), tickSeconds: tickSeconds)
      return done ? .succeeded : nil
    }
    let ticks = work.failsAfter ?? work.ticks
    let ending: Outcome = work.failsAfter == nil ? .succeeded : .failed
    if let every = work.checksCancellationEvery {
      var done: Tick = 0
      while done < ticks {
        if isCancelled { return .cancelled }
        let chunk = min(every, ticks - done)
        log.nap(Double(chunk) * tickSeconds)
        done += chunk
      }
      return ending
    }
    if work.checksCancellationAtStart, isCancelled { return .cancelled }
    log.nap(Double(ticks) * tickSeconds)
    return ending
  }
}

/// An asynchronous operation: `start()` begins work that calls back after its ticks, and the
/// callback calls `finish()` (unless the work forgets to), with the KVO the queue watches.
final class TimedAsyncOperation: Operation, EndsKnown, @unchecked Sendable {
  private let work: RealWork
  private let tickSeconds: Double
  private let log: RealLog
  private let gate: Gate?
  private let lock = NSLock()
  private var executing = false
  private var finished = false

  init(_ work: RealWork, tickSeconds: Double, log: RealLog, gate: Gate? = nil) {
    self.work = work
    self.tickSeconds = tickSeconds
    self.log = log
    self.gate = gate
    super.init()
    name = work.name
  }

  var ending: Outcome? { isFinished ? (isCancelled ? .cancelled : .succeeded) : nil }

  override var isReady: Bool { super.isReady && (gate?.isOpen ?? true || isCancelled) }
  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { lock.withLock { executing } }
  override var isFinished: Bool { lock.withLock { finished } }

  override func start() {
    if isCancelled {
      log.mark(work.name, .skipped)
      set(executing: false, finished: true)
      log.mark(work.name, .finished(.cancelled))
      return
    }
    log.mark(work.name, .started)
    set(executing: true, finished: false)
    guard !work.forgetsFinish else { return }
    DispatchQueue.global().asyncAfter(deadline: .now() + Double(work.ticks) * tickSeconds) { [self] in
      log.mark(work.name, .finished(.succeeded))
      set(executing: false, finished: true)
    }
  }

  /// After the run: the `finish()` that work which forgets it never made, so the operation
  /// gives its queue's slot back (nothing is logged: the run has ended).
  func finishLeftover() {
    guard isExecuting, !isFinished else { return }
    set(executing: false, finished: true)
  }

  private func set(executing e: Bool, finished f: Bool) {
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    lock.withLock {
      executing = e
      finished = f
    }
    didChangeValue(forKey: "isExecuting")
    didChangeValue(forKey: "isFinished")
  }
}

/// A real `BlockOperation` whose execution blocks sleep, logging each block and the whole.
final class TimedBlockOperation: BlockOperation, EndsKnown, @unchecked Sendable {
  private let label: String
  private let log: RealLog
  private let gate: Gate?
  private var count = 0

  init(label: String, blockSeconds: [Double], log: RealLog, gate: Gate? = nil) {
    self.label = label
    self.log = log
    self.gate = gate
    super.init()
    name = label
    for seconds in blockSeconds { addBlock(seconds: seconds) }
  }

  /// `addExecutionBlock`: a block that sleeps `seconds`, logging its start and end.
  func addBlock(seconds: Double) {
    count += 1
    let (label, log, i) = (label, log, count)
    addExecutionBlock {
      log.mark(label, .blockStarted(i))
      log.nap(seconds)
      log.mark(label, .blockFinished(i))
    }
  }

  var ending: Outcome? { isFinished ? (isCancelled ? .cancelled : .succeeded) : nil }

  override var isReady: Bool { super.isReady && (gate?.isOpen ?? true || isCancelled) }

  override func start() { startLoggingSkip(self, label: label, log: log) { super.start() } }

  override func main() {
    log.mark(label, .started)
    super.main()
    log.mark(label, .finished(.succeeded))
  }
}

extension Operation.QueuePriority {
  /// The Foundation priority for a simulator priority.
  public init(_ p: QueuePriority) {
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
  public init(_ qos: OpLabCore.QualityOfService) {
    switch qos {
    case .background: self = .background
    case .utility: self = .utility
    case .default: self = .default
    case .userInitiated: self = .userInitiated
    case .userInteractive: self = .userInteractive
    }
  }
}

extension DispatchQoS {
  /// The dispatch quality of service for a simulator one (`DispatchQueue(label:qos:)`).
  public init(_ qos: OpLabCore.QualityOfService) {
    switch qos {
    case .background: self = .background
    case .utility: self = .utility
    case .default: self = .default
    case .userInitiated: self = .userInitiated
    case .userInteractive: self = .userInteractive
    }
  }
}
