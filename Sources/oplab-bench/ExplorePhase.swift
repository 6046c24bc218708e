import Foundation
import OpLabCore

/// The `explore` phase (#30): runs and distinct orders a second on lesson-sized worlds and
/// on 10 operations of 9 steps, with the optimal search (what `explore` does), the classic
/// reduction it falls back to, and the brute force both are checked against, and the peak
/// memory each adds.
enum ExplorePhase {
  /// A world of operations of steps on one concurrent queue, with shared variables and locks.
  static func world(_ ops: [[Step]], variables: [String], locks: [String] = [], max: Int? = nil) -> [Action] {
    var actions: [Action] = [.createQueue(name: "q", maxConcurrent: max, qualityOfService: nil)]
    actions += variables.map { .createVariable(name: $0, initial: 0) }
    actions += locks.map { .createLock(name: $0) }
    for (i, steps) in ops.enumerated() {
      actions.append(
        .createOperation(OperationSpec(name: "op\(i)", duration: Tick(steps.count), kind: .steps(steps)), dependencies: [], queue: QueueID(1)))
    }
    return actions + [.runUntilIdle]
  }

  static let increment: [Step] = [.read("likes"), .compute(1), .write("likes")]
  static let locked: [Step] = [.lock("L"), .read("likes"), .compute(1), .write("likes"), .unlock("L")]

  /// The worlds: lesson 13's two taps, three taps, two locked taps, and 10 operations of 9
  /// steps (three read-modify-writes each, on two variables).
  static let worlds: [(name: String, actions: [Action])] = [
    ("lesson 13: 2 taps", world([increment, increment], variables: ["likes"])),
    ("3 taps", world([increment, increment, increment], variables: ["likes"])),
    ("2 locked taps", world([locked, locked], variables: ["likes"], locks: ["L"])),
    (
      "10 ops x 9 steps",
      world(
        (0..<10).map { i in
          let v = i % 2 == 0 ? "x" : "y"
          return (0..<3).flatMap { _ in [Step.read(v), .compute(1), .write(v)] }
        }, variables: ["x", "y"])
    ),
  ]

  /// - Parameter only: words of which a row's world or search name must contain one each of
  ///   those that name a world and those that name a search (none: every row).
  /// - Parameter repeats: explore each world exactly this many times (none: for a quarter of
  ///   a second, at least once).
  static func run(limit: Int, only: [String] = [], repeats fixed: Int? = nil) {
    print("explore (limit \(limit) runs)      search        runs    orders  complete   wall (s)    runs/s  orders/s  peak MB")
    for (name, actions) in worlds {
      for search in [ExploreSearch.optimal, .races, .everyChoice] {
        let label =
          switch search {
          case .optimal: "optimal"
          case .races: "races"
          case .everyChoice: "everyChoice"
          }
        let searchWords = only.filter { w in ["optimal", "races", "everyChoice"].contains { $0.contains(w) } }
        let worldWords = only.filter { !searchWords.contains($0) }
        if !searchWords.isEmpty, !searchWords.contains(where: { label.contains($0) }) { continue }
        if !worldWords.isEmpty, !worldWords.contains(where: { name.contains($0) }) { continue }
        let before = Memory.peakBytes()
        // A small world is explored again until a quarter of a second has passed, and the
        // mean taken: one exploration of it is a few milliseconds, too short for a clock.
        let t0 = DispatchTime.now().uptimeNanoseconds
        var e = World.explore(actions, from: World(), limit: limit, search: search)
        var repeats = 1
        while fixed.map({ repeats < $0 }) ?? (DispatchTime.now().uptimeNanoseconds - t0 < 250_000_000) {
          e = World.explore(actions, from: World(), limit: limit, search: search)
          repeats += 1
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9 / Double(repeats)
        let peak = Double(Memory.peakBytes() - before) / 1e6
        func right(_ s: String, _ n: Int) -> String { String(repeating: " ", count: Swift.max(0, n - s.count)) + s }
        print(
          "  " + name.padding(toLength: 28, withPad: " ", startingAt: 0) + " " + label.padding(toLength: 11, withPad: " ", startingAt: 0)
            + right("\(e.runs)", 9) + right("\(e.orders)", 10) + right(e.complete ? "yes" : "no", 10)
            + right(String(format: "%.3f", seconds), 11) + right(String(format: "%.0f", Double(e.runs) / seconds), 10)
            + right(String(format: "%.0f", Double(e.orders) / seconds), 10) + right(String(format: "%.1f", peak), 9))
      }
    }
  }
}
