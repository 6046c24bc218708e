import Foundation
import OpLabCore

/// Builds the real operation that stands in for `work`: its code sleeps where the lab's work
/// takes ticks, and logs what it does.
func standIn(for work: RealWork, tickSeconds: Double, log: RealLog) -> Operation {
  let op: Operation
  if let blocks = work.blocks {
    op = TimedBlockOperation(label: work.name, blockSeconds: blocks.map { Double($0) * tickSeconds }, log: log)
  } else if work.isAsynchronous {
    op = TimedAsyncOperation(work, tickSeconds: tickSeconds, log: log)
  } else {
    op = TimedOperation(work, tickSeconds: tickSeconds, log: log)
  }
  op.name = work.name
  if let p = work.priority { op.queuePriority = Operation.QueuePriority(p) }
  if let q = work.qualityOfService { op.qualityOfService = Foundation.QualityOfService(q) }
  if let ticks = work.completionTicks {
    let name = work.name
    op.completionBlock = {
      log.mark(name, .completion)
      Thread.sleep(forTimeInterval: Double(ticks) * tickSeconds)
    }
  }
  return op
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
public final class TimedOperation: Operation, @unchecked Sendable {
  private let work: RealWork
  private let tickSeconds: Double
  private let log: RealLog

  public init(_ work: RealWork, tickSeconds: Double, log: RealLog) {
    self.work = work
    self.tickSeconds = tickSeconds
    self.log = log
    super.init()
    name = work.name
  }

  public override func start() { startLoggingSkip(self, label: work.name, log: log) { super.start() } }

  public override func main() {
    log.mark(work.name, .started)
    log.mark(work.name, .finished(perform()))
  }

  private func perform() -> Outcome {
    if work.bailsIfDependencyCancelled, dependencies.contains(where: \.isCancelled) { return .bailed }
    let ticks = work.failsAfter ?? work.ticks
    let ending: Outcome = work.failsAfter == nil ? .succeeded : .failed
    if let every = work.checksCancellationEvery {
      var done: Tick = 0
      while done < ticks {
        if isCancelled { return .cancelled }
        let chunk = min(every, ticks - done)
        Thread.sleep(forTimeInterval: Double(chunk) * tickSeconds)
        done += chunk
      }
      return ending
    }
    if work.checksCancellationAtStart, isCancelled { return .cancelled }
    Thread.sleep(forTimeInterval: Double(ticks) * tickSeconds)
    return ending
  }
}

/// An asynchronous operation: `start()` begins work that calls back after its ticks, and the
/// callback calls `finish()` (unless the work forgets to), with the KVO the queue watches.
public final class TimedAsyncOperation: Operation, @unchecked Sendable {
  private let work: RealWork
  private let tickSeconds: Double
  private let log: RealLog
  private let lock = NSLock()
  private var executing = false
  private var finished = false

  public init(_ work: RealWork, tickSeconds: Double, log: RealLog) {
    self.work = work
    self.tickSeconds = tickSeconds
    self.log = log
    super.init()
    name = work.name
  }

  public override var isAsynchronous: Bool { true }
  public override var isExecuting: Bool { lock.withLock { executing } }
  public override var isFinished: Bool { lock.withLock { finished } }

  public override func start() {
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
public final class TimedBlockOperation: BlockOperation, @unchecked Sendable {
  private let label: String
  private let log: RealLog

  public init(label: String, blockSeconds: [Double], log: RealLog) {
    self.label = label
    self.log = log
    super.init()
    name = label
    for (i, seconds) in blockSeconds.enumerated() {
      addExecutionBlock {
        log.mark(label, .blockStarted(i + 1))
        Thread.sleep(forTimeInterval: seconds)
        log.mark(label, .blockFinished(i + 1))
      }
    }
  }

  public override func start() { startLoggingSkip(self, label: label, log: log) { super.start() } }

  public override func main() {
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
