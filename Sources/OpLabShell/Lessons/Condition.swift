import OpLabCore

/// A fact about a world that a lesson checks: a task's goal, a prediction's truth, a checkpoint.
///
/// Conditions read the simulator's state and trace, never the commands typed, so any
/// correct way of solving a task passes.
public indirect enum Condition: Hashable, Sendable {
  case finished(String, at: Tick?)
  case started(String, at: Tick?)
  case skipped(String)
  case outcome(String, Outcome)
  case phase(String, OpPhase)
  case cancelled(String)
  case order(started: Bool, [String])
  case overlap(String, String)
  case idle
  case stalled
  case now(Tick)
  case suspended(String, at: Tick?)
  case max(String, Int?)
  case depends(String, on: String)
  case exists(String)
  case completed(String)
  case on(String, queue: String)
  case priority(String, QueuePriority)
  case platform(Platform)
  /// `value VAR N`: the shared variable holds N now.
  case value(String, Int)
  /// `race-free`: the race detector finds no data race and no lost update in the run.
  case raceFree
  /// `lock-order-safe`: some operation takes a lock inside another, and no two take them in opposite orders.
  case lockOrderSafe
  /// `ui-on-main`: something touched the user interface, always on the main thread.
  case uiOnMain
  case not(Condition)

  /// The words a condition can start with, for messages.
  public static let keywords = [
    "finished", "started", "skipped", "outcome", "state", "cancelled", "order", "overlap", "idle", "stalled", "now",
    "suspended", "max", "depends", "exists", "completed", "on", "priority", "platform", "value", "race-free", "lock-order-safe", "ui-on-main", "not",
  ]

  /// Parses a condition such as `finished f2 at 7` or `not cancelled d1`.
  /// - Throws: a ``ParseError`` whose column is within `text`.
  public static func parse(_ text: String) throws(ParseError) -> Condition {
    let tokens = Lexer.tokens(text)
    var i = 0
    return try parse(tokens, &i, whole: text)
  }

  private static func parse(_ t: [Token], _ i: inout Int, whole: String) throws(ParseError) -> Condition {
    func fail(_ message: String, at k: Int? = nil, hint: String? = nil) -> ParseError {
      let index = k ?? i
      let token = index < t.count ? t[index] : nil
      return ParseError(
        column: token?.column ?? (whole.count + 1), length: token?.text.count ?? 1, message: message, hint: hint)
    }
    func word() throws(ParseError) -> String {
      guard i < t.count else { throw fail("this condition needs more words") }
      i += 1
      return t[i - 1].text
    }
    func tick() throws(ParseError) -> Tick {
      let text = try word()
      // `t=7` as the lab prints ticks, or `7`.
      let digits = text.lowercased().hasPrefix("t=") ? String(text.dropFirst(2)) : text
      guard let n = Tick(digits), n >= 0 else { throw fail("'\(text)' is not a tick", at: i - 1, hint: "a whole number, like 7 (or t=7)") }
      return n
    }
    func optionalAt() throws(ParseError) -> Tick? {
      guard i < t.count, t[i].text == "at" else { return nil }
      i += 1
      return try tick()
    }
    guard i < t.count else { throw fail("an empty condition", hint: "start with one of: " + keywords.joined(separator: ", ")) }
    let head = t[i].text.lowercased()
    i += 1
    let result: Condition
    switch head {
    case "not": result = .not(try parse(t, &i, whole: whole))
    case "finished": result = .finished(try word(), at: try optionalAt())
    case "started": result = .started(try word(), at: try optionalAt())
    case "skipped": result = .skipped(try word())
    case "outcome":
      let op = try word()
      let text = try word().lowercased()
      let outcome: Outcome? =
        switch text {
        case "success", "succeeded": .succeeded
        case "cancelled": .cancelled
        case "failed": .failed
        case "bailed": .bailed
        default: nil
        }
      guard let outcome else { throw fail("'\(text)' is not an outcome", at: i - 1, hint: "use success, cancelled, failed or bailed") }
      result = .outcome(op, outcome)
    case "state":
      let op = try word()
      let text = try word().lowercased()
      guard let phase = [OpPhase.created, .pending, .ready, .executing, .finished].first(where: { $0.description == text }) else {
        throw fail("'\(text)' is not a state", at: i - 1, hint: "use created, pending, ready, executing or finished")
      }
      result = .phase(op, phase)
    case "cancelled": result = .cancelled(try word())
    case "order":
      let kind = try word().lowercased()
      guard kind == "started" || kind == "finished" else { throw fail("say `order started` or `order finished`", at: i - 1) }
      var names: [String] = []
      while i < t.count { names.append(t[i].text); i += 1 }
      guard names.count >= 2 else { throw fail("`order` needs two or more operations") }
      result = .order(started: kind == "started", names)
    case "overlap": result = .overlap(try word(), try word())
    case "idle": result = .idle
    case "stalled": result = .stalled
    case "now": result = .now(try tick())
    case "suspended": result = .suspended(try word(), at: try optionalAt())
    case "max":
      let q = try word()
      let text = try word()
      if text == "default" || text == "-1" {
        result = .max(q, nil)
      } else if let n = Int(text), n >= 0 {
        result = .max(q, n)
      } else {
        throw fail("'\(text)' is not a limit", at: i - 1)
      }
    case "depends":
      let op = try word()
      if i < t.count, t[i].text == "on" { i += 1 }
      result = .depends(op, on: try word())
    case "exists": result = .exists(try word())
    case "completed": result = .completed(try word())
    case "on": result = .on(try word(), queue: try word())
    case "priority":
      let op = try word()
      let text = try word()
      guard let p = QueuePriority(name: text) else { throw fail("'\(text)' is not a priority", at: i - 1) }
      result = .priority(op, p)
    case "value":
      let name = try word()
      let text = try word()
      guard let n = Int(text) else { throw fail("'\(text)' is not a whole number", at: i - 1) }
      result = .value(name, n)
    case "race-free": result = .raceFree
    case "lock-order-safe": result = .lockOrderSafe
    case "ui-on-main": result = .uiOnMain
    case "platform":
      let text = try word()
      guard let p = Platform(rawValue: text.lowercased()) else { throw fail("'\(text)' is not a platform", at: i - 1) }
      result = .platform(p)
    default:
      let guess = Suggest.closest(to: head, in: keywords)
      throw fail(
        "unknown condition '\(head)'", at: i - 1, hint: guess.map { "did you mean '\($0)'?" } ?? "use one of: " + keywords.joined(separator: ", "))
    }
    if case .not = result {
    } else if i < t.count {
      throw fail("unexpected '\(t[i].text)' after the condition")
    }
    return result
  }

  /// The condition without its `not`s.
  public var positive: Condition {
    if case .not(let inner) = self { return inner.positive }
    return self
  }

  /// The tick a positive condition pins (`started X at 4`), if any.
  public var tick: Tick? {
    switch self {
    case .finished(_, let t?), .started(_, let t?), .now(let t): t
    default: nil
    }
  }

  /// The operations (first) and queues (second) the condition names, to check they exist.
  public var names: (operations: [String], queues: [String]) {
    switch self {
    case .not(let inner): return inner.names
    case .finished(let n, _), .started(let n, _), .skipped(let n), .outcome(let n, _), .phase(let n, _), .cancelled(let n),
      .completed(let n), .priority(let n, _):
      return ([n], [])
    case .order(_, let ns): return (ns, [])
    case .overlap(let a, let b), .depends(let a, on: let b): return ([a, b], [])
    case .suspended(let q, _), .max(let q, _): return ([], [q])
    case .on(let n, let q): return ([n], [q])
    case .exists, .idle, .stalled, .now, .platform, .value, .raceFree, .lockOrderSafe, .uiOnMain: return ([], [])
    }
  }

  /// What the world shows instead, in a few words, for a condition about operations
  /// (`d2 started at t=3`, `the order was b, a`); `nil` when there is nothing to add.
  public func observed(in world: World) -> String? {
    func record(_ name: String) -> OperationRecord? { world.operationID(named: name).map { world.operation($0) } }
    func when(_ tick: Tick?) -> String { tick.map { "t=\($0)" } ?? "never" }
    switch self {
    case .not(let inner): return inner.observed(in: world)
    case .finished(let name, _):
      guard let r = record(name) else { return "there is no operation \(name)" }
      return r.finishedAt.map { "\(name) finished at t=\($0)" } ?? "\(name) has not finished (\(r.phase))"
    case .started(let name, _):
      guard let r = record(name) else { return "there is no operation \(name)" }
      if let t = Self.startTick(name, in: world) { return "\(name) started at t=\(t)" }
      if let t = Self.skipTick(name, in: world) { return "\(name) never started: it was cancelled, and the queue skipped it at t=\(t)" }
      return "\(name) has not started (\(r.phase))"
    case .order(let started, let names):
      let ticks = names.map { name -> (String, Tick?) in
        (name, started ? Self.startTick(name, in: world) : record(name)?.finishedAt)
      }
      return (started ? "started: " : "finished: ") + ticks.map { "\($0.0) \(when($0.1))" }.joined(separator: ", ")
    case .overlap(let a, let b):
      return [a, b].map { name in
        let r = record(name)
        return "\(name) ran \(when(Self.startTick(name, in: world)))-\(r?.finishedAt.map { "t=\($0)" } ?? "on")"
      }.joined(separator: ", ")
    case .outcome(let name, _): return record(name).map { "\(name) is \($0.phase)" + ($0.outcome.map { " (\($0))" } ?? "") }
    case .phase(let name, _): return record(name).map { "\(name) is \($0.phase)" }
    case .value(let name, _): return world.value(of: name).map { "\(name) is \($0)" } ?? "there is no variable \(name)"
    case .lockOrderSafe:
      guard let cycle = world.lockOrderCycle() else { return world.lockOrderEdges().isEmpty ? "no operation takes one lock inside another" : nil }
      return "locks are taken in opposite orders: " + (cycle + [cycle[0]]).joined(separator: " → ") + " (each taken while holding the one before)"
    case .uiOnMain:
      let off = world.raceReport().offMainThread.map { world.name($0.op) }
      return off.isEmpty
        ? "nothing touched the user interface" : "the user interface was touched off the main thread by " + off.joined(separator: ", ")
    case .raceFree:
      let r = world.raceReport()
      return
        "the race detector found \(r.races.count) data \(r.races.count == 1 ? "race" : "races") and \(r.lostUpdates.count) lost \(r.lostUpdates.count == 1 ? "update" : "updates") (`races` shows them)"
    default: return nil
    }
  }

  /// When OP's `main()` began: its `started` event. A cancelled operation the queue only
  /// skipped never started (it finished without running), so it has none.
  public static func startTick(_ name: String, in world: World) -> Tick? {
    firstEvent(name, in: world) { $0 == .started }
  }

  /// When the queue skipped OP (cancelled before it started), if it did.
  public static func skipTick(_ name: String, in world: World) -> Tick? {
    firstEvent(name, in: world) { $0 == .skipped }
  }

  static func firstEvent(_ name: String, in world: World, _ match: (EventKind) -> Bool) -> Tick? {
    guard let id = world.operationID(named: name) else { return nil }
    for e in world.trace where e.op == id && match(e.kind) { return e.tick }
    return nil
  }

  /// The tick an `order` condition compares for OP: when it started (never, if it was
  /// skipped), or when it finished.
  static func orderTick(_ name: String, started: Bool, in world: World) -> Tick? {
    started ? startTick(name, in: world) : world.operationID(named: name).flatMap { world.operation($0).finishedAt }
  }

  /// Two operations an `order` condition (or one under `not`) compares that started (or
  /// finished) at the same tick. The real queue leaves the order of a same-tick tie
  /// unspecified, so a condition that depends on one grades nothing real.
  public func tie(in world: World) -> (String, String, Tick)? {
    switch self {
    case .not(let inner): return inner.tie(in: world)
    case .order(let started, let names):
      let ticks = names.map { Self.orderTick($0, started: started, in: world) }
      for i in names.indices {
        for j in names.indices where j > i {
          if let a = ticks[i], let b = ticks[j], a == b { return (names[i], names[j], a) }
        }
      }
      return nil
    default: return nil
    }
  }

  /// Whether nothing the learner does from now on (without going back in time) can change
  /// whether the condition holds: the trace only grows, so what happened stays happened.
  /// Conservative: `false` whenever some future could still change it.
  public func settled(in world: World) -> Bool {
    func record(_ name: String) -> OperationRecord? { world.operationID(named: name).map { world.operation($0) } }
    switch self {
    case .not(let inner): return inner.settled(in: world)
    case .finished(let name, let at):
      guard let r = record(name) else { return false }
      if r.isFinished { return true }
      return at.map { world.now > $0 } ?? false
    case .started(let name, let at):
      guard let r = record(name) else { return false }
      // Started, or finished (skipped) without starting: its first start is fixed.
      if Self.startTick(name, in: world) != nil || r.isFinished || Self.skipTick(name, in: world) != nil { return true }
      return at.map { world.now > $0 } ?? false
    case .skipped(let name):
      guard let r = record(name) else { return false }
      return r.isFinished || Self.startTick(name, in: world) != nil || Self.skipTick(name, in: world) != nil
    case .outcome(let name, _):
      return record(name)?.isFinished ?? false
    case .completed:
      return holds(in: world)
    case .order(let started, let names):
      guard names.allSatisfy({ record($0) != nil }) else { return false }
      func never(_ name: String) -> Bool {
        guard let r = record(name) else { return false }
        return started ? (Self.skipTick(name, in: world) != nil || (r.isFinished && Self.startTick(name, in: world) == nil)) : false
      }
      if names.contains(where: never) { return true }
      let ticks = names.map { Self.orderTick($0, started: started, in: world) }
      if ticks.allSatisfy({ $0 != nil }) { return true }
      // A later one has its tick while an earlier one has none yet (it can only come later
      // or at the same tick), or two are already out of order: broken for good.
      for i in names.indices {
        for j in names.indices where j > i {
          guard let b = ticks[j] else { continue }
          if let a = ticks[i] { if a >= b { return true } } else { return true }
        }
      }
      return false
    case .overlap(let a, let b):
      if holds(in: world) { return true }
      // Once one has finished, the other had to start before that: one that starts later
      // (or does not exist yet, and so can only start later) never overlaps it.
      for (p, q) in [(a, b), (b, a)] {
        guard let ended = record(q)?.finishedAt else { continue }
        guard let began = Self.startTick(p, in: world) else { return true }
        if began >= ended { return true }
      }
      return false
    case .suspended(_, let at?):
      return world.now > at
    case .now(let t):
      return world.now > t
    case .cancelled(let name):
      // Cancelling cannot be taken back, and a finished operation ignores `cancel()`.
      guard let r = record(name) else { return false }
      return r.isCancelled || r.isFinished
    case .phase(let name, let phase):
      // Finished is for good; an operation that runs never waits again.
      guard let r = record(name) else { return false }
      if r.isFinished { return true }
      return r.phase == .executing && phase != .executing && phase != .finished
    case .on(let name, _):
      // An operation joins one queue, once.
      return record(name)?.queue != nil
    case .uiOnMain:
      // A touch off the main thread stays in the trace.
      return !world.raceReport().offMainThread.isEmpty
    default:
      return false
    }
  }

  /// Whether a task check holding now is not enough to call it done: a `not` about what an
  /// operation does (`not skipped c`, `not cancelled x`, `not started d at 5`) holds before
  /// the operation has done anything, so it counts only once it can no longer change
  /// (``settled(in:)``).
  public var waitsToSettle: Bool {
    guard case .not(let inner) = self else { return false }
    switch inner.positive {
    case .started, .finished, .skipped, .cancelled, .outcome, .completed, .overlap, .order, .on: return true
    default: return false
    }
  }

  /// Whether a task check counts as met: it holds, and a `not` about what an operation does
  /// can no longer change (``waitsToSettle``).
  public func met(in world: World) -> Bool {
    holds(in: world) && (!waitsToSettle || settled(in: world))
  }

  /// Whether the condition holds in `world`. Unknown names make it false.
  public func holds(in world: World) -> Bool {
    func op(_ name: String) -> OperationRecord? { world.operationID(named: name).map { world.operation($0) } }
    func firstTick(_ name: String, _ match: (EventKind) -> Bool) -> (index: Int, tick: Tick)? {
      guard let id = world.operationID(named: name) else { return nil }
      for (i, e) in world.trace.enumerated() where e.op == id && match(e.kind) { return (i, e.tick) }
      return nil
    }
    switch self {
    case .not(let inner): return !inner.holds(in: world)
    case .finished(let name, let at):
      guard let r = op(name), r.isFinished else { return false }
      return at.map { r.finishedAt == $0 } ?? true
    case .started(let name, let at):
      guard let s = firstTick(name, { $0 == .started }) else { return false }
      return at.map { s.tick == $0 } ?? true
    case .skipped(let name): return firstTick(name, { $0 == .skipped }) != nil
    case .outcome(let name, let outcome): return op(name)?.outcome == outcome
    case .phase(let name, let phase): return op(name)?.phase == phase
    case .cancelled(let name): return op(name)?.isCancelled ?? false
    case .order(let started, let names):
      // By tick, strictly: a same-tick tie is no order (the real queue leaves it unspecified),
      // and a skipped operation never started.
      let ticks = names.map { Self.orderTick($0, started: started, in: world) }
      guard ticks.allSatisfy({ $0 != nil }) else { return false }
      let values = ticks.compactMap { $0 }
      return zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    case .overlap(let a, let b):
      guard let x = op(a), let y = op(b), let xs = Self.startTick(a, in: world), let ys = Self.startTick(b, in: world) else { return false }
      let xe = x.finishedAt ?? Tick.max, ye = y.finishedAt ?? Tick.max
      return xs < ye && ys < xe
    case .idle: return world.isIdle
    case .stalled: return world.nextEventTick == nil && !world.isIdle
    case .now(let t): return world.now == t
    case .suspended(let q, nil): return world.queueID(named: q).map { world.queue($0).isSuspended } ?? false
    case .suspended(let name, let at?):
      // As it stood once everything at tick `at` had happened: its last suspend or resume by then.
      guard let q = world.queueID(named: name) else { return false }
      var suspended = false
      for e in world.trace where e.queue == q && e.op == nil {
        if e.tick > at { break }
        if e.kind == .suspended { suspended = true } else if e.kind == .resumed { suspended = false }
      }
      return suspended
    case .max(let q, let n): return world.queueID(named: q).map { world.queue($0).maxConcurrent == n } ?? false
    case .depends(let a, let b):
      guard let x = world.operationID(named: a), let dep = world.operationID(named: b) else { return false }
      return world.dependencies(of: x).contains(dep)
    case .exists(let name): return world.operationID(named: name) != nil || world.queueID(named: name) != nil
    case .completed(let name): return firstTick(name, { $0 == .completionFinished }) != nil
    case .on(let name, let queue):
      guard let q = world.queueID(named: queue) else { return false }
      return op(name)?.queue == q
    case .priority(let name, let p): return op(name)?.spec.priority == p
    case .platform(let p): return world.platform == p
    case .value(let name, let n): return world.value(of: name) == n
    case .raceFree:
      // Happens-before finds the races of every order, not only this one's; with none, every
      // order explore could run gives the same values, so a lost update shows in this run too.
      guard world.shared != nil else { return false }
      let r = world.raceReport()
      return r.races.isEmpty && r.lostUpdates.isEmpty
    case .lockOrderSafe:
      return !world.lockOrderEdges().isEmpty && world.lockOrderCycle() == nil
    case .uiOnMain:
      let touched = world.trace.contains { $0.kind == .touchedUI }
      return touched && world.raceReport().offMainThread.isEmpty
    }
  }
}
