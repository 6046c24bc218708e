// Lesson 6, exercise: hand a result from a download to its filter.
// (A solution.)
import Foundation
import Synchronization

final class DownloadOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex and a constant.
  private let result = Mutex<Data?>(nil)
  /// The size of the photo it fetches.
  let size: Int

  init(size: Int) {
    self.size = size
    super.init()
  }

  /// The photo, once it has finished; nil if it was cancelled.
  var photo: Data? { result.withLock { $0 } }

  override func main() {
    if isCancelled { return }
    work(ticks: 2)  // the request
    result.withLock { $0 = Data(count: size) }
  }
}

final class FilterOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex.
  private let result = Mutex(0)
  /// How many bytes it filtered.
  var filteredBytes: Int { result.withLock { $0 } }

  override func main() {
    // The download it depends on has finished: its photo is there.
    let photo = dependencies.lazy
      .compactMap { ($0 as? DownloadOperation)?.photo }.first
    guard let photo, !isCancelled else { return }
    work(ticks: 1)  // the filter
    result.withLock { $0 = photo.count }
  }
}

Lab.start(lastTick: 2)  // the lab's clock starts: t=0

let downloads = OperationQueue()
downloads.name = "downloads"
let filters = OperationQueue()
filters.name = "filters"

let download = DownloadOperation(size: 4096)
download.name = "download"
let filter = FilterOperation()
filter.name = "filter"
filter.addDependency(download)
Lab.printsAtTheEnd("filtered") { filter.filteredBytes }
for op in [download, filter] { Lab.watch(op) }  // the harness prints them
downloads.addOperation(download)
filters.addOperation(filter)

Lab.end()  // the harness ends the program when the work is done
