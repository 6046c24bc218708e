// Lesson 13, exercise: fix a data race with a lock.
//
// Two operations each add 1000 likes to one photo's count, at the same
// time. The count's class is marked @unchecked Sendable, which tells Swift
// "I keep this safe myself" -- and it does not: `count += 1` is a read and
// a write, and two threads interleave them. Thread Sanitizer watches this
// run and reports the race.
//
// Make Likes safe to use from both operations at once. (Lab and work are
// the lab's harness: the clock, the stand-in for real work, the printer of
// events.)
import Foundation

final class Likes: @unchecked Sendable {
  // BUG: @unchecked Sendable, yet nothing keeps `count` safe.
  private var count = 0

  func add() { count += 1 }
  var value: Int { count }
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
