import Foundation
import Testing

@testable import OpLabShell

/// `docs/commands.md` is the command table's own reference (#32): it cannot drift.
@Suite struct CommandReferenceTests {
  static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("docs/commands.md")

  @Test("docs/commands.md is what the command table makes of it (rewrite it with `swift run oplab --generate-command-reference > docs/commands.md`)")
  func current() throws {
    let written = try String(contentsOf: Self.file, encoding: .utf8)
    #expect(
      written == CommandReference.markdown(), "docs/commands.md is out of date: swift run oplab --generate-command-reference > docs/commands.md")
  }

  @Test("Every command has its own section, with its usage, summary and examples")
  func everyCommand() {
    let page = CommandReference.markdown()
    for spec in CommandTable.all {
      #expect(page.contains("\n## \(spec.name)\n\n```\n\(spec.usage)\n```\n"), "\(spec.name)")
      for example in spec.examples { #expect(page.contains("\n\(example)\n"), "\(spec.name): \(example)") }
    }
  }
}
