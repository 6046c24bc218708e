import Foundation
import OpLabCore
import OpLabSwift
import TestSupport
import Testing

@testable import OpLabShell

/// `swift`: the Swift behind what was typed (#21).
@Suite struct SwiftCodeTests {
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/every-command.oplab").path
  /// Steps on shared state, locks, the user interface, completion blocks written as steps
  /// and long names, in a world whose run ends idle with work on the main queue.
  static let stepsFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/every-step.oplab").path

  /// A lab that has run every line of the fixture: every kind of command that changes a world.
  /// The statements of a whole program's `program()` function, laid out as top-level code
  /// (their indent of two taken off): what a test of the statements compares.
  static func body(_ code: String) -> String {
    let lines = code.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(of: "func \(SwiftCode.programFunction)() {"),
      let end = lines[start...].firstIndex(of: "}")
    else { return "" }
    return lines[(start + 1)..<end].map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }
      .joined(separator: "\n") + "\n"
  }

  static func world(_ fixture: String = fixture, options: ShellOptions = ShellOptions()) throws -> Interpreter {
    let i = Interpreter(options: options)
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

  @Test(
    "export swift writes a main.swift for every example that type-checks in Swift 6 mode, warning-free",
    arguments: [
      "pipeline.oplab", "cancel-all.oplab", "priorities.oplab", "frozen-ui.oplab", "two-cores.oplab", "linux-differences.oplab",
      "direct-calls.oplab",
    ])
  func exportCompiles(example: String) throws {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = try Self.example(example)
    let reply = i.execute("export swift \(dir.path)/main.swift")
    #expect(reply.error == nil, "\(reply.error?.message ?? "")")
    let result = try Swiftc.run(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(example): \(result.said)")
  }

  @Test(
    "The world's Swift is a program that compiles against the harness alone (SwiftCode.harness), with plain swiftc and under the strict flags"
  )
  func compiles() throws {
    let code = try Self.world().execute("swift").output
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try code.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    try SwiftCode.harness(tickSeconds: 0.001).write(to: dir.appendingPathComponent("Harness.swift"), atomically: true, encoding: .utf8)
    let plain = try Swiftc.plain(["-typecheck", "main.swift", "Harness.swift"], in: dir)
    #expect(plain.status == 0 && !plain.said.contains("warning:"), "\(plain.said)")
    let strict = try Swiftc.plain(Swiftc.strict + ["-typecheck", "main.swift", "Harness.swift"], in: dir)
    #expect(strict.status == 0, "\(strict.said)")
  }

  @Test("export swift of every kind of command type-checks too: batched adds, waits on operations, start(), addExecutionBlock (#20)")
  func exportEveryCommandCompiles() throws {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = try Self.world()
    let program = SwiftCode.export(i.swiftSource())
    #expect(program.contains("DispatchQueue.main.async { more.start() }"))
    #expect(program.contains("filters.addOperations([h1, h2], waitUntilFinished: false)"))
    try program.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let result = try Swiftc.run(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(result.said)")
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
    #expect(
      narrow.execute("swift").output.contains(
        "\n    for done in stride(from: 0, to: ticks, by: checkingEvery) {\n"))
  }

  @Test(
    "set swift-echo on: each command that changes the world is followed by its Swift; a subclass is named, the clock and looking echo nothing; off stops it; set alone shows it"
  )
  func echo() {
    var options = ShellOptions()
    options.width = 200
    let i = Interpreter(options: options)
    #expect(i.execute("set").output == "  swift-echo off: `set swift-echo on|off` switches\n")
    #expect(i.execute("set swift-echo on").output == "  swift-echo on: each command that changes the world is followed by its Swift\n")
    func echoed(_ line: String) -> [String] {
      i.execute(line).output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  swift: ") || $0.hasPrefix("         ") }
    }
    #expect(
      echoed("queue downloads max 2") == [
        "  swift: let downloads = OperationQueue()",
        "         downloads.name = \"downloads\"",
        "         downloads.maxConcurrentOperationCount = 2",
      ])
    #expect(
      echoed("op d1 on downloads takes 3") == [
        "  swift: let d1 = BlockOperation { work(ticks: 3) }",
        "         d1.name = \"d1\"",
        "         Lab.watch(d1)  // the harness prints its start and finish",
        "         downloads.addOperation(d1)",
      ])
    #expect(
      echoed("op d2 on downloads takes 4 cancel-check every 1 after d1") == [
        "  swift: // CancellableOperation: an Operation subclass (`swift d2` shows it)",
        "         let d2 = CancellableOperation(ticks: 4, checkingEvery: 1)",
        "         d2.name = \"d2\"",
        "         Lab.watch(d2)  // the harness prints its start and finish",
        "         d2.addDependency(d1)",
        "         downloads.addOperation(d2)",
      ])
    #expect(echoed("step 2") == [])
    #expect(echoed("timeline") == [])
    // d2 waits for d1 (3 ticks) at t=2: cancelled before it starts, it never runs main().
    #expect(
      echoed("cancel d2") == [
        "  swift: // not started: ready at once, and its start() skips main()", "         d2.cancel()",
      ])
    #expect(
      echoed("tap") == [
        "  swift: // the user taps: UIKit handles it on the main thread (1 tick)", "         Lab.tap(atTick: 2)",
      ])
    #expect(i.execute("set swift-echo off").output == "  swift-echo off\n")
    #expect(echoed("suspend downloads") == [])
    // The setting is the lab's, not the world's: nothing of it is saved.
    #expect(!i.script.contains { $0.text.hasPrefix("set") })
  }

  @Test(
    "An asynchronous operation whose work fails: its callback gets the error; with forgets-finish the error path returns without finish(), and its export type-checks"
  )
  func failingAsync() throws {
    let i = Interpreter()
    for line in ["queue net max 1", "op flaky on net fails at 1 async", "op lost on net takes 3 fails at 2 async forgets-finish", "op save on net"] {
      #expect(i.execute(line).error == nil, "\(line)")
    }
    #expect(
      i.execute("swift lost").output == """
        // op lost on net takes 3 fails at 2 async forgets-finish
        final class LostOperation: AsyncOperation, @unchecked Sendable {
          private(set) var error: Error?  // isFinished does not say if it failed
          override func start() {
            guard !isCancelled else { finish(); return }
            begin()
            startWork(ticks: 2, failing: true) { [self] error in
              if let error {
                self.error = error
                return  // ← forgets-finish: this error path never calls finish()
              }
              finish()
            }
          }
        }
        let lost = LostOperation()
        lost.name = "lost"
        Lab.watch(lost)  // the harness prints its start and finish
        net.addOperation(lost)

        """)
    #expect(
      i.execute("swift flaky").output.contains(
        """
            startWork(ticks: 1, failing: true) { [self] error in
              self.error = error
              finish()
            }
        """))
    // The lab: flaky fails at t=1, lost starts and its work fails at t=3 without finish(), save never starts.
    _ = i.execute("run")
    #expect(i.execute("status").output.contains("executing forever"))
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(i.execute("export swift \(dir.path)/main.swift").error == nil)
    let result = try Swiftc.run(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(result.said)")
  }

  @Test(
    "start() by hand, queued to the main thread (the lab's next command does not wait for it): for an operation cancelled before, the comment says its work never runs; for another, that main() runs on the main thread"
  )
  func startByHandAfterCancel() throws {
    let i = Interpreter()
    for line in ["platform linux", "op export takes 3 hold", "cancel export", "start export", "op fresh takes 3 hold", "start fresh"] {
      #expect(i.execute(line).error == nil, "\(line)")
    }
    #expect(
      i.execute("swift export").output.hasSuffix(
        """
        // start export
        // called on the main thread, for an operation in no queue; queued there,
        // as the lab's next command does not wait for it
        // isCancelled is true: its work never runs
        DispatchQueue.main.async { export.start() }

        """), "\(i.execute("swift export").output)")
    #expect(
      i.execute("swift fresh").output.contains(
        "// main() runs on the main thread until it returns\nDispatchQueue.main.async { fresh.start() }\n"))
  }

  @Test("swift main shows the work on the main thread: a start by hand, a wait from main, taps and frames")
  func mainFocus() {
    let i = Interpreter()
    for line in ["queue q", "op s takes 1 hold", "op x on q takes 1", "start s", "wait q from main", "tap at 9", "frames every 2 to 12"] {
      _ = i.execute(line)
    }
    let code = i.execute("swift main").output
    for command in ["// start s", "// wait q from main", "// tap at 9", "// frames every 2 to 12"] {
      #expect(code.contains(command + "\n"), "\(code)")
    }
    #expect(!code.contains("// queue q\n"))
  }

  @Test(
    "A run, idle or stalled, is the clock moving on: the work goes on, and the program's end (the harness's watcher) waits for it or says what never finished"
  )
  func runStalledOrIdle() {
    for lines in [["queue q", "op a on q takes 1", "run"], ["queue q", "op f on q takes 1 async forgets-finish", "run"]] {
      let lab = Interpreter()
      for line in lines { _ = lab.execute(line) }
      let code = lab.execute("swift").output
      #expect(
        SwiftCodeTests.body(code).hasSuffix("// run\n// the work goes on; the next sleep, or the program's end, waits for it\n"),
        "\(code)")
      #expect(code.hasSuffix("program()\n// the work goes on: the harness's watcher ends the program when it is done\nLab.end()\n"))
    }
  }
}

/// `swift` is the program that runs: built with the harness, it plays the world on the real
/// queue to its end (#22, #28).
@Suite struct SwiftCodeRunTests {
  @Test(
    "The Swift shown for a world whose run ends idle, built with the harness and run on the real queue, does all its work before it exits: main-queue work, completion blocks and what they add"
  )
  func shownProgramDoesAllTheWork() throws {
    let i = try SwiftCodeTests.world(SwiftCodeTests.stepsFixture)
    let code = i.execute("swift").output
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try code.write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    try SwiftCode.harness(tickSeconds: 0.05).write(to: dir.appendingPathComponent("Harness.swift"), atomically: true, encoding: .utf8)
    let built = try Swiftc.run(["main.swift", "Harness.swift", "-o", "world"], in: dir)
    #expect(built.status == 0 && !built.said.contains("warning:"), "\(built.said)")
    guard built.status == 0 else { return }
    let ran = try Programs.run(dir.appendingPathComponent("world").path, in: dir)
    #expect(ran.status == 0, "\(ran.output)")
    // Every operation the lab ran (main-thread work aside) finished in the program too, none stalled.
    let world = i.world
    let names = world.trace.compactMap { e -> String? in
      guard case .finished = e.kind, let op = e.op, world.operation(op).mainThreadWork == nil else { return nil }
      return world.name(op)
    }
    #expect(names.count >= 6)
    for name in names { #expect(ran.output.contains("  \(name) finished ("), "\(name): \(ran.output)") }
    #expect(!ran.output.contains("stalled"), "\(ran.output)")
  }

  @Test(
    "Every line of generated code fits 80 columns, even indented by a lesson's four: the whole world, each operation and queue, each echo, and the export"
  )
  func everyLineFits() throws {
    var options = ShellOptions()
    options.width = 500  // nothing is wrapped on the way: what is measured is what was made
    options.swiftEcho = true
    for fixture in [SwiftCodeTests.fixture, SwiftCodeTests.stepsFixture] {
      let i = Interpreter(options: options)
      var echoes: [String] = []
      for line in try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n") {
        echoes += i.execute(String(line)).output.split(separator: "\n").map(String.init)
          .filter { $0.hasPrefix("  swift: ") || $0.hasPrefix(SwiftCode.echoIndent) }
      }
      #expect(echoes.count > 20)
      for line in echoes { #expect(line.count <= 80, "\(line)") }
      var names: [String] = []
      for entry in i.swiftSource().entries { if let name = entry.subject { names.append(name) } }
      for view in ["swift"] + names.map({ "swift \($0)" }) {
        let code = i.execute(view).output
        #expect(code.contains("\n"))
        for line in code.split(separator: "\n") { #expect(line.count <= SwiftCode.columns, "\(view): \(line)") }
      }
      // The exported program too, read in an editor.
      for line in SwiftCode.export(i.swiftSource()).split(separator: "\n") {
        #expect(line.count <= SwiftCode.columns, "export: \(line)")
      }
    }
  }
}

extension SwiftCodeRunTests {
  @Test("A lesson's `swift` in a run: block is shown as laid out, indented but never re-wrapped like prose, even narrower than the code")
  func lessonShowsCodeAsIs() throws {
    let lesson = try LessonParser.parse(
      """
      title: Code in a lesson

      run:
        op d2 takes 4 cancel-check every 1 completion 1
        swift d2
      """, file: "Lessons/99-code.lesson")
    var inputs = ["quit"][...]
    var options = ShellOptions()
    options.width = 50  // the lesson indents by 4 from 44 columns on
    var out = ""
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { inputs.popFirst() }, options: options, progress: ProgressStore(path: nil)
    ) { out += $0 }
    runner.run()
    // The same code as the lab shows it: `swift` is never wrapped there either.
    let lab = Interpreter(options: options)
    _ = lab.execute("op d2 takes 4 cancel-check every 1 completion 1")
    let code = lab.execute("swift d2").output
    let indented = code.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
      .map { "    " + $0 + "\n" }.joined()
    #expect(code.contains("// its completion block runs after it, on a thread Foundation picks\n"))
    #expect(out.contains(indented), "\(out)")
  }
}

extension SwiftCodeRunTests {
  @Test("Code is never re-wrapped like prose: not a sourced script's `swift`, nor an echo after a command's own (wrapped) output")
  func sourcedAndEchoedCodeIsAsIs() throws {
    var options = ShellOptions()
    options.width = 50
    let line = "op d2 takes 4 cancel-check every 1 completion 1"
    let lab = Interpreter(options: options)
    _ = lab.execute(line)
    let code = lab.execute("swift d2").output
    #expect(code.contains("\n// its completion block runs after it, on a thread Foundation picks\n"))
    // A script that shows its Swift, sourced: its lines' output is shown as each one made it.
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let script = dir.appendingPathComponent("code.oplab").path
    try "\(line)\nswift d2\n".write(toFile: script, atomically: true, encoding: .utf8)
    let sourcing = Interpreter(options: options)
    let reply = sourcing.execute("source \(script)")
    #expect(reply.error == nil && reply.output.hasSuffix(code), "\(reply.output)")
    // The echo: the command's own output is wrapped to 50 columns, the Swift after it is not.
    let echoing = Interpreter(options: options)
    _ = echoing.execute("set swift-echo on")
    let echoed = echoing.execute("op d1 takes 2 completion 1").output
    #expect(
      echoed.contains(
        """
                 // its completion block runs after it, on a thread Foundation picks
                 d1.completionBlock = { work(ticks: 1) }

        """), "\(echoed)")
    #expect(
      echoed.split(separator: "\n").filter { !$0.hasPrefix("  swift:") && !$0.hasPrefix(SwiftCode.echoIndent) }
        .allSatisfy { $0.count <= 50 }, "\(echoed)")
  }
}

/// Names the lab accepts become Swift that compiles: one mangler knows Swift's keywords, the
/// harness's and Foundation's names, and keeps names that fold to one identifier apart (#28).
@Suite struct SwiftNameTests {
  /// Exports `lines`' world and type-checks it with plain swiftc and under the strict flags.
  static func expectExportCompiles(_ lines: [String], _ context: String) throws {
    let lab = Interpreter()
    for line in lines {
      let reply = lab.execute(line)
      try #require(reply.error == nil, "\(context): \(line): \(reply.error?.message ?? "")")
    }
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try SwiftCode.export(lab.swiftSource()).write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let plain = try Swiftc.plain(["-typecheck", "main.swift"], in: dir)
    #expect(plain.status == 0 && !plain.said.contains("warning:"), "\(context), plain swiftc: \(plain.said)")
    let strict = try Swiftc.plain(Swiftc.strict + ["-typecheck", "main.swift"], in: dir)
    #expect(strict.status == 0, "\(context), strict: \(strict.said)")
  }

  @Test(
    "The names that ran in the lab and then did not compile now do: ops fold to one name, keywords, the harness's and Foundation's names, a queue OperationQueue, a gate Gate or named like an op, vars completionBlocks and register"
  )
  func namesThatCollided() throws {
    try Self.expectExportCompiles(
      [
        "queue OperationQueue", "var completionBlocks = 1", "var register = 2", "lock Thread-lock",
        "op fetch-image on OperationQueue takes 1", "op fetchImage on OperationQueue takes 1",
        "op a takes 2 cancel-check every 1", "op A takes 2 cancel-check every 1",
        "op async takes 3 does read register, compute 1, write register",
        "op work takes 1 gate Gate", "op watcher takes 1 gate async", "op say takes 1 gate register",
        "op origin takes 1", "op deadline takes 1", "op print takes 1", "op Thread takes 1", "op Date takes 1",
        "op _ takes 1", "op Self takes 1", "op Any takes 1", "op ⸯ takes 1", "op block blocks 1,1",
        "op Lab takes 3 does lock Thread-lock, read completionBlocks, unlock Thread-lock", "open Gate",
        // Alike, in one addOperations: each by its own name, the list laid out within the columns.
        "op load-row,loadRow,load-row-1,load-row-2,load-row-3,load-row-4,load-row-5,load-row-6,load-row-7 completion 1",
        "run",
      ], "the issue's names")
    // Ops defined alike are added and watched by their own names, laid out within the columns.
    let alike = Interpreter()
    _ = alike.execute("op load-row,loadRow,load-row-1,load-row-2,load-row-3,load-row-4,load-row-5,load-row-6,load-row-7")
    let added = SwiftCode.export(alike.swiftSource())
    #expect(added.contains("    loadRow, loadRow2, loadRow1, loadRow22, loadRow3,"), "\(added)")
    #expect(added.split(separator: "\n").allSatisfy { $0.count <= SwiftCode.columns }, "\(added)")
    // The register a closure declares is its own: a var named register is the world's.
    let lab = Interpreter()
    for line in ["var register = 2", "op inc takes 3 does read register, compute 1, write register", "run"] {
      _ = lab.execute(line)
    }
    let code = SwiftCode.export(lab.swiftSource())
    #expect(code.contains("register = registerOp.withLock { $0 }  // read"), "\(code)")
  }

  @Test(
    "Property: every random name the lab accepts, for an op, a queue, a var, a lock and a gate, yields an export that type-checks",
    arguments: [UInt64(1), 2, 3])
  func randomNamesCompile(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let pool = Array("abcXYZ_-.09éßあ") + ["i", "n", "t", "e", "s", "l", "f", "y", "p", "o"]
    let words = ["self", "Self", "any", "async", "init", "type", "lab", "work", "gate", "register", "main", "Int"]
    var used: Set<String> = []
    func name() -> String {
      while true {
        var text = rng.next() % 3 == 0 ? words[Int(rng.next() % UInt64(words.count))] : ""
        for _ in 0..<(1 + Int(rng.next() % 6)) { text.append(pool[Int(rng.next() % UInt64(pool.count))]) }
        if rng.next() % 4 == 0 { text = String(text.prefix(Int(rng.next() % 3) + 1)) }
        if World.isValidName(text), used.insert(text.lowercased()).inserted { return text }
      }
    }
    let (queue, variable, lock, gate) = (name(), name(), name(), name())
    var lines = ["queue \(queue) max 2", "var \(variable) = 1", "lock \(lock)"]
    var ops: [String] = []
    for i in 0..<8 {
      let op = name()
      let body =
        switch i % 4 {
        case 0: "takes 3 does read \(variable), compute 1, write \(variable)"
        case 1: "takes 2 cancel-check every 1 gate \(gate)"
        case 2: "takes 3 does lock \(lock), touch ui, unlock \(lock)"
        default: "takes 1 async" + (ops.isEmpty ? "" : " after \(ops[0])")
        }
      lines.append("op \(op) on \(queue) \(body)")
      ops.append(op)
    }
    try Self.expectExportCompiles(lines + ["open \(gate)", "wait \(ops[0]) from main", "run"], "seed \(seed): \(lines)")
  }
}
