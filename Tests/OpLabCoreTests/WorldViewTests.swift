import Testing

@testable import OpLabCore

@Suite struct WorldViewTests {
  @Test("operationsByQueue files operations under their queues in creation order, not enqueue order")
  func byQueue() throws {
    var w = World()
    let q = try w.createQueue(name: "q")
    let held = try w.createOperation(OperationSpec(name: "held"))
    let a = try w.createOperation(OperationSpec(name: "a"))
    let b = try w.addOperation(OperationSpec(name: "b"), to: q)
    try w.enqueue(a, on: q)
    let m = try w.addOperation(OperationSpec(name: "m"), to: .main)
    let (queued, none) = w.operationsByQueue()
    #expect(queued.count == 2)
    #expect(queued[0] == [m])
    #expect(queued[1] == [a, b])
    #expect(none == [held])
  }
}
