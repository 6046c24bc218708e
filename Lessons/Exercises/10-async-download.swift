// Lesson 10, exercise: an asynchronous operation that finishes, and stops
// when it is cancelled.
//
// A DownloadOperation starts its request in start() and returns at once.
// The queue learns that it is executing, then finished, only when it calls
// willChangeValue(forKey:) and didChangeValue(forKey:) around each change
// (KVO on Apple platforms; swift-corelibs-foundation, on Linux, has no KVO
// and hears the same two calls itself). Two downloads share one slot, and
// the user cancels the first at t=1: the second should take the slot then,
// not wait out the cancelled request.
//
// Fix start() and cancel() below. (Lab, work and startWork are the lab's
// harness: the clock, the stand-ins for real work, the printer of events.)
import Foundation

final class DownloadOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: `state` is read and written only under `lock`.
  private enum State { case ready, executing, finished }
  private let lock = NSLock()
  private var state = State.ready
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
    // BUG: it never says it is executing; when the request returns it sets
    // the state without the calls the queue waits for; and a cancelled
    // download goes on until its request returns.
    startWork(ticks: ticks) {
      self.lock.withLock { self.state = .finished }
    }
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
