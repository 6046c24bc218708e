// Lesson 15, exercise: hop to the main thread from a completion block.
//
// When the download finishes, its completion block shows the photo in its
// cell. A completion block runs on a thread the main thread cannot count
// on (swift-corelibs-foundation, on Linux, runs it on a global queue; Apple
// does not say which, "typically a secondary thread"), and the cell, like
// all of UIKit, is @MainActor. Swift 6 refuses this file for it: make the
// completion block hand the call to the main thread.
//
// (Lab and work are the lab's harness: the clock, the stand-in for real
// work, the printer of events.)
import Foundation
import Synchronization

/// How many photos were shown, and how many of them on the main thread.
let shown = Mutex((all: 0, onMain: 0))
Lab.printsAtTheEnd("shown") { shown.withLock { $0.all } }
Lab.printsAtTheEnd("shownOnMain") { shown.withLock { $0.onMain } }

/// Stands for the table view's cell: @MainActor, as UIKit's views are.
@MainActor final class PhotoCell {
  private(set) var photo: Data?

  func show(_ photo: Data) {
    self.photo = photo
    shown.withLock {
      $0.all += 1
      if Thread.isMainThread { $0.onMain += 1 }
    }
  }
}

final class DownloadOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex.
  private let result = Mutex<Data?>(nil)
  /// The photo, once it has finished.
  var photo: Data? { result.withLock { $0 } }

  override func main() {
    work(ticks: 2)  // the request
    result.withLock { $0 = Data(count: 4096) }
  }
}

Lab.start(lastTick: 3)  // the lab's clock starts: t=0

// Top-level code runs on the main thread: the cell is made there.
let cell = MainActor.assumeIsolated { PhotoCell() }
let downloads = OperationQueue()
downloads.name = "downloads"

let download = DownloadOperation()
download.name = "download"
Lab.watch(download)  // the harness prints its start and finish
download.completionBlock = { [weak download] in
  guard let photo = download?.photo else { return }
  cell.show(photo)
}
downloads.addOperation(download)

Lab.end()  // the harness ends the program when the work is done
