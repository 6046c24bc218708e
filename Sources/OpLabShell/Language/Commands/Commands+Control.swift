import OpLabCore

extension CommandTable {
  /// What a program does to work already defined: cancel, suspend, resume, barriers, waits, gates.
  static let control: [CommandSpec] = [
    CommandSpec(
      name: "cancel", aliases: [],
      arguments: [.choice([.seq([.word("all"), .optional(.value(.queue, key: .queue))]), .value(.op, key: .op)])],
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
      examples: ["cancel d2", "cancel all downloads"],
      build: { m throws(ParseError) in m.has("all") ? .cancelAll(queue: try m.get(.queue, \.name)) : .cancel(op: try m.need(.op, \.name)) }),
    CommandSpec(
      name: "suspend", aliases: [],
      arguments: [.value(.queue, key: .queue)],
      options: [],
      summary: "stop a queue from starting operations",
      details: "isSuspended = true: running operations finish; nothing new starts, not even cancelled ones. The main queue ignores it.",
      examples: ["suspend downloads"],
      build: { m throws(ParseError) in .suspend(queue: try m.need(.queue, \.name)) }),
    CommandSpec(
      name: "resume", aliases: [],
      arguments: [.value(.queue, key: .queue)],
      options: [],
      summary: "let a suspended queue start operations again",
      details: "isSuspended = false: the queue picks at once.",
      examples: ["resume downloads"],
      build: { m throws(ParseError) in .resume(queue: try m.need(.queue, \.name)) }),
    CommandSpec(
      name: "barrier", aliases: [],
      arguments: [.value(.queue, key: .queue)],
      options: [.seq([.word("takes"), .value(.duration, key: .takes)])],
      summary: "add a barrier block to a queue",
      details: """
        addBarrierBlock: runs when everything already in the queue has finished, and holds
        back everything added after it until it is done.
        """,
      examples: ["barrier downloads takes 1"],
      build: { m throws(ParseError) in .barrier(queue: try m.need(.queue, \.name), takes: try m.get(.takes, \.number) ?? 1) }),
    CommandSpec(
      name: "wait", aliases: [],
      arguments: [.optional(.value(.opOrQueue, key: .target))],
      options: [.seq([.word("from"), .word("main")]), .seq([.word("until"), .value(.runTarget, key: .until)])],
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
      examples: ["wait downloads", "wait", "wait d1", "wait downloads from main", "wait d1 from main", "wait downloads from main until 5"],
      build: { m throws(ParseError) in
        if let t = m.token(.until), !m.has("main") {
          let word = m.tokens.first { $0.text.lowercased() == "until" } ?? t
          throw ParseError(
            column: word.column, length: word.length, message: "`until` goes with `from main`",
            hint: "a wait from the lab's own thread leaves nothing behind: `run until \(t.text)` stops there")
        }
        return .wait(target: try m.get(.target, \.name), fromMain: m.has("main"), until: try m.get(.until, \.number))
      }),
    CommandSpec(
      name: "start", aliases: [],
      arguments: [.value(.op, key: .op)],
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
      examples: ["start later"],
      build: { m throws(ParseError) in .start(op: try m.need(.op, \.name)) }),
    CommandSpec(
      name: "open", aliases: [],
      arguments: [.value(.gate, key: .gate)],
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
      examples: ["open network"],
      build: { m throws(ParseError) in .open(gate: try m.need(.gate, \.name)) }),
    CommandSpec(
      name: "blocks", aliases: [],
      arguments: [.value(.op, key: .op), .value(.plusDuration, key: .block)],
      options: [],
      summary: "add an execution block to a BlockOperation before it starts",
      details: """
        blockOperation.addExecutionBlock { work(ticks: D) }. A `blocks` operation gets one more
        block; a plain operation that just works (`op x takes N`) is a BlockOperation with one
        block, so it becomes two. Once the operation has started or finished, the real call
        raises NSInvalidArgumentException on Apple platforms and crashes on Linux: the lab
        refuses it.
        """,
      examples: ["blocks b +3"],
      build: { m throws(ParseError) in .blocks(op: try m.need(.op, \.name), adding: try m.need(.block, \.number)) }),
  ]
}
