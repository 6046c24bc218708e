import Testing

@testable import OpLabCore

/// The name index: lookups through growth, tags that differ, and names that are equal as
/// Swift strings though spelled with other scalars.
@Suite struct NameIndexTests {
  @Test("Every name is found after the table grew many times, and absent names are not")
  func throughGrowth() throws {
    var w = World()
    let ids = try (0..<5_000).map { try w.createOperation(OperationSpec(name: "n\($0)")) }
    for (i, id) in ids.enumerated() { #expect(w.operationID(named: "n\(i)") == id) }
    for missing in ["n5000", "n-1", "N1", "n01", ""] { #expect(w.operationID(named: missing) == nil) }
  }

  @Test("Canonically equivalent spellings are one name: found by either, and refused as duplicates")
  func canonicalEquivalence() throws {
    var w = World()
    let kelvin = try w.createOperation(OperationSpec(name: "Kelvin"))
    let cafe = try w.createOperation(OperationSpec(name: "caf\u{E9}"))
    #expect(w.operationID(named: "\u{212A}elvin") == kelvin)  // KELVIN SIGN is K
    #expect(w.operationID(named: "cafe\u{301}") == cafe)  // e + COMBINING ACUTE ACCENT
    #expect(throws: SimulationError.duplicateName("\u{212A}elvin")) { try w.createOperation(OperationSpec(name: "\u{212A}elvin")) }
    #expect(throws: SimulationError.duplicateName("cafe\u{301}")) { try w.createOperation(OperationSpec(name: "cafe\u{301}")) }
    #expect(w.operations.count == 2)
  }

  @Test("Numbered names share blocks of slots, and runs of filled slots stay short whatever the names")
  func numberedNamesProbeShort() throws {
    // Neighbours in blocks of eight: op0...op7 differ only in the low three bits of their hash.
    // (The top seven bits are the tag's, from the whole name.)
    let slotBits = (1 << 57) - 1
    let block = (0..<8).map { NameIndex.hash("op\($0)") & slotBits }
    #expect(Set(block.map { $0 & ~7 }).count == 1)
    #expect(Set(block.map { $0 & 7 }).count == 8)
    #expect(NameIndex.hash("op8") & slotBits & ~7 != block[0] & ~7)
    #expect(NameIndex.hash("op07") != NameIndex.hash("op7"))  // a leading zero is another name, hashed whole
    // Many stems, in order and shuffled, with plain names between: every name is found,
    // and no lookup reads a long run of tags.
    var w = World()
    var rng = SplitMix64(seed: 7)
    var names: [String] = []
    for stem in ["op", "download-", "x", "img", "a1b"] { names += (0..<20_000).map { "\(stem)\($0)" } }
    names += (0..<20_000).map { _ in "n\(UInt64.random(in: 0...UInt64(1) << 40, using: &rng))" }
    names += (0..<11_000).map { "p\($0)q" }  // not ending in a number: hashed whole
    // 131,000 names: the table (262,144 slots) is as full as it gets, just under half.
    names.shuffle(using: &rng)
    var ids: [String: OpID] = [:]
    for name in names where ids[name] == nil { ids[name] = try w.createOperation(OperationSpec(name: name)) }
    for (name, id) in ids { #expect(w.operationID(named: name) == id) }
    // Blocks of eight lengthen runs (222 here; hashing each name whole gives 40), but
    // a block scheme gone wrong (a stem's numbers in one place) makes runs of thousands.
    #expect(w.opNames.longestRun < 400, "longest run \(w.opNames.longestRun)")
  }

  @Test("The ASCII spelling and the Kelvin sign are one name whichever is filed first")
  func kelvinFiledFirst() throws {
    var w = World()
    let k = try w.createOperation(OperationSpec(name: "op\u{212A}2"))
    #expect(w.operationID(named: "opK2") == k)
    #expect(throws: SimulationError.duplicateName("opK2")) { try w.createOperation(OperationSpec(name: "opK2")) }
    #expect(NameIndex.hash("opK2") == NameIndex.hash("op\u{212A}2"))
    #expect(NameIndex.hash("caf\u{E9}") == NameIndex.hash("cafe\u{301}"))
    #expect(NameIndex.hash("opK2") != NameIndex.hash("opk2"))
  }

  /// The index hashes ASCII names from their bytes, and a non-ASCII name as its ASCII
  /// spelling when its other scalars are in `NameIndex.asciiEquivalent`: that is right only
  /// if no other scalar equals an ASCII character as Swift compares strings. Canonical
  /// decompositions to two or more characters always include a combining mark (never
  /// ASCII), so single scalars are all there is to check.
  @Test("asciiEquivalent lists every scalar that Swift treats as equal to an ASCII character")
  func asciiEquivalentsAreComplete() {
    var asciiByHash: [Int: String] = [:]
    for a in UInt8(0)..<0x80 { asciiByHash[String(Unicode.Scalar(a)).hashValue] = String(Unicode.Scalar(a)) }
    var found: [Unicode.Scalar: UInt8] = [:]
    for value in UInt32(0x80)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let text = String(scalar)
      // Equal strings hash alike, so only a hash hit needs comparing.
      if let ascii = asciiByHash[text.hashValue], ascii == text { found[scalar] = ascii.utf8.first }
    }
    #expect(found == NameIndex.asciiEquivalent)
  }

  @Test("A prefetch hint out of range, or on an empty array, is ignored")
  func prefetchOutOfRange() {
    let empty: [Int] = []
    empty.prefetch(0)
    let records = [OperationRecord(spec: OperationSpec(name: "a"))]
    for i in [-1, 0, 1, Int.max, Int.min] { records.prefetch(i) }
    #expect(records.count == 1)
  }

  @Test("Every ASCII character is allowed or refused first and later as the naming rule says")
  func asciiCharacters() {
    for value in UInt8(0)..<0x80 {
      let c = Character(Unicode.Scalar(value))
      let later = c.isLetter || c.isASCII && c.isNumber || "-_.".contains(c)
      let first = c.isLetter || c == "_"
      #expect(World.isValidName("a\(c)") == later, "later: \(value)")
      #expect(World.isValidName("\(c)a") == first, "first: \(value)")
      #expect(World.isValidName("\(c)") == first, "alone: \(value)")
    }
    #expect(!World.isValidName(""))
  }

  @Test("Reserved words are refused in any case, and only whole: a name that merely starts like one is fine")
  func reservedWords() throws {
    for word in ["all", "ALL", "aLl", "default", "DEFAULT", "Default"] { #expect(!World.isValidName(word), "\(word)") }
    // The check packs a name's first eight bytes: every reserved word must fit and be letters.
    for word in World.reservedNames { #expect(word.utf8.count <= 8 && word.allSatisfy { $0.isASCII && $0.isLetter }, "\(word)") }
    #expect(World.reservedWordsPacked.count == World.reservedNames.count)
    for name in ["al", "all1", "alls", "default.", "defaults", "_default", "op1234", "dEfAuLt-x"] {
      #expect(World.isValidName(name), "\(name)")
    }
    // A queue's name is taken for operations too, whichever way the queues are looked up.
    var w = World()
    #expect(throws: SimulationError.duplicateName("main")) { try w.createOperation(OperationSpec(name: "main")) }
    for i in 0..<12 { _ = try w.createQueue(name: "q\(i)") }
    #expect(throws: SimulationError.duplicateName("q3")) { try w.createOperation(OperationSpec(name: "q3")) }
    #expect(throws: SimulationError.duplicateName("main")) { try w.createOperation(OperationSpec(name: "main")) }
    #expect(throws: SimulationError.invalidName("Default")) { try w.createOperation(OperationSpec(name: "Default")) }
    // Few queues are compared by hash, then by name; a queue named with the Kelvin sign takes the ASCII spelling too.
    var few = World()
    _ = try few.createQueue(name: "\u{212A}q")
    #expect(throws: SimulationError.duplicateName("Kq")) { try few.createOperation(OperationSpec(name: "Kq")) }
    #expect(throws: SimulationError.duplicateName("Kq")) { try few.createQueue(name: "Kq") }
    #expect(try few.createOperation(OperationSpec(name: "kq")) == OpID(0))
    #expect(few.invariantViolations().isEmpty)
    #expect(w.invariantViolations().isEmpty)
  }
}
