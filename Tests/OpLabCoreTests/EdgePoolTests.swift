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
