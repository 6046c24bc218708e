import Foundation
import OpLabCore
import Testing

@testable import OpLabShell

/// Every input the fuzzers ever broke the lab with (`Fuzz/crashes/`), replayed with the
/// same checks the interpreter fuzz target makes: the state invariants hold after every
/// line, and replaying the session's saved script rebuilds exactly the same world.
@Suite struct FuzzRegressionTests {
  static var crashes: [String] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".oplab") }.sorted().map { folder.appendingPathComponent($0).path }
  }

  @Test("A fuzzer finding stays fixed", arguments: crashes)
  func replay(_ path: String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let interpreter = Interpreter()
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      _ = interpreter.execute(String(line))
      #expect(interpreter.world.invariantViolations() == [], "after \(line)")
    }
    let replay = Interpreter()
    for entry in interpreter.script { _ = replay.execute(entry.text) }
    #expect(replay.world.trace == interpreter.world.trace)
  }

  @Test("The findings so far: a Linux strand survives a switch to Darwin; undo forgets a declared queue")
  func specifics() {
    let i = Interpreter()
    for line in ["queue w", "op x on w takes 1 hold", "undo", "op x takes 1 hold", "add x"] { _ = i.execute(line) }
    let x = i.world.operationID(named: "x")
    #expect(x.flatMap { i.world.operation($0).queue } == i.world.queueID(named: "queue"))
  }
}
