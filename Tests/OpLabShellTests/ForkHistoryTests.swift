import Testing

@testable import OpLabShell

/// Forks share the history they have in common: `fork` then a command, over and over,
/// used to copy the whole journal and script once per fork (8,000 of them: 3.3 GB).
@Suite struct ForkHistoryTests {
  /// `fork` and `step 1`, `n` times, after a first operation.
  static func forks(_ n: Int) -> Interpreter {
    let i = Interpreter()
    _ = i.execute("op a takes 5")
    for _ in 0..<n {
      _ = i.execute("fork")
      _ = i.execute("step 1")
    }
    return i
  }

  @Test("2,000 forks each followed by a step hold history linear in the commands, not one copy per fork")
  func forksShareHistory() {
    let i = Self.forks(2_000)
    #expect(i.world.now == 2_000)
    // 2,001 actions and 2,001 script entries; shared blocks once, each fork its own tail.
    #expect(i.storedHistory < 2_001 * 2 + 2_000 * 2 * 32, "\(i.storedHistory) entries stored")
  }

  @Test("unfork returns to each kept world in turn, with its own journal and script")
  func unforkRestoresEachBranch() {
    let i = Self.forks(100)
    for k in stride(from: 99, through: 0, by: -1) {
      _ = i.execute("unfork")
      #expect(i.world.now == k)
      #expect(i.sim.journal.count == k + 1)
      #expect(i.script.count == k + 1)
      #expect(i.script.last?.text == (k == 0 ? "op a takes 5" : "step 1"))
    }
    #expect(!i.inFork)
    _ = i.execute("step 3")
    #expect(i.script.map(\.text) == ["op a takes 5", "step 3"])
    #expect(Array(i.sim.journal).count == 2)
  }

  /// A lab that ran `lines`, and the replies.
  static func lab(_ lines: [String]) -> (Interpreter, [Reply]) {
    let i = Interpreter()
    return (i, lines.map { i.execute($0) })
  }

  /// A world with a frame every tick and work on a queue: many events, and a world that
  /// grows with the clock (frames are drawn while `e` works).
  static let framed = ["queue q max 2", "op a,b,c,d on q takes 7", "frames every 1", "op e takes 100000"]

  @Test("4,000 forks of a world with frames keep no world per fork: history linear in the commands, a few checkpoints")
  func framedForksKeepNoWorlds() {
    let i = Interpreter()
    for line in Self.framed { _ = i.execute(line) }
    for _ in 0..<4_000 {
      _ = i.execute("fork")
      _ = i.execute("step 1")
    }
    #expect(i.world.now == 4_000)
    // A branch used to keep its whole world (operations, queues, agenda, trace tail), and
    // the first change after a fork copied it: 4,000 worlds, 1.7 GB. Now it keeps a bookmark.
    #expect(i.storedWorlds < 48, "\(i.storedWorlds) worlds stored")
    let commands = i.script.count + i.sim.journal.count
    #expect(i.storedHistory < commands + 4_000 * 2 * 32, "\(i.storedHistory) entries stored")
    _ = i.execute("unfork")
    #expect(i.world.now == 3_999)
  }

  @Test("fork, changes, unfork: the events, the saved script and what follows are exactly those of a lab that never forked")
  func unforkRestoresEventsExactly() {
    let setup = Self.framed + ["run until 57"]
    let (i, replies) = Self.lab(setup + ["fork", "cancel a", "run until 900", "goto 30", "op z takes 4", "step 3", "unfork"])
    #expect(replies.allSatisfy { $0.error == nil })
    #expect(replies.last?.output == "  left the branch (it had reached t=33); back at t=57\n")
    let (plain, _) = Self.lab(setup)
    #expect(i.execute("events").output == plain.execute("events").output)
    #expect(i.script.map(\.text) == plain.script.map(\.text))
    #expect(Array(i.sim.journal) == Array(plain.sim.journal))
    for line in ["run until 300", "back 100", "undo", "goto 10", "redo", "step 5"] {
      #expect(i.execute(line).output == plain.execute(line).output, "\(line)")
    }
    #expect(i.execute("events").output == plain.execute("events").output)
  }

  @Test("Nested forks: each unfork returns to the world its own fork kept")
  func nestedForks() {
    let (i, _) = Self.lab(Self.framed)
    var kept: [String] = []
    for (k, change) in ["step 40", "cancel b", "run until 400", "op y takes 2", "step 7"].enumerated() {
      _ = i.execute(change)
      kept.append(i.execute("events").output)
      _ = i.execute("fork")
      if k % 2 == 1 { _ = i.execute("back 3") }
    }
    _ = i.execute("run until 700")
    for events in kept.reversed() {
      #expect(i.inFork)
      #expect(i.execute("unfork").error == nil)
      #expect(i.execute("events").output == events)
    }
    #expect(!i.inFork)
    #expect(i.execute("unfork").error?.message == "there is no what-if branch to leave")
  }

  @Test("undo across a fork: inside a branch it takes back commands from before the fork; after unfork the branch's undos are gone")
  func undoAcrossFork() {
    let (i, replies) = Self.lab(["op a takes 5", "step 2", "fork", "undo", "undo", "op b takes 1", "unfork", "undo", "redo"])
    #expect(replies[3].output == "  took back `step 2`; the clock is at t=0\n")
    #expect(replies[4].output == "  took back `op a takes 5`; the clock is at t=0\n")
    #expect(replies[7].output == "  took back `step 2`; the clock is at t=0\n")
    #expect(replies[8].output.hasPrefix("  redid `step 2`\n"))
    let (plain, _) = Self.lab(["op a takes 5", "step 2"])
    #expect(i.execute("events").output == plain.execute("events").output)
    #expect(i.script.map(\.text) == ["op a takes 5", "step 2"])
  }

  @Test("A run stopped by Ctrl-C before a fork comes back from unfork as the run to the tick it reached")
  func unforkAfterInterruptedRun() {
    func interrupted(_ i: Interpreter) {
      for line in Self.framed { _ = i.execute(line) }
      _ = i.execute("op " + (0..<1_000).map { "x\($0)" }.joined(separator: ",") + " on q takes 3")
      var checks = 0
      _ = i.execute("run") {
        checks += 1
        return checks > 1  // asked after every 1,024 happenings
      }
    }
    let i = Interpreter()
    interrupted(i)
    let plain = Interpreter()
    interrupted(plain)
    #expect(plain.script.last?.text.hasPrefix("run until ") == true, "the run stopped part way: \(plain.script.last?.text ?? "")")
    for line in ["fork", "run until 3000", "unfork"] { _ = i.execute(line) }
    #expect(i.world.now == plain.world.now)
    #expect(i.execute("events").output == plain.execute("events").output)
    #expect(i.script.map(\.text) == plain.script.map(\.text))
  }
}
