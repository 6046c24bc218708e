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

  /// Runs `swiftc` with `arguments` in `folder`: its status and what it said.
  static func swiftc(_ arguments: [String], in folder: URL) throws -> (status: Int32, said: String) {
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

  /// A scratch folder, removed by the caller.
  static func folder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-swift-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// A lab that has run `name`, a script of Examples/.
  static func example(_ name: String) throws -> Interpreter {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Examples/\(name)").path
    let i = Interpreter()
    for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
      _ = i.execute(String(line))
    }
    return i
  }

  @Test("export swift writes a main.swift for every example that type-checks in Swift 6 mode, warning-free", arguments: [
    "pipeline.oplab", "cancel-all.oplab", "priorities.oplab", "frozen-ui.oplab", "two-cores.oplab", "linux-differences.oplab",
    "direct-calls.oplab",
  ])
  func exportCompiles(example: String) throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = try Self.example(example)
    let reply = i.execute("export swift \(dir.path)/main.swift")
    #expect(reply.error == nil, "\(reply.error?.message ?? "")")
    let result = try Self.swiftc(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(example): \(result.said)")
  }

  @Test("The exported pipeline runs on the real OperationQueue and starts and finishes every operation as the lab did, each within a tick")
  func exportRuns() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = try Self.example("pipeline.oplab")
    try SwiftCode.export(i.swiftSteps(), tickSeconds: 0.1).write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let built = try Self.swiftc(["main.swift", "-o", "world"], in: dir)
    try #require(built.status == 0, "\(built.said)")
    let run = Process()
    run.executableURL = dir.appendingPathComponent("world")
    let output = Pipe()
    run.standardOutput = output
    try run.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    run.waitUntilExit()
    // The lab's trace, in the program's words: each operation's start and finish tick, and how it ended.
    var lab: [String: (start: Int?, finish: Int?, how: String)] = [:]
    for e in i.world.trace {
      guard let op = e.op else { continue }
      let name = i.world.name(op)
      switch e.kind {
      case .started: lab[name, default: (nil, nil, "")].start = e.tick
      case .finished(let outcome):
        lab[name, default: (nil, nil, "")].finish = e.tick
        lab[name, default: (nil, nil, "")].how = switch outcome {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .bailed: "returned early"
        case .cancelled, .dropped: "cancelled"
        }
      default: break
      }
    }
    var real: [String: (start: Int?, finish: Int?, how: String)] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
      guard parts.count >= 3, let tick = Int(parts[0].dropFirst(2)) else { continue }
      let name = String(parts[1])
      if parts[2] == "started" { real[name, default: (nil, nil, "")].start = tick }
      if parts[2] == "finished" {
        real[name, default: (nil, nil, "")].finish = tick
        real[name, default: (nil, nil, "")].how = parts.count > 3 ? String(parts[3].dropFirst().dropLast()) : ""
      }
    }
    #expect(Set(real.keys) == Set(lab.keys), "\(text)")
    for (name, l) in lab {
      let r = real[name]
      #expect(r?.how == l.how, "\(name): \(text)")
      #expect(abs((r?.finish ?? -9) - (l.finish ?? -9)) <= 1, "\(name) finished: \(text)")
      if let s = l.start { #expect(abs((r?.start ?? -9) - s) <= 1, "\(name) started: \(text)") }
    }
  }

  @Test("The world's Swift compiles in Swift 6 mode against Foundation, with the stand-ins defined")
  func compiles() throws {
    let code = try Self.world().execute("swift").output
    let dir = try Self.folder()
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
    let result = try Self.swiftc(["-typecheck", "main.swift", "standins.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(result.said)")
  }

  @Test("export swift of every kind of command type-checks too: batched adds, waits on operations, start(), addExecutionBlock (#20)")
  func exportEveryCommandCompiles() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = try Self.world()
    let program = SwiftCode.export(i.swiftSteps())
    #expect(program.contains("DispatchQueue.main.async { more.start() }"))
    #expect(program.contains("filters.addOperations([h1, h2], waitUntilFinished: false)"))
    try program.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let result = try Self.swiftc(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(result.said)")
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
