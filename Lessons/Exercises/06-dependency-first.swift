// Lesson 6, exercise: set a dependency before the operation is added.
//
// A row's photo is downloaded, then filtered, and the filter reads what the
// download left. Here the app adds the filter to its queue as soon as the
// row appears, looks in the disk cache (a tick, and a miss), and only then
// makes the download and the dependency. The dependency comes too late: an
// operation in a queue may start at any moment, and this one has.
//
// Reorder the code so the filter cannot start before the download is done.
// (Lab and work are the lab's harness: the clock, the stand-in for real
// work, the printer of events.)
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
filters.addOperation(filter)

// Look in the disk cache first: it takes a tick, and misses.
work(ticks: 1)

let download = BlockOperation {
  work(ticks: 2)
  downloaded.withLock { $0 = 4096 }
}
download.name = "download"
Lab.watch(download)
filter.addDependency(download)
downloads.addOperation(download)

Lab.end()  // the harness ends the program when the work is done
