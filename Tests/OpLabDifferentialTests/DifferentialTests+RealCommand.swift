import Foundation
import TestSupport
import Testing

/// `real`, end to end: the built `oplab` runs a script that ends in `real`, so the real queue
/// runs in its own process with the main thread pumped, as a learner's does (#21). Part of
/// the serialized differential suite, so no other real run competes for threads.
extension DifferentialTests {
  /// Runs `oplab run` on `script` (wide, so no line wraps); its standard output.
  static func oplab(_ script: String) throws -> String {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("world.oplab")
    try script.write(to: file, atomically: true, encoding: .utf8)
    let oplab = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("oplab")
    return try Programs.run(oplab.path, ["run", "--no-color", "--width", "200", file.path], errors: .discarded).output
  }

  /// The drawing's rows: each operation's lab row and the real row under it.
  static func rows(_ text: String) -> [(name: String, lab: String, real: String)] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var rows: [(String, String, String)] = []
    for (i, line) in lines.enumerated() where line.contains(" lab   ") && i + 1 < lines.count {
      let name = line.split(separator: " ").first.map(String.init) ?? ""
      let lab = String(line[line.range(of: " lab   ")!.upperBound...])
      let next = lines[i + 1]
      let real = next.range(of: "real  ").map { String(next[$0.upperBound...]) } ?? ""
      rows.append((name, lab, real))
    }
    return rows
  }

  @Test("real on a deterministic Linux world: a serial queue, a skip, a dependent on main; every real row is the lab's, no difference")
  func realAgrees() throws {
    let text = try Self.oplab(
      """
      platform linux
      queue q max 1
      op a on q takes 2
      op b on q takes 2 after a
      op c on q takes 1 after b
      op m on main takes 1 after a
      step 1
      cancel b
      run
      real 60
      """)
    let rows = Self.rows(text)
    // The main queue is drawn first, as in `timeline`.
    #expect(rows.map(\.name) == ["m", "a", "b", "c"], "\(text)")
    #expect(rows.map(\.lab) == ["  █✓", "██✓", "  ✗", "  █✓"], "\(text)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(text)") }
    #expect(text.contains("\nNo differences: every start and finish on the real queue was within 0.35 of a tick of the lab's (7 events;"), "\(text)")
    #expect(!text.contains("Main-queue work could not run"))
  }

  @Test("real under platform apple on Linux: block operations and QoS differ, each difference listed and the platform named as the reason")
  func realShowsDarwinDifference() throws {
    let text = try Self.oplab(
      """
      queue q max 2
      suspend q
      op blocks3 on q blocks 1,2,3
      op bg on q qos background
      op ui on q qos userInteractive
      resume q
      run
      real 60
      """)
    // Apple runs the blocks side by side (3 ticks); corelibs one after another (6).
    #expect(text.contains("  • blocks3 finished at t=3 in the lab, not on the real queue by the end\n"), "\(text)")
    // Apple: priority order, FIFO (bg first); corelibs files QoS as priority (ui first).
    #expect(text.contains("  • order: the lab started bg before ui, the real queue ui first\n"), "\(text)")
    #expect(text.firstMatch(of: /\ \ • bg ran from t[=≈]1/) != nil, "\(text)")
    #expect(text.contains("This process runs swift-corelibs-foundation (Linux), and the lab imitates Apple platforms"), "\(text)")
    #expect(text.contains("Still unfinished on the real queue when the run ended at t=5 (2 ticks after the lab's now): blocks3."), "\(text)")
    let rows = Self.rows(text)
    #expect(rows.map(\.name) == ["blocks3", "bg", "ui"])
    #expect(rows.map(\.lab) == ["███✓", "█✓", " █✓"])
    #expect(rows.first?.real == "████ ≠")
  }

  @Test(
    "real plays the direct calls: addOperations, a gate opened, only-if-deps-succeeded after a failure, start() by hand on the main thread, addExecutionBlock; every real row is the lab's"
  )
  func realPlaysDirectCalls() throws {
    let text = try Self.oplab(
      """
      platform linux
      queue q max 1
      op a,b on q takes 1 hold
      op c on q takes 1 priority high hold
      add a,b,c to q
      op fetch on q takes 1 fails at 1
      op filter on q takes 1 after fetch only-if-deps-succeeded
      op g on q takes 1 gate ready
      step 5
      open ready
      op h takes 2 hold
      start h
      op blk blocks 1 hold
      blocks blk +1
      add blk
      run
      real 60
      """)
    let rows = Self.rows(text)
    // addOperations picks once: the high-priority c first. filter returns early (↩): fetch failed.
    #expect(rows.map(\.name) == ["blk", "a", "b", "c", "fetch", "filter", "g", "h"], "\(text)")
    #expect(rows.map(\.lab) == ["     ██✓", " █✓", "  █✓", "█✓", "   █!", "    ↩", "     █✓", "     ██✓"], "\(text)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(text)") }
    #expect(text.contains("\nstarted by hand (in no queue)\n"), "\(text)")
    #expect(text.contains("\nNo differences: "), "\(text)")
  }
}

extension DifferentialTests {
  @Test("real plays step work for real: unlocked increments lose an update there too, locked ones keep both, values side by side")
  func realSharedState() throws {
    let racy = try Self.oplab(
      """
      platform linux
      var count = 0
      queue q
      op a on q does read count, compute 1, write count
      op b on q does read count, compute 1, write count
      run
      real 60
      """)
    // Both read 0 a tick after they start and write 1 two ticks later, on the real queue as in the lab.
    #expect(racy.contains("\nShared variables at the end: in the lab count = 1; on the real queue count = 1.\n"), "\(racy)")
    let locked = try Self.oplab(
      """
      platform linux
      var count = 0
      lock L
      queue q
      op a on q does lock L, read count, compute 1, write count, unlock L
      op b on q does lock L, read count, compute 1, write count, unlock L
      run
      real 60
      """)
    #expect(locked.contains("\nShared variables at the end: in the lab count = 2; on the real queue count = 2.\n"), "\(locked)")
    // a and b call lock() at the same tick: which gets it is up to the threads, so whichever
    // the real run let in first, the rows are no difference the lab is answerable for.
    #expect(Self.rows(locked).map(\.name) == ["a", "b"], "\(locked)")
    #expect(locked.contains("\nNo differences") && !locked.contains("beyond timing noise"), "\(locked)")
    // b a tick later: a has the lock when b asks, and b waits for it on the real queue too.
    let staggered = try Self.oplab(
      """
      platform linux
      var count = 0
      lock L
      queue q
      op a on q does lock L, read count, compute 1, write count, unlock L
      step 1
      op b on q does lock L, read count, compute 1, write count, unlock L
      run
      real 60
      """)
    let rows = Self.rows(staggered)
    #expect(rows.map(\.name) == ["a", "b"], "\(staggered)")
    // a: lock at 1 … unlock at 5; b asks at 2, takes it at 5, unlocks at 9.
    #expect(rows.map(\.lab) == ["█████✓", " ████████✓"], "\(staggered)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(staggered)") }
    #expect(staggered.contains("\nShared variables at the end: in the lab count = 2; on the real queue count = 2.\n"), "\(staggered)")
  }

  @Test("real on a lock-order deadlock: both operations stall on the real queue too, said as agreement; one on main does not hold the driver")
  func realDeadlock() throws {
    let text = try Self.oplab(
      """
      platform linux
      lock L1
      lock L2
      op a on main does lock L1, lock L2, unlock L2, unlock L1
      op b does lock L2, lock L1, unlock L1, unlock L2
      run
      real 40
      """)
    #expect(text.contains("stalled at t=2"), "\(text)")
    #expect(text.contains("\nNo differences"), "\(text)")
    #expect(text.contains("\nUnfinished on the real queue too when the run ended: a, b (`why` says what each waits for).\n"), "\(text)")
  }

  @Test("One real run leaves the process as it found it: an operation that forgets finish() on main does not hold the next run's main queue (#31)")
  func realLeavesMainQueueFree() throws {
    let text = try Self.oplab(
      """
      platform linux
      op x on main takes 2 async forgets-finish
      run
      real 40
      reset
      op y on main takes 2
      run
      real 40
      """)
    let second = String(text[(text.range(of: "fresh world at t=0")?.upperBound ?? text.endIndex)...])
    let rows = Self.rows(second)
    #expect(rows.map(\.name) == ["y"], "\(text)")
    #expect(rows.first?.lab == "██✓" && rows.first?.real == "██✓", "\(text)")
    #expect(second.contains("\nNo differences"), "\(text)")
    #expect(text.contains("\nUnfinished on the real queue too when the run ended: x (`why` says what each waits for).\n"), "\(text)")
  }

  @Test(
    "A call made from the main thread waits its turn there, on the real queue as in the lab: start(), waitUntilFinished() and addOperations(_:waitUntilFinished: true) from a busy main thread run after the main-queue work dispatched before them (#31)",
    arguments: [
      // start(): s holds the main thread 0-3; m is dispatched at 1; start(s2) is called at 2.
      (
        """
        op s takes 3 hold
        op s2 takes 2 hold
        start s
        step 1
        op m on main takes 1
        step 1
        start s2
        """, ["m": "   █✓", "s": "███✓", "s2": "    ██✓"]
      ),
      // waitUntilFinished() called at 2 begins after m (3-4); m2, dispatched after m, waits for it.
      (
        """
        queue q
        op s takes 3 hold
        op w on q takes 5
        start s
        step 1
        op m on main takes 1
        step 1
        wait w from main
        op m2 on main takes 1
        """, ["m": "   █✓", "m2": "     █✓", "w": "█████✓", "s": "███✓"]
      ),
      // addOperations([a, b], waitUntilFinished: true) called at 1 adds them at 3.
      (
        """
        queue q
        op s takes 3 hold
        op a on q takes 2 hold
        op b on q takes 1 hold
        start s
        step 1
        add a,b to q wait from main
        """, ["a": "   ██✓", "b": "   █✓", "s": "███✓"]
      ),
    ])
  func mainThreadCallsWaitTheirTurn(script: String, lab: [String: String]) throws {
    let text = try Self.oplab("platform linux\n" + script + "\nrun\nreal 60\n")
    let rows = Self.rows(text)
    #expect(Dictionary(rows.map { ($0.name, $0.lab) }, uniquingKeysWith: { a, _ in a }) == lab, "\(text)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(text)") }
    #expect(text.contains("\nNo differences"), "\(text)")
  }

  @Test("real on lesson 15's fix: load's completion block adds show to main, where the table reload runs on the main thread")
  func realCompletionHopsToMain() throws {
    let text = try Self.oplab(
      """
      platform linux
      queue network
      op show on main touches ui hold
      op load on network takes 3 completion does add show
      run
      real 60
      """)
    let rows = Self.rows(text)
    #expect(rows.map(\.name) == ["show", "load"], "\(text)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(text)") }
    #expect(
      text.contains("\nUser-interface calls: in the lab show on main; on the real queue show on main (Thread.isMainThread at the call).\n"), "\(text)"
    )
    let offMain = try Self.oplab(
      """
      platform linux
      queue network
      op load on network takes 2 completion does touch ui
      run
      real 60
      """)
    #expect(
      offMain.contains("User-interface calls: in the lab load's completion block off main; on the real queue load's completion block off main"),
      "\(offMain)")
  }
}
