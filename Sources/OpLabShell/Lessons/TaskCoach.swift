import OpLabCore

/// Judges a lesson task against the lab's world, and says what the learner should hear.
///
/// A value with no I/O: it reads the task and a ``Lab`` (the simulation, the commands that
/// made it, the undo floor) and returns what to say; the ``LessonRunner`` writes it. It
/// remembers what was said last (``Feedback``), so nothing is said twice.
///
/// ```swift
/// var coach = TaskCoach(task: t, lab: TaskCoach.Lab(interpreter))
/// // … the learner runs a command that changes the world …
/// for remark in coach.judge(in: TaskCoach.Lab(interpreter), clockMoved: true) { print(remark.text) }
/// ```
struct TaskCoach {
  /// What the coach reads of the lab: a copy, so trying a way out changes nothing.
  struct Lab {
    /// The simulation and its history (time travel is tried on a copy of it).
    var sim: Simulation
    /// The commands that made the present world, with the journal length after each.
    var script: SharedLog<(text: String, journalEnd: Int)>
    /// How many of the first ``script`` commands `undo` never takes back.
    var undoFloor: Int
    /// The world now.
    var world: World { sim.world }

    /// The lab as `interpreter` has it now.
    init(_ interpreter: Interpreter) {
      sim = interpreter.sim
      script = interpreter.script
      undoFloor = interpreter.undoFloor
    }
  }

  /// A task's starting state: what `restart` rebuilds and what a way out must keep.
  struct Start {
    var commands: [String]
    var floor: Int
    var tick: Tick
    /// What the checks name that the task's world already has (the rest the learner makes).
    var required: Set<String>
    /// Whether the task could succeed from its start without going back in time.
    var possible: Bool
  }

  /// What the learner was last told about the task, so nothing is said twice.
  struct Feedback {
    var lastSaid: String?
    var impossible = false
    /// The checks that failed at the last judgement: when they change, the world changed in
    /// a way that matters, and a message said before may be said again.
    var failing: [Int] = []
    /// The tick the last way out went back to; when the task fails for good again after
    /// the learner took it, that tick was a dead end (work already started there), and the
    /// next way out goes back further.
    var wayOutTick: Tick?
    /// Ticks a way out led to that turned out to be dead ends: later ways out go back before them.
    var deadEnds: Set<Tick> = []
  }

  /// One thing the coach has to say after a command.
  enum Remark: Equatable {
    /// The task can no longer succeed: why, and the exact way out (a whole sentence).
    case cannotSucceed(String)
    /// After an impossible world, one where the task can succeed again, at this tick.
    case possibleAgain(at: Tick)
    /// The world came to rest short of the goal: what is still missing (a whole sentence).
    case notDoneYet(String)

    /// The words, without a final newline.
    var text: String {
      switch self {
      case .cannotSucceed(let text), .notDoneYet(let text): text
      case .possibleAgain(let tick): "Back at t=\(tick): nothing the task checks has failed for good yet."
      }
    }

    /// Whether it is prose, wrapped at a reading measure (``LessonRunner/wrap(_:)``), rather
    /// than one short line fitted to the terminal.
    var isProse: Bool {
      if case .possibleAgain = self { return false }
      return true
    }
  }

  /// The task being judged.
  let task: LessonTask
  /// Where the task began.
  let start: Start
  /// What was said so far.
  var feedback: Feedback

  /// A coach for `task`, which begins in `lab` as it is now.
  init(task: LessonTask, lab: Lab) {
    self.task = task
    let world = lab.world
    start = Start(
      commands: lab.script.map(\.text), floor: lab.undoFloor, tick: world.now,
      required: Self.named(by: task, in: world), possible: Self.possible(task, in: world))
    feedback = Feedback(failing: Self.failingChecks(task, in: world))
  }

  /// Forgets what was said: the task's world was rebuilt (`restart`) as `lab` has it.
  mutating func restarted(in lab: Lab) {
    feedback = Feedback(failing: Self.failingChecks(task, in: lab.world))
  }

  // MARK: - Judging

  /// After a command that changed the world: says at once when the task can no longer
  /// succeed (and the exact way out), when it can again, and, once the world has come to
  /// rest (nothing left that can happen) short of the goal after the clock moved or the
  /// failing checks changed, what is still missing — each only when it differs from what
  /// was said last.
  /// - Parameters:
  ///   - lab: the lab after the command.
  ///   - clockMoved: whether the command moved the clock.
  /// - Returns: what to say, in order; empty when nothing new.
  mutating func judge(in lab: Lab, clockMoved: Bool) -> [Remark] {
    let world = lab.world
    guard !Self.done(task, in: world) else { return [] }
    let failing = task.checks.filter { !$0.condition.holds(in: world) }
    let indices = Self.failingChecks(task, in: world)
    let changed = indices != feedback.failing
    if changed { feedback.lastSaid = nil }
    feedback.failing = indices
    var remarks: [Remark] = []
    if let broken = failing.first(where: { $0.condition.settled(in: world) }) {
      if !feedback.impossible, let back = feedback.wayOutTick { feedback.deadEnds.insert(back) }
      let text = "✗ This can no longer succeed: \(Self.explain(broken, in: world)) \(wayOut(in: lab))"
      if text != feedback.lastSaid { remarks.append(.cannotSucceed(text)) }
      feedback.lastSaid = text
      feedback.impossible = true
      return remarks
    }
    if feedback.impossible {
      feedback.impossible = false
      feedback.lastSaid = nil
      remarks.append(.possibleAgain(at: world.now))
    }
    // Back at the task's start (the learner's commands all taken back), there is nothing of
    // theirs to judge.
    // Not done yet: once the world has come to rest, after the clock moved or something the
    // checks look at changed (not after a setting that changes nothing they read).
    guard lab.script.count > start.commands.count, world.nextEventTick == nil, changed || clockMoved else { return remarks }
    let text: String
    if let missing = failing.first {
      text = "Not done yet: \(Self.explain(missing, in: world)) (`hint` helps.)"
    } else if let open = Self.unsettled(task, in: world).first {
      // Every check holds, but a `not` about an operation still to act could change.
      let names = open.condition.names.operations.joined(separator: ", ")
      text = "Not done yet: \(names) has not finished, so `\(open.source.text)` could still change. (`hint` helps.)"
    } else {
      return remarks
    }
    if text != feedback.lastSaid { remarks.append(.notDoneYet(text)) }
    feedback.lastSaid = text
    return remarks
  }

  /// A failed check in the lesson's words: its `else:` message with the world's facts.
  static func explain(_ c: CheckedCondition, in world: World) -> String {
    if let m = c.message { return LessonText.fill(m.text, world: world) }
    // A lesson `lesson check` has not passed: what the world shows, without the syntax.
    return c.condition.observed(in: world).map { "the task's goal is not met (\($0))." } ?? "the task's goal is not met."
  }

  // MARK: - Ways out

  /// The exact way back to a world where the task can still succeed: `undo` of the last
  /// command, else `goto T` to the latest tick since the task began that works, else
  /// `restart` — or, when the task's start cannot succeed either, an earlier `goto T`.
  /// Remembers the tick it leads to (see ``Feedback/wayOutTick``).
  mutating func wayOut(in lab: Lab) -> String {
    let script = lab.script
    if script.count > max(lab.undoFloor, start.commands.count), let last = script.last {
      var sim = lab.sim
      if (try? sim.truncate(toActions: script.count >= 2 ? script[script.count - 2].journalEnd : 0)) != nil,
        Self.possible(task, in: sim.world), !feedback.deadEnds.contains(where: { $0 <= sim.world.now })
      {
        feedback.wayOutTick = sim.world.now
        return "`undo` takes back `\(last.text)` and returns to t=\(sim.world.now)."
      }
    }
    // The latest tick that works since the task began; then the task's start itself; then,
    // for a task that asks to go back in time, an earlier tick — as long as what the checks
    // name and the task's world had is still there.
    func goto(_ ticks: [Tick]) -> String? {
      for tick in ticks where !feedback.deadEnds.contains(where: { $0 <= tick }) {
        var sim = lab.sim
        guard (try? sim.rewind(to: tick)) != nil else { continue }
        if Self.named(by: task, in: sim.world).isSuperset(of: start.required), Self.possible(task, in: sim.world) {
          feedback.wayOutTick = tick
          return "`goto \(tick)` goes back to t=\(tick), from where it can."
        }
      }
      return nil
    }
    let now = lab.world.now
    if now > start.tick, let way = goto(Self.candidates(from: start.tick, below: now, in: lab.world)) { return way }
    let restart = "`restart` puts the world back as the task found it."
    feedback.wayOutTick = nil
    if start.possible { return restart }
    return goto(Self.candidates(from: 0, below: min(start.tick, now), in: lab.world)) ?? restart
  }

  /// The ticks worth trying for `goto`, latest first: the world changes only where
  /// something happens, so the latest tick that works is just before an event's tick, or
  /// the last one of the range. At most 100 of them, so a long world stays quick.
  static func candidates(from low: Tick, below high: Tick, in world: World) -> [Tick] {
    guard high > low else { return [] }
    var ticks: [Tick] = [high - 1]
    for e in world.trace.reversed() {
      if e.tick <= low || ticks.count >= 100 { break }
      // A step's event is stamped with the tick it took: the world shows it from the tick after.
      let before = e.kind.isStep ? e.tick : e.tick - 1
      if e.tick <= high, let last = ticks.last, before < last { ticks.append(before) }
    }
    if let last = ticks.last, last > low, ticks.count < 100 { ticks.append(low) }
    return ticks
  }

  // MARK: - The task's checks in a world

  /// Which of the task's checks fail in `world` (their indices).
  static func failingChecks(_ t: LessonTask, in world: World) -> [Int] {
    t.checks.indices.filter { !t.checks[$0].condition.holds(in: world) }
  }

  /// Whether every check of `t` holds in `world`.
  /// A `not` about what an operation does counts only once it can no longer change, unless
  /// the task is about this moment: another check pins that operation's state now
  /// (`state notify pending` beside `not started notify`, with the clock left where it is).
  static func done(_ t: LessonTask, in world: World) -> Bool {
    t.checks.allSatisfy { met($0, of: t, in: world) }
  }

  /// Whether one check of `t` counts as met in `world` (see ``done(_:in:)``).
  static func met(_ c: CheckedCondition, of t: LessonTask, in world: World) -> Bool {
    guard c.condition.holds(in: world) else { return false }
    guard c.condition.waitsToSettle, !c.condition.settled(in: world) else { return true }
    let named = Set(c.condition.names.operations)
    return t.checks.contains { other in
      if case .phase(let name, _) = other.condition, named.contains(name) { return true }
      return false
    }
  }

  /// The checks of `t` that hold in `world` but do not count yet: a `not` about an
  /// operation that has still to act (see ``met(_:of:in:)``).
  static func unsettled(_ t: LessonTask, in world: World) -> [CheckedCondition] {
    t.checks.filter { $0.condition.holds(in: world) && !met($0, of: t, in: world) }
  }

  /// Whether no check of `t` has failed for good in `world`.
  static func possible(_ t: LessonTask, in world: World) -> Bool {
    !t.checks.contains { !$0.condition.holds(in: world) && $0.condition.settled(in: world) }
  }

  /// The operations and queues the task's checks name that `world` has.
  static func named(by t: LessonTask, in world: World) -> Set<String> {
    var found = Set<String>()
    for c in t.checks {
      let (ops, queues) = c.condition.names
      found.formUnion(ops.filter { world.operationID(named: $0) != nil })
      found.formUnion(queues.filter { world.queueID(named: $0) != nil }.map { "queue " + $0 })
    }
    return found
  }
}
