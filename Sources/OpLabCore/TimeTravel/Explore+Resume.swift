/// Runs `explore`'s orders one after another, each taken up from a world saved at the start
/// of the tick of its first new choice instead of replaying the journal from the origin.
///
/// The orders come depth first: each next order keeps the choices of the one before up to
/// some open point and changes the choice there. So while a run goes on, the runner keeps
/// the world as it stood at the start of each tick where an open point came (a
/// ``ResumePoint``: a copy of the world, which shares its storage until one of them changes),
/// and the next run starts from the newest one at or before the changed point, with the new
/// choices in force: the ticks before it are not run again. The kept worlds are one a tick
/// with an open point along the current run, so memory grows with the run's length, not the
/// number of runs.
///
/// A world can be saved only between two ticks of a clock action that can be taken up
/// again as it was (`run`, `run until`, `step`, `run until OP finishes`, and the run until
/// idle that ends every order); an open point inside a wait has no saved world, and a run
/// that changes it starts from the newest saved world before it (or the origin) and runs on
/// from there, which gives the same world (runs are deterministic), only more slowly.
/// ``World/explore(_:from:limit:search:expect:preemptions:interrupt:progress:)`` is checked
/// to give the same exploration with and without it (``ExploreReductionTests``).
struct ExploreRunner {
  /// A world saved at the start of a tick where an open point came.
  struct ResumePoint {
    /// The world before the tick.
    var world: World
    /// The index of the action it is in the middle of (``actions``' count: the final run until idle).
    var action: Int
    /// What is left of that action, to perform on `world`.
    var rest: Action
    /// The open points met before the tick.
    var taken: Int
    /// The verdict of the last clock action before.
    var verdict: RunVerdict?
  }

  /// The journal, without its own choices (`order`, `choose`: the exploration makes them).
  let actions: [Action]
  let base: World
  /// Whether worlds are saved to take runs up from (`false`: every run replays from `base`,
  /// as the tests compare).
  let resumes: Bool
  /// The saved worlds along the current run, by tick.
  private(set) var saved: [ResumePoint] = []
  /// Runs taken up from a saved world (the others replayed the journal from `base`).
  private(set) var resumed = 0

  init(actions: [Action], base: World, resumes: Bool = true) {
    self.actions = actions.filter {
      switch $0 {
      case .setStepOrder, .chooseNext: false
      default: true
      }
    }
    self.base = base
    self.resumes = resumes
  }

  /// Runs the order that makes the choices `script` (and 0 after them): the world at its end
  /// and the verdict of its last clock action (`nil` when none ran). The run starts from the
  /// newest saved world before the open point of the script's last choice.
  /// `keeping`: how many of the script's first choices the run before made too (all but the
  /// last unless told).
  mutating func run(_ script: [Int], keeping: Int? = nil, interrupt: Interrupt?) -> (world: World, verdict: RunVerdict?) {
    // Saved worlds after the changed choice's tick belong to the run before.
    let keep = keeping ?? script.count - 1
    while let last = saved.last, last.taken > keep { saved.removeLast() }
    var world: World
    var start = 0
    var rest: Action?
    var verdict: RunVerdict?
    if let from = saved.last {
      resumed += 1
      world = from.world
      world.shared?.order?.script = script
      start = from.action
      rest = from.rest
      verdict = from.verdict
    } else {
      world = base
      world.setStepOrder([])
      world.shared?.order = StepOrder(script)
    }
    for i in start...actions.count {
      var action: Action
      if let r = rest, i == start {
        action = r
      } else if i < actions.count {
        action = actions[i]
      } else {
        // Every order ends with a run until idle, if anything is left to happen.
        guard world.nextEventTick != nil else { break }
        action = .runUntilIdle
      }
      if case .step(let n) = action, n >= 0, case let (t, false) = world.now.addingReportingOverflow(n), t <= World.maxTick {
        // The same run, to a tick that stays put when the run is taken up again.
        action = .runUntil(t)
      }
      if resumes, action.isResumable {
        runSaving(&world, action, index: i, verdict: &verdict, interrupt: interrupt)
      } else if let (r, _) = try? world.perform(action, interrupt: interrupt), case .verdict(let v) = r {
        verdict = v
      }
      if verdict == .interrupted { break }
    }
    return (world, verdict)
  }

  /// Performs a clock action a tick at a time, saving the world before each tick where an
  /// open point may come (see ``World/mayOpen(at:)``), and keeping it when one did.
  private mutating func runSaving(_ world: inout World, _ action: Action, index: Int, verdict: inout RunVerdict?, interrupt: Interrupt?) {
    var ticks = 0
    while true {
      world.pruneStale()
      let next = world.nextEventTick
      let before = world.shared?.order?.taken.count ?? 0
      let snapshot =
        next.map { world.mayOpen(at: $0) } == true
        ? ResumePoint(world: world, action: index, rest: action, taken: before, verdict: verdict) : nil
      guard let (result, completed) = try? world.perform(action, cap: next, interrupt: interrupt) else { return }
      if case .verdict(let v) = result { verdict = v }
      if let snapshot, (world.shared?.order?.taken.count ?? 0) > before, before > (saved.last?.taken ?? -1) {
        saved.append(snapshot)
      }
      if completed || verdict == .interrupted { return }
      ticks += 1
      if ticks % World.interruptInterval == 0, interrupt?() == true {
        verdict = .interrupted
        return
      }
    }
  }
}

extension Action {
  /// Whether a run of this action stopped at a tick (a cap) and performed again goes on as
  /// if it had not stopped: it records nothing at its start and aims at a fixed goal.
  var isResumable: Bool {
    switch self {
    case .runUntil, .runUntilIdle, .runUntilFinished: true
    default: false
    }
  }
}

extension World {
  /// Whether an open point (see ``StepOrder``) may come at `tick`, the next tick anything
  /// happens: two or more step wake-ups are due then, or one that unlocks a lock two
  /// operations wait for. Never `false` where one comes but in cases no world of the lab
  /// makes (a step due at a tick scheduled during that tick), and then only slower
  /// (``ExploreRunner``).
  func mayOpen(at tick: Tick) -> Bool {
    guard let shared, shared.order != nil else { return false }
    var due = 0
    var unlocksWaited = false
    for w in agenda.unordered where w.tick == tick && isLive(w) {
      let op: OpID
      let inCompletion: Bool
      switch w.action {
      case .step(let o, _): (op, inCompletion) = (o, false)
      case .completionStep(let o): (op, inCompletion) = (o, true)
      default: continue
      }
      due += 1
      if due >= 2 { return true }
      guard !inCompletion, let run = shared.runs[op], case .steps(let steps) = operations[op.slot].spec.kind,
        Int(run.next) < steps.count, case .unlock(let name) = steps[Int(run.next)], let l = shared.lock(named: name)
      else { continue }
      unlocksWaited = shared.waiters[l].count >= 2
    }
    return unlocksWaited
  }
}

/// How big the whole space of orders is, guessed before exploring it (`explore` says so up
/// front when it passes the cap).
public struct ExploreEstimate: Hashable, Sendable {
  /// The open points of the normal order (the run without choices).
  public var openPoints: Int
  /// About how many runs trying every choice at every open point makes: Knuth's estimate
  /// of a tree's size (the mean, over random paths from the root, of the product of the
  /// choices met along each), which is unbiased; `explore`'s reduction makes no more runs
  /// than that (``ExploreReductionTests``), and meets each distinct order at least once.
  public var runs: Double
  /// The random orders it was taken from.
  public var probes: Int
}

extension World {
  /// Guesses the size of `explore`'s space (see ``ExploreEstimate``) from `probes` random
  /// orders, each choice drawn uniformly at its open point; seeded, so the same world gets
  /// the same guess. Each choice is made by taking the run up from its open point (see
  /// ``ExploreRunner``), so a probe costs about one run a choice, of the ticks after it.
  /// - Complexity: O(probes · open points · the ticks of a run after each).
  public static func exploreEstimate(
    _ actions: [Action], from base: World, probes: Int = 8, interrupt: Interrupt? = nil
  ) -> ExploreEstimate {
    var runner = ExploreRunner(actions: actions, base: base)
    var rng = SplitMix64(seed: 30)
    let normal = runner.run([], interrupt: interrupt).world.shared?.order?.taken ?? []
    var total = 0.0
    for _ in 0..<Swift.max(1, probes) {
      var script: [Int] = []
      var taken = normal
      var size = 1.0
      // Past 10^15 runs the exact figure does not matter: it is far beyond any cap.
      while script.count < taken.count, size < 1e15 {
        let options = taken[script.count].options
        size *= Double(options)
        script.append(Int.random(in: 0..<options, using: &rng))
        let (world, verdict) = runner.run(script, interrupt: interrupt)
        if verdict == .interrupted { return ExploreEstimate(openPoints: normal.count, runs: total, probes: probes) }
        taken = world.shared?.order?.taken ?? []
      }
      total += size
    }
    return ExploreEstimate(openPoints: normal.count, runs: total / Double(Swift.max(1, probes)), probes: probes)
  }
}
