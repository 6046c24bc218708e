import OpLabCore

/// `races`: what the race detector found (see ``World/raceReport()``), in sentences.
public enum Races {
  /// The whole report; a sentence saying nothing was found when so.
  public static func render(_ world: World, report: RaceReport? = nil) -> String {
    guard world.shared != nil else { return "no shared state: create some with `var NAME` and write operations with `does`\n" }
    let r = report ?? world.raceReport()
    let refused = refusedAdds(world)
    guard !r.isEmpty || !refused.isEmpty else {
      return "no data race, no lost update, no user-interface call off the main thread (in this run; `explore` tries the others)\n"
    }
    var lines: [String] = refused
    for race in r.races { lines += sentences(for: race, in: world) }
    for lost in r.lostUpdates {
      let name = world.variableName(lost.variable)
      lines.append(
        "lost update: \(name) ended at \(lost.actual), but run one at a time, in the order they started, the operations leave it at \(lost.serial).")
    }
    for call in r.offMainThread {
      if call.inCompletion {
        lines.append(
          "user interface touched off the main thread: \(World.possessive(world.name(call.op))) completion block at t=\(call.tick). "
            + "A completion block runs on a background thread, whatever the operation's queue (Apple does not promise which; Linux's Foundation uses a global dispatch queue). "
            + "Hop to main from it: define the update in no queue (`op show on main touches ui hold`) and add it from the block (`completion does add show`)."
        )
        continue
      }
      let queue = world.operation(call.op).queue.map { world.name($0) } ?? "no queue"
      lines.append(
        "user interface touched off the main thread: \(world.name(call.op)) at t=\(call.tick), on \(queue). "
          + "UIKit and AppKit must be called on the main thread: put that work on main (op … on main), or hop there (OperationQueue.main.addOperation)."
      )
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Each `add` step that called addOperation on an operation added before: a crash on a device.
  static func refusedAdds(_ world: World) -> [String] {
    guard world.shared != nil else { return [] }
    return world.trace.compactMap { e in
      guard case .addRefused(let target) = e.kind, let op = e.op else { return nil }
      var who = world.name(op)
      if e.reason.isCompletionStep { who += "'s completion block" }
      let added = world.operation(target).queue != nil
      return "addOperation(\(world.name(target))) from \(who) at t=\(e.tick) would raise: \(world.name(target)) \(world.whyAddRefused(target)) "
        + "(NSInvalidArgumentException on Apple platforms, a crash on Linux). "
        + "The lab skipped the call." + (added ? " Add each operation from one place only." : "")
    }
  }

  /// One summary line for the end of a run, or `nil` when nothing was found.
  public static func summary(_ world: World) -> String? {
    guard world.shared != nil else { return nil }
    let r = world.raceReport()
    let refused = refusedAdds(world).count
    if r.isEmpty, refused > 0 {
      return "  \(refused) addOperation \(refused == 1 ? "call" : "calls") would raise on the real queue (see `races`)\n"
    }
    guard !r.isEmpty else { return nil }
    var parts: [String] = []
    func count(_ n: Int, _ one: String, _ many: String) { if n > 0 { parts.append("\(n) \(n == 1 ? one : many)") } }
    count(r.races.count, "data race", "data races")
    count(r.lostUpdates.count, "lost update", "lost updates")
    count(r.offMainThread.count, "user-interface call off the main thread", "user-interface calls off the main thread")
    count(refused, "addOperation that would raise", "addOperation calls that would raise")
    return "  race detector: " + parts.joined(separator: ", ") + " (see `races`)\n"
  }

  /// The race, and what would order its two accesses.
  public static func sentences(for race: RaceReport.DataRace, in world: World) -> [String] {
    let name = world.variableName(race.variable)
    let a = race.first, b = race.second
    func who(_ x: RaceReport.Access) -> String { x.inCompletion ? "\(World.possessive(world.name(x.op))) completion block" : world.name(x.op) }
    func what(_ x: RaceReport.Access) -> String { "\(who(x)) \(x.isWrite ? "wrote" : "read") it at t=\(x.tick)" }
    let first = "data race on \(name): \(what(a)) and \(what(b)), and nothing orders the two."
    if let block = [a, b].first(where: \.inCompletion) {
      // Nothing the queue offers waits for a completion block.
      return [
        first,
        "  A completion block runs after \(world.name(block.op)) finishes, beside what the finish released: a dependency on "
          + "\(world.name(block.op)) or a serial queue does not wait for it. To order them: do that access in \(World.possessive(world.name(block.op))) "
          + "own work (does …), which they do wait for, or have the block add the work that follows (completion does add OP).",
      ]
    }
    var fixes = ["make one depend on the other (depend \(world.name(b.op)) on \(world.name(a.op)))"]
    let qa = world.operation(a.op).queue, qb = world.operation(b.op).queue
    if let qa, qa == qb, qa != .main {
      fixes.append("make \(world.name(qa)) serial (max \(world.name(qa)) 1)")
    } else {
      fixes.append("put both on one serial queue")
    }
    fixes.append("or hold one lock around the read-modify-write in each (lock L, …, unlock L)")
    return [first, "  To order them: " + fixes.joined(separator: ", ") + "."]
  }
}

extension Races {
  /// What `explore` says up front when its space looks too big to finish within the cap:
  /// the normal order's open points, the guessed number of runs, and the bound to use.
  public static func tooBigText(_ estimate: ExploreEstimate, cap: Int) -> String {
    let points = "\(estimate.openPoints) open \(estimate.openPoints == 1 ? "point" : "points")"
    return "  too big to explore whole within \(cap) runs: the normal order has \(points), and trying every choice at each "
      + "would take \(estimate.runs >= 1e15 ? "more than 10^15" : "about " + aboutCount(estimate.runs)) runs (a guess from \(estimate.probes) random orders); `explore` skips "
      + "orders it has met, but may still stop at the cap. `explore preemptions 2` tries only the orders that hold a thread "
      + "back at most twice (most bugs need one or two); Ctrl-C stops it and keeps what was found.\n"
  }

  /// A count as a reader takes it in: 12,300 below ten million, then a power of ten.
  static func aboutCount(_ x: Double) -> String {
    guard x < 1e7 else { return "10^\(Int(x.log10Floor))" }
    let n = Int(x.rounded())
    var digits = Array(String(n))
    var i = digits.count - 3
    while i > 0 {
      digits.insert(",", at: i)
      i -= 3
    }
    return String(digits)
  }

  /// `explore`'s report: how many distinct orders it met (and in how many runs), how many
  /// went wrong and how, the final states, and the shortest bad order with a script that replays it.
  public static func explorationText(_ e: Exploration, in world: World, script: [String]) -> String {
    guard let shared = world.shared, !shared.variableNames.isEmpty || !shared.lockNames.isEmpty || e.offMainThread > 0 else {
      return "  nothing to explore: no operation works on shared state (`var`, `lock`, `op … does …`)\n"
    }
    func orders(_ n: Int) -> String { "\(n) \(n == 1 ? "order" : "orders")" }
    let runs = "\(e.runs) \(e.runs == 1 ? "run" : "runs")"
    let counted = "  explored \(e.orders) distinct \(e.orders == 1 ? "order" : "orders")"
    var out: String
    if e.interrupted {
      out = counted + " (\(runs)) before Ctrl-C stopped it: more may remain, and the counts below are of these\n"
    } else if !e.complete {
      out = counted + " (\(runs), the cap): more may remain, and the counts below are of these; `explore N` runs up to N\n"
      if e.preemptionBound == nil {
        out +=
          "  (the normal order alone has \(e.openPoints) open \(e.openPoints == 1 ? "point" : "points"): `explore preemptions 2` tries only the orders that hold a thread back at most twice)\n"
      }
    } else if let bound = e.preemptionBound {
      let most = "at most \(bound) \(bound == 1 ? "preemption" : "preemptions")"
      out = counted + " (\(runs)): all there are with \(most) (choices other than the normal one)\n"
    } else if e.orders == 1 {
      out = counted + " (\(runs)): the only one" + (e.runs == 1 ? ", no steps conflict" : "") + "\n"
    } else {
      out = counted + " (\(runs)): all there are\n"
    }
    if e.runs > e.orders, e.complete {
      out += "  (runs that differ only in steps that commute are one order: every two conflicting steps came in the same order)\n"
    }
    var bad: [String] = []
    if e.races > 0 { bad.append("\(e.races) with a data race") }
    if e.lostUpdates > 0 { bad.append("\(e.lostUpdates) with a lost update") }
    if e.deadlocks > 0 { bad.append("\(e.deadlocks) in a deadlock") }
    if e.offMainThread > 0 { bad.append("\(e.offMainThread) touching the user interface off the main thread") }
    out += "  " + (bad.isEmpty ? "none goes wrong: no data race, no lost update, no deadlock" : bad.joined(separator: ", ")) + "\n"
    if !shared.variableNames.isEmpty {
      // In order of the values, so that a reader finds one.
      let finals = e.finals.sorted { $0.values.lexicographicallyPrecedes($1.values) }.map { f in
        zip(shared.variableNames, f.values).map { "\($0) = \($1)" }.joined(separator: ", ") + " in \(orders(f.count))"
      }
      out += "  final values: " + finals.joined(separator: "; ") + "\n"
    }
    guard let worst = e.shortestBad else { return out }
    var what: [String] = []
    if worst.deadlock { what.append("a deadlock") }
    if worst.lostUpdate { what.append("a lost update") }
    if worst.race { what.append("a data race") }
    if worst.offMainThread { what.append("the user interface off the main thread") }
    let choices = worst.choices.map(String.init).joined(separator: ",")
    if worst.choices.isEmpty {
      out += "  shortest order that goes wrong (\(what.joined(separator: ", "))): the normal one, which `run` takes\n"
      return out
    }
    let needed = worst.preemptions
    out +=
      "  shortest order that goes wrong (\(what.joined(separator: ", "))): order \(choices), \(needed) \(needed == 1 ? "preemption" : "preemptions")\n"
    out += "  a script that replays it:\n"
    let replay = ["order \(choices)"] + script.filter({ !$0.hasPrefix("order ") }) + ["run"]
    for line in replay { out += "    \(line)\n" }
    return out
  }
}

extension Races {
  /// `explore expect …`: how many distinct orders broke the learner's invariant.
  public static func expectationText(_ e: Exploration, _ expectation: ExploreExpectation) -> String {
    let what: String
    switch expectation {
    case .value(let name, let comparison, let n): what = "\(name) \(comparison.rawValue) \(n)"
    case .noDeadlock: what = "no deadlock"
    case .noRace: what = "no race"
    case .noLostUpdate: what = "no lost update"
    }
    guard e.broken > 0 else {
      let all = e.complete ? "every one of the \(e.orders) distinct \(e.orders == 1 ? "order" : "orders")" : "each of the \(e.orders) orders met"
      return "  expect \(what): holds in \(all)\n"
    }
    var out = "  expect \(what): broken in \(e.broken) of \(e.orders) distinct \(e.orders == 1 ? "order" : "orders")"
    if let o = e.shortestBroken {
      out +=
        o.choices.isEmpty ? ", the normal one among them" : ", with the fewest choices in order \(o.choices.map(String.init).joined(separator: ","))"
    }
    return out + "\n"
  }
}

extension Races {
  /// `choose`: the next open point and its choices, or that none comes.
  public static func openPointText(_ point: OpenPoint?, in world: World) -> String {
    guard let point else { return "  no open point comes from here: `run` goes on\n" }
    var out: String
    switch point.kind {
    case .steps:
      let due = zip(point.candidates, point.steps).map { "\(world.name($0)) \($1)" }
      out = "  next open point: t=\(point.tick), where " + due.joined(separator: ", ") + " fall due\n"
      if let c = point.conflict, let k = point.candidates.firstIndex(of: c.first) {
        let what = c.otherStep.variable.map { "variable \($0)" } ?? c.otherStep.lockName.map { "lock \($0)" } ?? "the same thing"
        out +=
          "  (who goes first matters: \(World.possessive(world.name(c.first))) `\(point.steps[k])` and \(World.possessive(world.name(c.other))) later "
          + "`\(c.otherStep)` both touch \(what))\n"
      }
      out += "    0  every due step in turn (what `run` does)\n"
      for (k, (op, step)) in zip(point.candidates, point.steps).enumerated() {
        out += "    \(k + 1)  \(world.name(op)) alone (\(step)); the others a tick later\n"
      }
    case .lock(let l):
      let lock = world.lockName(l)
      let waiting = point.candidates.map { world.name($0) }.joined(separator: ", ")
      out =
        "  next open point: t=\(point.tick), where lock \(lock) is unlocked with \(waiting) waiting for it "
        + "(NSLock documents no order among waiters)\n"
      for (k, op) in point.candidates.enumerated() {
        out += "    \(k)  \(world.name(op)) takes it" + (k == 0 ? " (first in line: what `run` does)" : "") + "\n"
      }
    }
    return out + "  `choose K` takes one; `choose back` backs out of the last choice\n"
  }
}

extension Double {
  /// The power of ten at or below this positive number.
  fileprivate var log10Floor: Double {
    var p = 0.0
    var x = self
    while x >= 10 {
      x /= 10
      p += 1
    }
    return p
  }
}
