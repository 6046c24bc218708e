import Foundation

/// Compiling what the lab exports, shared by the tests that type-check it and those that run it.
public enum Swiftc {
  /// Runs `swiftc -swift-version 6` with `arguments` in `folder`: its status and what it said.
  public static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, said: String) {
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compiler.arguments = ["swiftc", "-swift-version", "6"] + arguments
    compiler.currentDirectoryURL = folder
    let said = Pipe()
    compiler.standardError = said
    compiler.standardOutput = said
    try compiler.run()
    let text = String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    compiler.waitUntilExit()
    return (compiler.terminationStatus, text)
  }

  /// A fresh scratch folder; the caller removes it.
  public static func scratchFolder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-swift-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }
}
