import OpLabCore
import Testing

@testable import OpLabRender

/// A timeline's title says what it shows: named queues are a filter, drawn from their
/// first activity, not a window the learner chose (#18).
@Suite struct TimelineTitleTests {
  /// As in the shell: `x` on `queue` from t=0 to 3; then `d1` on downloads and `f1` on filters after it.
  static func world() throws -> World {
    var w = World()
    let queue = try w.createQueue(name: "queue")
    let downloads = try w.createQueue(name: "downloads", maxConcurrent: 1)
    let filters = try w.createQueue(name: "filters", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "x", duration: 3), to: queue)
    w.runUntilIdle()
    let d1 = try w.addOperation(OperationSpec(name: "d1", duration: 3), to: downloads)
    try w.addOperation(OperationSpec(name: "f1", duration: 2), to: filters, dependencies: [d1])
    w.runUntilIdle()
    return w
  }

  @Test("Named queues are titled as a filter from their first activity")
  func namedQueues() throws {
    let w = try Self.world()
    let queues = try ["downloads", "filters"].map { try #require(w.queueID(named: $0)) }
    #expect(
      Timeline.render(w, queues: queues, width: 80) == """
        timeline of downloads, filters: t=3-8, now t=8 (from their first activity)
        tick      3    8
        downloads  max 1
          d1      ███✓
        filters  max 1
          f1      ···██✓
        █ executing  · waiting on dependencies  ✓ finished

        """)
  }

  @Test("Named queues with from or to are a window of that filter, and say so")
  func namedQueuesWindow() throws {
    let w = try Self.world()
    let downloads = try #require(w.queueID(named: "downloads"))
    #expect(
      Timeline.render(w, queues: [downloads], from: 2, width: 80) == """
        timeline of downloads: t=2-8, now t=8 (a window: without from and to, all of it)
        tick      2    7
        downloads  max 1
          d1       ███✓
        █ executing  ✓ finished

        """)
  }

  @Test("A queue busy from t=0 needs no note, and every queue with no names keeps the plain title")
  func fromTheStart() throws {
    let w = try Self.world()
    let queue = try #require(w.queueID(named: "queue"))
    #expect(Timeline.render(w, queues: [queue], width: 80).hasPrefix("timeline of queue: t=0-8, now t=8\ntick"))
    #expect(Timeline.render(w, width: 80).hasPrefix("t=0-8, now t=8\ntick"))
    #expect(Timeline.render(w, from: 3, to: 5, width: 80).hasPrefix("t=3-5, now t=8 (a window: `timeline` alone shows everything)\ntick"))
  }
}
