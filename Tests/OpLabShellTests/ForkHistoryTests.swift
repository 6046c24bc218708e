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
}
