import Foundation
import OpLabCore
import OpLabSwift
import TestSupport
import Testing

@testable import OpLabShell

/// `export swift DIR`: the world as a SwiftPM package, the program apart from the harness (#28).
@Suite struct SwiftPackageExportTests {
  /// A lab, wide enough that no reply is wrapped, that has run `lines`.
  static func lab(_ lines: [String]) throws -> Interpreter {
    var options = ShellOptions()
    options.width = 1_000
    let lab = Interpreter(options: options)
    for line in lines {
      let reply = lab.execute(line)
      try #require(reply.error == nil, "\(line): \(reply.error?.message ?? "")")
    }
    return lab
  }

  static let world = [
    "var count = 0", "queue s max 1", "op a on s takes 3 does read count, compute 1, write count",
    "op b on s takes 2 after a", "run",
  ]

  /// What a program printed, each event line without its tick (a busy machine may move a
  /// line by a tick; the sweep compares ticks, with its slack).
  static func untimed(_ output: String) -> String {
    output.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      guard line.hasPrefix("t="), let gap = line.range(of: "  ") else { return String(line) }
      return "t=…" + line[gap.lowerBound...]
    }.joined(separator: "\n")
  }

  @Test(
    "export swift DIR makes the folder and writes Package.swift, the program as main.swift and the harness as Harness.swift; both files build with plain swiftc and under the strict flags, and the program plays the world"
  )
  func writesAPackage() throws {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let lab = try Self.lab(Self.world)
    let folder = dir.appendingPathComponent("my-world")
    let reply = lab.execute("export swift \(folder.path)")
    #expect(reply.error == nil, "\(reply.error?.message ?? "")")
    #expect(
      reply.output
        == "  wrote the Swift package MyWorld to \(folder.path)/: Package.swift, Sources/MyWorld/main.swift and Harness.swift; `swift run` in it plays the world; or swiftc main.swift Harness.swift\n"
    )
    let package = SwiftCode.exportPackage(lab.swiftSource(), name: "my-world")
    let read = { (path: String) in try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8) }
    #expect(
      try read("Package.swift") == """
        // swift-tools-version:\(SwiftCode.toolsVersion)
        // Exported by OpLab: this world on Foundation's real OperationQueue.
        // The program is Sources/MyWorld/main.swift; OpLab's harness (the lab's
        // clock and stand-ins) is Sources/MyWorld/Harness.swift. `swift run` plays it.
        import PackageDescription

        let package = Package(
          name: "MyWorld",
          platforms: [.macOS(.v15)],  // Mutex (Synchronization)
          targets: [
            .executableTarget(name: "MyWorld", path: "Sources/MyWorld")
          ],
          swiftLanguageModes: [.v6]
        )

        """)
    #expect(try read("Sources/MyWorld/main.swift") == package.program)
    #expect(try read("Sources/MyWorld/Harness.swift") == package.harness)
    // The program is the program: the harness is not in it, and it starts no clock of its own.
    #expect(!package.program.contains(SwiftCode.harnessMarker) && !package.program.contains("enum Lab"))
    #expect(package.harness.hasPrefix(SwiftCode.harnessMarker + "\nimport Foundation\nimport Synchronization\n\n"))
    let sources = folder.appendingPathComponent("Sources/MyWorld")
    let plain = try Swiftc.plain(["main.swift", "Harness.swift", "-o", "world"], in: sources)
    #expect(plain.status == 0 && !plain.said.contains("warning:"), "\(plain.said)")
    let strict = try Swiftc.plain(Swiftc.strict + ["-typecheck", "main.swift", "Harness.swift"], in: sources)
    #expect(strict.status == 0, "\(strict.said)")
    guard plain.status == 0 else { return }
    let ran = try Programs.run(sources.appendingPathComponent("world").path, errors: .discarded)
    #expect(
      Self.untimed(ran.output) == "t=…  a started\nt=…  a finished (succeeded)\nt=…  b started\nt=…  b finished (succeeded)\nat the end: count = 1\n",
      "\(ran.output)")
  }

  @Test("A folder's name becomes the package's: an identifier with a capital, never a Swift or harness name")
  func packageNames() {
    let names = ["pipeline", "my-world", "2x", "lab", "Foundation", "_", "world.swift", "fetch image"].map(SwiftCode.packageName)
    #expect(names == ["Pipeline", "MyWorld", "World2x", "LabWorld", "FoundationWorld", "World1", "World", "FetchImage"])
  }

  @Test(
    "export swift into a previous export replaces it, saying so; a folder with other files, a file, and a folder that cannot be made are refused with the reason and a way out"
  )
  func refusals() throws {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let lab = try Self.lab(Self.world)
    let again = dir.appendingPathComponent("again").path
    #expect(lab.execute("export swift \(again)").error == nil)
    _ = lab.execute("op c on s takes 1")
    let replaced = lab.execute("export swift \(again)/")
    #expect(
      replaced.output
        == "  wrote the Swift package Again to \(again)/: Package.swift, Sources/Again/main.swift and Harness.swift (it replaced the export there); `swift run` in it plays the world; or swiftc main.swift Harness.swift\n"
    )
    #expect(try String(contentsOfFile: again + "/Sources/Again/main.swift", encoding: .utf8).contains("// op c on s takes 1\n"))

    let busy = dir.appendingPathComponent("busy").path
    try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
    try "mine\n".write(toFile: busy + "/notes.txt", atomically: true, encoding: .utf8)
    let refused = try #require(lab.execute("export swift \(busy)").error)
    #expect(refused.message == "will not write a Swift package into '\(busy)': the folder has files in it and is no OpLab export")
    #expect(refused.hint == "give a new or empty folder (export swift \(busy)/world makes one), or a name ending in .swift for one file")
    #expect(try FileManager.default.contentsOfDirectory(atPath: busy) == ["notes.txt"])

    let file = busy + "/notes.txt"
    let aFile = try #require(lab.execute("export swift \(file)").error)
    #expect(aFile.message == "cannot write a Swift package to '\(file)': it is a file, not a folder")
    #expect(aFile.hint == "give a folder's name (it is made if missing), or a name ending in .swift for one file (\(file).swift)")

    let under = try #require(lab.execute("export swift \(file)/world").error)
    #expect(under.message == "cannot write '\(file)/world': a part of the path is a file, not a folder")
    #expect(under.hint == "give a folder you may write in (it is made if missing), e.g. in your home folder or /tmp")

    let proc = try #require(lab.execute("export swift /proc/oplab-world").error)
    #expect(proc.message == "cannot create the folder /proc/oplab-world: the system does not let files be created there")
    #expect(proc.hint == "write somewhere you may, e.g. your home folder or /tmp")

    let folderNamedSwift = dir.appendingPathComponent("it.swift").path
    try FileManager.default.createDirectory(atPath: folderNamedSwift, withIntermediateDirectories: true)
    let oneFile = try #require(lab.execute("export swift \(folderNamedSwift)").error)
    #expect(oneFile.message == "cannot write '\(folderNamedSwift)': it is a folder: give the name of a file in it")
  }
}

extension SwiftPackageExportTests {
  @Test(
    "A variable the lab finds racing is exported as the racy code a learner would write (a RacyInt box, with what Swift 6 says of a plain var), a race-free one in a Mutex; both type-check under the strict flags"
  )
  func racyVariables() throws {
    let lab = try Self.lab([
      "var likes = 0", "var safe = 0", "lock m", "queue feed",
      "op tapA on feed does read likes, compute 1, write likes", "op tapB on feed does read likes, compute 1, write likes",
      "op c on feed does lock m, read safe, compute 1, write safe, unlock m",
      "op d on feed does lock m, read safe, compute 1, write safe, unlock m", "run",
    ])
    let program = SwiftCode.export(lab.swiftSource())
    // The box is a local of program(); the Mutex is declared before it (no closure can
    // capture a Mutex, which cannot be copied).
    #expect(program.contains("\nlet safe = Mutex(0)  // var safe = 0: each read and write is whole\n"), "\(program)")
    #expect(
      SwiftCodeTests.body(program).contains(
        """
        let likes = RacyInt(0)
        Lab.printsAtTheEnd("likes") { likes.value }  // the harness prints it

        // var safe = 0
        // safe is declared before the program: a closure cannot capture a Mutex
        // the harness prints it
        Lab.printsAtTheEnd("safe") { safe.withLock { $0 } }
        """), "\(program)")
    // The comment above the box, laid out within the columns, says it all.
    let lines = program.split(separator: "\n", omittingEmptySubsequences: false)
    let box = try #require(lines.firstIndex(of: "  let likes = RacyInt(0)"))
    let comment = lines[..<box].reversed().prefix { $0.hasPrefix("  // ") }.reversed().dropFirst()
    #expect(
      comment.map { $0.dropFirst(5) }.joined(separator: " ")
        == "var likes = 0: the lab finds a data race on it (`races`). As a plain var, Swift 6 refuses it (\"mutation of captured var 'likes' in concurrently-executing code\"); in a box marked @unchecked Sendable it compiles, and its reads and writes race as in the lab.",
      "\(comment)")
    #expect(comment.allSatisfy { $0.count <= SwiftCode.columns })
    #expect(program.contains("    register = likes.value  // read: no lock, so it races\n"))
    #expect(program.contains("    likes.value = register  // write: no lock, so it races\n"))
    #expect(program.contains("    register = safe.withLock { $0 }  // read\n"))
    #expect(program.contains("final class RacyInt: @unchecked Sendable {\n  var value: Int\n"))
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try program.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let strict = try Swiftc.plain(Swiftc.strict + ["-typecheck", "main.swift"], in: dir)
    #expect(strict.status == 0, "\(strict.said)")
  }
}

extension SwiftPackageExportTests {
  @Test(
    "A package declares Swift tools 6.0, the oldest that reads its manifest; one whose program keeps shared state in a Mutex asks for macOS 15, where Synchronization has it, and one without does not"
  )
  func manifestAsksForWhatTheProgramUses() throws {
    let plain = SwiftCode.exportPackage(try Self.lab(["queue s max 1", "op a on s takes 3", "run"]).swiftSource(), name: "plain")
      .manifest
    #expect(plain.hasPrefix("// swift-tools-version:6.0\n") && !plain.contains("platforms"), "\(plain)")
    let shared = try Self.lab(["var count = 0", "op a does read count, compute 1, write count", "run"])
    let mutex = SwiftCode.exportPackage(shared.swiftSource(), name: "shared")
    #expect(mutex.program.contains("Mutex("), "\(mutex.program)")
    #expect(mutex.manifest.contains("\n  platforms: [.macOS(.v15)],  // Mutex (Synchronization)\n"), "\(mutex.manifest)")
  }
}
