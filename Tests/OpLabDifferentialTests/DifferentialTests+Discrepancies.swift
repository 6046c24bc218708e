import OpLabCore
import Testing

/// Scenarios where the simulator once disagreed with the real `OperationQueue`.
///
/// Each test asserts the real timeline, recorded from the real queue, and the simulator's.
/// They found: a same-level priority change must not move an op (rule 23); corelibs guesses
/// the old level from QoS (rule 24); ops dispatched behind a corelibs empty-queue barrier
/// wait on the dispatch queue, past suspension and cancel (rule 32). Keep a scenario here
/// whenever a new disagreement is found, with `simulatorBug:` until the simulator is fixed.
extension DifferentialTests {
  @Test("Rule 23: setting the priority an op already has leaves it in place")
  func samePriorityKeepsPlace() async throws {
    try await check(
      Scenarios.samePriorityKeepsPlace, realTimeline: Scenarios.samePriorityKeepsPlaceReal)
  }

  @Test("Rule 24 (Linux): on a serial queue, a priority change computed from the QoS can leave the op in place")
  func priorityChangeAfterQualityOfServiceOnSerialQueue() async throws {
    try await check(
      Scenarios.priorityChangeAfterQualityOfServiceOnSerialQueue,
      realTimeline: Scenarios.priorityChangeAfterQualityOfServiceOnSerialQueueReal)
  }

  @Test("Rule 32 (Linux): an op added behind an empty-queue barrier is already dispatched, so cancel skips it only after the barrier")
  func cancelBehindEmptyQueueBarrier() async throws {
    try await check(
      Scenarios.cancelBehindEmptyQueueBarrier, realTimeline: Scenarios.cancelBehindEmptyQueueBarrierReal)
  }

  @Test("Rules 32 and 31 (Linux): an op added behind an empty-queue barrier is already dispatched, so suspend does not hold it")
  func suspendBehindEmptyQueueBarrier() async throws {
    try await check(
      Scenarios.suspendBehindEmptyQueueBarrier, realTimeline: Scenarios.suspendBehindEmptyQueueBarrierReal)
  }
}
