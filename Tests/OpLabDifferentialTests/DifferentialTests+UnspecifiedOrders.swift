import OpLabCore
import Testing

/// Scenarios whose real order is unspecified: the real queue may produce any of several
/// timelines. Each test asserts that the real run produced one of them, and that the
/// simulator's (which `why` names as the lab's choice) is one of them too.
extension DifferentialTests {
  @Test("Rule 4: dependents released together onto a serial queue start in either order (a Set); the lab's order is one of them")
  func dependentsReleasedTogether() async throws {
    try await checkOneOf(Scenarios.dependentsReleasedTogether, possible: Scenarios.dependentsReleasedTogetherPossible)
  }

  @Test("Rule 33: a dependent released during cancelAllOperations() starts or is skipped (a race); the lab's outcome is one of them")
  func cancelAllRacesReleasedDependent() async throws {
    try await checkOneOf(Scenarios.cancelAllRacesReleasedDependent, possible: Scenarios.cancelAllRacesReleasedDependentPossible)
  }

  /// Runs `scenario` on the simulator and on the real queue, and checks both timelines are
  /// among `possible`. A real run that matches none, or acted late, is run again with a tick
  /// twice as long, at most twice, as ``check(_:realTimeline:simulatorBug:)`` does.
  func checkOneOf(_ scenario: Scenario, possible: [[TickGroup]]) async throws {
    let sim = try SimulatedRun(scenario)
    try #require(sim.designProblems.isEmpty, "scenario \(scenario.name): \(sim.designProblems)")
    #expect(possible.contains(sim.groups), "\(scenario.name): the simulator's timeline is not a possible one:\n\(sim.groups.rendered)")
    let fewest = possible.map { $0.reduce(0) { $0 + $1.labels.count } }.min() ?? 0
    let endTick = possible.compactMap { $0.last?.tick }.max() ?? 0
    var tickSeconds = Self.tickSeconds
    var real = await RealRun.perform(scenario, tickSeconds: tickSeconds, expecting: fewest, endTick: endTick)
    var (groups, misrounded) = real.groups()
    var retries = 0
    while retries < 2, !possible.contains(groups) || !misrounded.isEmpty || !real.drained || real.worstActionLateness >= Self.lateness {
      retries += 1
      tickSeconds *= 2
      print(
        "[differential] \(scenario.name): real run matched no possible timeline, retrying with \(tickSeconds) s ticks.\nreal:\n\(groups.rendered)")
      real = await RealRun.perform(scenario, tickSeconds: tickSeconds, expecting: fewest, endTick: endTick)
      (groups, misrounded) = real.groups()
    }
    let report = "\nreal:\n\(groups.rendered)\nraw real log (ticks):\n\(real.transcript)"
    #expect(possible.contains(groups), "\(scenario.name): the real timeline is none of the possible ones\(report)")
    #expect(misrounded.isEmpty, "\(scenario.name): events far from their group's tick: \(misrounded)\(report)")
    #expect(real.drained, "\(scenario.name): the real queues did not empty\(report)")
    #expect(real.worstActionLateness < Self.lateness, "\(scenario.name): the test thread acted late\(report)")
  }
}

extension Scenarios {
  /// X 0–1 releases D1 and D2 (both after X) onto the serial q at once: whichever the Set
  /// yields first starts at 1, the other at 2. The lab releases in the order the dependencies
  /// were added: D1 first.
  static let dependentsReleasedTogether = Scenario(
    name: "dependents-released-together",
    queues: [QueueSpec("r"), QueueSpec("q", max: 1)],
    operations: [
      .init("X", on: "r", ticks: 1), .init("D1", on: "q", ticks: 1, after: ["X"]),
      .init("D2", on: "q", ticks: 1, priority: .high, after: ["X"]),
    ],
    steps: [.at(0, .add("X", "D1", "D2"))])

  static let dependentsReleasedTogetherPossible: [[TickGroup]] = ["D1", "D2"].map { first in
    let second = first == "D1" ? "D2" : "D1"
    return [
      TickGroup(0, "start X"), TickGroup(1, "finish X", "start \(first)"),
      TickGroup(2, "finish \(first)", "start \(second)"), TickGroup(3, "finish \(second)"),
    ]
  }

  /// A waits on Z (0–3) and B waits on A. cancelAllOperations() on q at 1 cancels A, which is
  /// skipped at once and releases B; the loop then cancels B. Whether B's start() runs before
  /// the loop reaches B is a race: B runs 1–3 (the lab's outcome), or B is skipped at 1.
  static let cancelAllRacesReleasedDependent = Scenario(
    name: "cancel-all-races-released-dependent",
    queues: [QueueSpec("r"), QueueSpec("q")],
    operations: [
      .init("Z", on: "r", ticks: 3), .init("A", on: "q", ticks: 1, after: ["Z"]),
      .init("B", on: "q", ticks: 2, after: ["A"]),
    ],
    steps: [.at(0, .add("Z", "A", "B")), .at(1, .cancelAll("q"))])

  static let cancelAllRacesReleasedDependentPossible: [[TickGroup]] = [
    [TickGroup(0, "start Z"), TickGroup(1, "skip A", "finish A", "start B"), TickGroup(3, "finish Z", "finish B")],
    [TickGroup(0, "start Z"), TickGroup(1, "skip A", "finish A", "skip B", "finish B"), TickGroup(3, "finish Z")],
  ]
}
