import OpLabCore
import Testing

/// Scenarios where the simulator is known to disagree with the real `OperationQueue`.
///
/// Each test asserts the REAL timeline strictly; the simulator's comparison is wrapped in
/// `withKnownIssue`, so the suite passes while the discrepancy stands and fails ("known issue
/// was not recorded") once the simulator is fixed: then drop the `simulatorBug:` argument.
extension DifferentialTests {
  @Test("Rule 23: setting the priority an op already has leaves it in place")
  func samePriorityKeepsPlace() async throws {
    try await check(
      Scenarios.samePriorityKeepsPlace, realTimeline: Scenarios.samePriorityKeepsPlaceReal,
      simulatorBug: "World.setPriority moves an op to the tail even when its level does not change")
  }

  @Test("Rule 24 (Linux): on a serial queue, a priority change computed from the QoS can leave the op in place")
  func priorityChangeAfterQualityOfServiceOnSerialQueue() async throws {
    try await check(
      Scenarios.priorityChangeAfterQualityOfServiceOnSerialQueue,
      realTimeline: Scenarios.priorityChangeAfterQualityOfServiceOnSerialQueueReal,
      simulatorBug: "World.setPriority ignores changePriority's QoS-derived old level (linux mode)")
  }

  @Test("Rule 32 (Linux): an op added behind an empty-queue barrier is already dispatched, so cancel skips it only after the barrier")
  func cancelBehindEmptyQueueBarrier() async throws {
    try await check(
      Scenarios.cancelBehindEmptyQueueBarrier, realTimeline: Scenarios.cancelBehindEmptyQueueBarrierReal,
      simulatorBug: "linux mode makes ops added behind an empty-queue barrier depend on it instead of dispatching them")
  }

  @Test("Rules 32 and 31 (Linux): an op added behind an empty-queue barrier is already dispatched, so suspend does not hold it")
  func suspendBehindEmptyQueueBarrier() async throws {
    try await check(
      Scenarios.suspendBehindEmptyQueueBarrier, realTimeline: Scenarios.suspendBehindEmptyQueueBarrierReal,
      simulatorBug: "linux mode makes ops added behind an empty-queue barrier depend on it instead of dispatching them")
  }
}
