// Lesson 6, exercise: set a dependency before the operation is added.
// (A solution: the filter is added once its dependency is set.)
import Foundation
import Synchronization

/// The photo's bytes, which the download leaves for the filter.
let downloaded = Mutex(0)
/// The bytes the filter found to filter.
let filtered = Mutex(0)
Lab.printsAtTheEnd("filtered") { filtered.withLock { $0 } }

Lab.start(lastTick: 2)  // the lab's clock starts: t=0

let downloads = OperationQueue()
downloads.name = "downloads"
let filters = OperationQueue()
filters.name = "filters"

let filter = BlockOperation {
  let bytes = downloaded.withLock { $0 }
  work(ticks: 1)
  filtered.withLock { $0 = bytes }
}
filter.name = "filter"
Lab.watch(filter)  // the harness prints its start and finish

// Look in the disk cache first: it takes a tick, and misses.
work(ticks: 1)

let download = BlockOperation {
  work(ticks: 2)
  downloaded.withLock { $0 = 4096 }
}
download.name = "download"
Lab.watch(download)
// The dependency first, then the operations into their queues.
filter.addDependency(download)
downloads.addOperation(download)
filters.addOperation(filter)

Lab.end()  // the harness ends the program when the work is done
