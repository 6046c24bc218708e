// Lesson 7, exercise: a main() that checks isCancelled between slices.
//
// A ResizeOperation resizes a photo in eight slices of a tick each. The
// user leaves the screen at t=2 and the app cancels it; cancel() only sets
// isCancelled, so main() must look at it and stop. The thumbnail waits on
// the same serial queue: it should start soon after the cancel, not at t=8.
//
// Fix main() below. (Lab and work are the lab's harness: the clock, the
// stand-in for real work, the printer of events.)
import Foundation

final class ResizeOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its only stored property is a constant.
  let slices: Int

  init(slices: Int) {
    self.slices = slices
    super.init()
  }

  override func main() {
    // BUG: it never looks at isCancelled, so a cancelled resize runs all
    // its slices.
    for _ in 0..<slices {
      work(ticks: 1)  // one slice of the resize
    }
  }
}

// How it ended, for the harness's printer of events.
extension ResizeOperation: Reporting {
  var ending: Ending { isCancelled ? .cancelled : .succeeded }
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

sleep(untilTick: 2)  // t=2: the user leaves the screen
resize.cancel()

Lab.end()  // the harness ends the program when the work is done
