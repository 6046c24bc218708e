import Testing

@testable import OpLabCore

/// A bookmark keeps where a simulation stands without its world; restoring replays the
/// journal from the newest checkpoint to the same world, trace and all.
@Suite struct SimulationBookmarkTests {
  /// A world with frames every tick and two queues of work: many events, so that
  /// checkpoints are taken as the clock moves.
  static func framed() throws -> Simulation {
    var sim = Simulation()
    try sim.perform(.createQueue(name: "q", maxConcurrent: 2, qualityOfService: nil))
    for i in 0..<40 { try sim.perform(.createOperation(spec("o\(i)", 3 + i % 5), dependencies: [], queue: QueueID(1))) }
    try sim.perform(.frames(every: 1, from: nil, until: nil))
    return sim
  }

  @Test("Restoring a bookmark taken between checkpoints gives the world it was taken at, after the present moved on and back")
  func restoresTheWorldAtTheBookmark() throws {
    var sim = try Self.framed()
    try sim.perform(.runUntil(37))
    let mark = sim.bookmark
    let then = sim
    try sim.perform(.runUntil(400))
    try sim.rewind(to: 12)
    try sim.perform(.cancel(OpID(3)))
    try sim.perform(.runUntil(90))
    var restored = try Simulation(restoring: mark)
    #expect(restored.world.now == 37)
    #expect(restored.world.trace == then.world.trace)
    #expect(Array(restored.journal) == Array(then.journal))
    // It goes on exactly as the world it was taken from, and travels back the same way.
    var original = then
    try restored.perform(.runUntil(150))
    try original.perform(.runUntil(150))
    #expect(restored.world.trace == original.world.trace)
    try restored.rewind(to: 20)
    try original.rewind(to: 20)
    #expect(restored.world.trace == original.world.trace)
    #expect(restored.origin.trace == original.origin.trace)
  }

  @Test("A run cut short by an interrupt before the bookmark is replayed as the run to the tick it reached")
  func restoresAnInterruptedRun() throws {
    var sim = try Self.framed()
    var asked = 0
    try sim.perform(.runUntilIdle) {
      asked += 1
      return asked > 25
    }
    let then = sim
    let mark = sim.bookmark
    try sim.perform(.runUntilIdle)
    let restored = try Simulation(restoring: mark)
    #expect(restored.world.now == then.world.now)
    #expect(restored.world.trace == then.world.trace)
  }

  @Test("Bookmarks share the checkpoints: a thousand of them, each followed by a tick, keep no world of their own")
  func bookmarksShareCheckpoints() throws {
    var sim = try Self.framed()
    var marks: [Simulation.Bookmark] = []
    for _ in 0..<1_000 {
      marks.append(sim.bookmark)
      try sim.perform(.step(1))
    }
    var seen = Set<ObjectIdentifier>()
    var worlds = Simulation.storedCheckpoints(sim.bookmark, seen: &seen)
    for m in marks { worlds += Simulation.storedCheckpoints(m, seen: &seen) }
    // Checkpoints are taken as the trace grows by a quarter: a few dozen, not one per bookmark.
    #expect(worlds < 40, "\(worlds) worlds kept")
    let restored = try Simulation(restoring: marks[500])
    #expect(restored.world.now == 500)
  }
}
