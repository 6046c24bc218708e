import OpLabCore

extension CommandTable {
  /// The machine the world runs on, and the user and the display on the main thread.
  static let machine: [CommandSpec] = [
    CommandSpec(
      name: "machine", aliases: [],
      arguments: [.optional(.seq([.word("cores"), .choice([.word("unlimited"), .value(.positive, key: .cores)])]))],
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
      examples: ["machine cores 2", "machine cores unlimited", "machine"],
      build: { m throws(ParseError) in
        if m.has("unlimited") { return .machine(cores: .some(nil)) }
        return .machine(cores: try m.get(.cores, \.number).map { .some($0) })
      }),
    CommandSpec(
      name: "tap", aliases: [],
      arguments: [.optional(.seq([.word("at"), .value(.tick, key: .at)]))],
      options: [],
      summary: "the user taps the screen now, or at tick T: 1 tick of main-thread work",
      details: """
        A tap needs the main thread for one tick. While the main thread is busy — an operation
        on `main`, a wait called from main — the tap waits, and the user interface is frozen.
        The timeline's `taps` row shows each wait, and `status` the longest.
        """,
      examples: ["tap", "tap at 3"],
      build: { m throws(ParseError) in .tap(at: try m.get(.at, \.number)) }),
    CommandSpec(
      name: "frames", aliases: [],
      arguments: [.choice([.seq([.word("every"), .value(.positive, key: .every)]), .word("off")])],
      options: [
        .seq([.word("from"), .value(.tick, key: .from)]),
        .seq([.word("to"), .value(.tick, key: .to)]),
      ],
      summary: "the display asks for a frame every N ticks (1 tick of main-thread work each)",
      details: """
        Each frame needs the main thread for one tick. A frame that cannot start before the
        next one is due is dropped: the user sees a stutter. Without `to`, frames come as long
        as other work remains (a `run` does not wait for them); `frames off` stops them.
        """,
      examples: ["frames every 2", "frames every 4 from 0 to 40", "frames off"],
      build: { m throws(ParseError) in
        if m.has("off") { return .frames(every: nil, from: nil, to: nil) }
        return .frames(every: try m.get(.every, \.number), from: try m.get(.from, \.number), to: try m.get(.to, \.number))
      }),
  ]
}
