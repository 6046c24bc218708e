// Lesson 7, exercise: a main() that checks isCancelled between slices.
// (A solution.)
import Foundation

final class ResizeOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its only stored property is a constant.
  let slices: Int

  init(slices: Int) {
    self.slices = slices
    super.init()
  }

  override func main() {
    for _ in 0..<slices {
      // Cancelled: stop between slices, leaving no half-done slice.
      if isCancelled { return }
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
