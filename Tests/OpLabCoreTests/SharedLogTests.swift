import Testing

@testable import OpLabCore

/// ``SharedLog`` behaves as an `Array` of the same appends and truncations, and its copies
/// share their common blocks.
@Suite struct SharedLogTests {
  @Test("Random appends, pops, truncations and copies read back exactly as arrays do", arguments: 0..<50)
  func matchesArray(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    var logs = [SharedLog<Int>()]
    var arrays = [[Int]()]
    for step in 0..<600 {
      let k = Int.random(in: 0..<logs.count, using: &rng)
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<70: logs[k].append(step); arrays[k].append(step)
      case 70..<78: #expect(logs[k].popLast() == arrays[k].popLast())
      case 78..<86:
        let n = Int.random(in: -1...(arrays[k].count + 1), using: &rng)
        logs[k].truncate(to: n)
        arrays[k].removeSubrange(Swift.min(arrays[k].count, Swift.max(0, n))...)
      default: logs.append(logs[k]); arrays.append(arrays[k])
      }
    }
    for (log, array) in zip(logs, arrays) {
      #expect(Array(log) == array, "seed \(seed)")
      #expect(log.count == array.count && log.last == array.last && log.isEmpty == array.isEmpty)
      for i in array.indices where i % 7 == 0 { #expect(log[i] == array[i]) }
      let a = array.isEmpty ? 0 : Int.random(in: 0...array.count, using: &rng)
      let b = Int.random(in: a...Swift.max(a, array.count), using: &rng)
      #expect(log.elements(from: a, to: b) == Array(array[a..<b]), "seed \(seed)")
    }
  }

  @Test("A thousand copies, each appended to once, store the shared blocks once and their own tails")
  func copiesShareBlocks() {
    var log = SharedLog<Int>()
    var copies: [SharedLog<Int>] = []
    for i in 0..<1_000 {
      copies.append(log)
      log.append(i)
    }
    var seen = Set<ObjectIdentifier>()
    let stored = copies.reduce(log.storedElements(seen: &seen)) { $0 + $1.storedElements(seen: &seen) }
    #expect(stored <= 1_000 + 1_001 * SharedLog<Int>.blockSize)
    #expect(Array(copies[500]) == Array(0..<500))
  }
}
