import OpLabCore

extension CommandTable {
  /// Files, settings, help and leaving.
  static let session: [CommandSpec] = [
    CommandSpec(
      name: "export", aliases: [],
      arguments: [
        .choice([.word("timeline"), .word("events"), .word("trace"), .word("mermaid"), .word("swift")]), .value(.file, key: .file),
      ],
      options: [],
      summary: "write the timeline, events (JSON Lines), a trace (Perfetto/Chrome JSON), Mermaid or a Swift program (a file or a package)",
      details: """
        timeline: the text of `timeline`, without colour. events: JSON Lines, one object per
        event (keys t, seq, event, op, queue, from, to, reason, outcome, detail;
        docs/guide.md describes each). trace: Chrome trace-event JSON that
        ui.perfetto.dev opens (1 tick = 1 ms). mermaid: a gantt chart, a section per queue,
        each outcome that is not success marked crit. swift: a program that plays this world
        on the real OperationQueue, one tick = 50 ms, as `real` does: each command at its
        tick, a step a tick on real shared variables and locks, each wait the real call on the
        thread the lab says, taps and frames on the main run loop. It prints each start and
        finish as an event line, the shared variables at the end and a stall, so it can
        disagree with the lab; what it cannot express (cores, an Apple platform on Linux) it
        says. To a FILE.swift: one file, the program first, OpLab's harness after a marker
        (swiftc FILE.swift -o world && ./world). To a folder (any path not ending in .swift,
        made if missing): a SwiftPM package, Package.swift, Sources/NAME/main.swift (the
        program) and Sources/NAME/Harness.swift, so `swift run` in it plays the world; a
        folder with other files in it is refused, a previous export replaced. Both build under
        Swift 6 with complete checking too.
        The file is written
        whole or not at all, and only a regular file: a folder, a device or a FIFO is
        refused, a symbolic link is written through to its file (the link stays), and a
        replaced file keeps its permissions. /dev/stdout, /dev/stderr, /dev/fd/N and
        /proc/self/fd/N name the lab's own output: the text is written there as a stream
        (added to a file the shell sent the output to, never replacing it). Quote a path
        with spaces: "my run.jsonl", 'my run.jsonl' or my\\ run.jsonl.
        """,
      examples: [
        "export timeline pipeline.txt", "export trace pipeline.json", "export events \"my run.jsonl\"",
        "export swift pipeline",
      ],
      build: { m throws(ParseError) in
        guard let kind = ExportKind.allCases.first(where: { m.has($0.rawValue) }) else { throw m.missing(.file) }
        return .export(kind, file: try m.need(.file, \.name))
      }),
    CommandSpec(
      name: "save", aliases: [],
      arguments: [.value(.file, key: .file)],
      options: [],
      summary: "save this session's commands as a script",
      details: """
        Writes the commands that made the present world; `source FILE` or `oplab run FILE`
        replays them. Written whole or not at all, and only to a regular file (a symbolic
        link is written through; a replaced file keeps its permissions). Quote a path with
        spaces: save "my session.oplab" (or 'my session.oplab', or my\\ session.oplab).
        """,
      examples: ["save pipeline.oplab", "save \"my session.oplab\""],
      build: { m throws(ParseError) in .save(file: try m.need(.file, \.name)) }),
    CommandSpec(
      name: "source", aliases: ["load"],
      arguments: [.value(.file, key: .file)],
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
      examples: ["source pipeline.oplab", "source \"my run.oplab\""],
      build: { m throws(ParseError) in .source(file: try m.need(.file, \.name)) }),
    CommandSpec(
      name: "reset", aliases: [],
      arguments: [],
      options: [],
      summary: "start again with a fresh world",
      details: "Forgets every queue, operation and event (the platform is kept).",
      examples: ["reset"],
      build: { _ in .reset }),
    CommandSpec(
      name: "platform", aliases: [],
      arguments: [.optional(.value(.platform, key: .platform))],
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
      examples: ["platform linux"],
      build: { m throws(ParseError) in .platform(try m.get(.platform, \.platform)) }),
    CommandSpec(
      name: "set", aliases: [],
      arguments: [.optional(.seq([.word("swift-echo"), .choice([.word("on"), .word("off")])]))],
      options: [],
      summary: "change a lab setting; alone, show the settings",
      details: """
        swift-echo on: after each command that changes the world, its Swift on Foundation's
        OperationQueue, in a line or two (`swift` shows the whole program). Off by default.
        """,
      examples: ["set swift-echo on", "set"],
      build: { m in .set(swiftEcho: m.has("swift-echo") ? m.has("on") : nil) }),
    CommandSpec(
      name: "help", aliases: ["?"],
      arguments: [.optional(.value(.command, key: .command))],
      options: [],
      summary: "list the commands, or explain one",
      details: "help COMMAND shows its usage, what it does and examples.",
      examples: ["help", "help op"],
      build: { m throws(ParseError) in .help(command: try m.get(.command, \.name)) }),
    CommandSpec(
      name: "quit", aliases: ["exit"],
      arguments: [],
      options: [],
      summary: "leave the lab (Ctrl-D works too)",
      details: "Saves the history and leaves.",
      examples: ["quit"],
      build: { _ in .quit }),
  ]
}
