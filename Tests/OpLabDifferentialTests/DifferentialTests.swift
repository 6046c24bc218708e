import OpLabCore
import Testing

/// Runs each scenario on the simulator and on Foundation's real `OperationQueue` (scaled
/// real time, one tick = ``tickSeconds``), and checks that both start, skip and finish the
/// same operations in the same order at the same ticks.
///
/// Serialized: the real runs share libdispatch's worker pool, which has only 2 workers
/// when cold (spec rule 29), so two scenarios must never run at once.
@Suite("Simulator vs real OperationQueue", .serialized)
struct DifferentialTests {
  /// One tick of virtual time, in seconds of real time.
  static let tickSeconds = 0.060
  /// How late, in ticks, the test thread may perform an action.
  static let lateness = 0.2

  @Test("Rule 22: a serial queue runs equal-priority operations in FIFO order")
  func fifoOnSerialQueue() async throws { try await check(Scenarios.fifoOnSerialQueue) }

  @Test("Rules 19-22: ops added to a suspended queue start by priority level, FIFO within a level, on resume")
  func priorityAfterResume() async throws { try await check(Scenarios.priorityAfterResume) }

  @Test("Rule 21: the first op added to an idle queue starts at once, whatever its priority")
  func firstOpStartsAtOnce() async throws { try await check(Scenarios.firstOpStartsAtOnce) }

  @Test("Rules 26-27: maxConcurrentOperationCount 2 keeps two ops running across mixed durations")
  func maxTwoMixedDurations() async throws { try await check(Scenarios.maxTwoMixedDurations) }

  @Test("Rules 4-5: dependencies across two queues release each filter as its download finishes")
  func downloadFilterPipeline() async throws { try await check(Scenarios.downloadFilterPipeline) }

  @Test("Rule 13: cancelling a pending op skips it at once and its dependent runs while the first op still runs")
  func cancelReleasesDependentsEarly() async throws { try await check(Scenarios.cancelReleasesDependentsEarly) }

  @Test("Rules 8 and 12: cancelling an executing op neither stops it nor its dependents")
  func cancelDoesNotPropagate() async throws { try await check(Scenarios.cancelDoesNotPropagate) }

  @Test("Rule 31: suspending lets running ops finish and holds the others until resume")
  func suspendWithRunningOps() async throws { try await check(Scenarios.suspendWithRunningOps) }

  @Test("Rule 28: raising the limit at run time starts ops at once; lowering it stops none")
  func changeMaxAtRunTime() async throws { try await check(Scenarios.changeMaxAtRunTime) }

  @Test("Rule 26: a limit of 0 runs nothing until it is raised")
  func maxZeroRunsNothing() async throws { try await check(Scenarios.maxZeroRunsNothing) }

  @Test("Rule 40: a barrier block waits for earlier ops and holds later ones")
  func barrierBlock() async throws { try await check(Scenarios.barrierBlock) }

  @Test("Rule 32 (Linux): a barrier on an empty suspended queue runs at once")
  func barrierOnEmptySuspendedQueue() async throws { try await check(Scenarios.barrierOnEmptySuspendedQueue) }

  @Test("Rules 13 and 36: a cancelled op waits for a slot, is skipped, and its completion block still runs")
  func completionOfCancelledOp() async throws { try await check(Scenarios.completionOfCancelledOp) }

  @Test("Rule 14: a cancelled op in a suspended queue is not finished or completed until resume")
  func cancelledOpWaitsInSuspendedQueue() async throws { try await check(Scenarios.cancelledOpWaitsInSuspendedQueue) }

  @Test("Rule 33: cancelAllOperations skips pending ops once a slot frees and is not sticky")
  func cancelAllIsNotSticky() async throws { try await check(Scenarios.cancelAllIsNotSticky) }

  @Test("Rule 35: addOperations inserts every op, then schedules once: a later higher priority starts first on a serial queue")
  func batchedAddPicksOnce() async throws { try await check(Scenarios.batchedAddPicksOnce) }

  @Test("Rule 3 (Linux): start() by hand on an op cancelled in no queue finishes it and releases its dependent")
  func startCancelledByHand() async throws { try await check(Scenarios.startCancelledByHand) }

  @Test("Rule 20: a ready op runs before a not-ready higher-priority op, with no priority inheritance")
  func readinessBeatsPriority() async throws { try await check(Scenarios.readinessBeatsPriority) }

  @Test("Rules 38 and 17 (Linux): a BlockOperation runs its blocks one after another, and cancel stops none")
  func blockOperationSequentialOnLinux() async throws { try await check(Scenarios.blockOperationSequentialOnLinux) }

  @Test("Rules 12 and 8: a cooperative op stops at its next isCancelled check, and a dependent bails")
  func cooperativeCancellation() async throws { try await check(Scenarios.cooperativeCancellation) }

  @Test("Rule 23: changing a waiting op's priority moves it to the tail of its new level")
  func priorityChangeMovesToTail() async throws { try await check(Scenarios.priorityChangeMovesToTail) }

  @Test("Rule 24 (Linux): a quality of service files an op with no priority by level on a non-serial queue")
  func qualityOfServiceFilesByLevelOnLinux() async throws {
    try await check(Scenarios.qualityOfServiceFilesByLevelOnLinux)
  }

  @Test("Rule 9 (Linux): removing an unfinished dependency strands the op until it is cancelled")
  func removeDependencyStrandsOnLinux() async throws { try await check(Scenarios.removeDependencyStrandsOnLinux) }

  @Test("Rule 9 (Linux): removing a finished dependency from a cancelled op holds it until it is cancelled again")
  func removeFinishedDependencyFromCancelledOnLinux() async throws {
    try await check(Scenarios.removeFinishedDependencyFromCancelledOnLinux)
  }

  @Test("Rules 15-16 (Linux): an op cancelled outside a queue stays unfinished until a queue skips it")
  func cancelOutsideQueueOnLinux() async throws { try await check(Scenarios.cancelOutsideQueueOnLinux) }

  @Test("Rules 19 and 40: on a serial queue a barrier runs after earlier ops and before a later veryHigh one")
  func barrierOnSerialQueue() async throws { try await check(Scenarios.barrierOnSerialQueue) }

  @Test("Rules 40 and 31: an op added while a barrier block runs is dispatched behind it at once, so a suspend does not stop it")
  func suspendBehindRunningBarrier() async throws { try await check(Scenarios.suspendBehindRunningBarrier) }

  @Test("Rules 40 and 20: which ops get the slots behind a running barrier is decided when they are dispatched, by priority then")
  func priorityDecidedAtDispatchBehindBarrier() async throws {
    try await check(Scenarios.priorityDecidedAtDispatchBehindBarrier)
  }

  @Test("Rules 40 and 13: a cancelled op held behind a running barrier is skipped when the block returns, not at the cancel")
  func cancelBehindRunningBarrier() async throws { try await check(Scenarios.cancelBehindRunningBarrier) }

  // MARK: - The comparison

  /// Runs `scenario` both ways and compares the tick groups.
  ///
  /// - Parameters:
  ///   - realTimeline: for a known simulator discrepancy, the timeline the real queue produces;
  ///     the real run is asserted against it strictly.
  ///   - simulatorBug: for a known simulator discrepancy, what the simulator gets wrong; the
  ///     simulator's comparison is then a known issue, which fails once the simulator is fixed.
  ///
  /// Retries: when the real run disagrees with what is expected — other groups, an event
  /// far from its group's tick, queues not drained, or the test thread acting late — it is
  /// run again with a tick twice as long, at most twice (0.06, 0.12, 0.24 s), and only the
  /// last run is asserted. A loaded 2-CPU machine (other suites, builds, a fuzzer) delays
  /// threads by a fixed amount of real time, which a longer tick makes a smaller fraction
  /// of a tick; a real disagreement is the same at every tick length and still fails.
  /// Every retry is printed.
  func check(_ scenario: Scenario, realTimeline: [TickGroup]? = nil, simulatorBug: Comment? = nil) async throws {
    let sim = try SimulatedRun(scenario)
    let problems = sim.designProblems
    try #require(problems.isEmpty, "scenario \(scenario.name) is not deterministic in reality: \(problems)")
    let expected = realTimeline ?? sim.groups
    let eventCount = expected.reduce(0) { $0 + $1.labels.count }
    let endTick = expected.last?.tick ?? 0

    var tickSeconds = Self.tickSeconds
    var real = await RealRun.perform(scenario, tickSeconds: tickSeconds, expecting: eventCount, endTick: endTick)
    var (groups, misrounded) = real.groups()
    var retries = 0
    while retries < 2, groups != expected || !misrounded.isEmpty || !real.drained || real.worstActionLateness >= Self.lateness {
      retries += 1
      tickSeconds *= 2
      print(
        "[differential] \(scenario.name): real run disagreed (acted up to \(real.worstActionLateness) ticks late), "
          + "retrying with \(tickSeconds) s ticks.\n"
          + "expected:\n\(expected.rendered)\nreal:\n\(groups.rendered)\nraw:\n\(real.transcript)")
      real = await RealRun.perform(scenario, tickSeconds: tickSeconds, expecting: eventCount, endTick: endTick)
      (groups, misrounded) = real.groups()
    }

    let report =
      "\nsimulator:\n\(sim.groups.rendered)\nreal:\n\(groups.rendered)\nraw real log (ticks):\n\(real.transcript)"
    // Order of the groups at distinct ticks, and the set of events in each group.
    #expect(groups.map(\.labels) == expected.map(\.labels), "\(scenario.name): order differs\(report)")
    // The ticks themselves.
    #expect(groups.map(\.tick) == expected.map(\.tick), "\(scenario.name): ticks differ\(report)")
    #expect(misrounded.isEmpty, "\(scenario.name): events far from their group's tick: \(misrounded)\(report)")
    #expect(real.drained, "\(scenario.name): the real queues did not empty\(report)")
    #expect(
      real.worstActionLateness < Self.lateness,
      "\(scenario.name): the test thread acted \(real.worstActionLateness) ticks late\(report)")

    if let simulatorBug, let realTimeline {
      withKnownIssue(simulatorBug) {
        #expect(sim.groups == realTimeline, "\(scenario.name): simulator differs from the real queue\(report)")
      }
    }
  }
}
