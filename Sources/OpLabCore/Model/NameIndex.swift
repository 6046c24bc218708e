/// Operation names to identifiers: an open-addressing table of indices into the world's
/// operations, whose records hold the names themselves.
///
/// A `[String: OpID]` keeps a second copy of every name and, at a million operations,
/// about 40 bytes per operation; this table keeps 5 bytes per slot, at most half full.
/// Next to each slot's index is a one-byte tag, seven bits of its name's hash, so a probe
/// reads the record (a random access into a big array, the costly part of a lookup)
/// only when the tags agree: about one in 128 of the other names it passes.
/// Names compare as Swift strings do (canonically equivalent spellings are one name), and
/// are hashed by ``hash(_:)``, which agrees with that equality.
@usableFromInline struct NameIndex: Sendable {
  /// Operation indices; -1 is an empty slot (whose tag is 0). The count is 0 or a power of two.
  private var slots: [Int32] = []
  /// The tag of the name filed in each slot (see ``tag(_:)``).
  private var tags: [UInt8] = []
  /// Operations `0..<count` are filed: they are filed in creation order.
  private(set) var count = 0

  /// Seven bits of a hash that the slot position does not use (the top ones), with the
  /// eighth set so that no tag is 0.
  private static func tag(_ hash: Int) -> UInt8 { UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) | 0x80 }

  /// The hash a name is filed under. Equal names hash alike, as Swift compares strings:
  /// canonically equivalent spellings are one name.
  ///
  /// An ASCII name (nearly every name) is hashed from its bytes: FNV-1a and a 64-bit
  /// finalizer, a few instructions a byte where `String.hashValue` (SipHash, after a
  /// normalization check) took about 250 for a short name. A non-ASCII name equals an
  /// ASCII one only when its other scalars are the three canonical singletons for ASCII
  /// characters (U+037E `;`, U+1FEF `` ` ``, U+212A `K`; the tests check every scalar):
  /// such a name is hashed as its ASCII spelling, any other as `String.hashValue` (a
  /// per-process seed, which no lookup depends on).
  static func hash(_ name: String) -> Int {
    if let hash = withUTF8(of: name, fnvIfASCII) { return hash }
    var folded: [UInt8] = []
    for scalar in name.unicodeScalars {
      if scalar.isASCII {
        folded.append(UInt8(scalar.value))
      } else if let ascii = asciiEquivalent[scalar] {
        folded.append(ascii)
      } else {
        return name.hashValue
      }
    }
    return folded.withUnsafeBufferPointer { fnvIfASCII($0) } ?? name.hashValue
  }

  /// Calls `body` with the name's UTF-8: the view's contiguous storage, which a native
  /// string (small ones included) has, else a contiguous copy. About 50 instructions less
  /// than `withUTF8` on a copy of the string, for a short name.
  @inline(__always) static func withUTF8<R>(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = name.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = name
    return copy.withUTF8(body)
  }

  /// The non-ASCII scalars canonically equivalent to an ASCII character.
  static let asciiEquivalent: [Unicode.Scalar: UInt8] = ["\u{037E}": UInt8(ascii: ";"), "\u{1FEF}": UInt8(ascii: "`"), "\u{212A}": UInt8(ascii: "K")]

  /// The hash of an ASCII name; `nil` if any byte is not ASCII (one pass for both).
  ///
  /// FNV-1a of the bytes, finalized. A name that ends in a decimal number (`op17`,
  /// `download-3`: how scripts name generated work) keeps those bits only for its tag:
  /// its slot comes from its stem and its number, so that the names of one stem numbered
  /// 8k to 8k+7 take eight neighbouring slots. A world built in order then reads the
  /// index a cache line at a time where it had a cache miss a name (at a million names
  /// the index is far bigger than the cache). Probe runs stay short, as the table is at
  /// most half full; the tags still tell the eight apart.
  static func fnvIfASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    // Where the digits at the end begin.
    var stemEnd = bytes.count
    while stemEnd > 0, bytes[stemEnd - 1] &- UInt8(ascii: "0") < 10 { stemEnd -= 1 }
    // FNV over the stem, then on over the digits, which also make the number.
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    var any: UInt8 = 0
    for b in bytes[..<stemEnd] {
      any |= b
      h = (h ^ UInt64(b)) &* 0x100_0000_01b3
    }
    let stem = h
    var number: UInt64 = 0
    for b in bytes[stemEnd...] {
      h = (h ^ UInt64(b)) &* 0x100_0000_01b3
      number = number &* 10 &+ UInt64(b &- UInt8(ascii: "0"))
    }
    guard any < 0x80 else { return nil }
    let full = finalize(h)
    // A number of up to 18 digits, written without a leading zero (`op07` is not `op7`'s neighbour).
    let digits = bytes.count - stemEnd
    guard digits > 0, digits <= 18, digits == 1 || bytes[stemEnd] != UInt8(ascii: "0") else { return Int(truncatingIfNeeded: full) }
    let block = finalize(stem ^ (number >> 3) &* 0x9e37_79b9_7f4a_7c15) & ~7
    let tagBits: UInt64 = 0x7F << 57
    return Int(truncatingIfNeeded: full & tagBits | block & ~tagBits | number & 7)
  }

  /// The finalizer of MurmurHash3: FNV's top bits mix poorly, and the tags are made of them.
  private static func finalize(_ value: UInt64) -> UInt64 {
    var h = value
    h ^= h >> 33
    h &*= 0xff51_afd7_ed55_8ccd
    h ^= h >> 33
    h &*= 0xc4ce_b9fe_1a85_ec53
    h ^= h >> 33
    return h
  }

  /// Starts loading the tag and the index a name with this hash is first looked for in
  /// (see ``Swift/Array/prefetch(_:)``): a world filing a new operation asks for them
  /// before checking the rest of it.
  func prefetch(hash: Int) {
    guard !slots.isEmpty else { return }
    tags.prefetch(hash & (slots.count - 1))
    slots.prefetch(hash & (slots.count - 1))
  }

  /// The operation named `name`, if any. It only reads, and says so: a caller that holds
  /// the world in a class or behind an accessor (the shell, through the inlined
  /// ``World/operationID(named:)``) may then lend the index and the records to it rather
  /// than copy the whole `World` value for the call (#34). `readonly` holds as Swift's
  /// underscored-attributes reference states it: every argument is borrowed (none is
  /// released), nothing outside is written (a non-ASCII name's hash writes an array of its
  /// own), so a call whose result is unused may be dropped. Keep it so if this changes.
  @_effects(readonly) @usableFromInline func find(_ name: String, in operations: [OperationRecord]) -> OpID? {
    find(name, hash: Self.hash(name), in: operations)
  }

  /// The operation named `name`, whose ``hash(_:)`` is `hash`, if any.
  func find(_ name: String, hash: Int, in operations: [OperationRecord]) -> OpID? {
    guard !slots.isEmpty else { return nil }
    let tag = Self.tag(hash)
    let mask = slots.count - 1
    var i = hash & mask
    // The probe walks the tags alone (an empty slot's tag is 0): at a million operations
    // they are 2 MB, which stays in cache, where the indices are 8 MB, which does not.
    // Filing a new name (the common lookup) then reads no index at all.
    while tags[i] != 0 {
      if tags[i] == tag, operations[Int(slots[i])].spec.name == name { return OpID(Int(slots[i])) }
      i = (i + 1) & mask
    }
    return nil
  }

  /// Files `id`, the next operation (its index is ``count``), whose record in `operations`
  /// is named `name`, whose ``hash(_:)`` is `hash`.
  mutating func insert(_ id: OpID, named name: String, hash: Int, in operations: [OperationRecord]) {
    precondition(Int(id.index) == count, "operations are filed in creation order")
    if (count + 1) * 2 > slots.count { rehash(size: Swift.max(16, slots.count * 2), in: operations) }
    place(id.index, hash: hash)
    count += 1
  }

  /// The longest run of filled slots: the most tags a lookup can read. For the tests.
  var longestRun: Int {
    var longest = 0, run = 0
    // Twice round, so a run that wraps from the end to the start is counted whole.
    for i in 0..<(tags.count * 2) {
      run = tags[i % tags.count] == 0 ? 0 : run + 1
      longest = Swift.max(longest, Swift.min(run, tags.count))
    }
    return longest
  }

  /// Grows the table now so that `total` operations fit without a rehash.
  mutating func reserveCapacity(_ total: Int, in operations: [OperationRecord]) {
    var size = Swift.max(16, slots.count)
    while (total + 1) * 2 > size { size *= 2 }
    guard size > slots.count else { return }
    rehash(size: size, in: operations)
  }

  private mutating func rehash(size: Int, in operations: [OperationRecord]) {
    // Refiled in creation order, which reads the records front to back rather than
    // jumping about them in the order of the old slots.
    slots = [Int32](repeating: -1, count: size)
    tags = [UInt8](repeating: 0, count: size)
    for index in 0..<count { place(Int32(index), hash: Self.hash(operations[index].spec.name)) }
  }

  private mutating func place(_ index: Int32, hash: Int) {
    let mask = slots.count - 1
    var i = hash & mask
    while tags[i] != 0 { i = (i + 1) & mask }
    slots[i] = index
    tags[i] = Self.tag(hash)
  }
}
