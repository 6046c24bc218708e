import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// The interpreter runs lines against the simulator: output, errors that change nothing,
/// time travel, forks, and sessions saved and replayed.
@Suite struct InterpreterTests {
  func run(_ lines: [String], _ interpreter: Interpreter = Interpreter()) -> (String, [Diagnostic]) {
    var out = ""
    var errors: [Diagnostic] = []
    for line in lines {
      let reply = interpreter.execute(line)
      out += reply.output
      if let e = reply.error { errors.append(e) }
    }
    return (out, errors)
  }

  @Test("Each command echoes the events it caused, with their reasons")
  func echoesEvents() {
    let (out, errors) = run(["queue q max 1", "op a on q takes 2", "op b on q", "step 2"])
    #expect(errors.isEmpty)
    #expect(
      out == """
          queue q created (max 1)
          t=0  a enqueued on q
          t=0  a ready: no unfinished dependencies
          t=0  a started on q: a slot was free when it was enqueued
          t=0  b enqueued on q
          t=0  b ready: no unfinished dependencies
          t=2  a finished (succeeded): work done
          t=2  b started on q: slot freed by a
          now t=2

        """)
  }

  @Test("undo right after time travel takes the travel back; later, it takes back what the travel left of a clock command, and says so")
  func undoAfterBack() {
    let (out, errors) = run(["op a takes 10", "run", "back", "back 2", "undo"])
    #expect(errors.isEmpty)
    #expect(
      unwrapped(out).hasSuffix(
        """
          back at t=7; cut `run until 9` short (kept as `run until 7`): `redo` brings it back
          undid the time travel: back at t=10, with every command it dropped

        """), "\(out)")
    let (later, laterErrors) = run(["op a takes 10", "run", "back 3", "op b takes 1", "undo", "undo", "undo"])
    #expect(laterErrors.isEmpty)
    #expect(
      unwrapped(later).hasSuffix(
        """
          took back `op b takes 1`; the clock is at t=7
          took back `run until 7`; the clock is at t=0
          (what time travel left of a clock command; `run` goes forward again)
          took back `op a takes 10`; the clock is at t=0

        """), "\(later)")
    // Once taken back, the same text typed later is the learner's own: no note.
    let (again, _) = run(["run until 10", "back 2", "op x takes 1", "undo", "undo", "run until 8", "undo"])
    #expect(again.hasSuffix("  took back `run until 8`; the clock is at t=0\n"), "\(again)")
  }

  @Test("A timeline of named queues starts when their first operation came, and its title names them, not a window")
  func namedQueuesTimelineStart() {
    let i = Interpreter()
    _ = run(["op a takes 5", "run", "queue late", "op b on late takes 3", "run"], i)
    let late = i.execute("timeline late").output.split(separator: "\n").map(String.init)
    #expect(late.prefix(4) == ["timeline of late: t=5-8, now t=8 (from its first activity)", "tick     5", "late  max default", "  b      ███✓"])
    #expect(i.execute("timeline").output.hasPrefix("t=0-8, now t=8\n"))
    #expect(i.execute("timeline late from 0").output.hasPrefix("timeline of late: t=0-8, now t=8 (a window: without from and to, all of it)\n"))
    // A suspension before the first operation is part of the queue's story.
    let j = Interpreter()
    _ = run(["queue q", "step 2", "suspend q", "step 3", "op a on q takes 1", "resume q", "run"], j)
    #expect(
      j.execute("timeline q").output.hasPrefix("timeline of q: t=2-6, now t=6 (from its first activity)\n"), "\(j.execute("timeline q").output)")
  }

  @Test("The shares one change gives several jobs are echoed as one line")
  func sharesEchoedTogether() {
    let (out, errors) = run(["machine cores 1", "op a takes 4", "op b takes 4", "op c takes 4"])
    #expect(errors.isEmpty)
    #expect(
      out.hasSuffix(
        """
          t=0  c started on queue: a slot was free when it was enqueued
          t=0  a, b and c run at 1/3 of a core each: 3 running jobs on 1 core

        """), "\(out)")
    #expect(out.contains("t=0  a and b run at 1/2 of a core each: 2 running jobs on 1 core\n"), "\(out)")
  }

  @Test("A limit of -1 is the default, as OperationQueue.defaultMaxConcurrentOperationCount is")
  func minusOneIsTheDefaultLimit() {
    let (out, errors) = run(["queue q max -1", "max q 2", "max q -1", "status"])
    #expect(errors.isEmpty)
    #expect(out.contains("queue q created (max default)\n"), "\(out)")
    #expect(out.contains("q maxConcurrentOperationCount = 2"), "\(out)")
    #expect(out.contains("q maxConcurrentOperationCount = default"), "\(out)")
    #expect(out.contains("q: max default"), "\(out)")
  }

  @Test("An erroneous line changes nothing and says what the real API does")
  func errorsChangeNothing() {
    let i = Interpreter()
    _ = run(["op a takes 3"], i)
    let before = i.world.trace
    let (_, errors) = run(["add a", "op b after zz", "goto 99"], i)
    #expect(
      errors.map(\.message) == [
        "'a' is executing and cannot be added to a queue again: the real addOperation(_:) raises NSInvalidArgumentException",
        "there is no operation named 'zz'",
        "tick 99 is in the future (the clock is at 0)",
      ])
    #expect(errors.map(\.column) == [5, 12, 6])
    #expect(i.world.trace == before)
  }

  @Test("What the main queue ignores is a notice with the reason, per platform, not an error (rules 26, 31, 33, 41)")
  func mainQueueIgnoresWithNotice() {
    let i = Interpreter()
    let (apple, appleErrors) = run(["op a on main takes 3", "suspend main", "max main 3", "qos main utility", "cancel all main"], i)
    #expect(appleErrors.isEmpty)
    #expect(
      unwrapped(apple, width: 80) == """
          t=0  a enqueued on main
          t=0  a ready: no unfinished dependencies
          t=0  a started on main: a slot was free when it was enqueued
          t=0  main isSuspended = true ignored: Darwin's documentation does not say what suspending the main queue does; the lab keeps it running, as corelibs does
          t=0  main maxConcurrentOperationCount = 3 ignored: the main queue runs one operation at a time (Darwin's documentation of OperationQueue.main)
          t=0  main qualityOfService = .utility ignored: the main queue's quality of service is userInteractive and cannot be changed (Darwin's documentation)
          t=0  a cancel requested: cancelAllOperations() on main

        """)
    let l = Interpreter()
    let (linux, linuxErrors) = run(["platform linux", "op a on main takes 3", "cancel all main", "resume main"], l)
    #expect(linuxErrors.isEmpty)
    #expect(
      unwrapped(linux, width: 80) == """
          t=0  platform set to linux
          t=0  a enqueued on main
          t=0  a ready: no unfinished dependencies
          t=0  a started on main: a slot was free when it was enqueued
          t=0  main cancelAllOperations() ignored: corelibs wraps it in `if !__mainQ`, so it does nothing on the main queue
          t=0  main isSuspended = false ignored: corelibs wraps it in `if !__mainQ`, so it does nothing on the main queue

        """)
    #expect(!l.world.operation(l.world.operationID(named: "a")!).isCancelled)
  }

  @Test("run reports a stall with what the real program would do")
  func stallVerdict() {
    let (out, _) = run(["queue q max 1", "suspend q", "op a on q", "run"])
    #expect(
      unwrapped(out).hasSuffix(
        """
          stalled at t=0: nothing more can happen, yet 1 operation is unfinished and would wait forever (anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):
          a is ready, but q is suspended: resume it.

        """))
  }

  @Test("back and goto restore the past; fork and unfork explore a what-if")
  func timeTravel() {
    let i = Interpreter()
    _ = run(["op a takes 5", "op b takes 2 after a", "run"], i)
    #expect(i.world.now == 7)
    _ = run(["back 3"], i)
    #expect(i.world.now == 4)
    #expect(i.world.operation(i.world.operationID(named: "a")!).isFinished == false)
    _ = run(["fork", "cancel a", "run"], i)
    #expect(i.inFork)
    // a never checks isCancelled, so b still waits for a's work to end at t=5.
    #expect(i.world.operation(i.world.operationID(named: "b")!).finishedAt == 7)
    _ = run(["unfork"], i)
    #expect(!i.inFork && i.world.now == 4)
    #expect(i.world.operation(i.world.operationID(named: "a")!).isCancelled == false)
    _ = run(["goto 1"], i)
    #expect(i.world.now == 1)
    #expect(i.script.map(\.text) == ["op a takes 5", "op b takes 2 after a", "run until 1"])
  }

  @Test("save writes the effective commands; replaying them rebuilds the same world, byte for byte")
  func saveAndReplay() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-save-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("s.oplab").path
    let i = Interpreter()
    let (_, errors) = run(
      [
        "queue q max 1", "op a on q takes 3", "op b on q takes 2", "step 5", "back 2", "cancel b", "oops",
        "platform linux", "op c blocks 1,2", "run", "save \(file)",
      ], i)
    #expect(errors.count == 1)
    let saved = try String(contentsOfFile: file, encoding: .utf8)
    #expect(
      saved.split(separator: "\n").dropFirst().map(String.init) == [
        "queue q max 1", "op a on q takes 3", "op b on q takes 2", "run until 3", "cancel b", "platform linux",
        "op c blocks 1,2", "run",
      ])
    let replay = Interpreter()
    let (_, replayErrors) = run(["source \(file)"], replay)
    #expect(replayErrors.isEmpty)
    #expect(replay.execute("events").output == i.execute("events").output)
    #expect(replay.execute("timeline").output == i.execute("timeline").output)
    // Saving or exporting over a file says so.
    #expect(unwrapped(i.execute("save \(file)").output) == "  saved 8 commands to \(file) (it replaced the file there)\n")
    let other = dir.appendingPathComponent("t.txt").path
    #expect(unwrapped(i.execute("export timeline \(other)").output) == "  wrote timeline to \(other)\n")
    #expect(unwrapped(i.execute("export events \(other)").output) == "  wrote events to \(other) (it replaced the file there)\n")
  }

  @Test("With streamOutput set, source hands each line's output over as the line runs")
  func sourceStreams() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-stream-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("s.oplab").path
    try "op a takes 2\nstep 1\nrun\n".write(toFile: file, atomically: true, encoding: .utf8)
    let quiet = Interpreter()
    let whole = quiet.execute("source \(file)").output
    let i = Interpreter()
    var chunks: [String] = []
    i.streamOutput = { chunks.append($0) }
    let reply = i.execute("source \(file)")
    #expect(reply.error == nil && reply.output.isEmpty)
    #expect(chunks.count == 3)  // one per line (the newline ending the last line starts none)
    #expect(chunks.joined() == whole)
    #expect(chunks[1] == "  now t=1\n")
  }

  @Test("source stops at the first error, naming the file, line and column; a script sourcing itself stops")
  func sourceErrors() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-src-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let bad = dir.appendingPathComponent("bad.oplab").path
    try "op a\r\nop b takes x\r\nop c\n".write(toFile: bad, atomically: true, encoding: .utf8)
    let i = Interpreter()
    let reply = i.execute("source \(bad)")
    #expect(reply.error?.file == bad)
    #expect(reply.error?.line == 2)
    #expect(reply.error?.column == 12)
    #expect(i.world.operationID(named: "c") == nil)
    let loop = dir.appendingPathComponent("loop.oplab").path
    try "source \(loop)\n".write(toFile: loop, atomically: true, encoding: .utf8)
    let looped = Interpreter().execute("source \(loop)")
    #expect(looped.error?.message == "the script sources itself: \(loop) → \(loop)")
    #expect(Interpreter().execute("source \(dir.path)/missing.oplab").error?.message == "cannot read '\(dir.path)/missing.oplab': no such file")
  }

  @Test("export writes whole files, and an unwritable path leaves nothing behind")
  func exports() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-exp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = Interpreter()
    _ = run(["op a takes 2", "run"], i)
    for kind in ["timeline", "events", "trace", "mermaid"] {
      let path = dir.appendingPathComponent("out.\(kind)").path
      #expect(i.execute("export \(kind) \(path)").error == nil)
      #expect(FileManager.default.fileExists(atPath: path))
    }
    let trace = try String(contentsOfFile: dir.appendingPathComponent("out.trace").path, encoding: .utf8)
    let json = try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any]
    #expect((json?["traceEvents"] as? [Any])?.isEmpty == false)
    let bad = i.execute("export events \(dir.path)/no/such/dir/x.txt")
    #expect(bad.error?.message.hasPrefix("cannot write") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out.events", "out.mermaid", "out.timeline", "out.trace"])
    // Ctrl-C during an export abandons it: the old file stays as it was, no temporary file is left.
    let before = try String(contentsOfFile: dir.appendingPathComponent("out.events").path, encoding: .utf8)
    _ = run(["op b takes 1", "run"], i)
    let stopped = i.execute("export events \(dir.path)/out.events", interrupt: { true })
    #expect(stopped.error?.message == "cannot write '\(dir.path)/out.events': interrupted, so nothing was written")
    #expect(try String(contentsOfFile: dir.appendingPathComponent("out.events").path, encoding: .utf8) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out.events", "out.mermaid", "out.timeline", "out.trace"])
  }

  @Test(
    "A run, step or wait stopped by Ctrl-C is saved as a run to the tick it reached, so the saved session replays to the same world",
    arguments: ["run", "step 5000", "wait q", "run until 4000"])
  func interruptedRunIsSavedAsReached(_ command: String) throws {
    let i = Interpreter()
    _ = i.execute("queue q max 1")
    for n in 0..<3_000 { _ = i.execute("op o\(n) on q takes 1") }
    let reply = i.execute(command, interrupt: { true })
    let t = i.world.now
    #expect(reply.error == nil && reply.output.hasSuffix("  interrupted at t=\(t); the world is as it was at that tick\n"))
    #expect(t > 0 && t < 3_000)
    #expect(i.script.last?.text == "run until \(t)")
    let again = Interpreter()
    for entry in i.script { #expect(again.execute(entry.text).error == nil) }
    #expect(again.world.now == t && again.world.trace == i.world.trace)
    // Run to the end, the command is saved as typed.
    _ = i.execute("run")
    #expect(i.script.last?.text == "run")
  }

  @Test("A wait from main stopped by Ctrl-C keeps the main thread blocked and is saved as a wait from main until the tick")
  func interruptedWaitFromMain() throws {
    let i = Interpreter()
    _ = i.execute("queue q max 1")
    for n in 0..<3_000 { _ = i.execute("op o\(n) on q takes 1") }
    let reply = i.execute("wait q from main", interrupt: { true })
    let t = i.world.now
    #expect(reply.output.hasSuffix("  interrupted at t=\(t); the world is as it was at that tick\n"))
    #expect(t > 0 && t < 3_000 && i.world.mainThreadWait != nil)
    #expect(i.script.last?.text == "wait q from main until \(t)")
    let again = Interpreter()
    for entry in i.script { #expect(again.execute(entry.text).error == nil) }
    #expect(again.world.now == t && again.world.trace == i.world.trace)
    let more = i.execute("wait q from main until \(t + 10)")
    #expect(
      unwrapped(more.output).hasSuffix(
        "  now t=\(t + 10)\n  the wait has not returned: the main thread stays blocked, and later runs go on waiting\n"))
    _ = i.execute("run")
    #expect(i.world.mainThreadWait == nil && i.world.now == 3_000)
  }

  @Test("Ctrl-C stops a sourced script between two lines")
  func interruptedSource() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-source-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("s.oplab").path
    try "op a takes 1\nop b takes 1\n".write(toFile: file, atomically: true, encoding: .utf8)
    let i = Interpreter()
    var asked = 0
    let reply = i.execute(
      "source \(file)",
      interrupt: {
        asked += 1; return asked > 1
      })
    #expect(reply.error == nil)
    #expect(unwrapped(reply.output).hasSuffix("  interrupted before \(file):2; the lines from there on did not run\n"))
    #expect(i.world.operationNames == ["a"] && i.script.map(\.text) == ["op a takes 1"])
  }

  @Test("help lists every command from the table and explains one")
  func help() {
    let all = Interpreter().execute("help").output
    for spec in CommandTable.all { #expect(all.contains("  \(spec.name) ")) }
    let one = Interpreter().execute("help cancel").output
    #expect(one.hasPrefix("usage: cancel all [QUEUE]|OP\n"))
    #expect(one.contains("cancelAllOperations()"))
  }

  @Test("The smaller commands say what a learner needs: platform, max 0, back past the start, goto forward")
  func smallCommands() {
    let i = Interpreter()
    #expect(
      i.execute("platform").output == """
          platform apple: Darwin's documented behaviour (iOS, macOS); `platform
            apple|linux` switches

        """)
    #expect(i.script.isEmpty)
    #expect(i.execute("queue q").error == nil)
    #expect(i.execute("queue q").output == "  queue q exists: max default, qos default\n")
    #expect(i.script.map(\.text) == ["queue q"])
    #expect(i.execute("max q 0").output.contains("note: with max 0 nothing on q will start until the limit is raised"))
    _ = i.execute("step 3")
    #expect(
      unwrapped(i.execute("back 10").output)
        == "  back at t=0 (only 3 ticks had passed; this is the start); cut `step 3` short (kept as `run until 0`): `redo` brings it back\n")
    let forward = i.execute("goto 2")
    #expect(forward.error?.message == "tick 2 is in the future (the clock is at 0)")
    #expect(forward.error?.hint?.contains("fork") == true)
    #expect(i.execute("timeline from 5").error?.message == "tick 5 has not happened yet (the clock is at 0)")
  }

  @Test("slots and narrate answer from the trace")
  func slotsAndNarrate() {
    let i = Interpreter()
    _ = run(["queue q max 2", "op a on q takes 2", "op b on q takes 1", "op c on q takes 1", "run"], i)
    #expect(
      i.execute("slots q").output == """
        q: max 2, 2 slots used so far
          slot 1: a t=0-2
          slot 2: b t=0-1, c t=1-2

        """)
    #expect(
      i.execute("narrate c").output == """
        At tick 0, c was created.
        Then c was enqueued on q.
        Then c became ready: no unfinished dependencies.
        At tick 1, c started on q: slot freed by b.
        At tick 2, c finished (succeeded): work done.

        """)
  }

  @Test("undo takes back the last world-changing command, even at the same tick, and replays to the same world")
  func undo() {
    let i = Interpreter()
    _ = run(["queue t", "suspend t", "op a on t takes 2", "resume t"], i)
    let beforeResume = Interpreter()
    _ = run(["queue t", "suspend t", "op a on t takes 2"], beforeResume)
    #expect(i.execute("undo").output == "  took back `resume t`; the clock is at t=0\n")
    #expect(i.world.trace == beforeResume.world.trace)
    #expect(i.script.map(\.text) == ["queue t", "suspend t", "op a on t takes 2"])
    _ = run(["undo", "undo", "undo"], i)
    #expect(i.execute("undo").error?.message == "there is nothing to undo")
  }

  @Test("reset starts a fresh world but keeps the platform, and a saved script says so")
  func resetKeepsPlatform() {
    let i = Interpreter()
    _ = run(["platform linux", "op a takes 2", "reset"], i)
    #expect(i.world.platform == .linux)
    #expect(i.world.operationID(named: "a") == nil)
    #expect(i.script.map(\.text) == ["platform linux"])
  }

  @Test("why names an operation held behind a running barrier as held there, skipped or started when the block returns, not as waiting for a resume")
  func heldBehindBarrierWhy() {
    var options = ShellOptions()
    options.width = 300
    let i = Interpreter(options: options)
    for line in [
      "queue q max 2", "op a on q takes 1", "barrier q takes 3", "step 1", "op b on q takes 2", "op c on q takes 1", "suspend q", "cancel b",
      "step 1",
    ] {
      _ = i.execute(line)
    }
    #expect(
      i.execute("why b").output.hasSuffix(
        "Now: b holds a slot of q, dispatched behind the barrier block running there: it is skipped when the block returns, suspended or not.\n"))
    // c found no slot when it was added: it waits in the queue, which the suspension holds.
    #expect(i.execute("why c").output.hasSuffix("Now: c is ready, but q is suspended: resume it.\n"))
    _ = i.execute("run")
    let b = i.world.operationID(named: "b").map { i.world.history(of: $0) }
    #expect(b.flatMap { $0.started }.map { i.world.trace[$0].kind == .skipped && i.world.trace[$0].tick == 4 } == true)
  }
}
