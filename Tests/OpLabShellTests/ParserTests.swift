import OpLabCore
import Testing

@testable import OpLabShell

/// Table-driven tests: every command parses to its typed form, and every class of error
/// is located at the right column with the right message and hint.
@Suite struct ParserTests {
  static let context = ParseContext(operations: ["d1", "d2", "f1"], queues: ["main", "queue", "downloads"])

  struct Case: CustomTestStringConvertible, Sendable {
    var line: String
    var expected: Command
    var testDescription: String { line }
  }

  static let good: [Case] = [
    Case(line: "queue filters", expected: .queue(name: "filters", max: nil, qos: nil)),
    Case(line: "queue filters max 2 qos userInitiated", expected: .queue(name: "filters", max: .count(2), qos: .userInitiated)),
    Case(line: "QUEUE filters qos utility max default", expected: .queue(name: "filters", max: .default, qos: .utility)),
    Case(line: "op x", expected: .op(OperationDefinition(spec: OperationSpec(name: "x")))),
    Case(
      line:
        "op x on downloads takes 5 priority veryhigh qos background after d1, d2 cancel-check every 2 bail-if-dep-cancelled fails at 3 completion 1 hold",
      expected: .op(
        OperationDefinition(
          spec: OperationSpec(
            name: "x", duration: 5, priority: .veryHigh, qualityOfService: .background, cancellation: .every(2),
            bailsIfDependencyCancelled: true, failsAt: 3, completion: 1),
          queue: "downloads", dependencies: ["d1", "d2"], hold: true))),
    Case(line: "op x cancel-check start", expected: .op(OperationDefinition(spec: OperationSpec(name: "x", cancellation: .atStart)))),
    Case(
      line: "op x async forgets-finish takes 2",
      expected: .op(
        OperationDefinition(
          spec: OperationSpec(name: "x", duration: 2, kind: .async(forgetsFinish: true))))),
    Case(line: "op x blocks 1,2,3", expected: .op(OperationDefinition(spec: OperationSpec(name: "x", kind: .blocks([1, 2, 3]))))),
    Case(line: "add d1", expected: .add(ops: ["d1"], queue: nil)),
    Case(line: "add d1 to downloads", expected: .add(ops: ["d1"], queue: "downloads")),
    Case(line: "add d1,d2,f1 to downloads", expected: .add(ops: ["d1", "d2", "f1"], queue: "downloads")),
    Case(line: "add d1,d2 wait", expected: .add(ops: ["d1", "d2"], queue: nil, wait: WaitCaller(fromMain: false))),
    Case(line: "add d1 wait from main to downloads", expected: .add(ops: ["d1"], queue: "downloads", wait: WaitCaller(fromMain: true))),
    Case(line: "add d1,d2 to queue wait until 7", expected: .add(ops: ["d1", "d2"], queue: "queue", wait: WaitCaller(fromMain: false, until: 7))),
    Case(line: "wait d1", expected: .wait(target: "d1", fromMain: false)),
    Case(line: "wait d1 from main until 3", expected: .wait(target: "d1", fromMain: true, until: 3)),
    Case(line: "start d1", expected: .start(op: "d1")),
    Case(line: "blocks d1 +3", expected: .blocks(op: "d1", adding: 3)),
    Case(
      line: "op x only-if-deps-succeeded after d1",
      expected: .op(
        OperationDefinition(
          spec: {
            var s = OperationSpec(name: "x"); s.bailsUnlessDependenciesSucceeded = true; return s
          }(), dependencies: ["d1"]))),
    Case(
      line: "op x,y on downloads takes 2",
      expected: .op(
        {
          var d = OperationDefinition(spec: OperationSpec(name: "x", duration: 2), queue: "downloads")
          d.alike = ["y"]
          return d
        }())),
    Case(line: "depend f1 on d1,d2", expected: .depend(op: "f1", on: ["d1", "d2"])),
    Case(line: "undepend f1 on d1", expected: .undepend(op: "f1", on: "d1")),
    Case(line: "priority f1 low", expected: .priority(op: "f1", .low)),
    Case(line: "qos downloads utility", expected: .qos(target: "downloads", .utility)),
    Case(line: "max downloads 3", expected: .max(queue: "downloads", .count(3))),
    Case(line: "max downloads default", expected: .max(queue: "downloads", .default)),
    Case(line: "cancel d2", expected: .cancel(op: "d2")),
    Case(line: "cancel all", expected: .cancelAll(queue: nil)),
    Case(line: "cancel all downloads", expected: .cancelAll(queue: "downloads")),
    Case(line: "suspend downloads", expected: .suspend(queue: "downloads")),
    Case(line: "resume downloads", expected: .resume(queue: "downloads")),
    Case(line: "barrier downloads takes 2", expected: .barrier(queue: "downloads", takes: 2)),
    Case(line: "wait", expected: .wait(target: nil, fromMain: false)),
    Case(line: "wait downloads", expected: .wait(target: "downloads", fromMain: false)),
    Case(line: "wait downloads from main", expected: .wait(target: "downloads", fromMain: true)),
    Case(line: "wait from main", expected: .wait(target: nil, fromMain: true)),
    Case(line: "wait main from main", expected: .wait(target: "main", fromMain: true)),
    Case(line: "wait downloads from main until 5", expected: .wait(target: "downloads", fromMain: true, until: 5)),
    Case(line: "wait until 4611686018427387906 from main", expected: .wait(target: nil, fromMain: true, until: 4_611_686_018_427_387_906)),
    Case(line: "machine", expected: .machine(cores: nil)),
    Case(line: "machine cores 2", expected: .machine(cores: .some(2))),
    Case(line: "machine cores unlimited", expected: .machine(cores: .some(nil))),
    Case(line: "tap", expected: .tap(at: nil)),
    Case(line: "tap at 4", expected: .tap(at: 4)),
    Case(line: "frames every 2", expected: .frames(every: 2, from: nil, to: nil)),
    Case(line: "frames every 3 from 1 to 30", expected: .frames(every: 3, from: 1, to: 30)),
    Case(line: "frames every 3 to 30 from 1", expected: .frames(every: 3, from: 1, to: 30)),
    Case(line: "frames off", expected: .frames(every: nil, from: nil, to: nil)),
    Case(line: "step", expected: .step(1)),
    Case(line: "s 5   # five ticks", expected: .step(5)),
    Case(line: "run", expected: .run(.idle)),
    Case(line: "run until 12", expected: .run(.tick(12))),
    Case(line: "run until f1", expected: .run(.op("f1"))),
    Case(line: "back", expected: .back(1)),
    Case(line: "back 3", expected: .back(3)),
    Case(line: "goto 4", expected: .goto(4)),
    Case(line: "fork", expected: .fork),
    Case(line: "unfork", expected: .unfork),
    Case(line: "timeline", expected: .timeline(queues: [], from: nil, to: nil)),
    Case(line: "timeline downloads main to 9 from 2", expected: .timeline(queues: ["downloads", "main"], from: 2, to: 9)),
    Case(line: "events", expected: .events(op: nil)),
    Case(line: "events d1", expected: .events(op: "d1")),
    Case(line: "why f1", expected: .why(op: "f1")),
    Case(line: "status", expected: .status),
    Case(line: "graph", expected: .graph),
    Case(line: "export trace out.json", expected: .export(.trace, file: "out.json")),
    Case(line: "export mermaid out.mmd", expected: .export(.mermaid, file: "out.mmd")),
    Case(line: "save s.oplab", expected: .save(file: "s.oplab")),
    Case(line: "source s.oplab", expected: .source(file: "s.oplab")),
    Case(line: "reset", expected: .reset),
    Case(line: "platform Linux", expected: .platform(.linux)),
    Case(line: "platform", expected: .platform(nil)),
    Case(line: "slots downloads", expected: .slots(queue: "downloads")),
    Case(line: "narrate d1", expected: .narrate(op: "d1")),
    Case(line: "help", expected: .help(command: nil)),
    Case(line: "help operation", expected: .help(command: "op")),
    Case(line: "quit", expected: .quit),
  ]

  @Test("Every command parses to its typed form", arguments: good)
  func parses(_ c: Case) throws {
    #expect(try Parser.parse(c.line, context: Self.context) == c.expected)
  }

  @Test("Blank and comment-only lines are nothing")
  func blank() throws {
    #expect(try Parser.parse("   ", context: Self.context) == nil)
    #expect(try Parser.parse("# just a note", context: Self.context) == nil)
  }

  struct ErrorCase: CustomTestStringConvertible, Sendable {
    var line: String
    var column: Int
    var message: String
    var hint: String?
    var testDescription: String { line }
  }

  static let bad: [ErrorCase] = [
    ErrorCase(line: "stpe 3", column: 1, message: "unknown command 'stpe'", hint: "did you mean 'step'? Type 'help' for the list of commands."),
    ErrorCase(line: "add d1,dd2", column: 8, message: "there is no operation named 'dd2'", hint: "did you mean 'd2'?"),
    ErrorCase(
      line: "blocks d1 3", column: 11, message: "'3' does not start with +",
      hint: "write the new block's ticks after a plus sign, as in: blocks d1 +3"),
    ErrorCase(line: "blocks d1 +x", column: 11, message: "'x' is not a whole number"),
    ErrorCase(line: "start downloads", column: 7, message: "'downloads' is a queue, not an operation", hint: "usage: start OP"),
    ErrorCase(line: "frobnicate", column: 1, message: "unknown command 'frobnicate'", hint: "Type 'help' for the list of commands."),
    ErrorCase(
      line: "wait downloads until 5", column: 16, message: "`until` goes with `from main`",
      hint: "a wait from the lab's own thread leaves nothing behind: `run until 5` stops there"),
    ErrorCase(
      line: "op x takse 3", column: 6,
      message:
        "unexpected 'takse'; expected 'on', 'takes', 'priority', 'qos', 'after', 'cancel-check', 'bail-if-dep-cancelled', 'only-if-deps-succeeded', 'gate', 'fails', 'completion', 'async', 'blocks', 'hold', 'does' or 'touches'",
      hint: "did you mean 'takes'?"),
    ErrorCase(
      line: "op x takes", column: 12, message: "'op' needs more: expected a number of ticks (0 or more)",
      hint: "see `help op` for everything 'op' takes"),
    ErrorCase(line: "op x takes -3", column: 12, message: "-3 is too small: use 0 or more"),
    ErrorCase(line: "op x takes 99999999999999999999", column: 12, message: "99999999999999999999 is too large (the largest is 1099511627776)"),
    ErrorCase(line: "op x takes 1099511627777", column: 12, message: "1099511627777 is too large (the largest is 1099511627776)"),
    ErrorCase(line: "step 4611686018427387905", column: 6, message: "4611686018427387905 is too large (the largest is 4611686018427387904)"),
    ErrorCase(line: "op x takes three", column: 12, message: "'three' is not a whole number"),
    ErrorCase(line: "op x on dowloads", column: 9, message: "there is no queue named 'dowloads'", hint: "did you mean 'downloads'?"),
    ErrorCase(line: "op x after d1,dd2", column: 15, message: "there is no operation named 'dd2'", hint: "did you mean 'd2'?"),
    ErrorCase(
      line: "wait d1,d2", column: 6, message: "this takes one name, not the list 'd1,d2'",
      hint: "give one name: lists go to `add` (`add d1,d2 wait` waits for them all), `depend … on` and `op … after`"),
    ErrorCase(line: "why d1,d2", column: 5, message: "this takes one name, not the list 'd1,d2'"),
    ErrorCase(line: "op d1", column: 4, message: "the name 'd1' is already taken", hint: "pick another name, or `reset` to start again"),
    ErrorCase(
      line: "op 9$", column: 4, message: "'9$' is not a valid name", hint: "names use letters, digits, '-', '_' and '.', and start with a letter"),
    ErrorCase(line: "op 7up", column: 4, message: "'7up' is not a valid name"),
    ErrorCase(line: "op all", column: 4, message: "'all' is a reserved word (as in `cancel all`, `max q default`)", hint: "pick another name"),
    ErrorCase(line: "queue d1", column: 7, message: "the name 'd1' is already taken by an operation", hint: "pick another name for the queue"),
    ErrorCase(line: "timeline nope", column: 10, message: "there is no queue named 'nope'"),
    ErrorCase(line: "op x takes 2 takes 3", column: 14, message: "'takes' was already given", hint: "see `help op` for everything 'op' takes"),
    ErrorCase(line: "op x priority urgent", column: 15, message: "'urgent' is not a priority", hint: "use veryLow, low, normal, high or veryHigh"),
    ErrorCase(line: "op x priority hihg", column: 15, message: "'hihg' is not a priority", hint: "did you mean 'high'?"),
    ErrorCase(line: "op x cancel-check sometimes", column: 19, message: "unexpected 'sometimes'; expected 'every', 'start' or 'never'"),
    ErrorCase(line: "op x cancel-check every 0", column: 25, message: "0 is too small: use 1 or more"),
    ErrorCase(line: "cancel d9", column: 8, message: "there is no operation named 'd9'", hint: "did you mean 'd1'?"),
    ErrorCase(line: "suspend d1", column: 9, message: "'d1' is an operation, not a queue"),
    ErrorCase(line: "why downloads", column: 5, message: "'downloads' is a queue, not an operation"),
    ErrorCase(line: "step 1 2", column: 8, message: "unexpected '2'; 'step' takes nothing more", hint: "usage: step [N]"),
    ErrorCase(line: "help foo", column: 6, message: "there is no command 'foo'", hint: "usage: help [COMMAND]"),
    ErrorCase(line: "run until", column: 11, message: "'run' needs more: expected a tick (0 or more) or an operation name"),
    ErrorCase(line: "depend f1 d1", column: 11, message: "unexpected 'd1'; expected 'on'"),
    ErrorCase(line: "platform windows", column: 10, message: "'windows' is not a platform", hint: "use apple or linux"),
    ErrorCase(line: "export picture x", column: 8, message: "unexpected 'picture'; expected 'timeline', 'events', 'trace', 'mermaid' or 'swift'"),
    ErrorCase(line: "help stepp", column: 6, message: "there is no command 'stepp'", hint: "did you mean 'step'?"),
    ErrorCase(line: "op x blocks 1,,2", column: 15, message: "'' is not a whole number"),
  ]

  @Test("Every class of error is located, explained and hinted", arguments: bad)
  func errors(_ c: ErrorCase) {
    do {
      let command = try Parser.parse(c.line, context: Self.context)
      Issue.record("parsed as \(String(describing: command))")
    } catch {
      #expect(error.column == c.column)
      #expect(error.message == c.message)
      if let hint = c.hint { #expect(error.hint == hint) }
    }
  }

  @Test("Completion offers commands, keywords and names from the same table")
  func completion() {
    let ctx = Self.context
    #expect(Parser.completions(for: "st", context: ctx) == ["start", "status", "step"])
    #expect(Parser.completions(for: "op x ", context: ctx).contains("takes"))
    #expect(Parser.completions(for: "op x ta", context: ctx) == ["takes"])
    #expect(Parser.completions(for: "# a note ", context: ctx).isEmpty)  // nothing to complete in a comment
    #expect(Parser.completions(for: "step 2 # st", context: ctx).isEmpty)
    #expect(Parser.completions(for: "op x on ", context: ctx) == ["downloads", "main", "queue"])
    #expect(Parser.completions(for: "op x after d1,", context: ctx) == ["d1,d2", "d1,f1"])
    #expect(Parser.completions(for: "cancel ", context: ctx) == ["all", "d1", "d2", "f1"])
    #expect(Parser.completions(for: "priority d1 v", context: ctx) == ["veryHigh", "veryLow"])
    #expect(Parser.completions(for: "timeline d", context: ctx) == ["downloads"])
    #expect(Parser.completions(for: "op x takes 3 ", context: ctx).contains("takes") == false)
  }

  @Test("A context made from a world finds names through its indexes, as a list context would")
  func worldContext() throws {
    var w = World()
    let q = try w.createQueue(name: "downloads", maxConcurrent: 1)
    try w.addOperation(OperationSpec(name: "d1"), to: q)
    try w.addOperation(OperationSpec(name: "caf\u{E9}"), to: q)
    let ctx = ParseContext(world: w)
    #expect(ctx.isOperation("d1") && ctx.isOperation("cafe\u{301}") && !ctx.isOperation("d2") && !ctx.isOperation("downloads"))
    #expect(ctx.isQueue("downloads") && ctx.isQueue("main") && !ctx.isQueue("d1"))
    #expect(ctx.operations == ["d1", "caf\u{E9}"] && ctx.queues == ["main", "downloads"])
    let list = ParseContext(operations: ctx.operations, queues: ctx.queues)
    for line in ["op d1 takes 2", "op x on d1", "cancel d2", "depend d1 on cafe\u{301}", "queue d1", "suspend downloads"] {
      let a = Result { try Parser.parse(line, context: ctx) }, b = Result { try Parser.parse(line, context: list) }
      #expect(String(describing: a) == String(describing: b), "\(line)")
    }
    var changed = ctx
    changed.operations.append("d9")  // setting the names turns it into a list context
    #expect(changed.isOperation("d9") && changed.isOperation("d1") && changed.isQueue("downloads"))
  }

  @Test("The lexer's whitespace is Unicode's White_Space, with an ASCII shortcut")
  func whitespace() {
    for v in UInt32(0)...0x2100 {
      guard let scalar = Unicode.Scalar(v) else { continue }
      #expect(Lexer.isWhitespace(scalar) == scalar.properties.isWhitespace, "U+\(String(v, radix: 16))")
    }
    #expect(Lexer.tokens("op\u{B}x\u{C}takes\u{85}2").map(\.text) == ["op", "x", "takes", "2"])
  }

  @Test("A plain ASCII line is split from its bytes exactly as the general scan splits it")
  func plainScanAgreesWithGeneralScan() {
    // Mostly the bytes of a script line, with now and then one that sends the line to the
    // general scan (a quote, a backslash, a newline, a non-ASCII letter, CR LF).
    let common: [String] = ["o", "p", "1", "a", " ", " ", "\t", ",", ",", "#", "-", "."]
    let rare: [String] = ["\"", "'", "\\", "\n", "é", "\r\n", "\u{7F}"]
    var rng = SplitMix64(seed: 34)
    var plain = 0
    for _ in 0..<5_000 {
      var line = ""
      for _ in 0..<Int.random(in: 0...24, using: &rng) {
        line += Int.random(in: 0..<40, using: &rng) == 0 ? rare.randomElement(using: &rng) ?? "" : common.randomElement(using: &rng) ?? ""
      }
      let general = Lexer.scanGeneral(line)
      if let fast = line.utf8.withContiguousStorageIfAvailable(Lexer.scanPlain), let fast {
        plain += 1
        #expect(
          fast.tokens == general.tokens && fast.unclosedQuote == general.unclosedQuote && fast.joins == general.joins, "\(line.debugDescription)")
      }
      let scanned = Lexer.scanWithJoins(line)
      #expect(scanned.tokens == general.tokens && scanned.unclosedQuote == general.unclosedQuote && scanned.joins == general.joins)
    }
    #expect(plain > 2_000)  // the sweep does reach the fast path
    #expect(Lexer.canonical("op  a on q after b ,c,  d # note") == "op a on q after b, c, d")
    #expect(Lexer.canonical("export events a#b") == "export events a")
    #expect(Lexer.quotedIfNeeded("a,b") == "a,b" && Lexer.quotedIfNeeded("") == "\"\"" && Lexer.quotedIfNeeded("a\tb") == "\"a\tb\"")
  }

  @Test("A line that is its own canonical form by its bytes is so by its words too")
  func canonicalShortcutAgreesWithScan() {
    // Words, single and double spaces, commas beside spaces or not, and now and then a
    // byte that needs the scan (a tab, `#`, a quote, a backslash, a non-ASCII letter).
    let common: [String] = ["o", "p", "1", "a", " ", " ", ",", "-", "."]
    let rare: [String] = ["\t", "#", "\"", "'", "\\", "é", "\n"]
    var rng = SplitMix64(seed: 3434)
    var shortcut = 0
    for _ in 0..<5_000 {
      var line = ""
      for _ in 0..<Int.random(in: 0...24, using: &rng) {
        line += Int.random(in: 0..<60, using: &rng) == 0 ? rare.randomElement(using: &rng) ?? "" : common.randomElement(using: &rng) ?? ""
      }
      if Lexer.isCanonicalPlain(line) {
        shortcut += 1
        #expect(Lexer.canonicalScanned(line) == line, "\(line.debugDescription)")
      }
      #expect(Lexer.canonical(line) == Lexer.canonicalScanned(line), "\(line.debugDescription)")
    }
    #expect(shortcut > 500)  // the sweep does reach the shortcut
    #expect(Lexer.isCanonicalPlain("op op17 on q takes 5 priority high after op3,op9"))
    #expect(!Lexer.isCanonicalPlain("op a after b, c") && !Lexer.isCanonicalPlain("op a  on q") && !Lexer.isCanonicalPlain(" op a"))
  }

  @Test("Usage lines come from the table")
  func usage() {
    #expect(CommandTable.spec(named: "queue")?.usage == "queue NAME [max default|N] [qos Q]")
    #expect(CommandTable.spec(named: "run")?.usage == "run [until T|OP]")
    #expect(CommandTable.spec(named: "cancel")?.usage == "cancel all [QUEUE]|OP")
  }
}
