import Foundation
import OpLabCore
import OpLabSwift

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the Swift generator reads, swift-echo's lowering, and `export swift DIR`.
extension Interpreter {
  /// The lines that made the present world, each with its slice of the journal (and the
  /// tick it ran at, from replaying the journal): what `swift`, `export swift` and `real` read.
  func swiftSource() -> SwiftSource {
    SwiftSource(origin: sim.origin, script: script, journal: sim.journal)
  }

  /// swift-echo's program so far, and where in the script and journal it is (a script
  /// count of -1 once history was taken back, travelled or branched: lowered again then).
  struct EchoState {
    var echo: SwiftCode.Echo
    var scriptCount: Int
    var journalCount: Int
    var lastText: String?
    /// How many times the whole script was lowered: once, and again after each change of
    /// history that is not a new line (the tests count them).
    var wholeLowerings = 1
  }

  /// The echo of the line just recorded: lowered alone when the echo's program is where
  /// the line started (the script and journal as they were before it, nothing taken back
  /// since); else the whole script is lowered once, and the lines after it alone again.
  /// - Parameter before: the world's clock and trace end before the line ran.
  /// - Complexity: the line's actions, and its events when it ran the clock.
  func echoedSwift(scriptBefore: Int, journalBefore: Int, before: (tick: Tick, traced: Int)) -> String {
    let world = world
    if var state = swiftEcho, state.scriptCount == scriptBefore, state.journalCount == journalBefore,
      state.lastText == (scriptBefore > 0 ? script[scriptBefore - 1].text : nil), script.count == scriptBefore + 1
    {
      let line = script[scriptBefore]
      let actions = line.journalEnd > journalBefore ? sim.journal.elements(from: journalBefore, to: line.journalEnd) : []
      swiftEcho?.scriptCount = -1  // while it is lowered: a state half-changed is never used
      let text = state.echo.echo(SwiftSource.Entry(text: line.text, actions: actions, from: before, in: world), world: world)
      state.scriptCount = script.count
      state.journalCount = sim.journal.count
      state.lastText = line.text
      swiftEcho = state
      return text
    }
    let source = swiftSource()
    guard let last = source.entries.last else { return "" }
    var echo = SwiftCode.Echo(world: world)
    echo.catchUp(source.entries.dropLast(), world: world)
    let text = echo.echo(last, world: world)
    let lowerings = (swiftEcho?.wholeLowerings ?? 0) + 1
    swiftEcho = EchoState(
      echo: echo, scriptCount: script.count, journalCount: sim.journal.count, lastText: last.text, wholeLowerings: lowerings)
    return text
  }

  /// Whether `export swift PATH` writes a package: a path not ending in `.swift` that names
  /// no descriptor of the lab's (`/dev/stdout` takes the one-file program as a stream).
  static func writesPackage(_ path: String) -> Bool {
    !path.hasSuffix(".swift") && FileIO.ownDescriptor(path) == nil
  }

  /// Writes the package into `path` (made if missing): `Package.swift`,
  /// `Sources/NAME/main.swift` and `Sources/NAME/Harness.swift`, each whole or not at all.
  /// A folder that holds anything but a previous export is refused, never written into.
  /// - Throws: a ``Diagnostic`` under the path: why, and a way out.
  func exportPackage(to path: String, at token: Token) throws -> Reply {
    func refuse(_ message: String, _ hint: String) -> Diagnostic {
      Diagnostic(column: token.column, length: token.length, message: message, hint: hint)
    }
    var folder = path
    while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
    let shown = FileError.shown(folder)
    let oneFile = (folder == "/" ? "" : folder) + ".swift"
    var replacing = false
    var info = stat()
    if stat(folder, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw refuse(
          "cannot write a Swift package to '\(shown)': it is a file, not a folder",
          "give a folder's name (it is made if missing), or a name ending in .swift for one file (\(Lexer.quotedIfNeeded(oneFile)))")
      }
      guard let listing = opendir(folder) else {
        throw Self.packageDiagnostic(FileError(path: folder, access: .read, reason: .system(errno)), at: token)
      }
      var empty = true
      while empty, let entry = readdir(listing) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        empty = name == "." || name == ".."
      }
      closedir(listing)
      if !empty {
        guard Self.isExport(folder) else {
          throw refuse(
            "will not write a Swift package into '\(shown)': the folder has files in it and is no OpLab export",
            "give a new or empty folder (export swift \(Lexer.quotedIfNeeded(folder + "/world")) makes one), or a name ending in .swift for one file")
        }
        replacing = true
      }
    } else if errno != ENOENT {
      throw Self.packageDiagnostic(FileError(path: folder, access: .write, reason: .system(errno)), at: token)
    }
    let name = folder == "/" ? "World" : String(folder.split(separator: "/").last ?? "World")
    let package = SwiftCode.exportPackage(swiftSource(), name: name)
    do {
      try FileIO.makeFolders(folder + "/Sources/" + package.name, mode: 0o777)
      for (file, text) in package.files {
        try FileIO.writeAtomically(to: folder + "/" + file, interrupted: interrupt) { $0.write(text) }
      }
    } catch {
      throw Self.packageDiagnostic(error, at: token)
    }
    let files = "Package.swift, Sources/\(package.name)/main.swift and Harness.swift"
    let how = "`swift run` in it plays the world; or swiftc main.swift Harness.swift"
    return Reply(
      output: "  wrote the Swift package \(package.name) to \(shown)/: \(files)\(replacing ? " (it replaced the export there)" : ""); \(how)\n")
  }

  /// A file error of a package's, under the path, always with a way out.
  static func packageDiagnostic(_ error: FileError, at token: Token) -> Diagnostic {
    var diagnostic = Diagnostic(error, column: token.column, length: token.length)
    if diagnostic.hint == nil { diagnostic.hint = "give a folder you may write in (it is made if missing), e.g. in your home folder or /tmp" }
    return diagnostic
  }

  /// Whether `folder` holds a previous export: a `Package.swift` the lab wrote.
  static func isExport(_ folder: String) -> Bool {
    guard let text = try? FileIO.readText(folder + "/Package.swift") else { return false }
    return text.split(separator: "\n", maxSplits: 3).prefix(3).contains { $0 == SwiftCode.exportedMark }
  }
}
