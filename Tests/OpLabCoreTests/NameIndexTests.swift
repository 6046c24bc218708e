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

  @Test("Reserved words are refused in any case, and only whole: a name that merely starts like one is fine")
  func reservedWords() throws {
    for word in ["all", "ALL", "aLl", "default", "DEFAULT", "Default"] { #expect(!World.isValidName(word), "\(word)") }
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
  }
}
