// Lesson 13, exercise: fix a data race with a lock. (A solution.)
import Foundation

final class Likes: @unchecked Sendable {
  // @unchecked Sendable: `count` is read and written only under `lock`.
  private let lock = NSLock()
  private var count = 0

  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

let likes = Likes()
Lab.printsAtTheEnd("likes") { likes.value }

Lab.start(lastTick: 1)  // the lab's clock starts: t=0

let counters = OperationQueue()
counters.name = "counters"
for name in ["a", "b"] {
  let op = BlockOperation {
    for _ in 0..<1000 { likes.add() }
    work(ticks: 1)
  }
  op.name = name
  Lab.watch(op)  // the harness prints its start and finish
  counters.addOperation(op)
}

Lab.end()  // the harness ends the program when the work is done
