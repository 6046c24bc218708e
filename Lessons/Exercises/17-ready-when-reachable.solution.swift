// Lesson 17, exercise: an isReady of your own, and telling the queue.
// (A solution.)
import Foundation
import Synchronization

final class NetworkOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is Mutexes.
  private let reachable = Mutex(false)
  private let ranOffline = Mutex(false)

  /// Whether its main() ran while the network was down (and failed).
  var failedOffline: Bool { ranOffline.withLock { $0 } }

  /// Ready once its dependencies are done and the network is reachable;
  /// cancelled, at once, so that the queue can skip it.
  override var isReady: Bool {
    super.isReady && (reachable.withLock { $0 } || isCancelled)
  }

  /// Called when the network comes back.
  func networkCameBack() {
    // The queue reads isReady again only when told that it changed:
    // through key-value observing on Apple platforms; on Linux corelibs'
    // didChangeValue(forKey:) re-reads isReady at once, on this thread,
    // and keeps the answer. Outside the lock: isReady takes it.
    willChangeValue(forKey: "isReady")
    reachable.withLock { $0 = true }
    didChangeValue(forKey: "isReady")
  }

  override func main() {
    if isCancelled { return }
    guard reachable.withLock({ $0 }) else {
      ranOffline.withLock { $0 = true }  // the request fails at once
      return
    }
    work(ticks: 2)  // the request
  }
}

// How it ended, for the harness's printer of events.
extension NetworkOperation: Reporting {
  var ending: Ending {
    failedOffline ? .failed : isCancelled ? .cancelled : .succeeded
  }
}

Lab.start(lastTick: 3)  // the lab's clock starts: t=0

let network = OperationQueue()
network.name = "network"

let sync = NetworkOperation()
sync.name = "sync"
let upload = NetworkOperation()
upload.name = "upload"
// The backup sends the photo index, which takes 7 ticks to build.
let index = BlockOperation { work(ticks: 7) }
index.name = "index"
let backup = NetworkOperation()
backup.name = "backup"
backup.addDependency(index)
// How many operations ran while the network was down.
Lab.printsAtTheEnd("offline") {
  [sync, upload, backup].filter(\.failedOffline).count
}
for op in [index, sync, upload, backup] {
  Lab.watch(op)  // the harness prints its start and finish
  network.addOperation(op)
}

sleep(untilTick: 1)  // t=1: the user gives up on the upload
upload.cancel()

sleep(untilTick: 3)  // t=3: the network comes back
for op in [sync, upload, backup] { op.networkCameBack() }

Lab.end()  // the harness ends the program when the work is done
