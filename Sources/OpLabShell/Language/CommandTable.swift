/// The command table: the one description of the language. Parsing, `help`, usage
/// lines and Tab completion all read it.
public enum CommandTable {
  /// Every command, in the order `help` lists them.
  public static let all: [CommandSpec] = [
    CommandSpec(
      name: "queue", aliases: [],
      arguments: [.value(.newName, key: "name")],
      options: [
        .seq([.word("max"), .choice([.word("default"), .value(.count, key: "max")])]),
        .seq([.word("qos"), .value(.qos, key: "qos")]),
      ],
      summary: "create a queue, or change one",
      details: """
        Creates an OperationQueue, or changes an existing one. `max` sets
        maxConcurrentOperationCount: 1 makes a serial queue, `default` (or -1, its value)
        means no limit, and 0 runs nothing at all. Every world starts with `main` (serial, the main thread)
        and `queue` (an OperationQueue() with default settings).
        """,
      examples: ["queue downloads max 2", "queue filters max 1 qos userInitiated", "queue downloads max default"]),
    CommandSpec(
      name: "op", aliases: ["operation"],
      arguments: [.value(.newNames, key: "name")],
      options: [
        .seq([.word("on"), .value(.queue, key: "on")]),
        .seq([.word("takes"), .value(.duration, key: "takes")]),
        .seq([.word("priority"), .value(.priority, key: "priority")]),
        .seq([.word("qos"), .value(.qos, key: "qos")]),
        .seq([.word("after"), .value(.opList, key: "after")]),
        .seq([.word("cancel-check"), .choice([.seq([.word("every"), .value(.positive, key: "every")]), .word("start"), .word("never")])]),
        .word("bail-if-dep-cancelled"),
        .word("only-if-deps-succeeded"),
        .seq([.word("gate"), .value(.gateName, key: "gate")]),
        .seq([.word("fails"), .word("at"), .value(.duration, key: "failsAt")]),
        .seq([.word("completion"), .choice([.value(.duration, key: "completion"), .seq([.word("does"), .value(.steps, key: "completionDoes")])])]),
        .seq([.word("async"), .optional(.word("forgets-finish"))]),
        .seq([.word("blocks"), .value(.durations, key: "blocks")]),
        .word("hold"),
        .seq([.word("does"), .value(.steps, key: "does")]),
        .seq([.word("touches"), .word("ui")]),
      ],
      summary: "define an operation; it is enqueued now unless `hold`",
      details: """
        Defines an operation that works for `takes` ticks (default 1) and adds it to a queue
        (`on`, default `queue`) at once, unless `hold` keeps it out of every queue until `add`.
        `after` adds dependencies, on operations of any queue. `cancel-check` says how its code
        polls isCancelled: every N ticks, only at the start of main(), or never (the default,
        like a plain BlockOperation). `bail-if-dep-cancelled` returns at once when a dependency
        was cancelled (the dependencies.contains(where: \\.isCancelled) idiom);
        `only-if-deps-succeeded` returns at once unless every dependency succeeded (a filter
        whose download failed or was cancelled has no image to work on). `fails at N`
        finishes it, failed, after N ticks: isFinished does not mean success. `completion N`
        gives it a completion block of N ticks, which runs after it finishes, even if cancelled,
        on a background thread (Apple promises none in particular; Linux uses a global queue):
        never count on main. `completion does STEPS` writes the block as steps (no locks):
        `completion does add show` hops to main by adding show there.
        `blocks` makes a BlockOperation with one execution block per duration (its blocks are its
        work: no `takes`, `fails at` or `cancel-check` with them). `async` makes an
        asynchronous operation that calls finish() itself; `forgets-finish` never does.
        `gate G` gives it a custom isReady that also waits for gate G (made closed on first
        use; `open G` opens it): super.isReady && (G.isOpen || isCancelled), so a cancel
        still lets it through to be skipped.
        Several names, `op a,b,c …`, define one operation each, alike, and add them with one
        addOperations call (see `help add`: the queue picks once, after all are in).
        `does` writes its work as steps on shared state, one a tick from its start (see
        `help var` and `help lock`): read VAR, compute N (adds N to the operation's own
        register), write VAR, lock L, unlock L, touch ui, add OP (adds OP, defined with `hold`,
        to the queue it was defined for). `takes` then defaults to the number
        of steps; more ticks are plain work after the last step. `touches ui` makes its first
        step a call into the user interface, which belongs on the main thread.
        """,
      examples: [
        "op d1 on downloads takes 5", "op f1 on filters takes 2 after d1",
        "op sync takes 4 cancel-check every 1 completion 1", "op later takes 2 hold", "op t1,t2,t3 on thumbnails takes 2",
        "op inc does read count, compute 1, write count", "op load on network takes 2 completion does add show",
      ]),
    CommandSpec(
      name: "add", aliases: ["enqueue"],
      arguments: [.value(.opList, key: "op")],
      options: [
        .seq([.word("to"), .value(.queue, key: "to")]),
        .seq([
          .word("wait"), .optional(.seq([.word("from"), .word("main")])),
          .optional(.seq([.word("until"), .value(.runTarget, key: "until")])),
        ]),
      ],
      summary: "enqueue operations defined with `hold` (several at once: addOperations)",
      details: """
        queue.addOperation(op). An operation can be added only once: adding one that is
        already in a queue, executing or finished raises NSInvalidArgumentException on Apple
        platforms and crashes on Linux, so the lab refuses it. Without `to`, it goes to the
        queue named when it was defined, or `queue`. A list, `add A,B,C`, is
        addOperations(_:waitUntilFinished:): every operation is inserted first, then the queue
        picks once, so on a serial queue a later one of higher priority starts first (one
        addOperation at a time would have started A at once). If one of them is not new,
        none is added. `wait` blocks the caller until those operations have finished (not
        their completion blocks): the lab's own thread, or with `from main` the main thread,
        which freezes the user interface meanwhile and deadlocks if one of them needs main.
        Made from main, the call is main-thread work: nothing is added until the main thread
        gets to it, after the work already waiting there.
        `until T` stops the clock at T if the wait has not returned (how a wait cut short is saved).
        """,
      examples: ["add later", "add later to downloads", "add a,b,c to serial", "add a,b wait from main"]),
    CommandSpec(
      name: "depend", aliases: [],
      arguments: [.value(.op, key: "op"), .word("on"), .value(.opList, key: "deps")],
      options: [],
      summary: "add dependencies (set them before adding the operation to a queue)",
      details: """
        op.addDependency(dep) for each. Set dependencies before `add`: once an operation is in a
        queue it may start at any moment (on an idle queue, inside addOperation itself), and a
        dependency added after it started holds nothing back. A dependency on a finished
        operation is listed but does not block. Closing a cycle is allowed, as in the real API, with a warning: the
        operations in it never become ready.
        """,
      examples: ["depend f2 on d2", "depend f3 on d1,d2"]),
    CommandSpec(
      name: "undepend", aliases: [],
      arguments: [.value(.op, key: "op"), .word("on"), .value(.op, key: "dep")],
      options: [],
      summary: "remove a dependency",
      details: """
        op.removeDependency(dep). On Apple platforms an operation whose last unfinished
        dependency is removed becomes ready. On Linux (platform linux) corelibs forgets to
        release it, so it is stranded until cancelled; and removing a finished dependency
        from a cancelled operation that has not started makes it not ready until cancelled again.
        """,
      examples: ["undepend f2 on d2"]),
    CommandSpec(
      name: "priority", aliases: [],
      arguments: [.value(.op, key: "op"), .value(.priority, key: "priority")],
      options: [],
      summary: "change an operation's queuePriority",
      details: """
        Sets queuePriority. A waiting operation moves to the tail of its new level; a started
        one is not affected. Priority only orders operations that are ready when a slot frees.
        """,
      examples: ["priority f2 veryHigh"]),
    CommandSpec(
      name: "qos", aliases: [],
      arguments: [.value(.opOrQueue, key: "target"), .value(.qos, key: "qos")],
      options: [],
      summary: "change the quality of service of an operation or a queue",
      details: """
        Sets qualityOfService. An operation without one runs at its queue's; a queue reports
        default (main: userInteractive, which cannot be changed), as Foundation's source does.
        Apple's documentation says background for queues you create: set it when it matters. Under `machine cores N`,
        higher QoS gets more of busy cores. On Linux, an operation with a QoS but no explicit
        priority is filed under a matching priority when enqueued on a queue whose max is not 1.
        """,
      examples: ["qos d1 userInitiated", "qos downloads utility"]),
    CommandSpec(
      name: "max", aliases: [],
      arguments: [.value(.queue, key: "queue"), .choice([.word("default"), .value(.count, key: "max")])],
      options: [],
      summary: "set maxConcurrentOperationCount",
      details: """
        Raising the limit starts waiting operations at once; lowering it never stops running
        ones. 0 runs nothing. The main queue is always serial.
        """,
      examples: ["max downloads 3", "max downloads default"]),
    CommandSpec(
      name: "cancel", aliases: [],
      arguments: [.choice([.seq([.word("all"), .optional(.value(.queue, key: "queue"))]), .value(.op, key: "op")])],
      options: [],
      summary: "cancel an operation, or all of a queue's (`cancel all [QUEUE]`)",
      details: """
        op.cancel() only sets isCancelled: running code stops only where it checks. An
        operation that has not started becomes ready at once, its dependencies ignored, and is
        skipped when the queue starts it, so its dependents can run early. `cancel all` is
        cancelAllOperations(), which cancels one operation at a time: consequences of each
        cancel happen before the next (in a real app they race with the loop; `why` says so).
        Without a queue, every queue is cancelled. On Linux the main queue ignores it.
        """,
      examples: ["cancel d2", "cancel all downloads"]),
    CommandSpec(
      name: "suspend", aliases: [],
      arguments: [.value(.queue, key: "queue")],
      options: [],
      summary: "stop a queue from starting operations",
      details: "isSuspended = true: running operations finish; nothing new starts, not even cancelled ones. The main queue ignores it.",
      examples: ["suspend downloads"]),
    CommandSpec(
      name: "resume", aliases: [],
      arguments: [.value(.queue, key: "queue")],
      options: [],
      summary: "let a suspended queue start operations again",
      details: "isSuspended = false: the queue picks at once.",
      examples: ["resume downloads"]),
    CommandSpec(
      name: "barrier", aliases: [],
      arguments: [.value(.queue, key: "queue")],
      options: [.seq([.word("takes"), .value(.duration, key: "takes")])],
      summary: "add a barrier block to a queue",
      details: """
        addBarrierBlock: runs when everything already in the queue has finished, and holds
        back everything added after it until it is done.
        """,
      examples: ["barrier downloads takes 1"]),
    CommandSpec(
      name: "wait", aliases: [],
      arguments: [.optional(.value(.opOrQueue, key: "target"))],
      options: [.seq([.word("from"), .word("main")]), .seq([.word("until"), .value(.runTarget, key: "until")])],
      summary: "waitUntilAllOperationsAreFinished on a queue (or all), or waitUntilFinished on an operation",
      details: """
        Advances the clock until every operation in the queue has finished (not their
        completion blocks); given an operation, op.waitUntilFinished() waits for that one, with
        the same rules (an operation in no queue that nobody starts never finishes). When it could never return, the lab stops and says why: the real
        call would block forever. `from main` makes the call on the main thread: main-thread
        work that arrives when you type it, so it begins when the main thread gets to it (after
        the work running there and what already waits there) and keeps it until it returns, so
        taps, frames and main-queue work wait too — and work that needs the main thread first
        deadlocks it. `from main until T` stops the clock at T if the wait has not returned
        by then; the main thread stays blocked, and later runs go on waiting (a saved session
        writes a wait from main cut short by Ctrl-C, back or goto this way).
        """,
      examples: ["wait downloads", "wait", "wait d1", "wait downloads from main", "wait d1 from main", "wait downloads from main until 5"]),
    CommandSpec(
      name: "start", aliases: [],
      arguments: [.value(.op, key: "op")],
      options: [],
      summary: "call start() by hand on an operation in no queue, on the main thread",
      details: """
        op.start() called on the main thread, for an operation defined with `hold` and never
        added. The call waits for the main thread like any work there. A synchronous operation
        then runs on the main thread, blocking it (taps and frames wait) until it finishes;
        an asynchronous one begins its work and start() returns at once. The lab's clock does not
        move with the call: `run` sees it through. A cancelled operation
        is finished without running, which releases its dependents: on Linux this is the only
        way to finish one cancelled outside a queue (on Apple platforms cancel() finished it
        already, and start() on a finished operation returns at once). start() on an
        operation that is not ready or is executing raises NSInvalidArgumentException on
        Apple platforms and crashes on Linux; on one in a queue it is an error too (the queue
        starts it): the lab refuses these and changes nothing.
        """,
      examples: ["start later"]),
    CommandSpec(
      name: "open", aliases: [],
      arguments: [.value(.gate, key: "gate")],
      options: [],
      summary: "open a gate: the operations whose isReady waits for it can start",
      details: """
        A gate is a condition an operation waits on besides its dependencies (`op … gate G`):
        its class overrides isReady as super.isReady && (G.isOpen || isCancelled), the
        pattern of operation conditions (the network is reachable, the user has logged in).
        The queue reads isReady only when told: opening the gate posts
        willChangeValue/didChangeValue(forKey: "isReady") for each operation waiting for it,
        so those whose dependencies are done become ready and their queues pick. Without
        that KVO the queue would never look again. Gates open once.
        """,
      examples: ["open network"]),
    CommandSpec(
      name: "blocks", aliases: [],
      arguments: [.value(.op, key: "op"), .value(.plusDuration, key: "block")],
      options: [],
      summary: "add an execution block to a BlockOperation before it starts",
      details: """
        blockOperation.addExecutionBlock { work(ticks: D) }. A `blocks` operation gets one more
        block; a plain operation that just works (`op x takes N`) is a BlockOperation with one
        block, so it becomes two. Once the operation has started or finished, the real call
        raises NSInvalidArgumentException on Apple platforms and crashes on Linux: the lab
        refuses it.
        """,
      examples: ["blocks b +3"]),
    CommandSpec(
      name: "machine", aliases: [],
      arguments: [.optional(.seq([.word("cores"), .choice([.word("unlimited"), .value(.positive, key: "cores")])]))],
      options: [],
      summary: "set the simulated CPU cores (default unlimited); alone, show the machine",
      details: """
        With unlimited cores every running piece of work progresses one tick of work per tick.
        With N cores, when more than N pieces of work run at once (operations, BlockOperation
        blocks, completion blocks, taps and frames), they share the cores and their durations
        stretch. Shares follow quality of service: each level weighs twice the one below
        (background 1, utility 2, default 4, userInitiated 8, userInteractive 16), and no piece
        of work gets more than one core. An operation without its own qos runs at its queue's
        (main: userInteractive). Limit the cores before work starts: from unlimited to N
        while work runs is refused (that work has no shares to go on from). Between limits,
        or back to unlimited, the change takes effect at once: shares are worked out again
        from that tick.
        """,
      examples: ["machine cores 2", "machine cores unlimited", "machine"]),
    CommandSpec(
      name: "tap", aliases: [],
      arguments: [.optional(.seq([.word("at"), .value(.tick, key: "at")]))],
      options: [],
      summary: "the user taps the screen now, or at tick T: 1 tick of main-thread work",
      details: """
        A tap needs the main thread for one tick. While the main thread is busy — an operation
        on `main`, a wait called from main — the tap waits, and the user interface is frozen.
        The timeline's `taps` row shows each wait, and `status` the longest.
        """,
      examples: ["tap", "tap at 3"]),
    CommandSpec(
      name: "frames", aliases: [],
      arguments: [.choice([.seq([.word("every"), .value(.positive, key: "every")]), .word("off")])],
      options: [
        .seq([.word("from"), .value(.tick, key: "from")]),
        .seq([.word("to"), .value(.tick, key: "to")]),
      ],
      summary: "the display asks for a frame every N ticks (1 tick of main-thread work each)",
      details: """
        Each frame needs the main thread for one tick. A frame that cannot start before the
        next one is due is dropped: the user sees a stutter. Without `to`, frames come as long
        as other work remains (a `run` does not wait for them); `frames off` stops them.
        """,
      examples: ["frames every 2", "frames every 4 from 0 to 40", "frames off"]),
    CommandSpec(
      name: "step", aliases: ["s"],
      arguments: [.optional(.value(.ticks, key: "ticks"))],
      options: [],
      summary: "advance the clock N ticks (default 1)",
      details: "Runs everything due up to the new tick and shows what happened.",
      examples: ["step", "step 5"]),
    CommandSpec(
      name: "run", aliases: ["r"],
      arguments: [.optional(.seq([.word("until"), .choice([.value(.runTarget, key: "tick"), .value(.op, key: "op")])]))],
      options: [],
      summary: "run until idle or stalled, or until a tick or an operation finishes",
      details: "Without `until`, runs until nothing is left to do, or until nothing more can happen, and says which.",
      examples: ["run", "run until 10", "run until f2"]),
    CommandSpec(
      name: "back", aliases: ["b"],
      arguments: [.optional(.value(.ticks, key: "ticks"))],
      options: [],
      summary: "go back N ticks in time (default 1)",
      details: """
        Restores the world as it was N ticks ago. The commands given after then are dropped, and
        one running across it is cut short there (a `run` becomes `run until T`); the lab names
        them, and `redo`, before anything else changes the world, brings them all back. `fork`
        first keeps them in a branch instead.
        """,
      examples: ["back", "back 3"]),
    CommandSpec(
      name: "goto", aliases: [],
      arguments: [.value(.tick, key: "tick")],
      options: [],
      summary: "go back to tick T",
      details: """
        Restores the world as it was at tick T, with every command given at T. The commands
        given after T are dropped (one running across T is cut short there), and named; `redo`,
        before anything else changes the world, brings them all back.
        """,
      examples: ["goto 4"]),
    CommandSpec(
      name: "undo", aliases: [],
      arguments: [],
      options: [],
      summary: "take back the last command that changed the world",
      details: "Restores the world as it was before that command, even one given at the same tick. `redo` gives it back. Right after `back` or `goto`, it takes the time travel back instead, as `redo` does there.",
      examples: ["undo"]),
    CommandSpec(
      name: "redo", aliases: [],
      arguments: [],
      options: [],
      summary: "give back what the last `undo` took back, or what time travel dropped",
      details: """
        Runs the command `undo` took back again, from the same world, so it does the same. Each
        `undo` can be redone, last first, until a command changes the world or time travel moves
        the clock: then what was undone is gone. Right after `back` or `goto` (several in a row
        too), `redo` gives back the world as it was before the travel, with every command it
        dropped; a command that changes the world in between forgets it.
        """,
      examples: ["redo"]),
    CommandSpec(
      name: "clear", aliases: ["cls"],
      arguments: [],
      options: [],
      summary: "clear the screen (the world stays as it is)",
      details: "Clears the terminal, as Ctrl-L does in most shells. Nothing in the world changes; in a script it does nothing.",
      examples: ["clear"]),
    CommandSpec(
      name: "fork", aliases: [],
      arguments: [],
      options: [],
      summary: "start a what-if branch",
      details: "Keeps the present world aside; try something, then `unfork` to return to it.",
      examples: ["fork"]),
    CommandSpec(
      name: "unfork", aliases: [],
      arguments: [],
      options: [],
      summary: "leave the what-if branch and return to the world kept by `fork`",
      details: "Shows where the branch had got to, then restores the world kept by `fork`.",
      examples: ["unfork"]),
    CommandSpec(
      name: "timeline", aliases: ["tl"],
      arguments: [.many(.queue, key: "queues")],
      options: [.seq([.word("from"), .value(.tick, key: "from")]), .seq([.word("to"), .value(.tick, key: "to")])],
      summary: "draw the timeline of every operation",
      details: "One lane per operation, grouped by queue, over the ticks so far.",
      examples: ["timeline", "timeline downloads from 0 to 20"]),
    CommandSpec(
      name: "events", aliases: ["log"],
      arguments: [.optional(.value(.op, key: "op"))],
      options: [],
      summary: "list every event with its reason (or one operation's)",
      details: "The trace: one line per transition, with the tick and why it happened.",
      examples: ["events", "events d2"]),
    CommandSpec(
      name: "slots", aliases: [],
      arguments: [.value(.queue, key: "queue")],
      options: [],
      summary: "show which operation held each of a queue's slots, and when",
      details: "Each start takes the lowest free slot; each finish frees it. Shows how maxConcurrentOperationCount was used.",
      examples: ["slots downloads"]),
    CommandSpec(
      name: "narrate", aliases: [],
      arguments: [.optional(.value(.op, key: "op"))],
      options: [],
      summary: "tell what happened as plain sentences (or one operation's story)",
      details: "The events as sentences, one per line, without drawing: good for screen readers.",
      examples: ["narrate", "narrate f2"]),
    CommandSpec(
      name: "why", aliases: [],
      arguments: [.value(.op, key: "op")],
      options: [],
      summary: "explain an operation's story from the trace",
      details: """
        What it waited for, when and why it started, what went ahead of it, what cancellation
        did, and what holds it now, followed down to the root: the dependency that never calls
        finish(), the suspended or full queue, the cycle, the operation never added, the deadlock.
        """,
      examples: ["why f2"]),
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
      examples: ["status"]),
    CommandSpec(
      name: "graph", aliases: [],
      arguments: [],
      options: [],
      summary: "show the dependency graph",
      details: "Each operation with what it depends on; cycles are marked.",
      examples: ["graph"]),
    CommandSpec(
      name: "swift", aliases: [],
      arguments: [.optional(.value(.opOrQueue, key: "target"))],
      options: [],
      summary: "show the Swift behind what you typed (or one operation's or queue's)",
      details: """
        Each command that made this world, as the Foundation calls it stands for: a queue is an
        OperationQueue with its maxConcurrentOperationCount and qualityOfService; an operation a
        BlockOperation, or an Operation subclass whose main() shows how it checks isCancelled,
        bails or fails; `async` the asynchronous pattern with its KVO, a forgotten finish()
        marked; dependencies, priorities, cancel, suspend, barriers and waits as their calls.
        work(ticks:) stands for the real work and sleep(ticks:) for the clock moving on. A `run`
        that ends idle waits as a command-line tool must: with waitUntilAllOperationsAreFinished(),
        or, when main-queue work or completion blocks are involved, by running the main run loop
        until they are done (no queue waits for a completion block). Taps, frames and cores have
        no code: the lab plays the user and the machine. `set swift-echo on` shows each command's
        Swift as you type it. The code fits 76 columns and is never re-wrapped.
        """,
      examples: ["swift", "swift d1", "swift downloads"]),
    CommandSpec(
      name: "real", aliases: [],
      arguments: [.optional(.value(.positive, key: "ms"))],
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
      examples: ["real", "real 20"]),
    CommandSpec(
      name: "export", aliases: [],
      arguments: [
        .choice([.word("timeline"), .word("events"), .word("trace"), .word("mermaid"), .word("swift")]), .value(.file, key: "file"),
      ],
      options: [],
      summary: "write the timeline, events (JSON Lines), a trace (Perfetto/Chrome JSON), Mermaid or a Swift program to a file",
      details: """
        timeline: the text of `timeline`, without colour. events: JSON Lines, one object per
        event (see the README for the schema). trace: Chrome trace-event JSON that
        ui.perfetto.dev opens (1 tick = 1 ms). mermaid: a gantt chart, a section per queue,
        each outcome that is not success marked crit. swift: a main.swift that runs this
        world on the real OperationQueue (the `swift` view's code, one tick = 50 ms) and
        prints each start and finish as an event line: swiftc -swift-version 6 -O main.swift
        -o world && ./world (Swift 6 mode: the code relies on its main-actor rules).
        The file is written
        whole or not at all, and only a regular file: a folder, a device or a FIFO is
        refused, a symbolic link is written through to its file (the link stays), and a
        replaced file keeps its permissions. /dev/stdout, /dev/stderr, /dev/fd/N and
        /proc/self/fd/N name the lab's own output: the text is written there as a stream
        (added to a file the shell sent the output to, never replacing it). Quote a path
        with spaces: "my run.jsonl", 'my run.jsonl' or my\\ run.jsonl.
        """,
      examples: ["export timeline pipeline.txt", "export trace pipeline.json", "export events \"my run.jsonl\""]),
    CommandSpec(
      name: "save", aliases: [],
      arguments: [.value(.file, key: "file")],
      options: [],
      summary: "save this session's commands as a script",
      details: """
        Writes the commands that made the present world; `source FILE` or `oplab run FILE`
        replays them. Written whole or not at all, and only to a regular file (a symbolic
        link is written through; a replaced file keeps its permissions). Quote a path with
        spaces: save "my session.oplab" (or 'my session.oplab', or my\\ session.oplab).
        """,
      examples: ["save pipeline.oplab", "save \"my session.oplab\""]),
    CommandSpec(
      name: "source", aliases: ["load"],
      arguments: [.value(.file, key: "file")],
      options: [],
      summary: "run the commands of a script",
      details: """
        Runs each line as if typed; stops at the first error, which names the file, line and
        column. A `source` line inside a script finds a relative path beside that script;
        typed at the prompt, or inside a script read from a stream (/dev/stdin, a pipe,
        <(…), a FIFO: in no folder of its own), in the current folder. Scripts that source each other are
        refused, the cycle named. Reads files and streams alike (/dev/stdin, a FIFO), with
        LF, CRLF or CR line ends. Quote a path with spaces: source "my run.oplab" (or
        'my run.oplab', or my\\ run.oplab).
        """,
      examples: ["source pipeline.oplab", "source \"my run.oplab\""]),
    CommandSpec(
      name: "reset", aliases: [],
      arguments: [],
      options: [],
      summary: "start again with a fresh world",
      details: "Forgets every queue, operation and event (the platform is kept).",
      examples: ["reset"]),
    CommandSpec(
      name: "platform", aliases: [],
      arguments: [.optional(.value(.platform, key: "platform"))],
      options: [],
      summary: "imitate Apple platforms (default) or Linux's Foundation; alone, show which",
      details: """
        apple follows Darwin's documented behaviour. linux follows swift-corelibs-foundation
        where the two differ: a BlockOperation runs its blocks one after another; an operation
        with a quality of service but no priority is queued at a matching priority;
        removeDependency leaves the operation waiting forever (a corelibs bug); a barrier on
        an empty queue runs at once, even when suspended; cancel() on an operation in no
        queue does not finish it; cancelAllOperations() does nothing on the main queue.
        """,
      examples: ["platform linux"]),
    CommandSpec(
      name: "set", aliases: [],
      arguments: [.optional(.seq([.word("swift-echo"), .choice([.word("on"), .word("off")])]))],
      options: [],
      summary: "change a lab setting; alone, show the settings",
      details: """
        swift-echo on: after each command that changes the world, its Swift on Foundation's
        OperationQueue, in a line or two (`swift` shows the whole program). Off by default.
        """,
      examples: ["set swift-echo on", "set"]),
    CommandSpec(
      name: "help", aliases: ["?"],
      arguments: [.optional(.value(.command, key: "command"))],
      options: [],
      summary: "list the commands, or explain one",
      details: "help COMMAND shows its usage, what it does and examples.",
      examples: ["help", "help op"]),
    CommandSpec(
      name: "quit", aliases: ["exit"],
      arguments: [],
      options: [],
      summary: "leave the lab (Ctrl-D works too)",
      details: "Saves the history and leaves.",
      examples: ["quit"]),
    CommandSpec(
      name: "var", aliases: [],
      arguments: [.value(.newName, key: "name")],
      options: [.seq([.word("="), .value(.integer, key: "value")])],
      summary: "create a shared integer variable (default 0) that operations' steps read and write",
      details: """
        A variable every operation can reach, like a property of an object the operations
        share. Operations written with `does` read it into their own register and write the
        register back, a step a tick: two of them doing read, compute, write at once can both
        read the same value, and one update is lost. `status` shows each variable's value.
        Values are Swift `Int`s, and Swift's `+` traps on overflow: a world whose `compute`
        steps could take a value past `Int.max` or `Int.min` is refused.
        """,
      examples: ["var count", "var count = 10"]),
    CommandSpec(
      name: "lock", aliases: [],
      arguments: [.value(.newName, key: "name")],
      options: [],
      summary: "create an NSLock that operations' `lock`/`unlock` steps take and release",
      details: """
        An NSLock: `lock L` takes it, or waits while another operation holds it (the waiting
        operation keeps its queue slot; the timeline shows it waiting); `unlock L` releases it,
        and the operation that has waited longest takes it at once (NSLock documents no order
        among waiters: `explore` and `choose` try the others too). It is not reentrant: the
        holder locking it again waits forever. Only the operation that locked it may unlock it.
        """,
      examples: ["lock countLock", "op inc does lock countLock, read count, compute 1, write count, unlock countLock"]),
    CommandSpec(
      name: "races", aliases: [],
      arguments: [],
      options: [],
      summary: "report data races, lost updates and user-interface calls off the main thread",
      details: """
        A race detector in the style of ThreadSanitizer, over this run: two accesses to one
        shared variable, at least one a write, by operations that nothing orders, are a data
        race. What orders two operations: a dependency (its finish comes before the dependent's
        start), one serial queue (max 1; main is one), one lock (an unlock comes before the next
        lock), and `wait`. Time alone orders nothing. A lost update is a variable whose final
        value differs from running the operations one at a time, in the order they started.
        A `touch ui` step off the main thread is reported too. A run that ends with any of these
        says so. Only this run's order is checked: `explore` tries the others.
        """,
      examples: ["races"]),
    CommandSpec(
      name: "explore", aliases: [],
      arguments: [.optional(.value(.positive, key: "limit"))],
      options: [],
      summary: "run this world in every order its threads could take (at most N runs, default 20000) and count what goes wrong",
      details: """
        Replays the commands that made this world, then runs until idle, once for each order
        of the open points: a tick at which two operations have a step due and one's step
        conflicts with a step the other has left (the same variable, one of them writing, or
        the same lock). At each, every due step runs in turn (what `run` does), or one
        operation steps alone and the others wait a tick, as if their threads were slower:
        choosing again at each tick reaches every interleaving of their steps. Steps that
        conflict with nothing commute, so they are not permuted. An unlock that leaves two or
        more operations waiting is an open point too: each of them may take the lock. Different choices can still
        give the same order, so it counts distinct orders: two runs are one order when every
        two conflicting accesses (one variable, one of them a write; one lock) came in the
        same order, reads between two writes in any order. Of the distinct orders, counts
        those that end with a data race, a lost update, a deadlock, or the user interface
        touched off the main thread, and each final state; prints the shortest order that
        goes wrong as `order` choices and as a script that replays it. The world itself does
        not change.
        """,
      examples: ["explore", "explore 200"]),
    CommandSpec(
      name: "order", aliases: [],
      arguments: [.optional(.value(.choices, key: "choices"))],
      options: [],
      summary: "choose the order at the open points from now on (the choices `explore` prints)",
      details: """
        At each open point in turn (see `help explore`), choice 0 runs every due step in turn,
        the normal order; choice k runs only the k-th operation with a step due (in the order
        they were defined), and the others' steps wait a tick. Past the last choice, 0.
        `order 0` goes back to the normal order. Give it before `run` to replay an order
        `explore` found. At an unlock with several waiters, 0 gives the lock to the first in
        line, k to the k-th of the others. `order` alone shows the choices made so far (with
        their ticks) and those still to come.
        """,
      examples: ["order 1,1,1", "order 2,0,1", "order 0", "order"]),
    CommandSpec(
      name: "choose", aliases: [],
      arguments: [.optional(.choice([.word("back"), .value(.choices, key: "choices")]))],
      options: [],
      summary: "play the scheduler: show the next open point, choose who steps there, or back out of a choice",
      details: """
        Alone, shows the next open point (see `help explore`): its tick, and the choices —
        0, every due step in turn; 1, 2, …, one operation alone, the others a tick later —
        with each operation's step; at an unlock with several waiters, 0 gives the lock to the
        one that waited longest, 1, 2, … to another. `choose K` makes choice K there and runs the clock to that
        tick; `choose 1,2` makes two choices, one open point after the other. Choices made so
        far stay in force (see `order`). `choose back` backs out of the last choice: the world
        goes back to just before it was made (taking back what came after it too, which
        `redo` gives back) and the open point is shown again, to choose otherwise. `undo`
        also takes back a `choose` command, whole.
        """,
      examples: ["choose", "choose 1", "choose 2,1", "choose back"]),
  ]

  /// Finds a command by name or alias.
  public static func spec(named name: String) -> CommandSpec? {
    let lower = name.lowercased()
    return all.first { $0.name == lower || $0.aliases.contains(lower) }
  }

  /// Every name and alias.
  public static var names: [String] { all.flatMap { [$0.name] + $0.aliases } }
}
