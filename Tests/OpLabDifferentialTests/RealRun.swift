import Foundation
import OpLabCore
import OpLabReal
import OpLabSwift

/// A scenario run on Foundation's real `OperationQueue`, in scaled real time, by the driver
/// the lab's `real` uses (``OpLabReal/RealDriver``): every operation's `main()` sleeps
/// `ticks × tickSeconds`, and a dedicated thread performs the actions at `tick × tickSeconds`.
struct RealRun: Sendable {
  /// What the run logged, in the order it was logged.
  let marks: [OpLabReal.RealMark]
  /// The tick length used, in seconds.
  let tickSeconds: Double
  /// How late the test thread performed its latest-running action, in ticks (the worst lateness).
  let worstActionLateness: Double
  /// Whether every queue emptied before the deadline.
  let drained: Bool

  /// Runs the scenario on a dedicated thread and returns what it logged.
  ///
  /// The driver must not block a Swift-concurrency thread: on Linux those come from the
  /// same libdispatch pool (2 workers on this machine) that runs the operations.
  /// - Parameters:
  ///   - expecting: how many events the run should log; the run stops waiting once it has them.
  ///   - endTick: the tick of the last expected event; the run gives up 25 ticks after it.
  static func perform(
    _ scenario: Scenario, tickSeconds: Double, expecting: Int, endTick: Tick
  ) async -> RealRun {
    await withCheckedContinuation { (done: CheckedContinuation<RealRun, Never>) in
      let thread = Thread {
        let run = RealDriver.run(
          script(scenario), tickSeconds: tickSeconds, until: endTick, grace: 25, expectedMarks: expecting)
        done.resume(
          returning: RealRun(
            marks: run.marks, tickSeconds: tickSeconds, worstActionLateness: run.worstActionLateness, drained: run.drained))
      }
      thread.name = "differential-driver"
      thread.start()
    }
  }

  /// The events grouped into simultaneous clusters: an event joins the current group when it
  /// is within `window` ticks of the group's first event. Each group's tick is the rounded
  /// tick of its first event.
  /// - Returns: the groups, and every event whose own rounded tick differs from its group's.
  func groups(window: Double = 0.35) -> (groups: [TickGroup], misrounded: [String]) {
    var groups: [TickGroup] = []
    var misrounded: [String] = []
    var groupStart = -Double.infinity
    for m in marks.sorted(by: { $0.seconds < $1.seconds }) {
      let t = m.seconds / tickSeconds
      if groups.isEmpty || t - groupStart > window {
        groupStart = t
        groups.append(TickGroup(tick: Int(t.rounded()), labels: []))
      }
      groups[groups.count - 1].labels.insert(m.label)
      if Int(t.rounded()) != groups[groups.count - 1].tick {
        misrounded.append("\(m.label) at \(Self.format(t)) ticks")
      }
    }
    return (groups, misrounded)
  }

  /// The raw log, one event a line with its time in ticks.
  var transcript: String {
    marks.sorted { $0.seconds < $1.seconds }
      .map { "  \(Self.format($0.seconds / tickSeconds))  \($0.label)" }
      .joined(separator: "\n")
  }

  static func format(_ ticks: Double) -> String {
    let hundredths = Int((ticks * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }

  /// The scenario as the shared driver's script: queues, operations and dependencies at tick 0,
  /// before its first action.
  static func script(_ scenario: Scenario) -> RealScript {
    var script = RealScript()
    for q in scenario.queues {
      script.at(0, .makeQueue(q.name))
      if let max = q.maxConcurrent { script.at(0, .setMax(q.name, max)) }
    }
    for spec in scenario.operations {
      var work = RealWork(spec.name, ticks: spec.ticks)
      work.blocks = spec.blocks
      work.priority = spec.priority
      work.qualityOfService = spec.qualityOfService
      work.checksCancellationEvery = spec.checksCancellationEvery
      work.bailsIfDependencyCancelled = spec.bailsIfDependencyCancelled
      work.completionTicks = spec.hasCompletion ? 0 : nil
      script.at(0, .makeOperation(work))
    }
    for spec in scenario.operations {
      for dep in spec.dependencies { script.at(0, .addDependency(spec.name, on: dep)) }
    }
    for step in scenario.steps {
      let action: RealAction
      switch step.action {
      case .enqueue(let names):
        for name in names { script.at(step.tick, .add(name, to: scenario.operation(named: name).queue)) }
        continue
      case .cancel(let name): action = .cancel(name)
      case .cancelAll(let q): action = .cancelAll(q)
      case .suspend(let q): action = .suspend(q)
      case .resume(let q): action = .resume(q)
      case .setMax(let q, let max): action = .setMax(q, max)
      case .barrier(let q, let label, let ticks): action = .barrier(q, label: label, ticks: ticks)
      case .setPriority(let name, let p): action = .setPriority(name, p)
      case .removeDependency(let name, let dep): action = .removeDependency(name, on: dep)
      case .addBatch(let names, let q): action = .addBatch(names, to: q)
      case .startByHand(let name): action = .startByHand(name)
      }
      script.at(step.tick, action)
    }
    return script
  }
}
