/// Events that happen at the same tick. Their order inside the group is not compared:
/// the real queue does not guarantee it (spec rules 4, 25, 36).
struct TickGroup: Equatable, CustomStringConvertible {
  /// The tick.
  var tick: Int
  /// What happened at it.
  var labels: Set<String>

  init(tick: Int, labels: Set<String>) {
    self.tick = tick
    self.labels = labels
  }

  /// A group written out: `TickGroup(2, "finish A", "start B")`.
  init(_ tick: Int, _ labels: String...) { self.init(tick: tick, labels: Set(labels)) }

  var description: String { "t=\(tick) {\(labels.sorted().joined(separator: ", "))}" }
}

extension Array where Element == TickGroup {
  /// One group a line, for failure messages.
  var rendered: String { map { "  \($0)" }.joined(separator: "\n") }
}
