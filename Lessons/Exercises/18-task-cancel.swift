// Lesson 18, exercise: an operation's cancel reaches its Task.
//
// An app moves to Swift concurrency a piece at a time: resizePhoto(slices:)
// is now an async function, and ResizeOperation runs it in a Task, so that
// the queue still limits and orders the work, and cancel() and
// cancelAllOperations() still reach it. Its start() and finish() are done
// for you, as lesson 10's asynchronous operation, with one difference: a
// cancel finishes it only once the Task has stopped, so its slot stays
// taken while the work runs.
//
// The user leaves the screen at t=2 and the app cancels the resize, and it
// runs all eight slices anyway: cancel() sets the operation's isCancelled,
// which the Task never reads, and resizePhoto(slices:) never asks whether
// its Task was cancelled. The thumbnail waits on the same serial queue.
//
// Make the cancel stop the resize, filling in the two gaps. (Lab and work
// are the lab's harness: the clock, the stand-in for real work, the printer
// of events.)
import Foundation
import Synchronization

/// Resizes a photo in slices of a tick each: an async function, which knows
/// nothing of operations.
func resizePhoto(slices: Int) async throws {
  for _ in 0..<slices {
    // GAP: stop here, throwing, once the Task is cancelled (returning
    // would tell the caller the resize was done).
    // One slice: CPU work, done in one go. (Keep a Task's thread busy only
    // with CPU work, never with waiting: tasks share a few threads.)
    work(ticks: 1)
  }
}

final class ResizeOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex and a constant.
  private struct State {
    var executing = false
    var finished = false
    var task: Task<Void, Never>?
    var stopped = false  // resizePhoto(slices:) threw: it stopped early
  }
  private let state = Mutex(State())
  /// How many slices the resize takes.
  let slices: Int

  init(slices: Int) {
    self.slices = slices
    super.init()
  }

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { state.withLock { $0.executing } }
  override var isFinished: Bool { state.withLock { $0.finished } }
  /// Whether the resize stopped before its last slice.
  var stopped: Bool { state.withLock { $0.stopped } }

  override func start() {
    if isCancelled { return finish() }  // cancelled before it started
    willChangeValue(forKey: "isExecuting")
    state.withLock { $0.executing = true }
    didChangeValue(forKey: "isExecuting")
    let task = Task { [slices] in
      do {
        try await resizePhoto(slices: slices)
      } catch {
        self.state.withLock { $0.stopped = true }
      }
      self.finish()
    }
    state.withLock { $0.task = task }
    // Cancelled while the Task was being made: cancel() found no Task.
    if isCancelled { task.cancel() }
  }

  // GAP: cancel() sets only the operation's isCancelled. The Task has a
  // cancellation of its own.

  /// Marks it finished: the queue may start the next operation.
  private func finish() {
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    state.withLock {
      $0.executing = false
      $0.finished = true
    }
    didChangeValue(forKey: "isFinished")
    didChangeValue(forKey: "isExecuting")
  }
}

// How it ended, for the harness's printer of events.
extension ResizeOperation: Reporting {
  var ending: Ending { stopped ? .cancelled : .succeeded }
}

Lab.start(lastTick: 2)  // the lab's clock starts: t=0

let photos = OperationQueue()
photos.name = "photos"
photos.maxConcurrentOperationCount = 1

let resize = ResizeOperation(slices: 8)
resize.name = "resize"
let thumbnail = BlockOperation { work(ticks: 1) }
thumbnail.name = "thumbnail"
for op in [resize, thumbnail] {
  Lab.watch(op)  // the harness prints its start and finish
  photos.addOperation(op)
}

// Whether the resize operation was cancelled (1) or not (0).
Lab.printsAtTheEnd("cancelled") { resize.isCancelled ? 1 : 0 }
// Whether resizePhoto(slices:) threw, stopping early (1), or not (0).
Lab.printsAtTheEnd("stopped") { resize.stopped ? 1 : 0 }

sleep(untilTick: 2)  // t=2: the user leaves the screen
resize.cancel()

Lab.end()  // the harness ends the program when the work is done
