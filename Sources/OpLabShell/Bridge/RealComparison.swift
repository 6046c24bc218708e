import Foundation
import OpLabCore
import OpLabReal
import OpLabRender
import OpLabSwift

/// `real [N]`: the present world's commands, in their order and at their ticks, on this
/// process's Foundation `OperationQueue` in scaled real time (N ms a tick), drawn under the
/// lab's timeline with every difference named.
enum RealComparison {
  /// The most wall time `real` spends; a longer world is refused with its estimate.
  static let wallLimitSeconds = 30.0
  /// The shortest tick: shorter, and thread wake-ups are a large part of a tick.
  static let msRange = 10...2000

  /// The platform whose Foundation this process runs.
  static let hostPlatform: Platform = {
    #if os(Linux)
    .linux
    #else
    .apple
    #endif
  }()

  /// The script for the real queue, and what the lab has that the real queue cannot express:
  /// the world's one lowering (``OpLabSwift/SwiftSource/lowered(playingOn:)``), for this
  /// process's Foundation.
  static func script(_ source: SwiftSource) -> (script: RealScript, unplayed: [String]) {
    let lowering = source.lowered(playingOn: hostPlatform)
    return (lowering.script, lowering.unplayed)
  }

  /// The lab's side of each operation, from its trace, in timeline order (by queue).
  static func lanes(_ world: World, real run: RealRun) -> [SideBySide.Lane] {
    var lab: [OpID: SideBySide.Run] = [:]
    for e in world.trace {
      guard let op = e.op else { continue }
      switch e.kind {
      case .started: lab[op, default: .init()].start = Double(e.tick)
      case .skipped: lab[op, default: .init()].skipped = true
      case .finished(let o):
        lab[op, default: .init()].end = Double(e.tick)
        lab[op, default: .init()].outcome = o
      default: break
      }
    }
    var real: [String: SideBySide.Run] = [:]
    for m in run.marks {
      let t = run.ticks(m)
      switch m.kind {
      case .started: if real[m.name]?.start == nil { real[m.name, default: .init()].start = t }
      case .skipped: real[m.name, default: .init()].skipped = true
      case .finished(let o):
        real[m.name, default: .init()].end = t
        real[m.name, default: .init()].outcome = o
      default: break
      }
    }
    var lanes: [SideBySide.Lane] = []
    let (queued, inNoQueue) = world.operationsByQueue()
    for (q, ops) in queued.enumerated() {
      for op in ops where world.operation(op).mainThreadWork == nil {
        let name = world.name(op)
        lanes.append(
          SideBySide.Lane(
            name: name, queue: world.name(QueueID(q)), lab: lab[op] ?? .init(), real: real[name] ?? .init(),
            orderIsOpen: Why.orderIsOpen(op, in: world)))
      }
    }
    // Operations started by hand run where start() was called: on the main thread.
    for op in inNoQueue where lab[op] != nil || real[world.name(op)] != nil {
      let name = world.name(op)
      lanes.append(SideBySide.Lane(name: name, queue: "started by hand (in no queue)", lab: lab[op] ?? .init(), real: real[name] ?? .init()))
    }
    return lanes
  }

  /// Runs the world on the real queue and compares.
  static func run(
    source: SwiftSource, world: World, ms: Int, at column: Int, width: Int, ascii: Bool, interrupt: Interrupt?,
    progress: ((String) -> Void)? = nil
  ) throws(Diagnostic) -> String {
    guard msRange.contains(ms) else {
      throw Diagnostic(
        column: column, length: String(ms).count,
        message: "\(ms) ms a tick is out of range: give \(msRange.lowerBound) to \(msRange.upperBound)",
        hint: "`real` alone plays 50 ms a tick; fewer ms is faster but thread wake-ups weigh more")
    }
    let (script, unplayed) = Self.script(source)
    guard script.actions.contains(where: { if case .makeOperation = $0.action { true } else { false } }) else {
      throw Diagnostic(
        column: 1, length: 4, message: "there is no operation to run on the real queue yet",
        hint: "define some (`op a takes 3`), `run`, then `real` draws the real queue's timeline under the lab's")
    }
    let end = world.now
    let grace: Tick = 2
    let estimate = Double(end + grace) * Double(ms) / 1000
    guard estimate <= wallLimitSeconds else {
      let fits = Int(wallLimitSeconds * 1000 / Double(end + grace))
      let way =
        fits >= msRange.lowerBound
        ? "try `real \(fits)` (\(fits) ms a tick), or"
        : "it is too long even at \(msRange.lowerBound) ms a tick:"
      throw Diagnostic(
        column: 1, length: 4,
        message: "this world runs to t=\(end): about \(format(seconds: estimate)) on the real queue at \(ms) ms a tick, "
          + "and the limit is \(Int(wallLimitSeconds)) s",
        hint: "\(way) look at an earlier moment with `goto T` first")
    }
    let run = RealDriver.run(
      script, tickSeconds: Double(ms) / 1000, until: end, grace: grace, interrupt: interrupt,
      progress: progress.map { report in
        { tick in report("playing on the real queue: t=\(Int(tick)) of about \(end) (Ctrl-C stops it)") }
      })
    // Stopped by Ctrl-C: both sides are compared up to where the real run got.
    let shown = run.interrupted ? Swift.min(end, Swift.max(0, run.endTick - 1)) : end
    let lanes = Self.lanes(world, real: run).map { $0.cut(at: shown) }
    guard lanes.contains(where: { $0.lab != .init() || $0.real != .init() }) else {
      throw Diagnostic(
        column: 1, length: 4, message: "nothing ran in the lab yet: every operation is in no queue",
        hint: "`add OP` puts one in a queue (or `start OP` runs it by hand); `run`, then `real`")
    }
    let (all, matched, drift) = SideBySide.compare(lanes)
    let differences = all.filter { !$0.isOpenOrder }
    let open = all.filter { $0.isOpenOrder }

    let most = Double(end + grace) * Double(ms) / 1000
    var out =
      "Played on this machine's OperationQueue (\(Self.hostFoundation)) at \(ms) ms a tick (\(most < 0.1 ? "under 0.1 s" : format(seconds: most) + " at most")).\n"
    if run.interrupted { out += "Stopped by Ctrl-C at t=\(shown): both sides are drawn and compared up to there.\n" }
    out += "\n" + SideBySide.render(lanes, end: shown, width: width, ascii: ascii) + "\n"
    let events = "\(matched) \(matched == 1 ? "event" : "events")"
    if differences.isEmpty {
      out +=
        "No differences\(open.isEmpty ? "" : " the lab is answerable for"): every start and finish on the real queue was within "
        + "\(SideBySide.format(SideBySide.noise)) of a tick of the lab's (\(events); the largest drift \(SideBySide.format(drift)) "
        + "of a tick, timing noise).\n"
    } else {
      out +=
        "\(differences.count) \(differences.count == 1 ? "difference" : "differences") beyond timing noise "
        + "(more than \(SideBySide.format(SideBySide.noise)) of a tick), marked \(ascii ? "<>" : "≠"):\n"
      for d in differences { out += "  • \(d.text)\n" }
      out +=
        "Timing noise: \(events) matched within \(SideBySide.format(SideBySide.noise)) of a tick "
        + "(the largest drift \(SideBySide.format(drift))).\n"
      for why in reasons(world, lanes: lanes, run: run) { out += why + "\n" }
    }
    if !open.isEmpty {
      out +=
        "Where the real queue leaves the order open (one of several possible; `why OP` says which the lab chose), "
        + "the runs may differ, and did:\n"
      for d in open { out += "  • \(d.text)\n" }
    }
    if differences.isEmpty, !run.interrupted {
      let lab = world.unfinishedOperations().filter { world.operation($0).queue != nil || world.operation($0).startedAt != nil }
      out += unfinishedText(lab: lab.sorted().map { world.name($0) }, real: run.unfinished)
    }
    out += sharedStateText(world, run: run)
    if !unplayed.isEmpty {
      out += "Not played on the real queue: " + unplayed.joined(separator: ", ") + ".\n"
    }
    if !run.pumpedMain, lanes.contains(where: { $0.queue == "main" }) {
      out += "Main-queue work could not run: this lab is not on the main thread here.\n"
    }
    return out
  }

  /// The operations left unfinished when the runs ended, each side's in the order they were
  /// made: the same stall on both sides (a deadlock, a forgotten `finish()`) is agreement,
  /// said so; different ones (which of two threads got a lock first is an open order) are
  /// named side by side. Nothing when both sides finished everything.
  static func unfinishedText(lab: [String], real: [String]) -> String {
    if lab == real {
      return real.isEmpty
        ? ""
        : "Unfinished on the real queue too when the run ended: \(real.joined(separator: ", ")) "
          + "(`why` says what each waits for).\n"
    }
    func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
    return "Unfinished when the runs ended: in the lab \(list(lab)); on the real queue \(list(real)) "
      + "(an order the real queue leaves open can decide which: `why` says what each waits for).\n"
  }

  /// The shared variables at the end and the calls into the user interface, lab and real
  /// side by side; nothing for a world without shared state.
  static func sharedStateText(_ world: World, run: RealRun) -> String {
    guard let shared = world.shared else { return "" }
    var out = ""
    if !shared.variableNames.isEmpty {
      let lab = zip(shared.variableNames, shared.values).map { "\($0) = \($1)" }.joined(separator: ", ")
      let real = run.finalValues.map { "\($0.name) = \($0.value)" }.joined(separator: ", ")
      out +=
        "Shared variables at the end: in the lab \(lab); on the real queue \(real)"
        + (lab == real ? ".\n" : " (the threads' timing decides a racy one: `explore` shows the lab's other orders).\n")
    }
    var labTouches: [String] = []
    for e in world.trace where e.kind == .touchedUI {
      guard let op = e.op else { continue }
      var who = world.name(op)
      if e.reason.isCompletionStep { who += "'s completion block" }
      labTouches.append(who + (World.isOnMainThread(e) ? " on main" : " off main"))
    }
    if !labTouches.isEmpty || !run.uiTouches.isEmpty {
      let real = run.uiTouches.map {
        ($0.inCompletion ? "\(World.possessive($0.name)) completion block" : $0.name) + ($0.onMainThread ? " on main" : " off main")
      }
      out +=
        "User-interface calls: in the lab \(labTouches.isEmpty ? "none" : labTouches.joined(separator: ", ")); "
        + "on the real queue \(real.isEmpty ? "none" : real.joined(separator: ", ")) (Thread.isMainThread at the call).\n"
    }
    if !run.refusedAdds.isEmpty {
      out +=
        "On the real queue an `add` step found \(run.refusedAdds.joined(separator: ", ")) already in a queue and skipped it "
        + "(the real addOperation would raise there).\n"
    }
    return out
  }

  /// What may explain the differences: the platform the lab imitates, the threads the
  /// machine has, the lab's own machine.
  static func reasons(_ world: World, lanes: [SideBySide.Lane], run: RealRun) -> [String] {
    var reasons: [String] = []
    if world.platform == .apple {
      reasons.append(
        "This process runs swift-corelibs-foundation (Linux), and the lab imitates Apple platforms "
          + "(`platform apple`): where the two differ, `platform linux` shows what this queue does.")
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var most = 0
    for lane in lanes {
      guard let s = lane.lab.start else { continue }
      let overlapping = lanes.filter { o in
        guard let os = o.lab.start else { return false }
        return os <= s && (o.lab.end ?? .infinity) > s
      }
      most = Swift.max(most, overlapping.count)
    }
    if most > cores {
      reasons.append(
        "The lab ran \(most) operations at once; this machine has \(cores) \(cores == 1 ? "core" : "cores"), and "
          + "libdispatch on Linux starts with a thread per core and adds threads slowly, so the real queue may start "
          + "some late.")
    }
    if !run.unfinished.isEmpty, !run.interrupted, run.endTick > world.now {
      reasons.append(
        "Still unfinished on the real queue when the run ended at t=\(run.endTick) (\(run.endTick - world.now) ticks "
          + "after the lab's now): \(run.unfinished.joined(separator: ", ")).")
    }
    return reasons
  }

  static func format(seconds: Double) -> String {
    seconds < 10 ? "\(SideBySide.format(seconds).dropLast()) s" : "\(Int(seconds.rounded())) s"
  }

  /// Which Foundation `real` plays on: `status` names the platform the lab imitates, which
  /// may be another.
  static var hostFoundation: String {
    #if os(Linux)
    "Linux: swift-corelibs-foundation"
    #else
    "Apple's Foundation"
    #endif
  }
}
