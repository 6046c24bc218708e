/// Operation names to identifiers: an open-addressing table of indices into the world's
/// operations, whose records hold the names themselves.
///
/// A `[String: OpID]` keeps a second copy of every name and, at a million operations,
/// about 40 bytes per operation; this table keeps 4 bytes per slot at most half full.
/// Names compare as Swift strings do (canonically equivalent spellings are one name),
/// with `String.hashValue`; lookups do not depend on its per-process seed.
struct NameIndex: Sendable {
  /// Operation indices; -1 is an empty slot. The count is 0 or a power of two.
  private var slots: [Int32] = []
  private(set) var count = 0

  /// The operation named `name`, if any.
  func find(_ name: String, in operations: [OperationRecord]) -> OpID? {
    guard !slots.isEmpty else { return nil }
    let mask = slots.count - 1
    var i = name.hashValue & mask
    while slots[i] >= 0 {
      if operations[Int(slots[i])].spec.name == name { return OpID(Int(slots[i])) }
      i = (i + 1) & mask
    }
    return nil
  }

  /// Files `id`, whose record in `operations` is named `name` (not yet filed).
  mutating func insert(_ id: OpID, named name: String, in operations: [OperationRecord]) {
    if (count + 1) * 2 > slots.count {
      let old = slots
      slots = [Int32](repeating: -1, count: Swift.max(16, slots.count * 2))
      for index in old where index >= 0 { place(index, hash: operations[Int(index)].spec.name.hashValue) }
    }
    place(id.index, hash: name.hashValue)
    count += 1
  }

  private mutating func place(_ index: Int32, hash: Int) {
    let mask = slots.count - 1
    var i = hash & mask
    while slots[i] >= 0 { i = (i + 1) & mask }
    slots[i] = index
  }
}
