import OpLabCore
import Testing

@testable import OpLabShell

/// Walks every entry of the command table: what a new command must have to be whole. Its
/// examples parse in a world that has the names they use, build the command's own typed
/// value (never another command's), read the same from their canonical form, and — for a
/// command that changes the world — are journalled, taken back by `undo`, exported to
/// Swift and played by `real` (or named as what `real` cannot play).
@Suite struct CommandTableTests {
  /// A world with every name the examples use. Lines that define a name an example
  /// defines itself are left out for that example (see ``lab(for:)``).
  static let setup = [
    "queue downloads max 2", "queue filters max 1", "queue serial max 1", "queue network", "queue thumbnails",
    "var count", "lock countLock", "dispatch io",
    "op d1 on downloads takes 5", "op d2 on downloads takes 8", "op f2 on filters takes 2 after d2", "op f3 on filters takes 2",
    "op later takes 2 hold", "op a takes 1 hold", "op b blocks 1,2 hold", "op c takes 1 hold",
    "op show on main touches ui hold", "op gated takes 1 gate network",
    "op i1 does read count, compute 1, write count", "op i2 does read count, compute 1, write count",
  ]
  /// Commands whose examples go back in time: their lab has run to t=4 first.
  static let travelling: Set = ["back", "goto"]
  /// Commands whose examples need a world in which no work has started yet (`machine`).
  static let beforeWork: Set = ["machine"]

  struct Example: CustomTestStringConvertible, Sendable {
    var command: String
    var line: String
    var testDescription: String { line }
  }

  /// Every example of every command (an example may show another command in use: `help
  /// lock` shows an `op` that takes the lock).
  static let examples: [Example] = CommandTable.all.flatMap { spec in
    spec.examples.map { line in
      Example(command: CommandTable.spec(named: Lexer.tokens(line).first?.text ?? "")?.name ?? "", line: line)
    }
  }

  /// The names a line defines (`op a,b …`, `var x`, `lock l`): its first argument, when
  /// the command's first pattern is a new name.
  static func definedNames(_ example: Example) -> Set<String> {
    guard let spec = CommandTable.spec(named: example.command), spec.name != "queue",
      case .value(let kind, _) = spec.arguments.first, kind == .newName || kind == .newNames,
      let names = Lexer.tokens(example.line).dropFirst().first?.text
    else { return [] }
    return Set(names.split(separator: ",").map(String.init))
  }

  /// A lab with the setup, less what the example defines itself.
  static func lab(for example: Example) -> Interpreter {
    let lab = Interpreter()
    let defined = definedNames(example)
    for line in setup {
      // A line that defines or uses a name the example defines is left out.
      let words = Set(Lexer.tokens(line).flatMap { $0.text.split(separator: ",").map(String.init) })
      if !words.isDisjoint(with: defined) { continue }
      if line.hasPrefix("op "), beforeWork.contains(example.command) { continue }
      let reply = lab.execute(line)
      precondition(reply.error == nil, "setup line failed: \(line)")
    }
    if travelling.contains(example.command) { _ = lab.execute("run until 4") }
    lab.keepsJournal = true
    _ = lab.takeJournal()
    return lab
  }

  @Test("Every command has a summary, details, a usage line and at least one example")
  func everyCommandIsDocumented() {
    for spec in CommandTable.all {
      #expect(!spec.summary.isEmpty, "\(spec.name)")
      #expect(!spec.details.isEmpty, "\(spec.name)")
      #expect(!spec.examples.isEmpty, "\(spec.name) has no example")
      #expect(spec.usage.hasPrefix(spec.name), "\(spec.name)")
    }
    let names = CommandTable.names
    #expect(Set(names).count == names.count, "a name or alias is used twice")
  }

  @Test(
    "Each example parses, builds its own command (never another's), and reads the same from its canonical form",
    arguments: examples)
  func exampleParsesAndRoundTrips(_ example: Example) throws {
    let lab = Self.lab(for: example)
    let command = try #require(try Parser.parse(example.line, context: lab.context))
    let name = Lexer.tokens(example.line).first?.text ?? ""
    #expect(!example.command.isEmpty, "\(name) is not a command")
    if example.command != "quit" { #expect(command != .quit) }
    let canonical = Lexer.canonical(example.line)
    #expect(try Parser.parse(canonical, context: lab.context) == command, "canonical form: \(canonical)")
    #expect(Lexer.canonical(canonical) == canonical, "the canonical form is a fixed point")
  }

  @Test(
    "A world-changing example is journalled as it is saved, taken back whole by undo, exported to Swift and played by real",
    arguments: examples.filter { example in
      let lab = CommandTableTests.lab(for: example)
      return (try? Parser.parse(example.line, context: lab.context))??.traits.changesWorld == true
    })
  func worldChangingExampleIsWhole(_ example: Example) throws {
    let lab = Self.lab(for: example)
    let before = (
      events: lab.execute("events").output, status: lab.execute("status").output, script: lab.script.count
    )
    let reply = lab.execute(example.line)
    try #require(reply.error == nil, "\(reply.error.map { "\($0)" } ?? "")")
    // Journalled: what `save` keeps, and what the crash journal keeps.
    #expect(lab.script.count > before.script, "not saved")
    let journal = lab.takeJournal()
    #expect(!journal.isEmpty, "not journalled")
    #expect(journal == lab.script.elements(from: before.script).map(\.text))
    // Undoable: `undo` takes it back whole.
    #expect(lab.execute("undo").error == nil)
    #expect(lab.execute("events").output == before.events)
    #expect(lab.execute("status").output == before.status)
    #expect(lab.script.count == before.script)
    // Exported: with a later command after it (a program shows the time a run took only
    // before what comes next), the Swift program differs from the one without it.
    let probe = "op probe takes 1"
    let with = Self.lab(for: example), without = Self.lab(for: example)
    for line in [example.line, probe] { #expect(with.execute(line).error == nil) }
    #expect(without.execute(probe).error == nil)
    #expect(with.execute("swift").output != without.execute("swift").output, "the Swift export has no code for it")
    // Played by `real`, or named as what it cannot play (the machine's cores, the user, the display).
    let played = RealComparison.script(with.swiftSource()), plain = RealComparison.script(without.swiftSource())
    let named = played.unplayed.contains { $0.contains(journal[0]) }
    // `platform` naming this machine's own has nothing to play: the real queue is that platform.
    let hostsOwn = try Parser.parse(example.line, context: Self.lab(for: example).context) == .platform(RealComparison.hostPlatform)
    #expect(played.script != plain.script || named || hostsOwn, "`real` neither plays it nor says it cannot")
  }

  @Test(
    "An example that only looks changes nothing: no saved line, no journal line, the same events",
    arguments: examples.filter { example in
      // `real` runs Foundation's queues (the differential tests' job) and `export` writes a file.
      guard example.command != "real", example.command != "export" else { return false }
      let lab = CommandTableTests.lab(for: example)
      return (try? Parser.parse(example.line, context: lab.context))??.traits.onlyLooks == true
    })
  func lookingExampleChangesNothing(_ example: Example) throws {
    let lab = Self.lab(for: example)
    let events = lab.execute("events").output, script = lab.script.count
    let reply = lab.execute(example.line)
    try #require(reply.error == nil, "\(reply.error.map { "\($0)" } ?? "")")
    #expect(lab.script.count == script)
    #expect(lab.takeJournal().isEmpty)
    #expect(lab.execute("events").output == events)
  }
}
