import OpLabCore

extension CommandTable {
  /// Defining queues and operations and the dependencies between them: the API a learner writes.
  static let operations: [CommandSpec] = [
    CommandSpec(
      name: "queue", aliases: [],
      arguments: [.value(.newName, key: .name)],
      options: [
        .seq([.word("max"), .choice([.word("default"), .value(.count, key: .max)])]),
        .seq([.word("qos"), .value(.qos, key: .qos)]),
      ],
      summary: "create a queue, or change one",
      details: """
        Creates an OperationQueue, or changes an existing one. `max` sets
        maxConcurrentOperationCount: 1 makes a serial queue, `default` (or -1, its value)
        means no limit, and 0 runs nothing at all. Every world starts with `main` (serial, the main thread)
        and `queue` (an OperationQueue() with default settings).
        """,
      examples: ["queue downloads max 2", "queue filters max 1 qos userInitiated", "queue downloads max default"],
      build: { m throws(ParseError) in
        let name = try m.need(.name, \.name)
        let context = m.context
        if context.isOperation(name) || context.isShared(name), let t = m.token(.name) {
          throw ParseError(
            column: t.column, length: t.length,
            message: "the name '\(name)' is already taken by \(context.isOperation(name) ? "an operation" : "a shared variable or lock")",
            hint: "pick another name for the queue")
        }
        return .queue(name: name, max: try m.maxSetting(.max), qos: try m.get(.qos, \.qos))
      }),
    CommandSpec(
      name: "op", aliases: ["operation"],
      arguments: [.value(.newNames, key: .name)],
      options: [
        .seq([.word("on"), .value(.queue, key: .on)]),
        .seq([.word("takes"), .value(.duration, key: .takes)]),
        .seq([.word("priority"), .value(.priority, key: .priority)]),
        .seq([.word("qos"), .value(.qos, key: .qos)]),
        .seq([.word("after"), .value(.opList, key: .after)]),
        .seq([.word("cancel-check"), .choice([.seq([.word("every"), .value(.positive, key: .every)]), .word("start"), .word("never")])]),
        .word("bail-if-dep-cancelled"),
        .word("only-if-deps-succeeded"),
        .seq([.word("gate"), .value(.gateName, key: .gate)]),
        .seq([.word("fails"), .word("at"), .value(.duration, key: .failsAt)]),
        .seq([.word("completion"), .choice([.value(.duration, key: .completion), .seq([.word("does"), .value(.steps, key: .completionDoes)])])]),
        .seq([.word("async"), .optional(.word("forgets-finish"))]),
        .seq([.word("blocks"), .value(.durations, key: .blocks)]),
        .word("hold"),
        .seq([.word("does"), .value(.steps, key: .does)]),
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
      ],
      build: OperationBuilder.build),
    CommandSpec(
      name: "add", aliases: ["enqueue"],
      arguments: [.value(.opList, key: .op)],
      options: [
        .seq([.word("to"), .value(.queue, key: .to)]),
        .seq([
          .word("wait"), .optional(.seq([.word("from"), .word("main")])),
          .optional(.seq([.word("until"), .value(.runTarget, key: .until)])),
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
      examples: ["add later", "add later to downloads", "add a,b,c to serial", "add a,b wait from main"],
      build: { m throws(ParseError) in
        let until = try m.get(.until, \.number)
        return .add(
          ops: try m.need(.op, \.names), queue: try m.get(.to, \.name), wait: m.has("wait") ? WaitCaller(fromMain: m.has("main"), until: until) : nil)
      }),
    CommandSpec(
      name: "depend", aliases: [],
      arguments: [.value(.op, key: .op), .word("on"), .value(.opList, key: .deps)],
      options: [],
      summary: "add dependencies (set them before adding the operation to a queue)",
      details: """
        op.addDependency(dep) for each. Set dependencies before `add`: once an operation is in a
        queue it may start at any moment (on an idle queue, inside addOperation itself), and a
        dependency added after it started holds nothing back. A dependency on a finished
        operation is listed but does not block. Closing a cycle is allowed, as in the real API, with a warning: the
        operations in it never become ready.
        """,
      examples: ["depend f2 on d2", "depend f3 on d1,d2"],
      build: { m throws(ParseError) in .depend(op: try m.need(.op, \.name), on: try m.need(.deps, \.names)) }),
    CommandSpec(
      name: "undepend", aliases: [],
      arguments: [.value(.op, key: .op), .word("on"), .value(.op, key: .dep)],
      options: [],
      summary: "remove a dependency",
      details: """
        op.removeDependency(dep). On Apple platforms an operation whose last unfinished
        dependency is removed becomes ready. On Linux (platform linux) corelibs forgets to
        release it, so it is stranded until cancelled; and removing a finished dependency
        from a cancelled operation that has not started makes it not ready until cancelled again.
        """,
      examples: ["undepend f2 on d2"],
      build: { m throws(ParseError) in .undepend(op: try m.need(.op, \.name), on: try m.need(.dep, \.name)) }),
    CommandSpec(
      name: "priority", aliases: [],
      arguments: [.value(.op, key: .op), .value(.priority, key: .priority)],
      options: [],
      summary: "change an operation's queuePriority",
      details: """
        Sets queuePriority. A waiting operation moves to the tail of its new level; a started
        one is not affected. Priority only orders operations that are ready when a slot frees.
        """,
      examples: ["priority f2 veryHigh"],
      build: { m throws(ParseError) in .priority(op: try m.need(.op, \.name), try m.need(.priority, \.priority)) }),
    CommandSpec(
      name: "qos", aliases: [],
      arguments: [.value(.opOrQueue, key: .target), .value(.qos, key: .qos)],
      options: [],
      summary: "change the quality of service of an operation or a queue",
      details: """
        Sets qualityOfService. An operation without one runs at its queue's; a queue reports
        default (main: userInteractive, which cannot be changed), as Foundation's source does.
        Apple's documentation says background for queues you create: set it when it matters. Under `machine cores N`,
        higher QoS gets more of busy cores. On Linux, an operation with a QoS but no explicit
        priority is filed under a matching priority when enqueued on a queue whose max is not 1.
        """,
      examples: ["qos d1 userInitiated", "qos downloads utility"],
      build: { m throws(ParseError) in .qos(target: try m.need(.target, \.name), try m.need(.qos, \.qos)) }),
    CommandSpec(
      name: "max", aliases: [],
      arguments: [.value(.queue, key: .queue), .choice([.word("default"), .value(.count, key: .max)])],
      options: [],
      summary: "set maxConcurrentOperationCount",
      details: """
        Raising the limit starts waiting operations at once; lowering it never stops running
        ones. 0 runs nothing. The main queue is always serial.
        """,
      examples: ["max downloads 3", "max downloads default"],
      build: { m throws(ParseError) in
        guard let max = try m.maxSetting(.max) else { throw m.missing(.max) }
        return .max(queue: try m.need(.queue, \.name), max)
      }),
  ]
}
