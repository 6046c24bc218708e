import OpLabCore

/// Scenarios where the simulator disagrees with the real `OperationQueue` on this machine
/// (Swift 6.3.1, Linux). Each comment gives the REAL timeline, which the tests assert.
extension Scenarios {
  /// Setting `queuePriority` to the level an op is already filed at does not move it: the
  /// setter returns early when the level does not change (`queuePriority.set` and
  /// `changePriority`, `oldPri == newPri`). Real: A 1–2, B 2–3, C 3–4, D 4–5.
  /// The simulator moves A and C to the tails of their levels: B, A, D, C.
  static let samePriorityKeepsPlace = Scenario(
    name: "same-priority-keeps-place",
    platform: .linux,
    queues: [QueueSpec("q", max: 1)],
    operations: [
      .init("A", on: "q", ticks: 1, priority: .high), .init("B", on: "q", ticks: 1, priority: .high),
      .init("C", on: "q", ticks: 1), .init("D", on: "q", ticks: 1),
    ],
    steps: [
      .at(0, .suspend("q")), .at(0, .add("A", "B", "C", "D")), .at(0, .setPriority("A", .high)),
      .at(0, .setPriority("C", .normal)), .at(1, .resume("q")),
    ])

  static let samePriorityKeepsPlaceReal: [TickGroup] = [
    TickGroup(1, "start A"), TickGroup(2, "finish A", "start B"), TickGroup(3, "finish B", "start C"),
    TickGroup(4, "finish C", "start D"), TickGroup(5, "finish D"),
  ]

  /// Linux: on a serial queue an op with a quality of service but no explicit priority is
  /// filed at normal (rule 24), but `changePriority` computes its old level from the QoS
  /// (veryHigh) and, finding it equal to the new one, leaves it where it is. Real: B 1–2,
  /// A 2–3. The simulator moves A to veryHigh: A, B.
  static let priorityChangeAfterQualityOfServiceOnSerialQueue = Scenario(
    name: "serial-qos-then-priority-linux",
    platform: .linux,
    queues: [QueueSpec("q", max: 1)],
    operations: [.init("B", on: "q", ticks: 1), .init("A", on: "q", ticks: 1, qos: .userInteractive)],
    steps: [
      .at(0, .suspend("q")), .at(0, .add("B", "A")), .at(0, .setPriority("A", .veryHigh)),
      .at(1, .resume("q")),
    ])

  static let priorityChangeAfterQualityOfServiceOnSerialQueueReal: [TickGroup] = [
    TickGroup(1, "start B"), TickGroup(2, "finish B", "start A"), TickGroup(3, "finish A"),
  ]

  /// Linux: a barrier on an empty queue goes straight to the backing dispatch queue (rule 32),
  /// so A, added at 1 while it runs, has no dependency: the queue dispatches it at once and
  /// it waits behind the dispatch barrier, already dispatched. Cancelling it at 2 cannot skip
  /// it early. Real: A skipped at 3 when the barrier ends, B (after A) 3–4.
  /// The simulator makes A depend on the barrier, so the cancel skips it at 2 and B runs 2–3.
  static let cancelBehindEmptyQueueBarrier = Scenario(
    name: "cancel-behind-empty-barrier-linux",
    platform: .linux,
    queues: [QueueSpec("q"), QueueSpec("r")],
    operations: [.init("A", on: "q", ticks: 1), .init("B", on: "r", ticks: 1, after: ["A"])],
    steps: [
      .at(0, .add("B")), .at(0, .barrier("q", label: "barrier", ticks: 3)), .at(1, .add("A")),
      .at(2, .cancel("A")),
    ])

  static let cancelBehindEmptyQueueBarrierReal: [TickGroup] = [
    TickGroup(0, "start barrier"), TickGroup(3, "finish barrier", "skip A", "finish A", "start B"),
    TickGroup(4, "finish B"),
  ]

  /// Linux: as above, A added at 1 behind an empty-queue barrier is already dispatched, so
  /// suspending the queue at 2 does not hold it (rule 31: nothing un-dispatches an op).
  /// Real: A 3–4, right after the barrier. The simulator holds A until the resume: A 5–6.
  static let suspendBehindEmptyQueueBarrier = Scenario(
    name: "suspend-behind-empty-barrier-linux",
    platform: .linux,
    queues: [QueueSpec("q")],
    operations: [.init("A", on: "q", ticks: 1)],
    steps: [
      .at(0, .barrier("q", label: "barrier", ticks: 3)), .at(1, .add("A")), .at(2, .suspend("q")),
      .at(5, .resume("q")),
    ])

  static let suspendBehindEmptyQueueBarrierReal: [TickGroup] = [
    TickGroup(0, "start barrier"), TickGroup(3, "finish barrier", "start A"), TickGroup(4, "finish A"),
  ]
}
