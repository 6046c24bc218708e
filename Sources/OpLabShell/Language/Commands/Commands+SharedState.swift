import OpLabCore

extension CommandTable {
  /// Shared variables, locks, and the tools that find races among the orders threads could take.
  static let sharedState: [CommandSpec] = [
    CommandSpec(
      name: "var", aliases: [],
      arguments: [.value(.newName, key: .name)],
      options: [.seq([.word("="), .value(.integer, key: .value)])],
      summary: "create a shared integer variable (default 0) that operations' steps read and write",
      details: """
        A variable every operation can reach, like a property of an object the operations
        share. Operations written with `does` read it into their own register and write the
        register back, a step a tick: two of them doing read, compute, write at once can both
        read the same value, and one update is lost. `status` shows each variable's value.
        Values are Swift `Int`s, and Swift's `+` traps on overflow: a world whose `compute`
        steps could take a value past `Int.max` or `Int.min` is refused.
        """,
      examples: ["var count", "var count = 10"],
      build: { m throws(ParseError) in
        .variable(name: try m.sharedName(), initial: try m.get(.value, \.number) ?? 0)
      }),
    CommandSpec(
      name: "lock", aliases: [],
      arguments: [.value(.newName, key: .name)],
      options: [],
      summary: "create an NSLock that operations' `lock`/`unlock` steps take and release",
      details: """
        An NSLock: `lock L` takes it, or waits while another operation holds it (the waiting
        operation keeps its queue slot; the timeline shows it waiting); `unlock L` releases it,
        and the operation that has waited longest takes it at once (NSLock documents no order
        among waiters: `explore` and `choose` try the others too). It is not reentrant: the
        holder locking it again waits forever. Only the operation that locked it may unlock it.
        """,
      examples: ["lock countLock", "op inc does lock countLock, read count, compute 1, write count, unlock countLock"],
      build: { m throws(ParseError) in .lock(name: try m.sharedName()) }),
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
      examples: ["races"],
      build: { _ in .races }),
    CommandSpec(
      name: "explore", aliases: [],
      arguments: [.optional(.value(.positive, key: .limit))],
      options: [
        .seq([
          .word("expect"),
          .choice([
            .seq([.word("no"), .choice([.word("deadlock"), .word("race"), .seq([.word("lost"), .word("update")])])]),
            .seq([
              .value(.newName, key: .name),
              .choice(ExploreExpectation.Comparison.allCases.map { .word($0.rawValue) }),
              .value(.integer, key: .value),
            ]),
          ]),
        ]),
        .seq([.word("preemptions"), .value(.count, key: .preemptions)]),
      ],
      summary: "run this world in every order its threads could take (at most N runs, default 20000) and count what goes wrong",
      details: """
        Replays the commands that made this world, then runs until idle, once for each order
        of the open points: a tick at which two operations have a step due and one's step
        conflicts with a step the other has left (the same variable, one of them writing, or
        the same lock). At each, every due step runs in turn (what `run` does), or one
        operation steps alone and the others wait a tick, as if their threads were slower:
        choosing again at each tick reaches every interleaving of their steps. Steps that
        conflict with nothing commute, so they are not permuted. An unlock that leaves two or
        more operations waiting is an open point too: each of them may take the lock. Two
        runs are one order when every two conflicting accesses (one variable, one of them a
        write; one lock) came in the same order, reads between two writes in any order; the
        counts are of distinct orders. Of those, counts the ones that end with a data race, a
        lost update, a deadlock, or the user interface touched off the main thread, and each
        final state; prints the shortest order that goes wrong as `order` choices and as a
        script that replays it. Without `expect`, the world itself does not change.

        Which runs it makes: one for each distinct order (optimal dynamic partial-order
        reduction, with sleep sets and wake-up trees), when every operation written as steps
        starts at one tick before any step — on queues that hold none of them back, one at
        most on the main queue or a serial queue, with or without locks — and only `run`,
        `step` or a wait follows the first of those. Not optimal, only sound: when an
        operation of steps waits for a dependency, a serial or the main queue it shares
        with another, or a queue's limit; with `add` steps or completion blocks written as
        steps; or with commands after the clock has moved. There, holding a thread back a
        tick moves finishes and starts, and it tries another choice where two dependent
        accesses (one variable with a write, one lock, two starts, an `add` with anything)
        could come the other way round: every order is met, some more than once. Each run
        after the first starts from the world saved where its choices part from the run
        before.

        While it runs, a terminal shows how far it has got on one line (distinct orders,
        runs, orders a second, the choice it is at); a script, a line on standard error every
        three seconds. Ctrl-C stops it and keeps what it found. When the space looks too big
        for the cap, it says so up front: the normal order's open points, and about how many
        runs every choice would take (a guess from 8 random orders).

        `expect` checks your own invariant at the end of every order: `expect VAR = N` (or !=,
        <, <=, >, >=), `expect no deadlock`, `expect no race`, `expect no lost update`. It
        counts the distinct orders that break it, and loads the one with the fewest choices
        into the world, as `order` choices before the commands that made it, so `timeline`,
        `events` and `why` show it at once (`redo` gives back the world before).

        `preemptions K` tries only the orders with at most K preemptions: open points where
        the choice is not the normal one (threads held back while they could go on, or a lock
        given to another waiter; the same choice at consecutive open points counts once), as
        CHESS and Loom bound their search: most real bugs need one or two. Under a bound every
        choice within it is tried, so runs can outnumber orders. The summary says how many
        preemptions the shortest bad order needed. When the space is too big or the cap stops a
        search, it says how many open points the normal order has and offers the bound.
        """,
      examples: [
        "explore", "explore 200", "explore expect count = 2", "explore expect count >= 1", "explore expect no deadlock",
        "explore preemptions 2", "explore expect count = 2 preemptions 1",
      ],
      build: { m throws(ParseError) in
        var expectation: ExploreExpectation?
        if m.has("deadlock") {
          expectation = .noDeadlock
        } else if m.has("race") {
          expectation = .noRace
        } else if m.has("lost") {
          expectation = .noLostUpdate
        } else if let name = try m.get(.name, \.name) {
          if let t = m.token(.name), !m.context.variables.contains(name) {
            let guess = Suggest.closest(to: name, in: m.context.variables)
            throw ParseError(
              column: t.column, length: t.length, message: "no variable is named '\(name)'",
              hint: guess.map { "did you mean '\($0)'?" } ?? "`var \(name)` makes one; `status` lists the variables")
          }
          let comparison = ExploreExpectation.Comparison.allCases.first { m.has($0.rawValue) } ?? .equal
          expectation = .value(variable: name, comparison, try m.need(.value, \.number))
        }
        let bound = try m.get(.preemptions, \.number)
        if let bound, bound < 0, let t = m.token(.preemptions) {
          throw ParseError(column: t.column, length: t.length, message: "preemptions takes 0 or more, not \(bound)", hint: "explore preemptions 2")
        }
        return .explore(limit: try m.get(.limit, \.number), expect: expectation, preemptions: bound)
      }),
    CommandSpec(
      name: "order", aliases: [],
      arguments: [.optional(.value(.choices, key: .choices))],
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
      examples: ["order 1,1,1", "order 2,0,1", "order 0", "order"],
      build: { m throws(ParseError) in .order(try m.get(.choices, \.numbers) ?? []) }),
    CommandSpec(
      name: "choose", aliases: [],
      arguments: [.optional(.choice([.word("back"), .value(.choices, key: .choices)]))],
      options: [],
      summary: "play the scheduler: show the next open point, choose who steps there, or back out of a choice",
      details: """
        Alone, shows the next open point (see `help explore`): its tick, and the choices —
        0, every due step in turn; 1, 2, …, one operation alone, the others a tick later —
        with each operation's step; at an unlock with several waiters, 0 gives the lock to the
        one that waited longest, 1, 2, … to another. `choose K` makes choice K there and runs the clock
        through that tick, until its steps have run; `choose 1,2` makes two choices, one open point after the other. Choices made so
        far stay in force (see `order`). `choose back` backs out of the last choice: the world
        goes back to just before it was made (taking back what came after it too, which
        `redo` gives back) and the open point is shown again, to choose otherwise. `undo`
        also takes back a `choose` command, whole.
        """,
      examples: ["choose", "choose 1", "choose 2,1", "choose back"],
      build: { m throws(ParseError) in m.has("back") ? .chooseBack : .choose(try m.get(.choices, \.numbers) ?? []) }),
  ]
}

extension Matches {
  /// The name of a new shared variable or lock: refused when something has it already, or
  /// when it is `ui` (the word of `touch ui`).
  func sharedName() throws(ParseError) -> String {
    let name = try need(.name, \.name)
    if let t = token(.name), context.isOperation(name) || context.isQueue(name) || context.isShared(name) {
      throw ParseError(
        column: t.column, length: t.length, message: "the name '\(name)' is already taken",
        hint: "pick another name, or `reset` to start again")
    }
    if let t = token(.name), name.lowercased() == "ui" {
      throw ParseError(column: t.column, length: t.length, message: "'ui' is the user interface (as in `touch ui`)", hint: "pick another name")
    }
    return name
  }
}
