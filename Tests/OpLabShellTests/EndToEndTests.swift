import Foundation
import TestSupport
import Testing

/// Runs the built `oplab` binary on scripts and piped input, and checks stdout, stderr
/// and the exit status, as a learner's terminal or CI would see them.
@Suite(.serialized) struct EndToEndTests {
  static var binary: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("oplab")
  }

  struct Result {
    var out: String
    var err: String
    var status: Int32
  }

  func oplab(_ arguments: [String], stdin: String = "", environment extra: [String: String] = [:]) throws -> Result {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    environment.merge(extra) { $1 }
    process.environment = environment
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Both outputs are drained while the input is written: a lab that floods one of them
    // (a regression echoing a huge line) must fail the test, not block it for ever.
    let err = Drain(error.fileHandleForReading)
    let out = Drain(output.fileHandleForReading)
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    return Result(
      out: String(decoding: out.data(), as: UTF8.self), err: String(decoding: err.data(), as: UTF8.self), status: process.terminationStatus)
  }

  /// Reads a pipe to its end on a thread of its own.
  final class Drain: @unchecked Sendable {
    private var bytes = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
      Thread.detachNewThread { [self] in
        bytes = handle.readDataToEndOfFile()
        done.signal()
      }
    }

    /// Everything read, once the pipe has ended.
    func data() -> Data {
      done.wait()
      return bytes
    }
  }

  func temporaryFile(_ name: String, _ text: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test("The binary exists next to the tests (swift test builds it)")
  func binaryIsBuilt() {
    #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path))
  }

  @Test("Piped input runs in batch mode: no prompt, output on stdout, exit 0")
  func pipedInput() throws {
    let r = try oplab([], stdin: "op a takes 2\nrun\n")
    #expect(r.status == 0)
    #expect(r.err == "")
    #expect(
      r.out == """
          t=0  a enqueued on queue
          t=0  a ready: no unfinished dependencies
          t=0  a started on queue: a slot was free when it was enqueued
          t=2  a finished (succeeded): work done
          idle at t=2: every operation has finished

        """)
  }

  @Test("An error in piped input names <stdin>:LINE:COL, stops, and exits 1; --keep-going goes on")
  func pipedError() throws {
    let r = try oplab([], stdin: "op a\nop b takes x\nop c\n")
    #expect(r.status == 1)
    #expect(r.err == "<stdin>:2:12: error: 'x' is not a whole number\n  hint: see `help op` for everything 'op' takes\n")
    #expect(!r.out.contains("c enqueued"))
    let k = try oplab(["--keep-going"], stdin: "op a\nop b takes x\nop c\n")
    #expect(k.status == 1)
    #expect(k.out.contains("c enqueued"))
  }

  @Test(
    "SIGINT or SIGTERM during oplab run stops it after the command running, with 128 + the signal and where it stopped, --keep-going or not",
    arguments: [(SIGINT, "SIGINT", [String]()), (SIGTERM, "SIGTERM", ["--keep-going"])])
  func batchStoppedBySignal(signo: Int32, name: String, flags: [String]) throws {
    // Long enough that the signal always lands mid-script: 100,000 lines, then a last
    // command whose output would show the script had run to its end.
    let lines = ["queue q max 1"] + (0..<100_000).map { "op o\($0) on q takes 1" } + ["status"]
    let script = try temporaryFile("long.oplab", lines.joined(separator: "\n") + "\n")
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = ["run"] + flags + [script]
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    var first = Data()  // some way into the script (each line prints about 130 bytes)
    while first.count < 100_000 {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      first += chunk
    }
    kill(process.processIdentifier, signo)
    let out = String(decoding: first + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = unwrapped(String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    process.waitUntilExit()
    // It dies by the signal after its message, so a shell loop around it stops too.
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signo)
    let prefix = "oplab: stopped by \(name) at \(script):"
    #expect(err.hasPrefix(prefix) && err.hasSuffix("\n"), "stderr: \(err)")
    let line = Int(err.dropFirst(prefix.count).dropLast()) ?? 0
    #expect(line > 500 && line < lines.count, "stopped at line \(line)")
    // Every line before the one it stopped at ran (line N defines o(N-2)); none after it did.
    #expect(out.contains("o\(line - 3) enqueued on q"))
    #expect(!out.contains("o\(line - 1) enqueued") && !out.contains("executing since"))
  }

  @Test("Under nohup a batch run ignores SIGHUP, as it was started to, and still stops at SIGINT")
  func batchUnderNohup() throws {
    let lines = ["queue q max 1"] + (0..<100_000).map { "op o\($0) on q takes 1" } + ["status"]
    let script = try temporaryFile("long.oplab", lines.joined(separator: "\n") + "\n")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
    process.arguments = [Self.binary.path, "run", script]
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    var seen = 0
    func read(_ bytes: Int) {
      var got = 0
      while got < bytes {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        got += chunk.count
      }
      seen += got
    }
    read(100_000)
    kill(process.processIdentifier, SIGHUP)
    read(100_000)  // still running
    #expect(seen >= 200_000)
    kill(process.processIdentifier, SIGINT)
    _ = output.fileHandleForReading.readDataToEndOfFile()
    let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
    #expect(unwrapped(err).contains("oplab: stopped by SIGINT at \(script):"), "stderr: \(err)")
  }

  @Test("A signal while oplab waits for piped input ends it at once, by that signal")
  func signalWhileReadingAPipe() throws {
    let process = Process()
    process.executableURL = Self.binary
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input  // kept open: oplab blocks reading it
    process.standardOutput = output
    process.standardError = error
    try process.run()
    input.fileHandleForWriting.write(Data("op a takes 2\n".utf8))
    _ = output.fileHandleForReading.availableData  // the first line ran; now it waits for the next
    Thread.sleep(forTimeInterval: 0.3)
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    #expect(!process.isRunning, "oplab did not end after SIGTERM (a read retried for ever?)")
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try input.fileHandleForWriting.close()
    let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    // "after" when it was waiting for line 2, as it almost always is by then; "at" if the
    // signal beat the check that follows line 1.
    #expect(["after", "at"].map { "oplab: stopped by SIGTERM \($0) <stdin>:1\n" }.contains(err), "stderr: \(err)")
  }

  @Test("oplab run FILE runs scripts with FILE:LINE:COL errors, --keep-going goes on; a missing file is a usage error")
  func runScripts() throws {
    let good = try temporaryFile("good.oplab", "queue q max 1\nop a on q takes 1\nop b on q takes 1\nrun\n")
    let r = try oplab(["run", good])
    #expect(r.status == 0)
    #expect(r.out.hasSuffix("  idle at t=2: every operation has finished\n"))
    let bad = try temporaryFile("bad.oplab", "op a\r\nsuspend zz\r\n")
    let b = try oplab(["run", bad])
    #expect(b.status == 1)
    #expect(b.err.hasPrefix("\(bad):2:9: error: there is no queue named 'zz'"))
    // --keep-going reaches `run` wherever it is written (it once went to the parent command).
    let twice = try temporaryFile("twice.oplab", "op a\nsuspend zz\nop b takes 2\nstep 1\n")
    for arguments in [["run", "--keep-going", twice], ["--keep-going", "run", twice], ["run", twice, "--keep-going"]] {
      let k = try oplab(arguments)
      #expect(k.status == 1, "\(arguments)")
      #expect(k.err.hasPrefix("\(twice):2:9: error:"), "\(arguments)")
      #expect(k.out.contains("b started on queue") && k.out.hasSuffix("  now t=1\n"), "\(arguments)")
    }
    let stops = try oplab(["run", twice])
    #expect(stops.status == 1 && !stops.out.contains("b started"))
    let missing = try oplab(["run", "/no/such/file.oplab"])
    #expect(missing.status == 2)
    #expect(missing.err.contains("cannot read '/no/such/file.oplab'"))
  }

  @Test("The same script prints the same bytes every time")
  func deterministic() throws {
    let script = try temporaryFile(
      "d.oplab",
      """
      queue downloads max 2
      op d1 on downloads takes 3
      op d2 on downloads takes 2 priority high
      op d3 on downloads takes 4 cancel-check every 1
      op f1 takes 1 after d1,d2 completion 1
      step 2
      cancel d3
      run
      events
      timeline
      """)
    let first = try oplab(["run", script])
    let second = try oplab(["run", script])
    #expect(first.status == 0)
    #expect(first.out == second.out)
  }

  @Test("--help, --version and bad options behave like a Unix tool")
  func commandLine() throws {
    let help = try oplab(["--help"])
    #expect(help.status == 0)
    #expect(help.out.contains("USAGE: oplab"))
    let version = try oplab(["--version"])
    #expect(version.out.hasPrefix("0."))
    let bad = try oplab(["shell", "--platform", "windows"])
    #expect(bad.status == 64 || bad.status == 2)
    #expect(bad.err.contains("--platform takes 'apple' or 'linux'"))
  }

  @Test(
    "At 80 columns no usage line is broken inside a bracket, no line is wider than the terminal, and no default is said twice",
    arguments: [
      ["--help"], ["run", "--help"], ["lesson", "--help"], ["help", "lesson"],
    ])
  func helpAt80Columns(arguments: [String]) throws {
    let help = try oplab(arguments, environment: ["COLUMNS": "80"])
    #expect(help.status == 0)
    let lines = help.out.split(separator: "\n", omittingEmptySubsequences: false)
    for line in lines {
      #expect(line.count <= 80, "a terminal breaks this line wherever column 80 falls: \(line)")
      #expect(line.count { $0 == "[" } == line.count { $0 == "]" }, "a bracket is broken across lines: \(line)")
    }
    // The usage names every option the help lists (a written-out usage must not fall behind).
    let usage = help.out.components(separatedBy: "\n\n").first { $0.hasPrefix("USAGE: ") } ?? ""
    for option in help.out.matches(of: /\n  (--[a-z-]+)/).map({ String($0.1) }) where !["--version", "--help"].contains(option) {
      #expect(usage.contains("[\(option)"), "\(option) is missing from the usage: \(usage)")
    }
    // Each option's help, its wrapped lines joined, says its default once.
    var options: [String] = []
    for line in lines where line.hasPrefix("  ") {
      if line.hasPrefix("  -") { options.append(String(line)) } else if !options.isEmpty { options[options.count - 1] += " " + line }
    }
    for option in options {
      #expect(option.components(separatedBy: "default").count - 1 <= 1, "\(option)")
    }
    #expect(!help.out.contains("checkout"), "there is no checkout after make install: \(help.out)")
  }

  @Test("--platform linux and --ascii change the world and the drawing")
  func options() throws {
    let r = try oplab(
      ["--platform", "linux", "--ascii"],
      stdin: "op b blocks 1,2\nop c after b\ndepend b on c\nrun\ntimeline\nstatus\ngraph\nwhy c\nnarrate\n")
    #expect(r.out.contains("t=1  b block 2 started: blocks run one after another (corelibs)"))
    let ascii = r.out.unicodeScalars.allSatisfy(\.isASCII)
    #expect(ascii)
  }

  @Test("oplab lesson lists the course, walks a lesson from piped input, and lesson check --all passes")
  func lessons() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-e2e-state-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons").path
    let check = try oplab(["lesson", "check", "--all", "--folder", lessons])
    #expect(check.status == 0, "\(check.err)")
    #expect(check.out.contains(" passed, 0 failed\n"))
    let walk = try oplab(
      ["lesson", "2", "--folder", lessons], stdin: "\n\n\nc\n\n\nop notify on work takes 1 after upload\na\n\n\n\n",
      environment: ["XDG_STATE_HOME": state.path])
    #expect(walk.status == 0)
    #expect(walk.out.contains("✓ You predicted 3, and that is what happened."))
    #expect(walk.out.contains("✓ Task done."))
    #expect(walk.out.contains("✓ Lesson 2 complete."))
    let list = try oplab(["lesson", "--folder", lessons], environment: ["XDG_STATE_HOME": state.path])
    #expect(list.out.contains("An Operation's life: pending, ready, executing, finished  [done]"))
  }

  @Test(
    "A teacher's folder added to the course shows in oplab lesson with its own progress: its 09-visible-rows.lesson is not the course's lesson 9, and run by path or through the folder it keeps one record"
  )
  func teachersFolder() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-teacher-\(UUID().uuidString)")
    let mine = root.appendingPathComponent("my-lessons")
    let state = root.appendingPathComponent("state")
    try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let course = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons").path
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/lessons/choices-proved.lesson")
    let file = mine.appendingPathComponent("09-visible-rows.lesson").path
    try FileManager.default.copyItem(atPath: fixture.path, toPath: file)
    // The course's lesson 9 is done.
    try FileManager.default.createDirectory(at: state.appendingPathComponent("oplab"), withIntermediateDirectories: true)
    try "visible-rows\tdone\t0\n".write(toFile: state.appendingPathComponent("oplab/progress").path, atomically: true, encoding: .utf8)
    let env = ["XDG_STATE_HOME": state.path]
    let title = "Every choice says what it claims, and why a learner would pick it"

    let listed = try oplab(["lesson", "--folder", course, "--add-folder", mine.path, "--width", "200"], environment: env)
    #expect(listed.status == 0, "\(listed.err)")
    #expect(listed.out.contains("   9  Load only what is on screen: the visible-rows pattern  [done]\n"), "the course's lesson 9: \(listed.out)")
    #expect(listed.out.contains("Added from \(mine.path) (`oplab lesson my-lessons/N`):\n   9  \(title)  [new]\n"), "\(listed.out)")

    // Started through the folder, at the prediction: its place is kept under the folder.
    let started = try oplab(
      ["lesson", "my-lessons/9", "--folder", course, "--add-folder", mine.path, "--width", "200"], stdin: "quit\n", environment: env)
    #expect(started.out.contains("━━ Lesson 9: \(title)"), "\(started.out)")
    #expect(started.out.contains("`oplab lesson my-lessons/9` resumes here."), "\(started.out)")
    // OPLAB_LESSONS lists the course, then the teacher's folder: the same record.
    let again = try oplab(["lesson", "--width", "200"], environment: env.merging(["OPLAB_LESSONS": course + ":" + mine.path]) { $1 })
    #expect(again.out.contains("   9  \(title)  [started]\n"), "\(again.out)")
    #expect(again.out.contains("   9  Load only what is on screen: the visible-rows pattern  [done]\n"), "\(again.out)")
    // Run by its path, it resumes that record, and finishing it marks it done in the folder's list.
    let byPath = try oplab(["lesson", file, "--folder", course, "--width", "200"], stdin: "b\ncancel spare\nrun\n\n", environment: env)
    #expect(byPath.out.contains("Resuming where you left off."), "\(byPath.out)")
    #expect(byPath.out.contains("✓ Lesson 9 complete."), "\(byPath.out)")
    let done = try oplab(["lesson", "--folder", course, "--add-folder", mine.path, "--width", "200"], environment: env)
    #expect(done.out.contains("   9  \(title)  [done]\n"), "\(done.out)")
    let progress = try String(contentsOfFile: state.appendingPathComponent("oplab/progress").path, encoding: .utf8)
    #expect(progress.split(separator: "\n").count == 2, "one record for the course's lesson 9, one for the teacher's: \(progress)")
  }

  @Test("A teacher checks a lesson by its path; a lesson whose file is broken is named as broken, not missing")
  func lessonCheckByPathAndBroken() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-lessons-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let good = folder.appendingPathComponent("01-good.lesson").path
    try """
    title: Good
    run:
      op a takes 2
      run
    expect: finished a at 2
    task: Define b, which takes 1, and run the clock.
      hint: `restart` puts the world back as the task found it.
      check: finished b
      else: b has not finished.
      solution: op b takes 1
      solution: run

    """.write(toFile: good, atomically: true, encoding: .utf8)
    try "title: Broken\npredikt: When?\n  answer: 2\n".write(
      toFile: folder.appendingPathComponent("02-broken.lesson").path, atomically: true, encoding: .utf8)
    let byPath = try oplab(["lesson", "check", good])
    #expect(byPath.status == 0, "\(byPath.err)")
    #expect(byPath.out.contains("lesson 1 good: ok"), "\(byPath.out)")
    let broken = try oplab(["lesson", "check", "2", "--folder", folder.path])
    #expect(broken.status == 1)
    #expect(
      unwrapped(broken.err).contains("02-broken.lesson:2:1: error: 'predikt:' is not a kind of block\n  hint: did you mean 'predict:'?"),
      "\(broken.err)")
    #expect(unwrapped(broken.err).contains("oplab: lesson 2 (\(folder.path)/02-broken.lesson) has errors, shown above"), "\(broken.err)")
    #expect(!broken.err.contains("no lesson"), "\(broken.err)")
    // Several named at once: a broken or missing one does not hide the others' results.
    let several = try oplab(["lesson", "check", "2", good, "nowhere.lesson", "--folder", folder.path])
    #expect(several.status == 1)
    #expect(several.out.hasSuffix("lesson 1 good: ok (0 predictions, 1 task, 1 checkpoint)\nlessons: 1 passed, 2 failed\n"), "\(several.out)")
  }

  @Test("Started through PATH from another folder (argv[0] is just 'oplab'), the lab still finds its lessons")
  func lessonsFoundFromAnywhere() throws {
    let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-cwd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: elsewhere) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    // Python's execv sets argv[0] to exactly what a shell passes for a command found in PATH.
    process.arguments = ["python3", "-c", "import os, sys; os.execv(sys.argv[1], ['oplab', 'lesson'])", Self.binary.path]
    process.currentDirectoryURL = elsewhere
    var environment = ProcessInfo.processInfo.environment
    environment["OPLAB_LESSONS"] = nil
    environment["XDG_STATE_HOME"] = elsewhere.path
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains("1  Why concurrency: the frozen UI"), "\(text)")
  }

  static var examples: [String] {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Examples")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".oplab") }.sorted().map { folder.appendingPathComponent($0).path }
  }

  @Test("Every example script runs twice to the same bytes, and save then run reproduces its world", arguments: examples)
  func exampleIsDeterministic(_ path: String) throws {
    let first = try oplab(["run", path])
    let second = try oplab(["run", path])
    #expect(first.status == 0, "\(first.err)")
    #expect(first.out == second.out)
    let saved = try temporaryFile("saved.oplab", "")
    let script = try String(contentsOfFile: path, encoding: .utf8)
    let original = try oplab([], stdin: script + "\nsave \(saved)\nevents\n")
    let replayed = try oplab([], stdin: "source \(saved)\nevents\n")
    let events = { (out: String) in out.components(separatedBy: "\nt=0 #0 ").last ?? "" }
    #expect(events(original.out) == events(replayed.out))
    #expect(!events(original.out).isEmpty)
  }
}
