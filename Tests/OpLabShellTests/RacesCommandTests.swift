import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// `races`, the run's race summary, and the views of shared state (#22).
@Suite struct RacesCommandTests {
  func run(_ lines: [String], width: Int = 1000, ascii: Bool = false) -> (String, [Diagnostic]) {
    var options = ShellOptions()
    options.width = width
    options.widthGiven = true
    options.ascii = ascii
    let interpreter = Interpreter(options: options)
    var out = ""
    var errors: [Diagnostic] = []
    for line in lines {
      let reply = interpreter.execute(line)
      out += reply.output
      if let e = reply.error { errors.append(e) }
    }
    return (out, errors)
  }

  static let racy = ["var count = 0", "op a does read count, compute 1, write count", "op b does read count, compute 1, write count"]

  @Test("A racy run says so at its end, and `races` explains each finding and what would order it")
  func racyRun() {
    let (out, errors) = run(Self.racy + ["op draw touches ui", "run", "races"])
    #expect(errors.isEmpty)
    #expect(
      out.contains(
        "  idle at t=3: every operation has finished\n  race detector: 1 data race, 1 lost update, 1 user-interface call off the main thread (see `races`)\n"
      ))
    #expect(
      out.hasSuffix(
        """
        data race on count: b read it at t=0 and a wrote it at t=2, and nothing orders the two.
          To order them: make one depend on the other (depend a on b), make queue serial (max queue 1), or hold one lock around the read-modify-write in each (lock L, …, unlock L).
        lost update: count ended at 1, but run one at a time, in the order they started, the operations leave it at 2.
        user interface touched off the main thread: draw at t=0, on queue. UIKit and AppKit must be called on the main thread: put that work on main (op … on main), or hop there (OperationQueue.main.addOperation).

        """))
  }

  @Test("A locked run reports nothing; status shows the values and the lock")
  func lockedRun() {
    let steps = "does lock L, read count, compute 1, write count, unlock L"
    let (out, errors) = run(["var count = 0", "lock L", "op a \(steps)", "op b \(steps)", "step 2", "status", "run", "races", "status"])
    #expect(errors.isEmpty)
    #expect(out.contains("  b  executing since t=0, waiting for lock L\n"))
    #expect(out.contains("shared: count = 0\nlock L: held by a, b waiting\n"))
    #expect(!out.contains("race detector"))
    #expect(out.contains("no data race, no lost update, no user-interface call off the main thread (in this run; `explore` tries the others)\n"))
    #expect(out.hasSuffix("shared: count = 2 (was 0)\nlock L: free\n"))
  }

  @Test("The timeline shows lock waits, accesses and race marks, in Unicode and ASCII")
  func timeline() {
    let (out, _) = run(Self.racy + ["lock L", "op c does lock L, unlock L", "op d does lock L, unlock L", "run", "timeline"])
    // The race is b's read at 0 against a's write at 2 (one report per pair); each access is
    // drawn in the tick its step takes, the tick the trace stamps it with.
    #expect(out.contains("  a      r█↯✓  race at t=2\n"))
    #expect(out.contains("  b      ↯█w✓  race at t=0\n"))
    // c locks at 0 and unlocks at 1; d's lock step at 0 waits, d takes the lock in c's unlock
    // tick (waiting through it), and unlocks at 2.
    #expect(out.contains("  c      ██✓\n"))
    #expect(out.contains("  d      ≈≈█✓\n"))
    let (ascii, _) = run(Self.racy + ["lock L", "op c does lock L, unlock L", "op d does lock L, unlock L", "run", "timeline"], ascii: true)
    #expect(ascii.contains("  a      R#*v  race at t=2\n"))
    #expect(ascii.contains("  d      ~~#v\n"))
    // The legend names the accesses drawn: no step touched the user interface.
    #expect(ascii.contains("R read  W write  "))
    #expect(!ascii.contains("touched ui"))
  }

  @Test("A lock-order deadlock stalls the run, which names the wait-for cycle and the fix; why follows it")
  func lockOrderDeadlock() {
    let (out, errors) = run([
      "lock L1", "lock L2", "op a does lock L1, lock L2, unlock L2, unlock L1", "op b does lock L2, lock L1, unlock L1, unlock L2", "run", "why a",
    ])
    #expect(errors.isEmpty)
    #expect(
      out.contains(
        """
          a waits for lock L2, held by b.
          b waits for lock L1, held by a.
          lock-order deadlock: a holds L1 and wants L2; b holds L2 and wants L1 — each waits for the next forever. Take the locks in the same order in every operation.

        """))
    #expect(out.hasSuffix("Now: a waits for lock L2, held by b, which waits for lock L1, held by a: a deadlock, so none of them can ever finish.\n"))
  }

  @Test("explore counts every distinct order, and its replay script, run, ends as it said; the world is untouched")
  func exploreAndReplay() throws {
    // Only a locks L, so the lock orders nothing; a's read and write and b's (after five
    // ticks of compute) fall in 4 distinct orders: a's read-write before b's or after it
    // (both keep both updates), or both reads before either write, a or b writing last
    // (both lose one). One run each: the optimal search (runs that differ only in commuting
    // steps are not made twice). The lost update it meets first: at the first open point
    // (t=2: a's read and b's compute) both step; then b alone thrice, reading before a writes.
    let setup = [
      "var count = 0", "lock L", "op a does lock L, read count, compute 1, write count, unlock L",
      "op b does compute 0, compute 0, compute 0, compute 0, compute 0, read count, compute 1, write count",
    ]
    let (out, errors) = run(setup + ["explore", "status"])
    #expect(errors.isEmpty)
    #expect(
      out.contains(
        """
          explored 4 distinct orders (4 runs): all there are
          4 with a data race, 2 with a lost update
          final values: count = 1 in 2 orders; count = 2 in 2 orders
          shortest order that goes wrong (a lost update, a data race): order 0,2,2,2, 1 preemption
          a script that replays it:
            order 0,2,2,2
            var count = 0
            lock L
            op a does lock L, read count, compute 1, write count, unlock L
            op b does compute 0, compute 0, compute 0, compute 0, compute 0, read count, compute 1, write count
            run

        """))
    #expect(out.hasSuffix("shared: count = 0\nlock L: free\n"))  // explore ran copies
    // The replay: b alone at each of the three open ticks after the first reads count before a writes it.
    let (replay, replayErrors) = run(["order 0,2,2,2"] + setup + ["run", "status"])
    #expect(replayErrors.isEmpty)
    #expect(replay.contains("shared: count = 1 (was 0)\n"))
    // Without the order, the normal run keeps both updates.
    let (normal, _) = run(setup + ["run", "status"])
    #expect(normal.contains("shared: count = 2 (was 0)\n"))
  }

  @Test("explore expect counts the orders that break the invariant and loads the one of fewest choices; redo gives the world back")
  func exploreExpect() throws {
    var options = ShellOptions()
    options.width = 1000
    options.widthGiven = true
    let interpreter = Interpreter(options: options)
    for line in Self.racy + ["run"] { #expect(interpreter.execute(line).error == nil) }
    #expect(interpreter.world.value(of: "count") == 1)  // the normal order loses an update
    // Two of the four orders keep both updates (ExploreTests): they break `count = 1`.
    let reply = interpreter.execute("explore expect count = 1")
    #expect(reply.error == nil)
    #expect(reply.output.contains("expect count = 1: broken in 2 of 4 distinct orders, with the fewest choices in order "))
    #expect(reply.output.contains("loaded it: the commands again from the start, after `order`, and `run`"))
    #expect(interpreter.world.value(of: "count") == 2)
    let lines = interpreter.script.map(\.text)
    #expect(lines.count == 5 && lines[0].hasPrefix("order ") && Array(lines[1...3]) == Self.racy && lines[4] == "run", "\(lines)")
    // The script replays it.
    let (replay, _) = run(lines + ["status"])
    #expect(replay.contains("shared: count = 2 (was 0)\n"))
    #expect(interpreter.execute("redo").error == nil)
    #expect(interpreter.world.value(of: "count") == 1)
    // Kept everywhere: nothing loaded, nothing changed.
    let kept = interpreter.execute("explore expect count >= 1")
    #expect(kept.output.contains("expect count >= 1: holds in every one of the 4 distinct orders\n"))
    #expect(interpreter.world.value(of: "count") == 1 && interpreter.script.map(\.text) == Self.racy + ["run"])
    // An unknown variable is refused where it was typed, with a suggestion.
    let unknown = interpreter.execute("explore expect coutn = 1")
    #expect(unknown.error?.message == "no variable is named 'coutn'" && unknown.error?.hint == "did you mean 'count'?")
    #expect(unknown.error?.column == 16)
    #expect(interpreter.execute("explore expect no deadlock").output.contains("expect no deadlock: holds in every one of the 4 distinct orders\n"))
  }

  @Test("explore preemptions K: the bounded search says its bound, the cap offers it, the shortest bad order says what it needed")
  func explorePreemptions() {
    let (none, noneErrors) = run(Self.racy + ["explore preemptions 0"])
    #expect(noneErrors.isEmpty)
    #expect(none.contains("  explored 1 distinct order (1 run): all there are with at most 0 preemptions (choices other than the normal one)\n"))
    // b held back until a has written (three open points, one switch) keeps both updates.
    let (one, _) = run(Self.racy + ["explore expect count = 1 preemptions 1"])
    #expect(one.contains("all there are with at most 1 preemption (choices other than the normal one)\n"))
    #expect(one.contains("expect count = 1: broken in "), "\(one)")
    let (capped, _) = run(Self.racy + ["explore 2"])
    #expect(
      capped.contains(
        "(the normal order alone has 2 open points: `explore preemptions 2` tries only the orders that hold a thread back at most twice)\n"),
      "\(capped)")
    let (_, badErrors) = run(Self.racy + ["explore preemptions -1"])
    #expect(badErrors.first?.message == "preemptions takes 0 or more, not -1")
  }

  @Test("explore says when one order is all there is, and when the cap stopped it")
  func exploreExtent() {
    // One operation alone: no open point, one run.
    let (one, _) = run(["var count = 0", "op a does read count, compute 1, write count", "explore"])
    #expect(
      one.hasSuffix(
        """
          explored 1 distinct order (1 run): the only one, no steps conflict
          none goes wrong: no data race, no lost update, no deadlock
          final values: count = 1 in 1 order

        """))
    // Two increments have 4 distinct orders (see ExploreTests). The first run is the normal
    // order (both read at t=0, both write at t=2, a then b); the second, where the two writes
    // conflict, lets b write alone at t=2 and a a tick later: a writes last, another order.
    let (capped, _) = run(Self.racy + ["explore 2"])
    // Up front (here, without a terminal, at the top of the summary): the space is too big for the cap.
    #expect(
      capped.contains(
        "\n  too big to explore whole within 2 runs: the normal order has 2 open points, and trying every choice at each would take about "),
      "\(capped)")
    #expect(capped.components(separatedBy: "too big").count == 2)  // once: up front, not again in the summary
    #expect(
      capped.contains(
        " runs (a guess from 8 random orders); `explore` skips orders it has met, but may still stop at the cap. `explore preemptions 2` tries only"))
    let (whole, _) = run(Self.racy + ["explore"])
    #expect(!whole.contains("too big") && whole.contains("all there are"), "\(whole)")
    let (bounded, _) = run(Self.racy + ["explore 2 preemptions 1"])
    #expect(!bounded.contains("too big"), "\(bounded)")
    #expect(
      capped.contains(
        """
          explored 2 distinct orders (2 runs, the cap): more may remain, and the counts below are of these; `explore N` runs up to N
          (the normal order alone has 2 open points: `explore preemptions 2` tries only the orders that hold a thread back at most twice)
          2 with a data race, 2 with a lost update
          final values: count = 1 in 2 orders

        """))
  }

  @Test("explore without shared state says there is nothing to explore; bad choices are refused")
  func exploreNothing() {
    let (out, _) = run(["op x takes 2", "explore"])
    #expect(out.hasSuffix("  nothing to explore: no operation works on shared state (`var`, `lock`, `op … does …`)\n"))
    let (_, errors) = run(["order 1,x"])
    #expect(errors.first?.message == "'x' is not a whole number")
    #expect(errors.first?.column == 9)
  }

  @Test("Lesson conditions: value VAR N and race-free read the variables and the race detector")
  func conditions() throws {
    let racy = Interpreter()
    for line in Self.racy + ["run"] { _ = racy.execute(line) }
    let safe = Interpreter()
    for line in [
      "var count = 0", "queue one max 1", "op a on one does read count, compute 1, write count",
      "op b on one does read count, compute 1, write count", "run",
    ] { _ = safe.execute(line) }
    #expect(try Condition.parse("value count 1").holds(in: racy.world))
    #expect(try !Condition.parse("value count 2").holds(in: racy.world))
    #expect(try !Condition.parse("race-free").holds(in: racy.world))
    #expect(try Condition.parse("value count 2").holds(in: safe.world))
    #expect(try Condition.parse("race-free").holds(in: safe.world))
    #expect(try !Condition.parse("race-free").holds(in: Interpreter().world))  // no shared state: nothing was made safe
    #expect(
      try Condition.parse("race-free").observed(in: racy.world)
        == "the race detector found 1 data race and 1 lost update (`races` shows them)")
    #expect(throws: ParseError.self) { try Condition.parse("value count x") }
  }

  @Test("Lesson conditions: lock-order-safe reads the lock-order graph, ui-on-main the ui calls")
  func lockAndUIConditions() throws {
    func world(_ lines: [String]) -> World {
      let i = Interpreter()
      for line in lines { _ = i.execute(line) }
      return i.world
    }
    let opposite = world(["lock A", "lock B", "op x does lock A, lock B, unlock B, unlock A", "op y hold does lock B, lock A, unlock A, unlock B"])
    let same = world(["lock A", "lock B", "op x does lock A, lock B, unlock B, unlock A", "op y hold does lock A, lock B, unlock B, unlock A"])
    let single = world(["lock A", "op x does lock A, unlock A"])
    // y is never run: the graph reads the steps, so it speaks for every interleaving.
    #expect(try !Condition.parse("lock-order-safe").holds(in: opposite))
    #expect(
      try Condition.parse("lock-order-safe").observed(in: opposite)
        == "locks are taken in opposite orders: A → B → A (each taken while holding the one before)")
    #expect(try Condition.parse("lock-order-safe").holds(in: same))
    #expect(try !Condition.parse("lock-order-safe").holds(in: single))  // nothing nested: nothing was made safe
    let offMain = world(["op a touches ui", "run"])
    let onMain = world(["op a takes 2", "op b on main touches ui after a", "run"])
    #expect(try !Condition.parse("ui-on-main").holds(in: offMain))
    #expect(try Condition.parse("ui-on-main").holds(in: onMain))
    #expect(try !Condition.parse("ui-on-main").holds(in: world(["op a takes 1", "run"])))
  }

  @Test("export swift writes every kind of step as Swift that type-checks in Swift 6 mode, warning-free")
  func exportCompiles() throws {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let i = Interpreter()
    for line in [
      "var c = 0", "lock L", "op a does read c", "op b does write c", "op d does compute 2", "op e does lock L, unlock L",
      "op f does read c, compute -1, write c takes 4", "op g touches ui", "op h on main touches ui", "run",
    ] { #expect(i.execute(line).error == nil, "\(line)") }
    let reply = i.execute("export swift \(dir.path)/main.swift")
    #expect(reply.error == nil, "\(reply.error?.message ?? "")")
    let result = try Swiftc.run(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(result.said)")
    let code = try String(contentsOf: dir.appendingPathComponent("main.swift"), encoding: .utf8)
    // A step takes a tick, its access as the tick ends, as in the lab; a, b and f race on
    // c (`races`), so c is the racy code a learner would write, with no lock.
    // (The program's statements are in a function, its closures' bodies four columns in.)
    let step = "    work(ticks: 1)  // a step takes a tick\n"
    #expect(code.contains("    register -= 1  // compute\n" + step + "    c.value = register  // write: no lock, so it races\n    work(ticks: 1)\n"))
    #expect(code.contains(step + "    L.lock()\n" + step + "    L.unlock()\n"))
  }

  @Test("choose plays the scheduler: it shows the next open point, makes a choice there, and undo takes it back")
  func choose() {
    let (out, errors) = run(Self.racy + ["choose", "choose 1,1,1", "choose", "run", "status", "undo", "undo", "choose 2", "choose 9"])
    #expect(errors.map(\.message) == ["the open point at t=1 has choices 0 to 2, not 9"])
    // a alone in ticks 0, 1 and 2: a reads, computes, writes before b reads; both updates are kept.
    #expect(
      out.contains(
        """
          next open point: t=0, where a read count, b read count fall due
          (who goes first matters: a's `read count` and b's later `write count` both touch variable count)
            0  every due step in turn (what `run` does)
            1  a alone (read count); the others a tick later
            2  b alone (read count); the others a tick later
          `choose K` takes one; `choose back` backs out of the last choice
          t=0  a read count = 0 into its register: step 1 of 3 (read count)
          t=1  a computed: register + 1 = 1: step 2 of 3 (compute 1)
          t=2  a wrote count = 1: step 3 of 3 (write count)
          t=3  a finished (succeeded): work done
          no open point comes from here: `run` goes on

        """))
    #expect(out.contains("shared: count = 2 (was 0)\n"))
    // After two undos the clock is back at 0, and `choose 2` lets b read first.
    #expect(out.contains("  t=0  b read count = 0 into its register: step 1 of 3 (read count)\n  next open point: t=1"))
  }

  @Test("choose at an unlock with two waiters offers each of them the lock; choice 1 passes over the one that waited longest")
  func chooseLockHandoff() {
    let locked = { (name: String, n: Int) in "op \(name) does lock L, read count, compute \(n), write count, unlock L" }
    let (out, errors) = run([
      "var count = 0", "lock L", locked("a", 1), locked("b", 10), locked("c", 100), "choose 0", "choose 2", "choose 1", "run", "events c",
    ])
    #expect(errors.map(\.message) == ["the open point at t=4 has choices 0 to 1, not 2"])
    #expect(
      out.contains(
        """
          next open point: t=4, where lock L is unlocked with b, c waiting for it (NSLock documents no order among waiters)
            0  b takes it (first in line: what `run` does)
            1  c takes it
          `choose K` takes one; `choose back` backs out of the last choice

        """))
    #expect(
      out.contains("t=4 #23 c took lock L: a unlocked it, and the chosen order gave it to this waiter (NSLock documents no order among waiters)\n"))
    #expect(out.contains("t=8 #28 c unlocked L: step 5 of 5 (unlock L)\n"))
  }

  @Test("order alone shows the choices made, with their ticks, and those to come; choices past the last open point are said to be unused")
  func orderAlone() {
    let locked = { (name: String, n: Int) in "op \(name) does lock L, read count, compute \(n), write count, unlock L" }
    let (out, errors) = run(["var count = 0", "lock L", locked("a", 1), locked("b", 10), "order", "choose 0,1,0,0", "order", "order 2,1", "order"])
    #expect(errors.isEmpty)
    #expect(out.contains("  no choices in force: every open point takes the normal order (choice 0)\n"))
    // Two operations have one open point: their lock steps at t=0.
    #expect(out.contains("  no open point is left for choices 1,0,0: not used\n"))
    #expect(out.contains("  made so far: 0 at t=0\n  `order 0` goes back to the normal order\n"))
    #expect(out.hasSuffix("  still to come: 2,1 (then 0)\n  `order 0` goes back to the normal order\n"))
  }

  @Test("why says when two operations asked for a lock at the same tick: the real order is open, and which the lab chose")
  func lockRaceIsOpen() {
    let locked = { (name: String) in "op \(name) does lock L, read count, compute 1, write count, unlock L" }
    let (out, errors) = run(["var count = 0", "lock L", locked("a"), locked("b"), "run", "why b", "why a"])
    #expect(errors.isEmpty)
    let sentence =
      "a and b called lock() on L at the same tick (t=0): which thread gets it first is up to the threads; the lab gave it to a, whose step was due first (`explore` tries the other)."
    #expect(
      out.contains(
        "b and a called lock() on L at the same tick (t=0): which thread gets it first is up to the threads; the lab gave it to a, whose step was due first"
      ))
    #expect(out.contains(sentence))
    // Staggered by a tick, nothing is open.
    let (later, _) = run(["var count = 0", "lock L", locked("a"), "step 1", locked("b"), "run", "why b"])
    #expect(!later.contains("at the same tick"))
  }

  @Test("choose back backs out of the last choice, shows its open point again, and a new choice goes the other way")
  func chooseBack() {
    let (out, errors) = run(Self.racy + ["choose 2", "choose back", "choose 1", "status"])
    #expect(errors.isEmpty)
    #expect(
      out.contains(
        """
          t=0  b read count = 0 into its register: step 1 of 3 (read count)
          next open point: t=1, where a read count, b compute 1 fall due
          (who goes first matters: a's `read count` and b's later `write count` both touch variable count)
            0  every due step in turn (what `run` does)
            1  a alone (read count); the others a tick later
            2  b alone (compute 1); the others a tick later
          `choose K` takes one; `choose back` backs out of the last choice
          backed out of `choose 2`; the clock is at t=0
          next open point: t=0, where a read count, b read count fall due
          (who goes first matters: a's `read count` and b's later `write count` both touch variable count)
            0  every due step in turn (what `run` does)
            1  a alone (read count); the others a tick later
            2  b alone (read count); the others a tick later
          `choose K` takes one; `choose back` backs out of the last choice
          t=0  a read count = 0 into its register: step 1 of 3 (read count)

        """))
  }

  @Test("choose back after more commands takes them back too, keeps the first choice of choose 1,1, and redo gives all back")
  func chooseBackAfterRun() {
    let i = Interpreter(
      options: {
        var o = ShellOptions(); o.width = 1000; o.widthGiven = true; return o
      }())
    // (Typed with a capital: the command word is case-insensitive, and the choice is still split off.)
    for line in Self.racy + ["Choose 1,1", "run"] { #expect(i.execute(line).error == nil, "\(line)") }
    // b's read, put off in ticks 0 and 1, takes tick 2 with a's write and goes first (its
    // wake-up was scheduled before a's step scheduled the write): both read 0.
    #expect(i.world.value(of: "count") == 1)
    let back = i.execute("choose back")
    #expect(back.error == nil)
    // a alone in tick 0 (b put off), then a alone in tick 1: the second choice goes, with the
    // run after it; the clock goes back to t=1, where the first choice left it, and the open
    // point at t=1 (its steps take tick 1) is the one the second choice was made at.
    #expect(
      back.output == """
          backed out of `choose 1`, and took back what came after it: `run`; the clock is at t=1
          next open point: t=1, where a compute 1, b read count fall due
          (who goes first matters: b's `read count` and a's later `write count` both touch variable count)
            0  every due step in turn (what `run` does)
            1  a alone (compute 1); the others a tick later
            2  b alone (read count); the others a tick later
          `choose K` takes one; `choose back` backs out of the last choice

        """)
    #expect(i.script.map(\.text).suffix(2) == ["op b does read count, compute 1, write count", "choose 1"])
    #expect(i.world.value(of: "count") == 0)
    // redo gives back the choice, then the run.
    #expect(i.execute("redo").output.hasPrefix("  redid `choose 1`\n"))
    #expect(i.execute("redo").output.hasPrefix("  redid `run`\n"))
    #expect(i.world.value(of: "count") == 1 && i.world.now == 5)  // b read at t=2, wrote at t=4, finished at 5
    #expect(i.script.map(\.text).suffix(3) == ["choose 1", "choose 1", "run"])
  }

  @Test("choose back with no choice to back out of says so and what to do; the lesson's choices are not the learner's")
  func chooseBackNothing() {
    let (_, errors) = run(Self.racy + ["choose back"])
    #expect(errors.map(\.message) == ["there is no choice to back out of"])
    #expect(errors.first?.column == 8)
    // The word comes from the command table: Tab completes it, and help shows it.
    #expect(Interpreter().completions(for: "choose b") == ["back"])
    #expect(Interpreter().execute("help choose").output.contains("choose back"))
    #expect(errors.first?.hint == "`choose` shows the next open point and `choose K` makes a choice there; `undo` takes back other commands")
    let lesson = Interpreter()
    for line in Self.racy + ["choose 1"] { _ = lesson.execute(line) }
    lesson.undoFloor = lesson.script.count
    #expect(lesson.execute("run").error == nil)
    #expect(lesson.execute("choose back").error?.message == "there is no choice of yours to back out of: the ones before yours are the lesson's")
    #expect(lesson.world.value(of: "count") == 1 && lesson.world.now == 4)  // nothing was taken back
  }
}
