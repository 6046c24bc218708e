// Lesson 10, exercise: an asynchronous operation that finishes, and stops
// when it is cancelled. (A solution.)
import Foundation

final class DownloadOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: `state` and `finishing` are read and written only
  // under `lock`.
  private enum State { case ready, executing, finished }
  private let lock = NSLock()
  private var state = State.ready
  private var finishing = false
  /// How long the request takes.
  let ticks: Int

  init(ticks: Int) {
    self.ticks = ticks
    super.init()
  }

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { lock.withLock { state == .executing } }
  override var isFinished: Bool { lock.withLock { state == .finished } }

  override func start() {
    // Cancelled before it started: finished, without the request.
    if isCancelled { return finish() }
    move(to: .executing)
    // Cancelled while it was being marked executing: cancel() found it
    // not executing yet, so it stops here.
    if isCancelled { return finish() }
    startWork(ticks: ticks) { self.finish() }
  }

  override func cancel() {
    super.cancel()
    // A real download would cancel its URLSessionTask here; the queue
    // needs to hear that the operation is finished now.
    if isExecuting { finish() }
  }

  /// Marks it finished, once, however many callers (the request returning,
  /// cancel()) get here: the queue moves on, its dependents may start.
  private func finish() {
    let first = lock.withLock {
      defer { finishing = true }
      return !finishing
    }
    if first { move(to: .finished) }
  }

  /// Moves to `new`, telling the queue: willChangeValue and didChangeValue
  /// for isExecuting and isFinished (KVO on Apple platforms; corelibs hears
  /// them itself), called outside the lock.
  private func move(to new: State) {
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    lock.withLock { state = new }
    didChangeValue(forKey: "isFinished")
    didChangeValue(forKey: "isExecuting")
  }
}

// How it ended, for the harness's printer of events.
extension DownloadOperation: Reporting {
  var ending: Ending { isCancelled ? .cancelled : .succeeded }
}

Lab.start(lastTick: 2)  // the lab's clock starts: t=0

let downloads = OperationQueue()
downloads.name = "downloads"
downloads.maxConcurrentOperationCount = 1

let d1 = DownloadOperation(ticks: 3)
d1.name = "d1"
let d2 = DownloadOperation(ticks: 3)
d2.name = "d2"
for op in [d1, d2] {
  Lab.watch(op)  // the harness prints its start and finish
  downloads.addOperation(op)
}

sleep(untilTick: 1)  // t=1: the user scrolls d1's row away
d1.cancel()

Lab.end()  // the harness ends the program when the work is done
