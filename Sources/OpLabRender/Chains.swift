import OpLabCore

/// Chains and lists of operations, shortened the same way wherever they are printed: a
/// long one shows its first and last few members and says how many are left out between,
/// so a 10,000-long cycle takes one short line, not 10,000 names.
public enum Chains {
  /// Members shown at each end of a shortened chain.
  public static let shownAtEachEnd = 3

  /// Members joined by arrows; past `2 × shownAtEachEnd + 2` members, the middle ones are
  /// counted instead of named: "c1 → c2 → c3 → … 9,994 more … → c9998 → c9999 → c10000".
  /// - Parameters:
  ///   - count: how many members there are.
  ///   - name: the name of the member at an index (only the shown ones are asked for).
  /// - Complexity: O(members shown).
  public static func arrows(count: Int, name: (Int) -> String) -> String {
    let ends = shownAtEachEnd
    guard count > 2 * ends + 2 else { return (0..<count).map(name).joined(separator: " → ") }
    let head = (0..<ends).map(name)
    let tail = (count - ends..<count).map(name)
    return (head + ["… \(grouped(count - 2 * ends)) more …"] + tail).joined(separator: " → ")
  }

  /// A dependency cycle in its order, closed on its first member:
  /// "a → b → c → a", or shortened as ``arrows(count:name:)`` shortens.
  /// - Complexity: O(members shown).
  public static func cycle(_ ops: [OpID], in world: World) -> String {
    guard let first = ops.first else { return "" }
    return arrows(count: ops.count, name: { world.name(ops[$0]) }) + " → " + world.name(first)
  }

  /// Names separated by commas; past `limit` names, the first `limit` and "and N more".
  /// - Complexity: O(limit).
  public static func list(count: Int, limit: Int = 6, name: (Int) -> String) -> String {
    let shown = (0..<Swift.min(count, limit)).map(name).joined(separator: ", ")
    return count > limit ? shown + " and \(grouped(count - limit)) more" : shown
  }

  /// A count with thousands separated by commas: 9994 → "9,994".
  public static func grouped(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out += "," }
      out.append(c)
    }
    return n < 0 ? "-" + out : out
  }
}
