import Testing

@testable import OpLabCore

/// `describe(_:into:)` writes the events a script line echoes most without interpolating
/// (#34): its bytes must be `describe(_:)`'s, for every event of every kind and reason.
@Suite struct DescribeBytesTests {
  static func mismatches(in world: World) -> [String] {
    var found: [String] = []
    for e in world.trace {
      var bytes: [UInt8] = [0x2A]  // appended after what is there
      world.describe(e, into: &bytes)
      let expected = world.describe(e)
      if bytes != [0x2A] + Array(expected.utf8) {
        found.append("\(e): wrote \(String(decoding: bytes.dropFirst(), as: UTF8.self)), describe says \(expected)")
      }
    }
    return found
  }

  @Test("Every event of random worlds is written as describe words it", arguments: Sweep.seeds(quick: 150, long: 600))
  func randomWorlds(seed: UInt64) {
    let (sim, _, _) = RandomSweepTests.play(seed: seed, machine: seed % 2 == 0, calls: seed % 3 != 0)
    #expect(Self.mismatches(in: sim.world) == [], "seed \(seed)")
  }

  @Test("Dependencies that failed, were cancelled or returned early, and counts of one and many, are written as describe words them")
  func dependencyOutcomes() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads", maxConcurrent: 1)
    let a = try w.createOperation(OperationSpec(name: "a", duration: 1, failsAt: 1), dependencies: [])
    let b = try w.createOperation(OperationSpec(name: "b", duration: 2), dependencies: [])
    let c = try w.createOperation(OperationSpec(name: "c", duration: 1), dependencies: [a])
    let d = try w.createOperation(OperationSpec(name: "d", duration: 1), dependencies: [a, b, c])
    let e = try w.createOperation(OperationSpec(name: "e", duration: 1), dependencies: [b])
    for op in [a, b, c, d, e] { try w.enqueue(op, on: q) }
    w.cancel(b)
    _ = w.runUntilIdle()
    let kinds = Set(w.trace.map { "\($0.kind)" })
    #expect(kinds.contains("ready") && kinds.contains("enqueued") && kinds.contains { $0.hasPrefix("dependencyAdded") })
    #expect(Self.mismatches(in: w) == [])
  }

  @Test("Numbers are written as String writes them")
  func decimals() {
    for n in [0, 7, 10, 99, 100, 12_345, -1, -40, Int.max, Int.min] {
      var bytes: [UInt8] = []
      bytes.appendDecimal(n)
      #expect(bytes == Array(String(n).utf8))
    }
  }
}
