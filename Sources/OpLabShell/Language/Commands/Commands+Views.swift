import OpLabCore

extension CommandTable {
  /// Ways to look at the world: they change nothing.
  static let views: [CommandSpec] = [
    CommandSpec(
      name: "timeline", aliases: ["tl"],
      arguments: [.many(.queue, key: .queues)],
      options: [.seq([.word("from"), .value(.tick, key: .from)]), .seq([.word("to"), .value(.tick, key: .to)])],
      summary: "draw the timeline of every operation",
      details: "One lane per operation, grouped by queue, over the ticks so far.",
      examples: ["timeline", "timeline downloads from 0 to 20"],
      build: { m throws(ParseError) in
        .timeline(queues: try m.all(.queues, \.name), from: try m.get(.from, \.number), to: try m.get(.to, \.number))
      }),
    CommandSpec(
      name: "events", aliases: ["log"],
      arguments: [.optional(.value(.op, key: .op))],
      options: [],
      summary: "list every event with its reason (or one operation's)",
      details: "The trace: one line per transition, with the tick and why it happened.",
      examples: ["events", "events d2"],
      build: { m throws(ParseError) in .events(op: try m.get(.op, \.name)) }),
    CommandSpec(
      name: "slots", aliases: [],
      arguments: [.value(.queue, key: .queue)],
      options: [],
      summary: "show which operation held each of a queue's slots, and when",
      details: "Each start takes the lowest free slot; each finish frees it. Shows how maxConcurrentOperationCount was used.",
      examples: ["slots downloads"],
      build: { m throws(ParseError) in .slots(queue: try m.need(.queue, \.name)) }),
    CommandSpec(
      name: "narrate", aliases: [],
      arguments: [.optional(.value(.op, key: .op))],
      options: [],
      summary: "tell what happened as plain sentences (or one operation's story)",
      details: "The events as sentences, one per line, without drawing: good for screen readers.",
      examples: ["narrate", "narrate f2"],
      build: { m throws(ParseError) in .narrate(op: try m.get(.op, \.name)) }),
    CommandSpec(
      name: "why", aliases: [],
      arguments: [.value(.op, key: .op)],
      options: [],
      summary: "explain an operation's story from the trace",
      details: """
        What it waited for, when and why it started, what went ahead of it, what cancellation
        did, and what holds it now, followed down to the root: the dependency that never calls
        finish(), the suspended or full queue, the cycle, the operation never added, the deadlock.
        """,
      examples: ["why f2"],
      build: { m throws(ParseError) in .why(op: try m.need(.op, \.name)) }),
    CommandSpec(
      name: "status", aliases: ["st"],
      arguments: [],
      options: [],
      summary: "show every queue and operation now",
      details: """
        Per queue: limit, suspension and counts, and what the queue reports: operationCount and
        the operations array, in insertion order (barriers left out). Per operation: its state,
        then isReady, isExecuting, isFinished and isCancelled as its properties read now, its
        dependencies, its execution blocks, its gate, and while it runs OperationQueue.current
        inside it (its queue, and whether that is the main thread). When nothing more can
        happen, how many are unfinished.
        """,
      examples: ["status"],
      build: { _ in .status }),
    CommandSpec(
      name: "graph", aliases: [],
      arguments: [],
      options: [],
      summary: "show the dependency graph",
      details: "Each operation with what it depends on; cycles are marked.",
      examples: ["graph"],
      build: { _ in .graph }),
    CommandSpec(
      name: "swift", aliases: [],
      arguments: [.optional(.value(.opOrQueue, key: .target))],
      options: [],
      summary: "show the Swift behind what you typed (or one operation's or queue's)",
      details: """
        The program that plays this world on the real OperationQueue: exactly the main.swift
        `export swift DIR` writes, so what you read is what runs. Each command that made the
        world is under a `// command` line, as the Foundation calls it stands for: a queue is an
        OperationQueue with its maxConcurrentOperationCount and qualityOfService; an operation a
        BlockOperation, or an Operation subclass whose main() shows how it checks isCancelled,
        bails or fails; `async` the asynchronous pattern with its KVO, a forgotten finish()
        marked; dependencies, priorities, cancel, suspend, barriers and waits as their calls.
        Steps take a tick each on shared variables held in a Mutex; a call into the user
        interface is @MainActor, as in an app. work(ticks:) stands for the real work and
        sleep(untilTick:) for the main thread idling until the lab's next command. The Lab.…
        lines are the harness's hooks, each commented: Lab.watch(op) prints an operation's
        start and finish, the lab's own waits run on a thread of their own, taps and frames
        come on the main run loop. A `run` is the clock moving on: the work goes on, and the
        program's end waits for it. Cores have no code. With a name, the lines about that
        operation or queue. `set swift-echo on` shows each command's Swift as you type it.
        The code fits 76 columns and is never re-wrapped.
        """,
      examples: ["swift", "swift d1", "swift downloads"],
      build: { m throws(ParseError) in .swift(target: try m.get(.target, \.name)) }),
    CommandSpec(
      name: "real", aliases: [],
      arguments: [.optional(.value(.positive, key: .ms))],
      options: [],
      summary: "run this world on Foundation's real OperationQueue and compare (N ms a tick, default 50)",
      details: """
        Plays the commands that made this world, in their order and at their ticks, on this
        process's OperationQueue, with operations whose work sleeps N ms a tick (10 to 2000). Then
        draws each operation's lab row with its real row under it, in the same columns, marks
        every difference, and lists them: an outcome, a start or a finish more than 0.35 of a tick
        apart, or two operations started in the other order. Closer than that is timing noise
        (threads wake a little late), and only counted. The run is limited to 30 s (Ctrl-C stops
        it). Taps, frames and cores are not played: the lab plays the user, the display and the
        machine. This process runs swift-corelibs-foundation, so `platform linux` is the mode to
        compare with; under `platform apple` a difference may be a Darwin behaviour.
        """,
      examples: ["real", "real 20"],
      build: { m throws(ParseError) in .real(msPerTick: try m.get(.ms, \.number)) }),
  ]
}
