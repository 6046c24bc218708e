import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// Sessions through a real pseudo-terminal: two labs at once, and recovery after `kill -9`
/// of a lab whose `source` or `run` was stopped by Ctrl-C.
extension TerminalTests {
  /// Starts a session without waiting for it: call the result to wait and get its output.
  func startSession(_ bursts: [String], state: URL, arguments: [String] = []) throws -> () -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Self.driver.path, EndToEndTests.binary.path] + arguments + ["--"] + bursts
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm"
    environment["XDG_STATE_HOME"] = state.path
    environment["LANG"] = "C.UTF-8"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    return {
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: data, as: UTF8.self)
    }
  }

  /// Waits until a lab has journalled its first command in `state` (at most 120 s): it has
  /// started and holds its journal's lock.
  func waitForJournal(in state: URL) throws {
    let sessions = state.appendingPathComponent("oplab/sessions")
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: sessions.path)) ?? []
      if names.contains(where: { $0.hasSuffix(".journal") && !$0.hasPrefix(".") }) { return }
      Thread.sleep(forTimeInterval: 0.05)
    }
    Issue.record("no lab journalled a command in \(sessions.path) within 120 s")
  }

  func stateFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
  }

  @Test("Two labs at once: the second neither takes nor deletes the first's journal, and --recover restores all of the first's commands")
  func twoLabsJournal() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    // The first lab goes on only when the test says so (a file appears), not after a fixed
    // time: on a busy machine it may not even have started by then.
    let go = state.appendingPathComponent("go")
    let first = try startSession(
      ["op a takes 3\\r", "<WAIT a started>", "<FILE \(go.path)>", "step 1\\r", "op c after a\\r", "<WAIT c enqueued>", "<KILL>"], state: state)
    try waitForJournal(in: state)
    let second = try session(["op b takes 1\\r", "\\x04"], state: state)
    _ = FileManager.default.createFile(atPath: go.path, contents: nil)
    #expect(!second.contains("ended without quitting"), "the first lab's live journal was taken for a leftover: \(second)")
    #expect(second.hasSuffix("\nexit 0\n"), "\(second)")
    let firstOut = first()
    #expect(firstOut.hasSuffix("\nexit -9\n"), "\(firstOut)")
    let recovered = try session(["status\\r", "\\x04"], state: state, arguments: ["--recover"])
    #expect(recovered.contains("Recovered the last session: 3 commands replayed; the clock is at t=1."), "\(recovered)")
    #expect(recovered.contains("c  pending (waiting on dependencies)"), "\(recovered)")
  }

  @Test("Two labs that quit at once both keep their lines in the history")
  func twoLabsHistory() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let go = state.appendingPathComponent("go")
    let first = try startSession(["op alpha\\r", "<WAIT alpha started>", "<FILE \(go.path)>", "step 1\\r", "\\x04"], state: state)
    try waitForJournal(in: state)
    let second = try session(["op beta\\r", "\\x04"], state: state)  // saves first
    _ = FileManager.default.createFile(atPath: go.path, contents: nil)
    #expect(second.hasSuffix("\nexit 0\n"), "\(second)")
    #expect(first().hasSuffix("\nexit 0\n"))
    let history = try String(contentsOf: state.appendingPathComponent("oplab/history"), encoding: .utf8)
    #expect(history == "_HiStOrY_V2_\nop\\040beta\nop\\040alpha\nstep\\0401\n", "\(history)")
    var info = stat()
    #expect(stat(state.appendingPathComponent("oplab/history").path, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  @Test("After Ctrl-C stopped a source and then kill -9, --recover replays the lines that ran, not the whole file")
  func recoverInterruptedSource() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let script = state.appendingPathComponent("big.oplab")
    try (["queue q max 1"] + (1...20_000).map { "op o\($0) on q takes 1" }).joined(separator: "\n")
      .write(to: script, atomically: true, encoding: .utf8)
    // The lab blocks writing the source's output while nothing reads it; Ctrl-C then stops it.
    let first = try session(["<HOLD>source \(script.path)\\r", "\\x03", "<SLEEP 3>", "<KILL>"], state: state)
    #expect(unwrapped(first).contains("the lines from there on did not run"), "\(first.suffix(300))")
    let recovered = try session(["save \(state.path)/after.oplab\\r", "\\x04"], state: state, arguments: ["--recover"])
    let replayed = try #require(unwrapped(recovered).firstMatch(of: /Recovered the last session: (\d+) commands replayed/)?.output.1)
    let count = try #require(Int(replayed))
    #expect(count > 1 && count < 20_001, "\(recovered.suffix(300))")
    #expect(recovered.contains("saved \(count) commands to"), "\(recovered.suffix(300))")
  }

  @Test("After Ctrl-C stopped a run and then kill -9, --recover brings the clock back to where the run stopped")
  func recoverInterruptedRun() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let first = try session(
      // The run ends by itself after 100,000 frames (about a second here): Ctrl-C comes 0.3 s in.
      ["frames every 1\\r", "op a on main takes 3000000000\\r", "<QUICK>run\\r", "<SLEEP 0.25>", "\\x03", "<SLEEP 1>", "<KILL>"], state: state)
    let stopped = try #require(first.firstMatch(of: /interrupted at t=(\d+);/)?.output.1, "\(first.suffix(300))")
    let recovered = try session(["\\x04"], state: state, arguments: ["--recover"])
    #expect(recovered.contains("Recovered the last session: 3 commands replayed; the clock is at t=\(stopped)."), "\(recovered)")
  }

  @Test("Several unfinished sessions: the start says how many; --recover lists them and restores the one chosen")
  func chooseAmongLeftovers() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    _ = try session(["op first\\r", "<KILL>"], state: state)
    Thread.sleep(forTimeInterval: 1.1)  // a later modification time
    _ = try session(["op second\\r", "step 2\\r", "<KILL>"], state: state)
    let told = try session(["\\x04"], state: state)
    // Wrapped to the terminal's 80 columns, at a space.
    #expect(told.contains("2 sessions ended without quitting (2 and 1 commands). `oplab --recover` lists\r\n  them to choose from."), "\(told)")
    let chosen = try session(["7\\r", "2\\r", "status\\r", "\\x04"], state: state, arguments: ["--recover"])
    #expect(chosen.contains("  1. 2 commands, the last at "), "\(chosen)")
    #expect(chosen.contains(": step 2\r\n  2. 1 command, the last at "), "\(chosen)")
    #expect(chosen.contains("Type a number from 1 to 2, Enter for the most recent, or n for none."), "\(chosen)")
    // The older of the two was chosen: it is named by when it was last used.
    #expect(unwrapped(chosen).contains("Recovered the session last used at "), "\(chosen)")
    #expect(unwrapped(chosen).contains(": 1 command replayed; the clock is at t=0."), "\(chosen)")
    #expect(unwrapped(chosen).contains("1 other unfinished session left; `oplab --recover` again to choose."), "\(chosen)")
    let last = try session(["\\x04"], state: state, arguments: ["--recover"])
    #expect(last.contains("Recovered the last session: 2 commands replayed; the clock is at t=2."), "\(last)")
  }
}

extension TerminalTests {
  @Test("Through make run, Ctrl-C at the prompt reaches only the lab: Ctrl-D then ends make with status 0 and no make error")
  func makeRunInterrupt() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let bin = EndToEndTests.binary.deletingLastPathComponent().path
    // SWIFT=: skips the build (the tests' own binary is used); make stays the lab's parent.
    let out = try session(
      ["op a takes 2\\r", "run\\r", "half a line", "\\x03", "\\x03", "\\x04"], state: state,
      program: "/usr/bin/make", arguments: ["-s", "-C", root.path, "run", "SWIFT=:", "BIN=\(bin)"])
    #expect(out.contains("idle at t=2: every operation has finished"), "\(out)")
    #expect(out.contains("half a line^C"), "\(out)")
    #expect(!out.contains("make: ***"), "\(out)")
    #expect(!out.contains("Interrupt"), "\(out)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out)")
  }
}

extension TerminalTests {
  @Test("On a terminal, clear clears the screen; the world is as it was")
  func clearOnTerminal() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(["op a takes 3\\r", "step 1\\r", "clear\\r", "status\\r", "\\x04"], state: state)
    let cleared = try #require(out.range(of: "\u{1B}[H\u{1B}[2J\u{1B}[3J"), "\(out)")
    #expect(out[cleared.upperBound...].contains("a  executing since t=0"), "\(out)")
    #expect(out.hasSuffix("\nexit 0\n"))
  }
}

extension TerminalTests {
  @Test("A second Tab does not print the same list again")
  func secondTab() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(["op alpha\\r", "op alps\\r", "why al\\t", "\\t", "\\t", "\\t", "ha\\r", "\\x04"], state: state)
    // The first Tab completes the common part, the second lists, the next ones do not list again.
    #expect(out.components(separatedBy: "alpha  alps").count - 1 == 1, "\(out)")
    #expect(out.contains("alpha was created at t=0."), "\(out)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out)")
  }

  @Test("Tab lists again once the list is gone: after Ctrl-U and the same word retyped, on a new line, after Ctrl-L and after clear")
  func tabAfterKillAndClear() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let list = "alpha  alps"
    let out = try session(
      [
        "op alpha\\r", "<NEXT oplab t=0> >", "op alps\\r", "<NEXT oplab t=0> >",
        "why alp\\t", "<NEXT \(list)>",  // listed once
        "\\x15", "why alp", "<NEXT why alp>", "\\t", "<NEXT \(list)>",  // Ctrl-U, the same word again: listed again
        "\\x15\\x19", "<NEXT why alp>", "ha\\r", "<NEXT alpha was created at t=0.>",  // Ctrl-U still keeps the line for Ctrl-Y
        "why alp\\t", "<NEXT \(list)>",  // a new line: listed again
        "\\x0c", "<NEXT why alp>", "\\t", "<NEXT \(list)>",  // Ctrl-L cleared the screen: listed again
        "\\x15clear\\r", "<NEXT \u{1B}[3J>", "why alp\\t", "<NEXT \(list)>",  // after clear: listed again
        "\\x03", "<NEXT oplab t=0> >", "\\x04",
      ], state: state, environment: ["PTY_ROWS": "24", "PTY_COLS": "80"])
    #expect(out.components(separatedBy: list).count - 1 == 5, "\(out)")
    #expect(out.contains("alpha was created at t=0."), "\(out)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out)")
  }

  @Test("More candidates than the screen holds: Tab asks first, 'n' shows nothing, the next Tab asks again and 'y' shows them")
  func displayAll() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let script = state.appendingPathComponent("many.oplab")
    try ((1...400).map { "op o\($0)" }).joined(separator: "\n").write(to: script, atomically: true, encoding: .utf8)
    let out = try session(["source \(script.path)\\r", "<SLEEP 3>", "why o\\t", "n", "\\t", "y", "\\x03", "\\x04"], state: state)
    let asked = out.components(separatedBy: "Display all 400 possibilities? (y or n)")
    #expect(asked.count - 1 == 2, "\(out.suffix(600))")
    // Nothing listed after 'n'; after 'y', every candidate once.
    #expect(asked.count == 3 && !asked[1].contains("o399") && asked[2].components(separatedBy: "o399").count - 1 == 1, "\(out.suffix(600))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }
}

extension TerminalTests {
  /// `source FILE` of a script making `n` operations, typed as one burst.
  func sourceOps(_ n: Int) throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-ops-\(UUID().uuidString).oplab")
    try (1...n).map { "op o\($0) takes 1" }.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    return "source \(file.path)\\r"
  }

  /// A terminal of 24 rows and 80 columns, with `PAGER` as given (`nil`: unset), the lab
  /// working in `directory` (`nil`: the tests' own working folder).
  func pagedSession(_ bursts: [String], pager: String?, arguments: [String] = [], directory: URL? = nil) throws -> String {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    var environment = ["PTY_ROWS": "24", "PTY_COLS": "80"]
    if let pager { environment["PAGER"] = pager }
    let base = ProcessInfo.processInfo.environment["PAGER"]
    if pager == nil, base != nil { environment["PAGER"] = Pager.lessCommand }  // the default, whatever the runner has
    return try session(bursts, state: state, arguments: arguments, environment: environment, directory: directory)
  }

  @Test("A view taller than the screen goes through less -FRXK: q leaves it at the first page, and the lab goes on")
  func pagerForTallViews() throws {
    let ops = [try sourceOps(40)]
    let out = try pagedSession(ops + ["<SLEEP 1>", "events\\r", "<SLEEP 1>", "q", "<SLEEP 1>", "why o40\\r", "\\x04"], pager: nil)
    let events = try #require(out.range(of: "oplab t=0> events"), "\(out.suffix(500))")
    let after = out[events.upperBound...]
    #expect(after.contains("t=0 #3 o1 enqueued on queue"), "\(after.prefix(400))")
    #expect(!after.contains("o40 started on queue"), "the whole output was printed, not paged: \(after.suffix(400))")
    #expect(after.contains("o40 was created at t=0."), "the lab did not go on after the pager: \(after.suffix(400))")
    // less says its keys (Enter there moves a line only).
    #expect(after.contains("space: next page  b: back  q: done"), "\(after.prefix(2000))")
    #expect(out.hasSuffix("\nexit 0\n"))
  }

  @Test("Without PAGER the pager is less with a prompt naming its keys (more where there is no less); an empty PAGER or cat pages nothing")
  func pagerChoice() {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let hasLess = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/less") }
    #expect(Pager.command(environment: ["PATH": path]) == (hasLess ? Pager.lessCommand : "more"))
    #expect(Pager.command(environment: ["PATH": path, "PAGER": " "]) == nil)
    #expect(Pager.command(environment: ["PATH": path, "PAGER": "cat"]) == nil)
    #expect(Pager.command(environment: ["PATH": path, "PAGER": "most"]) == "most")
  }

  @Test("A view that fits, or PAGER=cat, is printed as it is")
  func noPagerWhenItFitsOrCat() throws {
    let short = try pagedSession(["op a takes 1\\r", "events\\r", "\\x04"], pager: "/bin/false")
    #expect(short.contains("t=0  a enqueued on queue"), "\(short)")
    #expect(!short.contains("printed above"), "\(short)")  // through /bin/false, the view is printed with that line
    let ops = [try sourceOps(40)]
    let cat = try pagedSession(ops + ["<SLEEP 1>", "events\\r", "<SLEEP 1>", "\\x04"], pager: "cat")
    let events = try #require(cat.range(of: "oplab t=0> events"), "\(cat.suffix(300))")
    #expect(cat[events.upperBound...].contains("o40 started on queue: a slot was free"), "\(cat.suffix(300))")
  }
}

extension TerminalTests {
  @Test("A lab started with --platform linux is recovered as a Linux world")
  func recoverKeepsPlatform() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    _ = try session(["op a takes 3\\r", "<KILL>"], state: state, arguments: ["--platform", "linux"])
    let recovered = try session(["platform\\r", "\\x04"], state: state, arguments: ["--recover"])
    #expect(recovered.contains("Recovered the last session: 2 commands replayed; the clock is at t=0."), "\(recovered)")
    #expect(recovered.contains("platform linux: swift-corelibs-foundation on Linux"), "\(recovered)")
  }
}

extension TerminalTests {
  @Test("Ctrl-C stops source of a stream that never ends (/dev/zero), and the lab goes on")
  func interruptEndlessSource() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(["source /dev/zero\\r", "<SLEEP 1>", "\\x03", "<SLEEP 1>", "op a\\r", "\\x04"], state: state)
    #expect(unwrapped(out).contains("more than the 65,536 a line may have, so none of it ran"), "\(out.suffix(400))")
    #expect(out.contains("a started on queue"), "\(out.suffix(400))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(200))")
  }
}

extension TerminalTests {
  @Test("SIGTERM during a long interactive export stops it cleanly: no temporary file, and the session stays recoverable")
  func terminateDuringExport() throws {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let script = state.appendingPathComponent("w.oplab")
    // 30,000 operations, a hundred to a line: typed one to a line, a debug build on a busy
    // machine takes most of a minute to source them.
    let lines = (0..<300).map { line in "op " + (1...100).map { "o\(line * 100 + $0)" }.joined(separator: ",") + " on q takes 1" }
    try (["queue q max 2"] + lines + ["run"]).joined(separator: "\n").write(to: script, atomically: true, encoding: .utf8)
    let target = state.appendingPathComponent("out/big.jsonl")
    try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    // The export of 30,000 operations takes over half a second: SIGTERM comes 0.05 s in.
    let out = try session(
      ["source \(script.path)\\r", "<WAIT idle at t=>", "<SLEEP 0.5>", "<QUICK>export events \(target.path)\\r", "<TERM>"], state: state)
    #expect(out.hasSuffix("\nexit 143\n"), "\(out.suffix(300))")
    #expect(!out.contains("wrote events"), "the export finished before the signal: the test proves nothing")
    #expect(try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path) == [])
    let next = try session(["\\x04"], state: state)
    #expect(next.contains("The last session ended without quitting (302 commands)"), "\(next)")
  }
}
