import Foundation
import Testing

/// Running a program to its end, for the tests that build and run what the lab exports.
public enum Programs {
  /// What becomes of the program's standard error.
  public enum Errors: Sendable { case merged, discarded }

  /// Runs `path` with `arguments` (in `folder`, if given) to its end: its status and what it printed.
  public static func run(
    _ path: String, _ arguments: [String] = [], in folder: URL? = nil, errors: Errors = .merged
  ) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = folder }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = errors == .merged ? pipe : FileHandle.nullDevice
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }
}

/// Compiling what the lab exports, shared by the tests that type-check it and those that run it.
public enum Swiftc {
  /// Runs `swiftc -swift-version 6` with `arguments` in `folder`: its status and what it said.
  public static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, said: String) {
    expectAllowed()
    let result = try Programs.run("/usr/bin/env", ["swiftc", "-swift-version", "6"] + arguments, in: folder)
    return (result.status, result.output)
  }

  /// Runs plain `swiftc` (the language mode a learner gets by default) with `arguments` in `folder`.
  public static func plain(_ arguments: [String], in folder: URL) throws -> (status: Int32, said: String) {
    expectAllowed()
    let result = try Programs.run("/usr/bin/env", ["swiftc"] + arguments, in: folder)
    return (result.status, result.output)
  }

  /// `make test` leaves the tests that build with swiftc to `make test-swift` by name (the
  /// Makefile's SWIFTC_TESTS) and says so with OPLAB_SWIFTC=deferred: a test that reaches
  /// swiftc then is missing from that list, and would slow `make test` down unseen.
  static func expectAllowed() {
    guard ProcessInfo.processInfo.environment["OPLAB_SWIFTC"] == "deferred" else { return }
    Issue.record(
      "this test builds with swiftc: name it in the Makefile's SWIFTC_TESTS, so make test-swift runs it and make test does not")
  }

  /// The flags of the strictest build the lab promises: Swift 6, complete checking, no warnings.
  public static let strict = ["-swift-version", "6", "-strict-concurrency=complete", "-warnings-as-errors"]

  /// A fresh scratch folder; the caller removes it.
  public static func scratchFolder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-swift-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }
}
