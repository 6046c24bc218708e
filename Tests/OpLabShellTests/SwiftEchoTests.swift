import Foundation
import OpLabCore
import OpLabSwift
import Testing

@testable import OpLabShell

/// `set swift-echo on` lowers each new line alone, from the journal's new entries (#28).
@Suite struct SwiftEchoTests {
  /// Every line of both fixtures, with undo, redo, time travel and forks among them.
  static func session() throws -> [String] {
    var lines: [String] = []
    for (i, fixture) in [SwiftCodeTests.fixture, SwiftCodeTests.stepsFixture].enumerated() {
      lines += try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n").map(String.init)
        .filter { !$0.hasPrefix("#") && !$0.isEmpty }
      lines += ["undo", "redo", "back 1", "redo", "fork", "op forked\(i) takes 1", "unfork", "op after-fork\(i) takes 2"]
    }
    return lines
  }

  @Test(
    "Each echo, lowered from the line's own journal entries, is the echo of the whole script lowered again, through undo, redo, back, fork and unfork; the whole script is lowered only when history changed otherwise than by a new line"
  )
  func incrementalEchoIsTheWholeEcho() throws {
    var options = ShellOptions()
    options.width = 1_000
    options.swiftEcho = true
    let lab = Interpreter(options: options)
    var echoed = 0
    var rebuiltAfter: [String] = []
    var lowerings = 0
    var previous: String?
    let history = ["undo", "redo", "back 1", "fork", "unfork"]
    for line in try Self.session() {
      let before = lab.script.count
      let reply = lab.execute(line)
      #expect(reply.error == nil, "\(line): \(reply.error?.message ?? "")")
      let whole = SwiftCode.echo(lab.swiftSource())
      let changed = lab.swiftEcho?.wholeLowerings ?? 0
      if changed != lowerings, let previous { rebuiltAfter.append(previous) }
      lowerings = changed
      previous = line
      guard !history.contains(line), lab.script.count > before, !whole.isEmpty else { continue }
      echoed += 1
      #expect(reply.output.hasSuffix(whole), "\(line):\n\(reply.output)\nwanted the echo\n\(whole)")
    }
    #expect(echoed > 60)
    // Lowered whole the first time, then only after lines that took back, travelled or branched.
    #expect(rebuiltAfter.allSatisfy(history.contains), "\(rebuiltAfter)")
    #expect(lowerings <= 1 + 2 * 5)
  }
}
