import Foundation
import OpLabCore
import OpLabSwift
import Synchronization
import TestSupport
import Testing

@testable import OpLabShell

/// The exports under Thread Sanitizer (#28): a race-free world's program runs with no report
/// (but those about a Synchronization `Mutex`, whose futex waits TSan does not see on Linux),
/// and a racy one's reports a data race on each variable the lab's `races` names (those are
/// exported as the racy code a learner would write, the others in a `Mutex`). The normal
/// suite runs lesson 13's two taps and one race-free world; `make test-tsan`
/// (OPLAB_TSAN=full) every world of the export sweep besides.
extension DifferentialTests {
  /// Lesson 13's first world: two taps on a concurrent queue, each a read-modify-write of likes.
  static let twoTaps = [
    "var likes = 0", "queue feed", "op tapA on feed does read likes, compute 1, write likes",
    "op tapB on feed does read likes, compute 1, write likes", "run",
  ]

  /// The line numbers (from 1) of `program` where the racy variable `name` is made: a
  /// `RacyInt` under the comment that names the lab's variable.
  /// (Indented as the program's statements are, in its function.)
  static func declarationLines(of name: String, in program: String) -> [Int] {
    let lines = program.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }
    return lines.indices.filter { i in
      guard lines[i].hasPrefix("let "), lines[i].contains("RacyInt(") else { return false }
      let comment = lines[..<i].reversed().prefix { $0.hasPrefix("//") }
      return comment.last?.hasPrefix("// var \(name) = ") == true
    }.map { $0 + 1 }
  }

  /// Thread Sanitizer's reports in a program's output, one text each.
  static func reports(_ output: String) -> [String] {
    output.components(separatedBy: "==================").filter { $0.contains("WARNING: ThreadSanitizer") }
  }

  /// Whether a report is about a variable in a Synchronization `Mutex`: on Linux a Mutex
  /// waits in futex calls that Thread Sanitizer has no interceptor for, so it sees no
  /// order between two `withLock`s (the report's location is the Mutex itself).
  static func isAboutAMutex(_ report: String) -> Bool {
    report.split(separator: "\n").contains { $0.contains("Location is") && $0.contains("Synchronization5Mutex") }
  }

  @Test(
    "Under Thread Sanitizer a race-free world's export runs with no report, and a racy world's reports a data race on each variable the lab's races names, at its declaration"
  )
  func threadSanitizer() throws {
    let full = ProcessInfo.processInfo.environment["OPLAB_TSAN"] == "full"
    let racy = Interpreter()
    for line in Self.twoTaps { _ = racy.execute(line) }
    var worlds = [SweptWorld(name: "lesson 13's two taps", lab: racy, deterministic: false)]
    worlds += try Self.sweptWorlds(full: full).filter { full || $0.name == "pipeline.oplab" }
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    var programs: [String] = []
    for (i, world) in worlds.enumerated() {
      let program = SwiftCode.export(world.lab.swiftSource(), tickSeconds: 0.05)
      programs.append(program)
      let folder = dir.appendingPathComponent("w\(i)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try program.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    }
    let builds = Mutex([Int: (status: Int32, said: String)]())
    DispatchQueue.concurrentPerform(iterations: worlds.count) { i in
      let folder = dir.appendingPathComponent("w\(i)")
      let built = (try? Swiftc.plain(["-g", "-sanitize=thread", "main.swift", "-o", "world"], in: folder)) ?? (-1, "no swiftc")
      builds.withLock { $0[i] = built }
    }
    let built = builds.withLock { $0 }
    var racyWorlds = 0
    for (i, world) in worlds.enumerated() {
      let b = try #require(built[i])
      #expect(b.status == 0, "\(world.name): \(b.said)")
      guard b.status == 0 else { continue }
      let lab = world.lab.world
      let names = Set(lab.raceReport().races.compactMap { lab.shared?.variableNames[Int($0.variable)] })
      let output = try Programs.run(
        "/usr/bin/env", ["TSAN_OPTIONS=halt_on_error=0", dir.appendingPathComponent("w\(i)/world").path]
      ).output
      let script = world.lab.script.map(\.text).joined(separator: "; ")
      guard !names.isEmpty else {
        let unexplained = Self.reports(output).filter { !Self.isAboutAMutex($0) }
        #expect(unexplained.isEmpty, "\(world.name) (\(script)): a report in a race-free world\n\(output)")
        continue
      }
      // More work at once than this machine has cores: libdispatch's pool (rule 29) keeps
      // the rest waiting for a thread, often one a racing operation frees (on a 2-core
      // machine random worlds 5 and 29 run their third operation after another has
      // finished, on its thread), so the accesses the lab finds racing may be ordered in
      // this run. Then a report is not owed, but any report is on a variable the lab names.
      let playable = Self.mostAtOnce(lab) <= ProcessInfo.processInfo.activeProcessorCount
      let reported = Self.reports(output).filter { !Self.isAboutAMutex($0) }
      guard playable else {
        let named = names.sorted().compactMap { name in
          Self.declarationLines(of: name, in: programs[i]).first.map { "main.swift:\($0):" }
        }
        for report in reported {
          #expect(
            named.contains { report.contains($0) },
            "\(world.name) (\(script)): a report on another variable than \(names.sorted())\n\(report)")
        }
        continue
      }
      racyWorlds += 1
      #expect(output.contains("WARNING: ThreadSanitizer: data race"), "\(world.name) (\(script)): no report\n\(output)")
      for name in names.sorted() {
        // The racing memory is the variable's box, made at its declaration.
        let lines = Self.declarationLines(of: name, in: programs[i])
        #expect(lines.count == 1, "\(world.name): \(name) declared at \(lines)")
        let at = lines.first.map { "main.swift:\($0):" } ?? "-"
        #expect(
          output.contains("Location is heap block") && output.contains(at),
          "\(world.name) (\(script)): no report on \(name) (declared at \(at))\n\(output)")
      }
    }
    #expect(racyWorlds >= 1)
  }
}
