import Testing

@testable import OpLabCore

/// The pooled edge lists behind dependencies and dependents.
@Suite struct EdgePoolTests {
  @Test("Lists keep insertion order through removals at the head, middle and tail, and reuse freed links")
  func order() {
    var pool = EdgePool()
    var a = EdgeList(), b = EdgeList()
    for i in [1, 2, 3, 4] { pool.append(OpID(i), to: &a) }
    pool.append(OpID(9), to: &b)
    #expect(pool.operations(in: a) == [1, 2, 3, 4].map(OpID.init))
    #expect(pool.remove(OpID(2), from: &a))
    #expect(pool.remove(OpID(4), from: &a))
    #expect(!pool.remove(OpID(7), from: &a))
    #expect(pool.operations(in: a) == [OpID(1), OpID(3)])
    pool.append(OpID(5), to: &a)  // after a tail removal the new tail links from the old middle
    #expect(pool.operations(in: a) == [OpID(1), OpID(3), OpID(5)])
    #expect(pool.links.count == 5)  // the freed link was reused
    #expect(pool.remove(OpID(1), from: &a))
    #expect(pool.remove(OpID(3), from: &a))
    #expect(pool.remove(OpID(5), from: &a))
    #expect(a.isEmpty && a.head == -1 && a.tail == -1)
    pool.append(OpID(6), to: &a)
    #expect(pool.operations(in: a) == [OpID(6)])
    #expect(pool.operations(in: b) == [OpID(9)])
    #expect(pool.first(in: a, where: { $0 == OpID(6) }) == OpID(6))
  }

  @Test("A prepended list reads newest first, through removals, and an appended one can share the pool")
  func prepended() {
    var pool = EdgePool()
    var a = EdgeList(), b = EdgeList()
    for i in [1, 2, 3] { pool.prepend(OpID(i), to: &a) }
    pool.append(OpID(9), to: &b)
    #expect(pool.operations(in: a) == [3, 2, 1].map(OpID.init))
    #expect(pool.remove(OpID(2), from: &a))
    pool.prepend(OpID(4), to: &a)  // into the freed link
    #expect(pool.operations(in: a) == [4, 3, 1].map(OpID.init))
    #expect(pool.links.count == 4)
    #expect(pool.remove(OpID(1), from: &a))
    #expect(pool.remove(OpID(4), from: &a))
    #expect(pool.remove(OpID(3), from: &a))
    #expect(a.isEmpty && a.head == -1 && a.tail == -1)
    pool.prepend(OpID(5), to: &a)
    #expect(pool.operations(in: a) == [OpID(5)] && a.head == a.tail)
    #expect(pool.operations(in: b) == [OpID(9)])
  }

  /// Enqueues `ops` in order on the suspended queue `q`, resumes it and runs to the end.
  /// - Returns: the trace mark before the resume.
  static func enqueueSuspendedThenRun(_ ops: [OpID], on q: QueueID, in w: inout World) throws -> Int {
    try w.suspend(q)
    for op in ops { try w.enqueue(op, on: q) }
    let mark = w.trace.count
    try w.resume(q)
    w.runUntilIdle()
    return mark
  }

  @Test("A list kept by its head alone reads newest first, through removals, and reuses freed links")
  func headOnly() {
    var pool = EdgePool()
    var head: Int32 = -1
    #expect(pool.operations(from: head).isEmpty)
    for i in [1, 2, 3] { pool.prepend(OpID(i), toHead: &head) }
    #expect(pool.operations(from: head) == [3, 2, 1].map(OpID.init))
    #expect(pool.remove(OpID(3), fromHead: &head))  // the head itself
    #expect(!pool.remove(OpID(3), fromHead: &head))
    #expect(pool.operations(from: head) == [2, 1].map(OpID.init))
    pool.prepend(OpID(4), toHead: &head)  // into the freed link
    #expect(pool.links.count == 3)
    #expect(pool.operations(from: head) == [4, 2, 1].map(OpID.init))
    #expect(pool.remove(OpID(1), fromHead: &head) && pool.remove(OpID(4), fromHead: &head) && pool.remove(OpID(2), fromHead: &head))
    #expect(head == -1 && pool.operations(from: head).isEmpty)
  }

  @Test("The oldest dependent, kept beside the pooled list, is read and released first; removed, the next oldest is")
  func oldestDependentKeptApart() throws {
    var w = World()
    let q = try w.createQueue(name: "serial", maxConcurrent: 1)
    let root = try w.createOperation(OperationSpec(name: "root", duration: 2))
    let ids = try ["d1", "d2", "d3"].map { try w.createOperation(OperationSpec(name: $0), dependencies: [root]) }
    #expect(w.edges.links.count == 3 + 2)  // three dependency links; the first dependent needs none
    #expect(w.dependents(of: root) == ids)
    try w.removeDependency(ids[0], on: root)  // the oldest
    #expect(w.dependents(of: root) == [ids[1], ids[2]])
    try w.addDependency(ids[0], on: root)  // now the newest, after the pooled ones
    #expect(w.dependents(of: root) == [ids[1], ids[2], ids[0]])
    for id in ids { try w.removeDependency(id, on: root) }
    #expect(w.dependents(of: root).isEmpty)
    for id in [ids[2], ids[0], ids[1]] { try w.addDependency(id, on: root) }  // the first is kept apart again
    #expect(w.dependents(of: root) == [ids[2], ids[0], ids[1]])
    try w.removeDependency(ids[2], on: root)
    #expect(w.dependents(of: root) == [ids[0], ids[1]])
    #expect(w.invariantViolations().isEmpty)
    let mark = try Self.enqueueSuspendedThenRun(ids + [root], on: q, in: &w)
    // d3 no longer waits for root; d1 and d2 become ready in the order of root's edges.
    #expect(
      w.lines(from: mark) == [
        "0 serial resumed", "0 d3 started",
        "1 d3 finished", "1 root started",
        "3 root finished", "3 d1 ready", "3 d2 ready", "3 d1 started",
        "4 d1 finished", "4 d2 started",
        "5 d2 finished",
      ])
    #expect(w.invariantViolations().isEmpty)
  }

  @Test("A barrier's link that repeats an explicit dependency is a second edge: removing one removes the newer, and the other still holds")
  func duplicateEdgeThroughBarrier() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let a = try w.addOperation(OperationSpec(name: "a", duration: 2), to: q)
    let barrier = try w.addBarrier(to: q)
    let x = try w.createOperation(OperationSpec(name: "x"), dependencies: [barrier])  // x is the barrier's oldest dependent
    try w.enqueue(x, on: q)  // the open barrier links x to itself again
    #expect(w.dependents(of: barrier) == [x, x])
    #expect(w.dependencies(of: x) == [barrier, barrier])
    #expect(w.unfinishedCount(of: x) == 2)
    try w.removeDependency(x, on: barrier)
    #expect(w.dependents(of: barrier) == [x] && w.dependencies(of: x) == [barrier])
    #expect(w.unfinishedCount(of: x) == 1 && !w.isReady(x))
    #expect(w.invariantViolations().isEmpty)
    let mark = w.trace.count
    w.runUntilIdle()
    #expect(
      w.lines(from: mark) == [
        "2 a finished", "2 q.barrier1 ready", "2 q.barrier1 started",
        "3 q.barrier1 finished", "3 x ready", "3 x started",
        "4 x finished",
      ])
    #expect(w.invariantViolations().isEmpty)
    _ = a
  }

  @Test("The invariants notice a dependent list that no longer matches the dependency lists")
  func invariantsCatchADriftingDependentList() throws {
    var w = World()
    let a = try w.createOperation(OperationSpec(name: "a"))
    let b = try w.createOperation(OperationSpec(name: "b"), dependencies: [a])
    #expect(w.invariantViolations().isEmpty)
    var drifted = w
    drifted.readiness[a.slot].firstDependent = -1
    #expect(drifted.invariantViolations() == ["b lists a as a dependency 1 more times than a lists it as a dependent"])
    drifted = w
    drifted.addDependent(b, to: a)
    #expect(drifted.invariantViolations() == ["b lists a as a dependency 1 fewer times than a lists it as a dependent"])
    drifted = w
    drifted.readiness[b.slot].phase = .ready
    #expect(drifted.invariantViolations().contains("b is created but readiness says ready"))
  }

  @Test("Dependents become ready in the order their edges were added (the list is stored newest first), and start by place")
  func releaseOrder() throws {
    var w = World()
    let q = try w.createQueue(name: "serial", maxConcurrent: 1)
    let root = try w.createOperation(OperationSpec(name: "root", duration: 2))
    let names = ["d3", "d1", "d4", "d2"]
    let ids = try names.map { try w.createOperation(OperationSpec(name: $0), dependencies: [root]) }
    try w.removeDependency(ids[2], on: root)
    try w.addDependency(ids[2], on: root)  // d4's edge is now the newest
    #expect(w.dependents(of: root) == [ids[0], ids[1], ids[3], ids[2]])
    let mark = try Self.enqueueSuspendedThenRun(ids + [root], on: q, in: &w)
    // They become ready in the order of root's edges (d4's is the newest), and start in
    // the order they were enqueued: same priority, and a pending operation keeps its place.
    #expect(
      w.lines(from: mark) == [
        "0 serial resumed", "0 root started",
        "2 root finished", "2 d3 ready", "2 d1 ready", "2 d2 ready", "2 d4 ready", "2 d3 started",
        "3 d3 finished", "3 d1 started",
        "4 d1 finished", "4 d4 started",
        "5 d4 finished", "5 d2 started",
        "6 d2 finished",
      ])
  }

  @Test("A world's dependencies and dependents read back in the order the edges were added, after removals")
  func throughTheWorld() throws {
    var w = World()
    let ops = try (0..<4).map { try w.createOperation(OperationSpec(name: "o\($0)")) }
    for d in [ops[2], ops[0], ops[1]] { try w.addDependency(ops[3], on: d) }
    try w.addDependency(ops[1], on: ops[0])
    try w.removeDependency(ops[3], on: ops[0])
    #expect(w.dependencies(of: ops[3]) == [ops[2], ops[1]])
    #expect(w.dependents(of: ops[0]) == [ops[1]])
    #expect(w.dependents(of: ops[1]) == [ops[3]])
    #expect(w.invariantViolations().isEmpty)
  }
}

/// A queue's ready entries: one heap per level, each by place.
@Suite struct ReadyQueueTests {
  @Test("Entries come out best first: the higher level, then the earlier place, whatever the order they went in")
  func order() {
    let entries = [
      ReadyEntry(level: 0, place: 7, op: OpID(1)), ReadyEntry(level: 8, place: 9, op: OpID(2)),
      ReadyEntry(level: -8, place: 1, op: OpID(3)), ReadyEntry(level: 0, place: 3, op: OpID(4)),
      ReadyEntry(level: 12, place: 20, op: OpID(5)), ReadyEntry(level: 8, place: 2, op: OpID(6)),
      ReadyEntry(level: 0, place: UInt32.max, op: OpID(Int(Int32.max))),
    ]
    var q = ReadyQueue()
    for e in entries { q.insert(e) }
    #expect(q.count == entries.count)
    #expect(q.unordered.sorted(by: >) == entries.sorted(by: >))
    #expect(q.max == ReadyEntry(level: 12, place: 20, op: OpID(5)))
    var out: [ReadyEntry] = []
    while let e = q.popMax() { out.append(e) }
    #expect(out == entries.sorted(by: >))  // ReadyEntry's own order: greater is better
    #expect(q.count == 0 && q.max == nil && q.popMax() == nil)
    // A level emptied by a pop gives way to the next one.
    var two = ReadyQueue([ReadyEntry(level: 4, place: 5, op: OpID(1)), ReadyEntry(level: -4, place: 1, op: OpID(2))])
    #expect(two.popMax()?.op == OpID(1))
    #expect(two.max?.op == OpID(2) && two.count == 1)
    two.insert(ReadyEntry(level: 4, place: 9, op: OpID(3)))
    #expect(two.max?.op == OpID(3))
    var rebuilt = ReadyQueue(entries.filter { $0.level == 0 })
    #expect(rebuilt.popMax()?.op == OpID(4))
    #expect(rebuilt.count == 2)
  }
}

/// The scheduler's count of ready entries that may be stale, which lets it skip reading
/// a record to check one, must not change what a pick records.
@Suite struct StaleReadyEntryTests {
  /// An operation made unready and then ready again (here by `cancel`) has two entries
  /// alike; when it is picked, the pick's `beat` is what the heap holds next — its own
  /// second entry, as it always has been. Thirty-two more operations made unready must not
  /// compact the heap (a review found they did, for a while, and the beat became `nil`).
  @Test("Operations made unready neither compact the ready heap nor change a pick's beat")
  func unreadyDoesNotCompact() throws {
    var w = World()
    let q = try w.createQueue(name: "q", maxConcurrent: 1)
    let x = try w.addOperation(OperationSpec(name: "x", duration: 10), to: q)
    let d = try w.createOperation(OperationSpec(name: "d"))
    let a = try w.addOperation(OperationSpec(name: "a"), to: q)
    try w.addDependency(a, on: d)
    var waiting: [OpID] = []
    for i in 0..<31 {
      let s = try w.addOperation(OperationSpec(name: "s\(i)"), to: q)
      try w.addDependency(s, on: d)
      waiting.append(s)
    }
    w.cancel(a)
    #expect(w.invariantViolations() == [])
    w.runUntilIdle()
    #expect(w.invariantViolations() == [])
    // Every pick, in order: x when it was added, then a (skipped, being cancelled) when x
    // freed the slot; the rest wait on d, which is never added to a queue.
    let picks: [(OpID?, Reason)] = w.trace.compactMap { e in
      if case .picked = e.reason { return (e.op, e.reason) } else { return nil }
    }
    #expect(picks.map(\.0) == [x, a])
    #expect(picks.map(\.1) == [.picked(.enqueued, beat: nil), .picked(.slotFreed(x), beat: a)])
    #expect(waiting.allSatisfy { w.operation($0).phase == .pending })
  }
}
