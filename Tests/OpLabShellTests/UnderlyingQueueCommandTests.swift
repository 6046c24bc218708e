import OpLabCore
import OpLabRender
import Testing

@testable import OpLabShell

/// `dispatch` and `underlying` in the shell: what `status` and `why` say of a queue on a
/// serial dispatch queue, the refusals with their hints, and Tab completion.
@Suite struct UnderlyingQueueCommandTests {
  func run(_ lines: [String], _ lab: Interpreter = Interpreter()) -> (String, [Diagnostic]) {
    var out = ""
    var errors: [Diagnostic] = []
    for line in lines {
      let reply = lab.execute(line)
      out += reply.output
      if let e = reply.error { errors.append(e) }
    }
    return (out, errors)
  }

  static let world = ["dispatch x qos userInitiated", "queue q max 2", "underlying q x", "op a on q takes 2", "op b on q takes 2"]

  @Test("status shows the dispatch queue, who waits on it, OperationQueue.current's underlyingQueue and the QoS the work runs at")
  func status() {
    let lab = Interpreter()
    let (echo, errors) = run(Self.world, lab)
    #expect(errors.isEmpty)
    #expect(echo.contains("  t=0  dispatch queue x created (serial, qos userInitiated)\n"))
    #expect(echo.contains("  t=0  q underlyingQueue = x (serial, qos userInitiated)\n"))
    let status = lab.execute("status").output
    #expect(status.contains("q: max 2, qos default, underlyingQueue x (serial, qos userInitiated)\n"), "\(status)")
    #expect(status.contains("  a  executing since t=0 — qos userInitiated (its underlying queue's)\n"), "\(status)")
    #expect(status.contains("  b  dispatched, waiting on x (serial) for the work item before it — qos\n     userInitiated"), "\(status)")
    #expect(
      status.contains("runs on a thread of dispatch queue x, not the main thread:\n      OperationQueue.current is q (its underlyingQueue is x)\n"),
      "\(status)")
    #expect(status.contains("dispatch queue x: serial, qos userInitiated; underlying queue of q\n  running a's work item; waiting: b\n"), "\(status)")
    let why = lab.execute("why b").output
    let flat = why.replacing("\n  ", with: " ")
    #expect(flat.contains("its queue handed it to x, its underlying dispatch queue, which is serial: it waited there"), "\(why)")
    #expect(flat.contains("Now: b holds a slot of its queue, dispatched to x, a serial dispatch queue: it starts when the work item of a"), "\(why)")
  }

  @Test("Setting underlyingQueue on a busy queue is refused with the platform's consequence and a hint; the world is unchanged")
  func refusedWhileBusy() {
    let lab = Interpreter()
    _ = run(Self.world, lab)
    let events = lab.execute("events").output
    let (_, errors) = run(["underlying q nil"], lab)
    #expect(
      errors.first?.message
        == "q has 2 unfinished operations: setting its underlyingQueue now raises NSInvalidArgumentException (Apple's documentation: only while operationCount is 0)"
    )
    #expect(errors.first?.hint == "set it before adding operations, or after `wait q` (or `undo` back to there)")
    #expect(lab.execute("events").output == events)
    let (out, after) = run(["wait q", "underlying q nil", "op c on q takes 1", "op d on q takes 1"], lab)
    #expect(after.isEmpty)
    #expect(out.contains("  t=4  q underlyingQueue = nil (its own dispatch queue again)\n"), "\(out)")
    #expect(out.contains("  t=4  d started on q: a slot was free when it was enqueued\n"), "\(out)")
  }

  @Test("Bad names are refused where they are typed, with what to do instead")
  func badNames() {
    let lab = Interpreter()
    _ = run(["dispatch io", "queue q"], lab)
    let cases: [(String, String, String?)] = [
      ("underlying q iox", "there is no dispatch queue named 'iox'", "did you mean 'io'?"),
      ("underlying q q", "'q' is an OperationQueue, not a dispatch queue", "make one with `dispatch NAME`, e.g. dispatch q-dq"),
      ("underlying nosuch io", "there is no queue named 'nosuch'", "create it first: queue nosuch"),
      ("dispatch q", "the name 'q' is already taken", "pick another name for the dispatch queue"),
      ("dispatch nil", "'nil' is what `underlying QUEUE nil` sets: it cannot name a dispatch queue", "pick another name for the dispatch queue"),
      ("op io takes 1", "the name 'io' is already taken", nil),
    ]
    for (line, message, hint) in cases {
      let (_, errors) = run([line], lab)
      #expect(errors.first?.message == message, "\(line)")
      if let hint { #expect(errors.first?.hint == hint, "\(line)") }
    }
    #expect(lab.world.queue(QueueID(2)).underlyingQueue == nil)
  }

  @Test("The main queue ignores underlyingQueue, saying why on each platform")
  func mainIgnores() {
    let (apple, _) = run(["dispatch x", "underlying main x"])
    let flatApple = apple.replacing("\n       ", with: " ")
    #expect(flatApple.contains("main underlyingQueue = x ignored: the main queue's underlying queue is the main thread's dispatch queue"), "\(apple)")
    let (linux, _) = run(["platform linux", "dispatch x", "underlying main x"])
    #expect(linux.replacing("\n       ", with: " ").contains("main underlyingQueue = x ignored: corelibs wraps it in `if !__mainQ`"), "\(linux)")
  }

  @Test("Tab completes dispatch queue names and nil after `underlying QUEUE`, and the kinds after `dispatch NAME`")
  func completion() {
    let lab = Interpreter()
    _ = run(["dispatch io", "dispatch images concurrent"], lab)
    #expect(Parser.completions(for: "underlying queue ", context: lab.context) == ["images", "io", "nil"])
    #expect(Parser.completions(for: "underlying queue i", context: lab.context) == ["images", "io"])
    #expect(Parser.completions(for: "dispatch net c", context: lab.context) == ["concurrent"])
  }

  @Test("A barrier on a concurrent dispatch queue another queue shares says what the lab leaves out")
  func sharedBarrierNote() {
    let (out, errors) = run([
      "dispatch pool concurrent", "queue q1", "queue q2", "underlying q1 pool", "underlying q2 pool", "op a on q1 takes 2",
      "barrier q1",
    ])
    #expect(errors.isEmpty)
    #expect(
      out.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(
        "note: pool is also q2's underlying queue: on the real pool this barrier also holds back the work other queues submit"),
      "\(out)")
    let (alone, _) = run(["dispatch pool concurrent", "queue q1", "underlying q1 pool", "op a on q1 takes 2", "barrier q1"])
    #expect(!alone.contains("note:"), "\(alone)")
  }

  @Test("The timeline's legend and the exports name a wait on a dispatch queue as such, not as a barrier's")
  func drawnAndExported() {
    let lab = Interpreter()
    _ = run(Self.world + ["run"], lab)
    let timeline = lab.execute("timeline").output
    #expect(timeline.contains("  b      ▒▒██✓\n"), "\(timeline)")
    #expect(timeline.contains("▒ slot held, waiting on dispatch queue"), "\(timeline)")
    #expect(!timeline.contains("behind a barrier"), "\(timeline)")
    #expect(Exporters.mermaid(lab.world).contains("b holding a slot, waiting on a serial dispatch queue"))
    #expect(Exporters.chromeTrace(lab.world).contains(#""name":"holding a slot, waiting on a serial dispatch queue""#))
    #expect(Exporters.eventsJSONLines(lab.world).contains(#""event":"underlyingQueueSet""#))
  }
}
