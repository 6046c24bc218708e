import OpLabCore

extension CommandTable {
  /// The clock and the history: stepping, running, travelling back, undo and what-if branches.
  static let clock: [CommandSpec] = [
    CommandSpec(
      name: "step", aliases: ["s"],
      arguments: [.optional(.value(.ticks, key: .ticks))],
      options: [],
      summary: "advance the clock N ticks (default 1)",
      details: "Runs everything due up to the new tick and shows what happened.",
      examples: ["step", "step 5"],
      build: { m throws(ParseError) in .step(try m.get(.ticks, \.number) ?? 1) }),
    CommandSpec(
      name: "run", aliases: ["r"],
      arguments: [.optional(.seq([.word("until"), .choice([.value(.runTarget, key: .tick), .value(.op, key: .op)])]))],
      options: [],
      summary: "run until idle or stalled, or until a tick or an operation finishes",
      details: "Without `until`, runs until nothing is left to do, or until nothing more can happen, and says which.",
      examples: ["run", "run until 10", "run until f2"],
      build: { m throws(ParseError) in
        if let t = try m.get(.tick, \.number) { return .run(.tick(t)) }
        if let op = try m.get(.op, \.name) { return .run(.op(op)) }
        return .run(.idle)
      }),
    CommandSpec(
      name: "back", aliases: ["b"],
      arguments: [.optional(.value(.ticks, key: .ticks))],
      options: [],
      summary: "go back N ticks in time (default 1)",
      details: """
        Restores the world as it was N ticks ago. The commands given after then are dropped, and
        one running across it is cut short there (a `run` becomes `run until T`); the lab names
        them, and `redo`, before anything else changes the world, brings them all back. `fork`
        first keeps them in a branch instead.
        """,
      examples: ["back", "back 3"],
      build: { m throws(ParseError) in .back(try m.get(.ticks, \.number) ?? 1) }),
    CommandSpec(
      name: "goto", aliases: [],
      arguments: [.value(.tick, key: .tick)],
      options: [],
      summary: "go back to tick T",
      details: """
        Restores the world as it was at tick T, with every command given at T. The commands
        given after T are dropped (one running across T is cut short there), and named; `redo`,
        before anything else changes the world, brings them all back.
        """,
      examples: ["goto 4"],
      build: { m throws(ParseError) in .goto(try m.need(.tick, \.number)) }),
    CommandSpec(
      name: "undo", aliases: [],
      arguments: [],
      options: [],
      summary: "take back the last command that changed the world",
      details:
        "Restores the world as it was before that command, even one given at the same tick. `redo` gives it back. Right after `back` or `goto`, it takes the time travel back instead, as `redo` does there.",
      examples: ["undo"],
      build: { _ in .undo }),
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
      examples: ["redo"],
      build: { _ in .redo }),
    CommandSpec(
      name: "clear", aliases: ["cls"],
      arguments: [],
      options: [],
      summary: "clear the screen (the world stays as it is)",
      details: "Clears the terminal, as Ctrl-L does in most shells. Nothing in the world changes; in a script it does nothing.",
      examples: ["clear"],
      build: { _ in .clear }),
    CommandSpec(
      name: "fork", aliases: [],
      arguments: [],
      options: [],
      summary: "start a what-if branch",
      details: "Keeps the present world aside; try something, then `unfork` to return to it.",
      examples: ["fork"],
      build: { _ in .fork }),
    CommandSpec(
      name: "unfork", aliases: [],
      arguments: [],
      options: [],
      summary: "leave the what-if branch and return to the world kept by `fork`",
      details: "Shows where the branch had got to, then restores the world kept by `fork`.",
      examples: ["unfork"],
      build: { _ in .unfork }),
  ]
}
