import Foundation
import TestSupport
import Testing

/// Numeric options are bounded, and standard output that cannot be written is an error:
/// the binary is run as a learner's shell or CI would run it.
extension EndToEndTests {
  /// Runs `oplab` with standard output going to `outputPath` (e.g. `/dev/full`).
  func oplab(_ arguments: [String], stdin: String = "", stdoutTo outputPath: String) throws -> Result {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    process.environment = environment
    let input = Pipe(), error = Pipe()
    guard let output = FileHandle(forWritingAtPath: outputPath) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: outputPath])
    }
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try output.close()
    return Result(out: "", err: String(decoding: err, as: UTF8.self), status: process.terminationStatus)
  }

  @Test(
    "--width outside 40...1000 is a usage error (exit 2) that says the range; the ends are accepted",
    arguments: ["39", "1001", "0", "-5", "9223372036854775807", "100000000"])
  func widthOutOfRange(width: String) throws {
    let r = try oplab(["--width=\(width)"], stdin: "op a takes 20\nrun\ntimeline\n")
    #expect(r.status == 2)
    #expect(r.err.hasPrefix("Error: --width takes 40 to 1000 columns, not \(width)\n"))
    #expect(r.out == "")
  }

  @Test("--width 40 and --width 1000 draw a timeline no wider than asked")
  func widthAtTheEnds() throws {
    for width in [40, 1000] {
      let r = try oplab(["--width", "\(width)"], stdin: "op a takes 2000\nop b takes 3 after a\nrun\ntimeline\n")
      #expect(r.status == 0, "width \(width): \(r.err)")
      let start = try #require(r.out.range(of: "\nt=0-2003"), "width \(width): \(r.out)")
      let timeline = r.out[r.out.index(after: start.lowerBound)...]
      #expect(timeline.hasPrefix("t=0-2003"))
      #expect(timeline.split(separator: "\n").allSatisfy { $0.count <= width }, "width \(width)")
    }
  }

  @Test("A batch whose standard output cannot be written says why on standard error, stops, and exits 1")
  func fullStandardOutputInARun() throws {
    let script = try temporaryFile("full.oplab", "op a takes 2\nrun\n")
    let export = (script as NSString).deletingLastPathComponent + "/events.jsonl"
    try "op a takes 2\nrun\nexport events \(export)\n".write(toFile: script, atomically: true, encoding: .utf8)
    let r = try oplab(["run", script], stdoutTo: "/dev/full")
    #expect(r.status == 1)
    #expect(r.err == "oplab: cannot write to standard output: No space left on device\n")
    // The first line's output failed: nothing after it ran.
    #expect(!FileManager.default.fileExists(atPath: export))
  }

  @Test("Piped input and --help with a full standard output exit 1, saying why")
  func fullStandardOutputPipedAndHelp() throws {
    let piped = try oplab([], stdin: "op a takes 2\nstatus\n", stdoutTo: "/dev/full")
    #expect(piped.status == 1)
    #expect(piped.err == "oplab: cannot write to standard output: No space left on device\n")
    let help = try oplab(["--help"], stdoutTo: "/dev/full")
    #expect(help.status == 1)
    #expect(help.err == "oplab: cannot write to standard output: No space left on device\n")
    let list = try oplab(["lesson"], stdoutTo: "/dev/full")
    #expect(list.status == 1)
    #expect(list.err.hasSuffix("oplab: cannot write to standard output: No space left on device\n"))
  }
}

extension EndToEndTests {
  @Test("Piped input with a 3 MB line and no newline: the line is reported located and shortened, skipped, and --keep-going runs the next")
  func hugePipedLine() throws {
    let huge = "op a takes 2 " + String(repeating: "x", count: 3_000_000)
    let r = try oplab(["--keep-going"], stdin: "op b takes 1\n\(huge)\nrun\n")
    #expect(r.status == 1)
    #expect(
      unwrapped(r.err) == """
        <stdin>:2:1: error: this line is 3,000,013 bytes long, more than the 65,536 a line may have, so none of it ran (it began 'op a takes 2 xxxxxxxxxxx…')
          hint: a command fits on one short line; is this the file you meant to pipe in?

        """)
    #expect(r.out.hasSuffix("  idle at t=1: every operation has finished\n"))
    #expect(r.out.utf8.count < 1_000)
  }
}

extension EndToEndTests {
  /// Runs `oplab` with standard error going to `errorPath` (`/dev/full`): the status only.
  func status(_ arguments: [String], stderrTo errorPath: String, stdoutTo outputPath: String = "/dev/null") throws -> Int32 {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = arguments
    guard let error = FileHandle(forWritingAtPath: errorPath), let output = FileHandle(forWritingAtPath: outputPath) else {
      throw CocoaError(.fileWriteUnknown)
    }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test("A standard error that cannot be written is no crash: usage errors still exit 2, --help to a full disk exits 1")
  func fullStandardError() throws {
    #expect(try status(["--width=3"], stderrTo: "/dev/full") == 2)
    #expect(try status(["--help"], stderrTo: "/dev/full", stdoutTo: "/dev/full") == 1)
    #expect(try status(["--version"], stderrTo: "/dev/full", stdoutTo: "/dev/full") == 1)
  }

  @Test("One SIGTERM stops a batch reading a line that never ends (oplab run /dev/zero)")
  func endlessLineStopsAtOneSignal() throws {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = ["run", "/dev/zero"]
    let error = Pipe()
    process.standardError = error
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Once it has opened /dev/zero it is reading it (the batch's signal handlers come
    // first): on a busy machine starting can take longer than any fixed sleep.
    let opened = Date().addingTimeInterval(60)
    let fds = "/proc/\(process.processIdentifier)/fd"
    while process.isRunning, Date() < opened,
      !((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains(where: {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) == "/dev/zero"
      })
    {
      Thread.sleep(forTimeInterval: 0.05)
    }
    Thread.sleep(forTimeInterval: 0.3)
    process.terminate()  // SIGTERM, once
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    let stopped = !process.isRunning
    if !stopped { kill(process.processIdentifier, SIGKILL) }
    #expect(stopped, "one SIGTERM did not stop it")
    let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(err.hasSuffix("oplab: stopped by SIGTERM at /dev/zero:1\n"), "\(err)")
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
  }

  /// A state folder holding one leftover journal with `lines`.
  func leftover(_ lines: [String]) throws -> (state: String, sessions: String) {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-left-\(UUID().uuidString)").path
    let sessions = state + "/oplab/sessions"
    try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
    try lines.map { $0 + "\n" }.joined().write(toFile: sessions + "/session-1-1-abcdef.journal", atomically: true, encoding: .utf8)
    return (state, sessions)
  }

  @Test("--recover with piped input keeps the session recoverable instead of deleting it")
  func recoverWithoutTerminal() throws {
    let (state, sessions) = try leftover(["op a takes 3", "step 1"])
    let first = try oplab(["--recover"], stdin: "status\n", environment: ["XDG_STATE_HOME": state])
    #expect(first.status == 0)
    #expect(first.out.hasPrefix("Recovered the last session: 2 commands replayed; the clock is at t=1.\n"), "\(first.out)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: sessions).count == 1)
    let again = try oplab(["--recover"], stdin: "", environment: ["XDG_STATE_HOME": state])
    #expect(again.out.hasPrefix("Recovered the last session: 2 commands replayed; the clock is at t=1.\n"), "\(again.out)")
  }

  @Test("A recovered line that fails this time is said and left out of the new journal")
  func recoverWithFailures() throws {
    let (state, sessions) = try leftover(["op a takes 3", "op a takes 2", "step 1"])
    let r = try oplab(["--recover"], stdin: "", environment: ["XDG_STATE_HOME": state])
    #expect(
      r.out.hasPrefix(
        """
        Recovered the last session: 2 commands replayed; the clock is at t=1.
        1 command of it failed this time and was left out:
          op a takes 2: the name 'a' is already taken
        """), "\(r.out)")
    let journal = try #require(try FileManager.default.contentsOfDirectory(atPath: sessions).first)
    #expect(try String(contentsOfFile: sessions + "/" + journal, encoding: .utf8) == "op a takes 3\nstep 1\n")
  }
}
