import Foundation
import OpLabCore
import OpLabSwift
import Testing

@testable import OpLabShell

/// `swift` shows exactly the program `export swift` writes (#28): one form of it, the one that
/// runs. No swiftc here: the text alone, for every world the export sweep knows.
extension DifferentialTests {
  /// `code`'s lines, and each one without the two columns of `program()`'s indent: what a
  /// line of `swift NAME` may be.
  static func linesOf(_ code: String) -> Set<String> {
    let lines = code.split(separator: "\n")
    return Set((lines + lines.filter { $0.hasPrefix("  ") }.map { $0.dropFirst(2) }).map(String.init))
  }

  @Test(
    "For every example, every lesson world and 30 seeded random worlds, `swift` is the export's main.swift byte for byte and the one-file export's text before its harness; each line of `swift NAME` and of each command's echo is a line of it"
  )
  func swiftViewIsTheExportedProgram() throws {
    let worlds = try Self.sweptWorlds(full: true)
    #expect(worlds.count >= 50)
    var names = 0
    var echoes = 0
    for world in worlds {
      let lab = world.lab
      let source = lab.swiftSource()
      let view = lab.execute("swift").output
      #expect(view.hasPrefix(SwiftCode.exportedMark + "\n"), "\(world.name)")
      #expect(view == SwiftCode.exportPackage(source, name: "world").program, "\(world.name)")
      #expect(SwiftCode.export(source).hasPrefix(view + "\n" + SwiftCode.harnessMarker + "\n"), "\(world.name)")
      let lines = Self.linesOf(view)
      for name in Set(source.entries.compactMap(\.subject)) {
        names += 1
        for line in lab.execute("swift \(name)").output.split(separator: "\n") {
          #expect(lines.contains(String(line)), "\(world.name): swift \(name): \(line)")
        }
      }
      // An echo's line is one of main.swift's, or one too wide for the echo's indent laid
      // out again within 80 columns.
      let room = SwiftCode.columns + 4 - SwiftCode.echoIndent.count
      let echoable = lines.union(lines.filter { $0.count > room }.flatMap { SwiftCode.fit([$0], width: room) })
      // An echo is made as its line is typed, before the lab has seen a race the world's
      // later steps make; a racy variable's program is a RacyInt, its echo a Mutex.
      guard lab.world.raceReport().races.isEmpty else { continue }
      for k in source.entries.indices {
        let echo = SwiftCode.echo(SwiftSource(entries: Array(source.entries[...k]), world: source.world))
        for line in echo.split(separator: "\n") {
          echoes += 1
          let code = line.dropFirst(SwiftCode.echoIndent.count)
          #expect(
            echoable.contains(String(code)) || (code.hasPrefix("// ") && code.contains(": an Operation subclass (`swift ")),
            "\(world.name): echo of \(source.entries[k].text): \(code)")
        }
      }
    }
    #expect(names > 100 && echoes > 500, "\(names) views of a name, \(echoes) echoed lines")
  }
}
