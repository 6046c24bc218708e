// Lesson 16, exercise: the filter reads its download's result.
// (A solution.)
import Foundation
import Synchronization

/// Why a request failed.
enum DownloadError: Error { case offline }

final class DownloadOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex and constants.
  private let result = Mutex<Result<Data, DownloadError>?>(nil)
  /// The size of the photo it fetches.
  let size: Int
  /// Whether its request fails (the network is down for this one).
  let failing: Bool

  init(size: Int, failing: Bool = false) {
    self.size = size
    self.failing = failing
    super.init()
  }

  /// The photo, if the request succeeded; nil if it failed, was cancelled
  /// or has not finished.
  var photo: Data? { result.withLock { try? $0?.get() } }
  /// Whether the request failed.
  var failed: Bool {
    result.withLock { if case .failure = $0 { true } else { false } }
  }

  override func main() {
    if isCancelled { return }
    work(ticks: 2)  // the request
    let fetched = Data(count: size)
    result.withLock { $0 = failing ? .failure(.offline) : .success(fetched) }
  }
}

final class FilterOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is a Mutex.
  private let output = Mutex<Data?>(nil)
  /// The filtered photo; nil if there was none to filter.
  var filtered: Data? { output.withLock { $0 } }

  override func main() {
    // Its download has finished, which says nothing of how: only the
    // result does. No photo (the request failed, or the download was
    // cancelled): nothing to filter.
    guard let download = dependencies.first as? DownloadOperation,
      let photo = download.photo, !isCancelled
    else { return }
    work(ticks: 1)  // the filter
    output.withLock { $0 = Data(photo.reversed()) }
  }
}

// How they ended, for the harness's printer of events.
extension DownloadOperation: Reporting {
  var ending: Ending {
    failed ? .failed : isCancelled ? .cancelled : .succeeded
  }
}
extension FilterOperation: Reporting {
  var ending: Ending { filtered == nil ? .returnedEarly : .succeeded }
}

Lab.start(lastTick: 2)  // the lab's clock starts: t=0

let downloads = OperationQueue()
downloads.name = "downloads"
let filters = OperationQueue()
filters.name = "filters"

let download1 = DownloadOperation(size: 4096)
download1.name = "download1"
let download2 = DownloadOperation(size: 4096, failing: true)
download2.name = "download2"
let filter1 = FilterOperation()
filter1.name = "filter1"
filter1.addDependency(download1)
let filter2 = FilterOperation()
filter2.name = "filter2"
filter2.addDependency(download2)

// How many rows got a filtered photo.
Lab.printsAtTheEnd("filtered") {
  [filter1, filter2].filter { $0.filtered != nil }.count
}
// How many downloads were cancelled (nobody cancels one here).
Lab.printsAtTheEnd("cancelled") {
  [download1, download2].filter(\.isCancelled).count
}
for op in [download1, download2, filter1, filter2] {
  Lab.watch(op)  // the harness prints its start and finish
}
downloads.addOperations([download1, download2], waitUntilFinished: false)
filters.addOperations([filter1, filter2], waitUntilFinished: false)

Lab.end()  // the harness ends the program when the work is done
