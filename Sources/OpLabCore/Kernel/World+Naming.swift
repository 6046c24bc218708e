/// Names: what may name an operation or a queue.
extension World {
  /// Throws unless `name` can name a new operation.
  /// - Parameter hash: the name's ``NameIndex/hash(_:)``, when the caller has it already.
  @inline(__always) func checkNewName(_ name: String, hash: Int? = nil) throws(SimulationError) {
    guard Self.isValidName(name) else { throw .invalidName(name) }
    let hash = hash ?? NameIndex.hash(name)
    if opNames.find(name, hash: hash, in: operations) != nil || isQueueName(name, hash: hash) || shared?.hasName(name) == true
      || (!dispatchQueues.isEmpty && dispatchQueueIndex(named: name) != nil)
    {
      throw .duplicateName(name)
    }
  }

  /// Whether a queue has this name, whose ``NameIndex/hash(_:)`` is `hash`: a look along
  /// the few queues a world usually has, comparing names only where the hashes agree, else
  /// the table (which hashes the name again).
  func isQueueName(_ name: String, hash: Int) -> Bool {
    guard queues.count <= 8 else { return queueNames[name] != nil }
    for (i, queueHash) in queueNameHashes.enumerated() where queueHash == hash && queues[i].name == name { return true }
    return false
  }

  /// Whether a name is an identifier: letters, digits, `-`, `_` and `.`, starting with a
  /// letter or `_` (so a name never reads as a number), and not a reserved word.
  public static func isValidName(_ name: String) -> Bool {
    // Most names are ASCII: check those byte by byte, without Unicode property tables.
    if let ascii = asciiNameVerdict(name) { return ascii }
    // A letter, not a combining mark (some marks count as alphabetic): a mark has no base to sit on.
    guard let first = name.unicodeScalars.first,
      first.properties.isAlphabetic && !Self.markCategories.contains(first.properties.generalCategory) || first == "_",
      !reservedNames.contains(name.lowercased())
    else { return false }
    return name.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        || $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark
    }
  }

  /// The verdict for a name of ASCII letters, digits, `-`, `_` and `.`; `nil` when it has
  /// other characters, which the Unicode rules decide.
  private static func asciiNameVerdict(_ name: String) -> Bool? {
    // Over the contiguous UTF-8 (a small string's is inline): a few instructions a byte,
    // where the UTF-8 view's iterator took about 100 (a million names in a benchmark).
    return NameIndex.withUTF8(of: name) { bytes -> Bool? in
      guard !bytes.isEmpty else { return false }
      // One bit per ASCII byte that may appear in a name (`-`, `.`, digits; letters, `_`).
      let allowedBelow64: UInt64 = 1 << 45 | 1 << 46 | 0x3FF << 48
      let allowedFrom64: UInt64 = 0x07FF_FFFE_87FF_FFFE
      // The first eight bytes with bit 5 set (lowercase for letters), packed, for the
      // reserved words.
      var packed: UInt64 = 0
      for (i, b) in bytes.enumerated() {
        let allowed = b < 64 ? (allowedBelow64 >> b) & 1 != 0 : b < 128 && (allowedFrom64 >> (b & 63)) & 1 != 0
        guard allowed else { return b < 0x80 ? false : nil }
        if i < 8 { packed |= UInt64(b | 0x20) << (8 * i) }
      }
      // The first is a letter or `_` (64 and up), never a digit or `-` or `.`.
      guard bytes[0] >= 64 else { return false }
      // Not a reserved word, in any case: one comparison of packed bytes a word.
      return bytes.count > 8 || !Self.reservedWordsPacked.contains { $0 == (bytes.count, packed) }
    }
  }

  /// Each reserved word's length and its bytes packed as `asciiNameVerdict` packs a name's
  /// (every reserved word is ASCII letters, at most eight: the tests check).
  static let reservedWordsPacked: [(Int, UInt64)] = reservedNames.map { word in
    (word.utf8.count, word.utf8.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element | 0x20) << (8 * $1.offset) })
  }

  private static let markCategories: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]

  /// Words the command language gives a meaning where a name could stand (`cancel all`, `max q default`).
  public static let reservedNames: Set<String> = ["all", "default"]
}
