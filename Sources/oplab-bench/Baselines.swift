import Foundation
import HeapModule

/// The floor: a hand-written event loop with no trace and no features — dependency counts,
/// one ready heap by (priority, FIFO), a completion heap by (tick, sequence).
enum MinimalLoop {
  /// Runs the loop; returns the seconds its setup (dependency counts and lists) took,
  /// the counterpart of OpLab's build phase.
  @discardableResult
  static func run(_ nodes: [Bench.Node], slots: Int) -> Double {
    let setupStart = DispatchTime.now().uptimeNanoseconds
    let n = nodes.count
    var waiting = [Int32](repeating: 0, count: n)
    var dependents = [[Int32]](repeating: [], count: n)
    for (i, node) in nodes.enumerated() {
      waiting[i] = Int32(node.deps.count)
      for d in node.deps { dependents[d].append(Int32(i)) }
    }
    var ready = Heap<ReadyKey>()
    for i in 0..<n where waiting[i] == 0 { ready.insert(ReadyKey(priority: nodes[i].priority.rawValue, index: Int32(i))) }
    let setup = Double(DispatchTime.now().uptimeNanoseconds - setupStart) / 1e9
    var running = Heap<Done>()
    var now = 0, busy = 0, sequence = 0, finished = 0
    while finished < n {
      while busy < slots, let next = ready.popMax() {
        busy += 1
        sequence += 1
        running.insert(Done(tick: now + nodes[Int(next.index)].duration, sequence: sequence, index: next.index))
      }
      guard let done = running.popMin() else { break }
      now = done.tick
      busy -= 1
      finished += 1
      for d in dependents[Int(done.index)] {
        waiting[Int(d)] -= 1
        if waiting[Int(d)] == 0 { ready.insert(ReadyKey(priority: nodes[Int(d)].priority.rawValue, index: d)) }
      }
    }
    return setup
  }

  struct ReadyKey: Comparable {
    var priority: Int8
    var index: Int32
    static func < (a: Self, b: Self) -> Bool { a.priority != b.priority ? a.priority < b.priority : a.index > b.index }
  }

  struct Done: Comparable {
    var tick: Int
    var sequence: Int
    var index: Int32
    static func < (a: Self, b: Self) -> Bool { a.tick != b.tick ? a.tick < b.tick : a.sequence < b.sequence }
  }
}

/// The real Foundation OperationQueue running the same DAG with no-op operations,
/// 4 concurrent by default, operations added one by one.
enum RealQueue {
  static func run(_ nodes: [Bench.Node], slots: Int) {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = slots
    var operations: [BlockOperation] = []
    operations.reserveCapacity(nodes.count)
    for node in nodes {
      let op = BlockOperation {}
      op.queuePriority = Operation.QueuePriority(rawValue: Int(node.priority.rawValue)) ?? .normal
      for d in node.deps { op.addDependency(operations[d]) }
      operations.append(op)
    }
    for op in operations { queue.addOperation(op) }
    queue.waitUntilAllOperationsAreFinished()
  }
}
