import Foundation

/// How many random worlds a seeded sweep tries. `make test` tries a share of each sweep,
/// enough to catch a broken rule in seconds; `make test-long` (which CI runs too) sets
/// `OPLAB_LONG_TESTS=1` and tries them all. The seeds are the same either way: the quick
/// sweep is the first part of the long one, so a failure found by either names a seed
/// both run.
enum Sweep {
  /// Whether the whole of every sweep runs.
  static let isLong = ProcessInfo.processInfo.environment["OPLAB_LONG_TESTS"] == "1"

  /// The seeds `0..<long`, or the first `quick` of them.
  static func seeds(quick: Int, long: Int) -> [UInt64] {
    Array(0..<UInt64(isLong ? long : min(quick, long)))
  }
}
