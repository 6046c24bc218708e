import Foundation
import Testing
import TestSupport

@testable import OpLabShell

/// `swift`: the Swift behind what was typed (#21).
@Suite struct SwiftCodeTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/every-command.oplab").path

  /// A lab that has run every line of the fixture: every kind of command that changes a world.
  static func world() throws -> Interpreter {
    let i = Interpreter()
    for line in try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n") {
      let reply = i.execute(String(line))
      #expect(reply.error == nil, "\(line): \(reply.error?.message ?? "")")
    }
    return i
  }

  @Test("Every kind of command becomes its Swift: golden files for the whole world and for one operation or queue")
  func golden() throws {
    let i = try Self.world()
    assertSnapshot(i.execute("swift").output, named: "swift-world")
    let focused = ["d2", "filters", "fetch", "class"].map { "── swift \($0)\n" + i.execute("swift \($0)").output }
    assertSnapshot(focused.joined(separator: "\n"), named: "swift-focus")
  }

  @Test("The world's Swift compiles in Swift 6 mode against Foundation, with the stand-ins defined")
  func compiles() throws {
    let code = try Self.world().execute("swift").output
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-swift-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try code.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    try """
      import Foundation
      func work(ticks: Int) { Thread.sleep(forTimeInterval: Double(ticks) / 1000) }
      func sleep(ticks: Int) { Thread.sleep(forTimeInterval: Double(ticks) / 1000) }
      func startWork(ticks: Int, then done: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ticks)) { done() }
      }
      enum WorkError: Error { case failed }

      """.write(to: dir.appendingPathComponent("standins.swift"), atomically: true, encoding: .utf8)
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compiler.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "main.swift", "standins.swift"]
    compiler.currentDirectoryURL = dir
    let errors = Pipe()
    compiler.standardError = errors
    try compiler.run()
    let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    compiler.waitUntilExit()
    #expect(compiler.terminationStatus == 0, "\(diagnostics)")
    #expect(!diagnostics.contains("warning:"), "\(diagnostics)")
  }

  @Test("Names become Swift names: words joined in camel case, a leading digit or a keyword made safe")
  func names() {
    #expect(SwiftCode.variable("fetch-image") == "fetchImage")
    #expect(SwiftCode.variable("load.v2") == "loadV2")
    #expect(SwiftCode.variable("class") == "`class`")
    #expect(SwiftCode.variable("main.tap1") == "mainTap1")
    #expect(SwiftCode.typeName("fetch-image") == "FetchImageOperation")
    #expect(SwiftCode.typeName("class") == "ClassOperation")
    #expect(SwiftCode.literal("a\"b\\c") == "\"a\\\"b\\\\c\"")
  }

  @Test("swift only looks: it changes no world and saves nothing; an unknown name is an error; an empty world says what to type")
  func onlyLooks() throws {
    let empty = Interpreter()
    #expect(empty.execute("swift").output.hasPrefix("// nothing typed yet"))
    let i = try Self.world()
    let before = i.script.map(\.text)
    let trace = i.world.trace
    #expect(i.execute("swift").error == nil && i.execute("swift d1").error == nil)
    #expect(i.script.map(\.text) == before && i.world.trace == trace)
    let error = try #require(i.execute("swift nosuch").error)
    #expect(error.message == "there is no operation or queue named 'nosuch'")
    // Code is laid out already: it is not wrapped like prose, even at 40 columns.
    var options = ShellOptions()
    options.width = 40
    let narrow = Interpreter(options: options)
    _ = narrow.execute("op d2 takes 4 cancel-check every 1")
    #expect(narrow.execute("swift").output.contains("\n      if isCancelled { return }  // checked every 1 tick\n"))
  }
}
