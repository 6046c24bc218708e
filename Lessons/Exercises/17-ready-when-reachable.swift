// Lesson 17, exercise: an isReady of your own, and telling the queue.
//
// A NetworkOperation needs the network: started while it is down, its
// request fails at once. The network is down from t=0 and comes back at
// t=3. The queue knows nothing of networks: the operation must say "not
// ready" itself, by overriding isReady, and the queue must hear when that
// changes. At t=1 the user gives up on the upload, and the app cancels it:
// a cancelled operation must be ready at once, network or not, so that the
// queue can skip it. The backup also waits for its dependency, index, to
// finish at t=7.
//
// Fill in the two gaps below. (Lab and work are the lab's harness: the
// clock, the stand-in for real work, the printer of events.)
import Foundation
import Synchronization

final class NetworkOperation: Operation, @unchecked Sendable {
  // @unchecked Sendable: its state is Mutexes.
  private let reachable = Mutex(false)
  private let ranOffline = Mutex(false)

  /// Whether its main() ran while the network was down (and failed).
  var failedOffline: Bool { ranOffline.withLock { $0 } }

  // GAP: override isReady: ready once its dependencies are done (super's
  // answer) and the network is reachable, or at once when it is cancelled.

  /// Called when the network comes back.
  func networkCameBack() {
    // GAP: the queue reads isReady again only when told that it changed:
    // tell it, around the change and outside the lock. (On Linux corelibs'
    // didChangeValue(forKey:) reads isReady at once, on this thread: inside
    // withLock, isReady would lock the Mutex again: a fatal error.)
    reachable.withLock { $0 = true }
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
