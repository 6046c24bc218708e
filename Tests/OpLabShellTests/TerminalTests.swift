import Foundation
import TestSupport
import Testing

/// Drives the interactive shell through a real pseudo-terminal, as a learner's keyboard
/// would: Tab completion, history with Up, line editing, Ctrl-C and Ctrl-D.
///
/// `Fixtures/pty_drive.py` (Python's `pty` module) gives the lab a controlling terminal,
/// so Ctrl-C arrives as SIGINT just as in a terminal window.
@Suite(.serialized) struct TerminalTests {
  static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/pty_drive.py")

  /// Runs `program` (the lab, by default) on a pseudo-terminal, typing `bursts`, in
  /// `directory` (`nil`: the tests' own working folder).
  func session(
    _ bursts: [String], state: URL, program: String? = nil, arguments: [String] = [], environment extra: [String: String] = [:],
    directory: URL? = nil
  ) throws -> String {
    let process = Process()
    if let directory { process.currentDirectoryURL = directory }
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Self.driver.path, program ?? EndToEndTests.binary.path] + arguments + ["--"] + bursts
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm"
    environment["XDG_STATE_HOME"] = state.path
    environment["LANG"] = "C.UTF-8"
    environment.merge(extra) { $1 }
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  @Test("Tab completes, Up recalls history, Ctrl-C drops the line, Ctrl-D leaves and saves history")
  func keys() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(
      [
        "op alpha takes 2\\r",
        "why al\\t", "\\r",  // Tab completes the operation name
        "\\x1b[A", "\\r",  // Up recalls `why alpha`
        "stp", "\\x7f\\x7ftep\\r",  // two backspaces, then the fix
        "nonsense here", "\\x03",  // Ctrl-C drops the partial line
        "\\x04",  // Ctrl-D on an empty line leaves
      ], state: state)
    #expect(out.hasSuffix("\nexit 0\n"), "output: \(out)")
    #expect(out.contains("oplab t=0> "))
    #expect(out.components(separatedBy: "alpha was created at t=0.").count - 1 == 2, "output: \(out)")
    #expect(out.contains("now t=1"), "output: \(out)")
    #expect(out.contains("nonsense here^C"), "output: \(out)")
    #expect(!out.contains("unknown command 'nonsense'"))
    let history = try String(contentsOf: state.appendingPathComponent("oplab/history"), encoding: .utf8)
    #expect(history.hasPrefix("_HiStOrY_V2_"))
    #expect(history.contains("why\\040alpha"))
    #expect(!history.contains("nonsense"))
  }

  @Test("Ctrl-C while a long output is printed stops the printing, not the lab")
  func interruptLongOutput() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    // 3,000 operations: `events` prints 12,000 lines (about 600 kB), far more than a
    // terminal buffers, so the lab is still writing when Ctrl-C comes.
    let script = state.appendingPathComponent("big.oplab")
    try (["queue q max 2"] + (1...3000).map { "op o\($0) on q takes 3" }).joined(separator: "\n")
      .write(to: script, atomically: true, encoding: .utf8)
    let out = try session(["source \(script.path)\\r", "<WAIT o3000 ready>", "<HOLD>events\\r", "\\x03", "step\\r", "\\x04"], state: state)
    #expect(out.hasSuffix("\nexit 0\n"), "the lab ended: \(out.suffix(400))")
    #expect(out.contains("output stopped (Ctrl-C); the command itself was done"), "\(out.suffix(400))")
    // `source` printed o3000's events once; the whole `events` output would print them again.
    #expect(out.components(separatedBy: "o3000 ready").count - 1 == 1, "the whole output was printed: \(out.suffix(400))")
    #expect(out.contains("now t=1"), "the session did not go on: \(out.suffix(400))")
  }

  @Test("After kill -9 the journal restores the session with --recover; a clean exit leaves nothing to recover")
  func recoverAfterKill() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let first = try session(["queue q max 1\\r", "op a on q takes 3\\r", "oops\\r", "step 2\\r", "<KILL>"], state: state)
    #expect(first.hasSuffix("\nexit -9\n"), "output: \(first)")
    let second = try session(["\\x04"], state: state)
    #expect(unwrapped(second).contains("The last session ended without quitting (3 commands). `oplab --recover` restores it."), "output: \(second)")
    let recovered = try session(["status\\r", "\\x04"], state: state, arguments: ["--recover"])
    #expect(recovered.contains("Recovered the last session: 3 commands replayed; the clock is at t=2."), "output: \(recovered)")
    #expect(recovered.contains("a  executing since t=0"), "output: \(recovered)")
    // That session ended cleanly: nothing is left to recover.
    let nothing = try session([], state: state, arguments: ["--recover"])
    #expect(nothing.contains("there is no unfinished session to recover"), "output: \(nothing)")
  }

  @Test("SIGTERM at the prompt saves the history and keeps the session for --recover")
  func terminate() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(["op a takes 3\\r", "step 1\\r", "<TERM>"], state: state)
    #expect(out.hasSuffix("\nexit 143\n"), "output: \(out)")
    let history = try String(contentsOf: state.appendingPathComponent("oplab/history"), encoding: .utf8)
    #expect(history.contains("step\\0401"))
    let next = try session(["\\x04"], state: state)
    #expect(next.contains("The last session ended without quitting (2 commands)."), "output: \(next)")
  }
}
