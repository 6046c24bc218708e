import Foundation
import OpLabCore
import OpLabRender
import Testing
import TestSupport

@testable import OpLabShell

/// What a learner meets in the first hour (#32): views whose counts add up, marks that say
/// what a dependent saw, and words that read.
@Suite struct FirstHourTests {
  func run(_ lines: [String], _ interpreter: Interpreter = Interpreter()) -> String {
    lines.map { interpreter.execute($0).output }.joined()
  }

  @Test("The possessive of a name ending in s is an apostrophe alone: downloads' threads")
  func possessive() {
    #expect(World.possessive("downloads") == "downloads'")
    #expect(World.possessive("d1") == "d1's")
    let out = run(["queue downloads", "op d on downloads takes 3", "status"])
    #expect(unwrapped(Wrap.text(out, width: 80, ascii: false)).contains("runs on one of downloads' threads, not the main thread"), "\(out)")
  }

  @Test("The lab says forever, never for ever")
  func forever() throws {
    let out = run(["lock L1", "lock L2", "op a does lock L1, lock L2, unlock L2, unlock L1", "op b does lock L2, lock L1, unlock L1, unlock L2", "run", "why a"])
    #expect(unwrapped(out).contains("each waits for the next forever"), "\(out)")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-self-\(UUID().uuidString).oplab")
    defer { try? FileManager.default.removeItem(at: file) }
    try "source \(file.path)\n".write(to: file, atomically: true, encoding: .utf8)
    let error = Interpreter().execute("source \(file.path)").error
    #expect(error?.hint?.hasSuffix("or the scripts would run forever") == true, "\(String(describing: error))")
  }
}
