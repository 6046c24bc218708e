import OpLabCore

/// The scenarios, as data. Each comment gives the timeline both runs must produce.
///
/// Every scenario keeps at most 2 operations sleeping at once and never acts at a tick
/// where some work ends (see ``Scenario``).
enum Scenarios {
  /// Serial queue: A 0–2, B 2–3, C 3–5, D 5–6.
  static let fifoOnSerialQueue = Scenario(
    name: "fifo-serial",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 1),
      .init("C", on: "q", ticks: 2), .init("D", on: "q", ticks: 1),
    ],
    steps: [.at(0, .add("A", "B", "C", "D"))])

  /// Added to a suspended serial queue, run on resume at 1 by priority, FIFO within a level:
  /// V 1–2, H 2–3, N1 3–4, N2 4–5, L 5–6, VL 6–7.
  static let priorityAfterResume = Scenario(
    name: "priority-after-resume",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("L", on: "q", ticks: 1, priority: .low), .init("N1", on: "q", ticks: 1),
      .init("H", on: "q", ticks: 1, priority: .high), .init("V", on: "q", ticks: 1, priority: .veryHigh),
      .init("N2", on: "q", ticks: 1, priority: .normal), .init("VL", on: "q", ticks: 1, priority: .veryLow),
    ],
    steps: [.at(0, .suspend("q")), .at(0, .add("L", "N1", "H", "V", "N2", "VL")), .at(1, .resume("q"))])

  /// The veryLow A is first on an idle serial queue, so it starts at once; the rest go by
  /// priority: A 0–2, C 2–3, D 3–4, B 4–5.
  static let firstOpStartsAtOnce = Scenario(
    name: "first-op-starts-at-once",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2, priority: .veryLow), .init("B", on: "q", ticks: 1),
      .init("C", on: "q", ticks: 1, priority: .veryHigh), .init("D", on: "q", ticks: 1, priority: .high),
    ],
    steps: [.at(0, .add("A", "B", "C", "D"))])

  /// Max 2, mixed durations: A 0–3, B 0–1, C 1–3, D 3–4, E 3–5.
  static let maxTwoMixedDurations = Scenario(
    name: "max2-mixed",
    queues: [QueueSpec("q", max: 2)],
    operations: [
      .init("A", on: "q", ticks: 3), .init("B", on: "q", ticks: 1), .init("C", on: "q", ticks: 2),
      .init("D", on: "q", ticks: 1), .init("E", on: "q", ticks: 2),
    ],
    steps: [.at(0, .add("A", "B", "C", "D", "E"))])

  /// Download → filter across two serial queues:
  /// d1 0–2, f1 2–3, d2 2–4, f2 4–6, d3 4–5, f3 6–7 (f3 is ready at 5 but waits for f2's slot).
  static let downloadFilterPipeline = Scenario(
    name: "download-filter-pipeline",
    queues: [QueueSpec("downloads", max: 1), QueueSpec("filters", max: 1)],
    operations: [
      .init("d1", on: "downloads", ticks: 2), .init("d2", on: "downloads", ticks: 2),
      .init("d3", on: "downloads", ticks: 1),
      .init("f1", on: "filters", ticks: 1, after: ["d1"]), .init("f2", on: "filters", ticks: 2, after: ["d2"]),
      .init("f3", on: "filters", ticks: 1, after: ["d3"]),
    ],
    steps: [.at(0, .add("f1", "f2", "f3", "d1", "d2", "d3"))])

  /// Chain A→B→C on an unlimited queue; cancelling B at 1 skips it at once and releases C,
  /// which runs while A is still running: A 0–4, B skipped at 1, C 1–3.
  static let cancelReleasesDependentsEarly = Scenario(
    name: "cancel-releases-dependents",
    queues: [QueueSpec("q")],
    operations: [
      .init("A", on: "q", ticks: 4), .init("B", on: "q", ticks: 1, after: ["A"]),
      .init("C", on: "q", ticks: 2, after: ["B"]),
    ],
    steps: [.at(0, .add("A", "B", "C")), .at(1, .cancel("B"))])

  /// Cancelling the executing A at 1 neither stops it nor its dependents:
  /// A 0–2, B 2–4, C 4–5.
  static let cancelDoesNotPropagate = Scenario(
    name: "cancel-does-not-propagate",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 2, after: ["A"]),
      .init("C", on: "q", ticks: 1, after: ["B"]),
    ],
    steps: [.at(0, .add("A", "B", "C")), .at(1, .cancel("A"))])

  /// Max 2, suspended at 1: A 0–3 and B 0–2 finish; C and D wait for the resume at 4:
  /// C 4–5, D 4–6.
  static let suspendWithRunningOps = Scenario(
    name: "suspend-resume",
    queues: [QueueSpec("q", max: 2)],
    operations: [
      .init("A", on: "q", ticks: 3), .init("B", on: "q", ticks: 2), .init("C", on: "q", ticks: 1),
      .init("D", on: "q", ticks: 2),
    ],
    steps: [.at(0, .add("A", "B", "C", "D")), .at(1, .suspend("q")), .at(4, .resume("q"))])

  /// Max 1 raised to 2 at 1 starts B at once; lowered to 1 at 5 stops nothing, but E
  /// waits until only one op runs: A 0–3, B 1–4, C 3–6, D 4–7, E 7–8.
  static let changeMaxAtRunTime = Scenario(
    name: "change-max",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 3), .init("B", on: "q", ticks: 3), .init("C", on: "q", ticks: 3),
      .init("D", on: "q", ticks: 3), .init("E", on: "q", ticks: 1),
    ],
    steps: [.at(0, .add("A", "B", "C", "D", "E")), .at(1, .setMax("q", 2)), .at(5, .setMax("q", 1))])

  /// Max 0 runs nothing until raised at 2: A 2–3, B 3–4.
  static let maxZeroRunsNothing = Scenario(
    name: "max-zero",
    queues: [QueueSpec("q", max: 0)],
    operations: [.init("A", on: "q", ticks: 1), .init("B", on: "q", ticks: 1)],
    steps: [.at(0, .add("A", "B")), .at(2, .setMax("q", 1))])

  /// A barrier added at 1 waits for A 0–2 and B 0–3, runs 3–4, and holds C (added after it)
  /// until 4 although a slot is free from 2: C 4–5.
  static let barrierBlock = Scenario(
    name: "barrier",
    queues: [QueueSpec("q", max: 2)],
    operations: [.init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 3), .init("C", on: "q", ticks: 1)],
    steps: [
      .at(0, .add("A", "B")), .at(1, .barrier("q", label: "barrier", ticks: 1)), .at(1, .add("C")),
    ])

  /// Linux: a barrier on an empty suspended queue runs at once (0–2); A, added at 1, waits
  /// for the resume at 3: A 3–4.
  static let barrierOnEmptySuspendedQueue = Scenario(
    name: "barrier-empty-suspended",
    platform: .linux,
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 1)],
    steps: [
      .at(0, .suspend("q")), .at(0, .barrier("q", label: "barrier", ticks: 2)), .at(1, .add("A")),
      .at(3, .resume("q")),
    ])

  /// Serial queue; B cancelled at 1 waits for A's slot, is skipped at 2, and its completion
  /// block still runs then; C (after B) runs: A 0–2, B skipped at 2, C 2–3.
  static let completionOfCancelledOp = Scenario(
    name: "completion-of-cancelled",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2, completion: true), .init("B", on: "q", ticks: 1, completion: true),
      .init("C", on: "q", ticks: 1, after: ["B"]),
    ],
    steps: [.at(0, .add("A", "B", "C")), .at(1, .cancel("B"))])

  /// A cancelled op in a suspended queue is neither finished nor completed until the resume
  /// at 3: A skipped and completed at 3, B 3–4.
  static let cancelledOpWaitsInSuspendedQueue = Scenario(
    name: "cancelled-in-suspended",
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 1, completion: true), .init("B", on: "q", ticks: 1)],
    steps: [.at(0, .suspend("q")), .at(0, .add("A", "B")), .at(1, .cancel("A")), .at(3, .resume("q"))])

  /// cancelAllOperations at 1 lets the executing A finish (0–2), skips B and C at 2, and is
  /// not sticky: D, added at 3, runs 3–4.
  static let cancelAllIsNotSticky = Scenario(
    name: "cancel-all",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 1, after: ["A"]),
      .init("C", on: "q", ticks: 1), .init("D", on: "q", ticks: 1),
    ],
    steps: [.at(0, .add("A", "B", "C")), .at(1, .cancelAll("q")), .at(3, .add("D"))])

  /// A ready normal op beats a not-ready veryHigh one, which then beats a veryLow one:
  /// P 0–2 on prep; on resume at 1, N 1–3, H 3–4, L 4–5.
  static let readinessBeatsPriority = Scenario(
    name: "readiness-beats-priority",
    queues: [QueueSpec("prep"), QueueSpec("work", max: 1)],
    operations: [
      .init("P", on: "prep", ticks: 2),
      .init("H", on: "work", ticks: 1, priority: .veryHigh, after: ["P"]),
      .init("L", on: "work", ticks: 1, priority: .veryLow), .init("N", on: "work", ticks: 2),
    ],
    steps: [.at(0, .suspend("work")), .at(0, .add("P", "H", "L", "N")), .at(1, .resume("work"))])

  /// Linux: a BlockOperation's blocks run one after another, and cancelling it at 1 stops
  /// none of them: X 0–5 (blocks 0–2, 2–3, 3–5) beside Y 0–3.
  static let blockOperationSequentialOnLinux = Scenario(
    name: "block-operation-linux",
    platform: .linux,
    queues: [QueueSpec("q")],
    operations: [.blockOperation("X", on: "q", blocks: [2, 1, 2]), .init("Y", on: "q", ticks: 3)],
    steps: [.at(0, .add("X", "Y")), .at(1, .cancel("X"))])

  /// Cancelled at 1, A (5 ticks, checking every 2) sees it at 2 and returns; B, which bails
  /// when a dependency was cancelled, starts and returns at 2; C (after B) runs 2–3.
  static let cooperativeCancellation: Scenario = {
    var a = OperationSpecification("A", on: "q", ticks: 5)
    a.checksCancellationEvery = 2
    var b = OperationSpecification("B", on: "q", ticks: 2, after: ["A"])
    b.bailsIfDependencyCancelled = true
    return Scenario(
      name: "cooperative-cancel",
      queues: [QueueSpec("q", max: 1)],
      operations: [a, b, .init("C", on: "q", ticks: 1, after: ["B"])],
      steps: [.at(0, .add("A", "B", "C")), .at(1, .cancel("A"))])
  }()

  /// Raising A to high in a suspended serial queue puts it at the tail of the high level,
  /// behind B and behind D, which was added after A: B 1–2, D 2–3, A 3–4, C 4–5.
  static let priorityChangeMovesToTail = Scenario(
    name: "priority-change-tail",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 1), .init("B", on: "q", ticks: 1, priority: .high),
      .init("C", on: "q", ticks: 1), .init("D", on: "q", ticks: 1, priority: .high),
    ],
    steps: [
      .at(0, .suspend("q")), .at(0, .add("A", "B", "C", "D")), .at(0, .setPriority("A", .high)),
      .at(1, .resume("q")),
    ])

  /// Linux: with no explicit priority, a quality of service files an op by level on a
  /// non-serial queue: on resume at 1 (max 2), C (userInteractive) and A start; D 2–3 beats
  /// B (background) 3–4.
  static let qualityOfServiceFilesByLevelOnLinux = Scenario(
    name: "qos-mapping-linux",
    platform: .linux,
    queues: [QueueSpec("q", max: 2)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 1, qos: .background),
      .init("C", on: "q", ticks: 1, qos: .userInteractive), .init("D", on: "q", ticks: 1),
    ],
    steps: [.at(0, .suspend("q")), .at(0, .add("A", "B", "C", "D")), .at(1, .resume("q"))])

  /// Linux: removing B's unfinished dependency A at 1 strands B (the corelibs bug) until it
  /// is cancelled at 2 and skipped: A 0–3, B skipped at 2.
  static let removeDependencyStrandsOnLinux = Scenario(
    name: "remove-dependency-linux",
    platform: .linux,
    queues: [QueueSpec("q"), QueueSpec("r")],
    operations: [.init("A", on: "q", ticks: 3), .init("B", on: "r", ticks: 1, after: ["A"])],
    steps: [.at(0, .add("A", "B")), .at(1, .removeDependency("B", "A")), .at(2, .cancel("B"))])

  /// Linux: B (after A) waits in the suspended q while A runs 0–1; B is cancelled at 2;
  /// removing its finished dependency A at 3 takes corelibs' count, zeroed by the cancel, to
  /// −1, so the resume at 4 does not start B; cancelling it again at 5 does: B skipped at 5.
  static let removeFinishedDependencyFromCancelledOnLinux = Scenario(
    name: "remove-finished-dependency-cancelled-linux",
    platform: .linux,
    queues: [QueueSpec("q"), QueueSpec("r")],
    operations: [.init("A", on: "r", ticks: 1), .init("B", on: "q", ticks: 1, after: ["A"])],
    steps: [
      .at(0, .suspend("q")), .at(0, .add("A", "B")), .at(2, .cancel("B")), .at(3, .removeDependency("B", "A")),
      .at(4, .resume("q")), .at(5, .cancel("B")),
    ])

  /// Linux: A, cancelled at 0 while in no queue, stays unfinished, so B (after A) waits;
  /// A added at 1 is skipped then and B runs 1–2.
  static let cancelOutsideQueueOnLinux = Scenario(
    name: "cancel-outside-queue-linux",
    platform: .linux,
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 1), .init("B", on: "q", ticks: 1, after: ["A"])],
    steps: [.at(0, .add("B")), .at(0, .cancel("A")), .at(1, .add("A"))])

  /// On a serial queue a barrier added at 1 runs after A 0–2 and B 2–3 (3–4), and the
  /// veryHigh C added after it waits for it: C 4–5.
  static let barrierOnSerialQueue = Scenario(
    name: "barrier-serial",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("B", on: "q", ticks: 1),
      .init("C", on: "q", ticks: 1, priority: .veryHigh),
    ],
    steps: [.at(0, .add("A", "B")), .at(1, .barrier("q", label: "barrier", ticks: 1)), .at(1, .add("C"))])

  /// A barrier added at 1 waits for A 0–2 and runs 2–5 as a dispatch barrier. D, added at 3
  /// while it runs, no longer depends on it: the queue dispatches D at once and D waits behind
  /// the block, holding its slot, so the suspend at 4 does not stop it: D 5–6. (Resumed at 7.)
  static let suspendBehindRunningBarrier = Scenario(
    name: "suspend-behind-running-barrier",
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 2), .init("D", on: "q", ticks: 1)],
    steps: [
      .at(0, .add("A")), .at(1, .barrier("q", label: "barrier", ticks: 3)), .at(3, .add("D")),
      .at(4, .suspend("q")), .at(7, .resume("q")),
    ])

  /// Max 2: the barrier runs 2–5 in one slot. The low L, added at 3, takes the other slot at
  /// once and waits behind the block; the high H1 and H2, added at 4, find no slot. At 5 L
  /// starts (its slot was decided at 3) and the barrier's slot goes to H1; H2 waits for L:
  /// L 5–6, H1 5–7, H2 6–7.
  static let priorityDecidedAtDispatchBehindBarrier = Scenario(
    name: "priority-at-dispatch-behind-barrier",
    queues: [QueueSpec("q", max: 2)],
    operations: [
      .init("A", on: "q", ticks: 2), .init("L", on: "q", ticks: 1, priority: .low),
      .init("H1", on: "q", ticks: 2, priority: .high), .init("H2", on: "q", ticks: 1, priority: .high),
    ],
    steps: [
      .at(0, .add("A")), .at(1, .barrier("q", label: "barrier", ticks: 3)), .at(3, .add("L")),
      .at(4, .add("H1", "H2")),
    ])

  /// The barrier runs 2–5. P, added at 1 while the barrier waited, depends on it; C, added at
  /// 3 while it runs, is dispatched and waits behind it. Cancelling P at 3 makes it ready, so it
  /// too is dispatched behind the block; C is cancelled at 4. Both are skipped only when the
  /// block returns, at 5, not at their cancels.
  static let cancelBehindRunningBarrier = Scenario(
    name: "cancel-behind-running-barrier",
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 2), .init("P", on: "q", ticks: 1), .init("C", on: "q", ticks: 1)],
    steps: [
      .at(0, .add("A")), .at(1, .barrier("q", label: "barrier", ticks: 3)), .at(1, .add("P")),
      .at(3, .add("C")), .at(3, .cancel("P")), .at(4, .cancel("C")),
    ])

  /// addOperations on an idle serial queue inserts all, then schedules once, so the later
  /// high-priority C starts first: C 0–1, A 1–2, B 2–3 (one addOperation at a time would
  /// start A at once: see firstOpStartsAtOnce).
  static let batchedAddPicksOnce = Scenario(
    name: "batched-add-picks-once",
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 1), .init("B", on: "q", ticks: 1), .init("C", on: "q", ticks: 1, priority: .high),
    ],
    steps: [.at(0, .addBatch(["A", "B", "C"], to: "q"))])

  /// Linux: A, in no queue, is cancelled at 0 and stays unfinished, holding D; start() by
  /// hand at 1 finishes it without running main(), which releases D: skip A 1, D 1–2.
  static let startCancelledByHand = Scenario(
    name: "start-cancelled-by-hand",
    platform: .linux,
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 3), .init("D", on: "q", ticks: 1, after: ["A"])],
    steps: [.at(0, .cancel("A")), .at(0, .add("D")), .at(1, .startByHand("A"))])
}
