import OpLabCore
import OpLabRender

/// A session's present and its history: the simulation, the effective commands that made
/// it (the script), and what `undo`, `redo`, `back`, `goto`, `choose back`, `fork` and
/// `unfork` need to move between worlds.
///
/// The interpreter performs actions on ``sim`` and ``record(_:)``s each command that
/// changed the world; the history commands are methods that return what to print (or throw
/// a ``Diagnostic``, changing nothing). After every successful command the interpreter calls
/// ``settle(forgetsUndone:keepsTravel:)``, which forgets what a new change left stale.
///
/// **Branches.** `fork` keeps no world: a branch is its journal position — a
/// ``Simulation/Bookmark`` (the journal and the immutable checkpoints, shared with the
/// present and every other branch) — with the script and declared queues that go with it.
/// `unfork` rebuilds the world by replaying the journal from the newest checkpoint, as
/// `undo` does. So `fork` is O(1), and `n` forks store the history once plus at most a
/// block tail each (``SharedLog``), whatever the size of the world.
///
/// ```swift
/// var history = SessionHistory(world: World())
/// _ = history.fork()
/// try history.sim.perform(.step(1))
/// history.record(("step 1", history.sim.journal.count))
/// _ = try history.unfork()   // the world at the fork, replayed
/// ```
struct SessionHistory {
  /// A script entry: a command's text and the journal's length after it.
  typealias Entry = (text: String, journalEnd: Int)

  /// The simulation now. The interpreter performs on it, then records the command.
  var sim: Simulation
  /// Effective commands: the lines that made the present world, with the journal length after each.
  private(set) var script = SharedLog<Entry>() {
    didSet { undoFloor = min(undoFloor, script.count) }
  }
  /// How many of the first ``script`` commands `undo` never takes back (a lesson's); time
  /// travel that cuts the script lowers it.
  var undoFloor = 0
  /// The queue each operation was defined for (`op a on q`), for `add` to default to.
  var declaredQueue = DeclaredQueues()
  /// Set while `redo` runs a command again, so that it does not forget the rest of ``undone``.
  var isRedoing = false
  /// Set when `redo` or `undo` gave back what time travel dropped (journalled as typed).
  var redidTravel = false

  /// What `undo` took back, last on top, for `redo`; forgotten when the world changes otherwise.
  private var undone: [String] = []
  /// The present as it was before the time travel that dropped commands, for `redo` (or
  /// `undo`) to give back; forgotten when anything else changes the world or its history.
  private var beforeTravel: Present?
  /// The script entry time travel made last by cutting a clock command short.
  private var travelCut: Entry?
  /// The branches `fork` kept, innermost last.
  private var branches: [Branch] = []

  /// A branch `fork` kept: where the journal stood, and the shell state that goes with it.
  private struct Branch {
    var bookmark: Simulation.Bookmark
    var script: SharedLog<Entry>
    var declared: DeclaredQueues
  }

  /// The present, whole, as time travel keeps it for `redo` (one world, not one per travel:
  /// only the first of several travels in a row keeps it).
  private struct Present {
    var sim: Simulation
    var script: SharedLog<Entry>
    var declared: DeclaredQueues
    var travelCut: Entry?
    var undoFloor: Int
  }

  /// A history that starts at `world`, with no commands.
  init(world: World) {
    sim = Simulation(world: world)
  }

  /// The world now.
  var world: World { sim.world }

  /// Whether a what-if branch is open.
  var inFork: Bool { !branches.isEmpty }

  // MARK: - Recording commands

  /// Appends a command that changed the world to the script.
  mutating func record(_ entry: Entry) {
    script.append(entry)
  }

  /// Records a command whose actions are the journal's from `journalBefore` on: as `text`,
  /// or, when Ctrl-C cut its clock action short, as the commands that replay what it did
  /// (``keptEntries(from:)``).
  /// - Throws: a ``SimulationError`` from replaying a cut `choose` (not expected).
  mutating func record(_ text: String, journalBefore: Int, interrupted: Bool) throws {
    if interrupted {
      for entry in try keptEntries(from: journalBefore) { script.append(entry) }
    } else {
      script.append((text, sim.journal.count))
    }
  }

  /// After a command that succeeded: forgets what was undone when the command leaves nothing
  /// for `redo`, and the world before time travel when it does not keep it (not while `redo`
  /// runs a command again).
  mutating func settle(forgetsUndone: Bool, keepsTravel: Bool) {
    guard !isRedoing else { return }
    if forgetsUndone { undone.removeAll() }
    if !keepsTravel { beforeTravel = nil }
  }

  /// Starts over from `world`: no commands, no declared queues, no branches.
  mutating func reset(to world: World) {
    sim = Simulation(world: world)
    script = SharedLog()
    declaredQueue = DeclaredQueues()
    branches = []
  }

  // MARK: - Branches

  /// `fork`: keeps where the journal stands, to come back to. O(1).
  /// - Returns: what to print.
  mutating func fork() -> String {
    branches.append(Branch(bookmark: sim.bookmark, script: script, declared: declaredQueue))
    return "  what-if branch started at t=\(world.now); `unfork` returns here\n"
  }

  /// `unfork`: the world the innermost `fork` kept, replayed from the newest checkpoint
  /// before it, with its script and declared queues.
  /// - Throws: a ``Diagnostic`` when no branch is open.
  /// - Returns: what to print.
  /// - Complexity: replays the actions since the checkpoint, as `undo` does.
  mutating func unfork() throws -> String {
    guard let saved = branches.last else {
      throw Diagnostic(column: 1, length: 6, message: "there is no what-if branch to leave", hint: "start one with `fork`")
    }
    let reached = world.now
    sim = try Simulation(restoring: saved.bookmark)
    branches.removeLast()
    script = saved.script
    declaredQueue = saved.declared
    return "  left the branch (it had reached t=\(reached)); back at t=\(world.now)\n"
  }

  // MARK: - Undo and redo

  /// `undo`: takes back the last command (right after time travel, the travel).
  /// - Throws: a ``Diagnostic`` when there is nothing (of the learner's) to undo.
  /// - Returns: what to print.
  mutating func undo() throws -> String {
    if let before = beforeTravel {
      // Right after time travel, the travel is what `undo` takes back: the world before it.
      restore(before)
      redidTravel = true
      return "  undid the time travel: back at t=\(world.now), with every command it dropped\n"
    }
    guard script.count > undoFloor, let last = script.popLast() else {
      if script.isEmpty {
        throw Diagnostic(column: 1, length: 4, message: "there is nothing to undo", hint: "undo takes back commands that changed the world")
      }
      throw Diagnostic(
        column: 1, length: 4, message: "there is nothing of yours to undo: the commands before yours are the lesson's",
        hint: "`back N` moves the clock back N ticks instead")
    }
    try sim.truncate(toActions: script.last?.journalEnd ?? 0)
    pruneDeclaredQueues()
    // What time travel left of a clock command is taken back like any command; the
    // travel itself is not undone (the future it cut is gone), and the learner is told.
    let leftByTravel = travelCut.map { $0.text == last.text && $0.journalEnd == last.journalEnd } ?? false
    if leftByTravel { travelCut = nil }  // taken back: a later command of the same text is the learner's own
    undone.append(last.text)
    let note = leftByTravel ? "  (what time travel left of a clock command; `run` goes forward again)\n" : ""
    return "  took back `\(last.text)`; the clock is at t=\(world.now)\n" + note
  }

  /// What `redo` does: give back what time travel dropped, or run an undone command again.
  enum Redo {
    /// The world before the time travel is back; the text says so.
    case travel(String)
    /// The interpreter runs this command again, with ``isRedoing`` set, and on failure
    /// gives it back with ``putBack(_:)``.
    case command(String)
  }

  /// `redo`: right after time travel, restores the world before it; otherwise takes the
  /// last undone command off the stack for the interpreter to run again.
  /// - Throws: a ``Diagnostic`` when there is nothing to redo.
  mutating func redo() throws -> Redo {
    if undone.isEmpty, let before = beforeTravel {
      // Right after time travel: the world as it was before it, every dropped command back.
      restore(before)
      redidTravel = true
      return .travel("  back at t=\(world.now), as before the time travel: every command it dropped is back\n")
    }
    guard let text = undone.popLast() else {
      throw Diagnostic(
        column: 1, length: 4, message: "there is nothing to redo",
        hint: "`redo` gives back what `undo` took back, or what `back` or `goto` dropped, until another command changes the world")
    }
    return .command(text)
  }

  /// Puts back a command `redo` took but could not run again.
  mutating func putBack(_ text: String) {
    undone.append(text)
  }

  // MARK: - Time travel

  /// `back N`: the world `ticks` ticks ago (not before tick 0).
  /// - Throws: a ``SimulationError`` for a negative count; nothing changes then.
  /// - Returns: what to print: where the clock is, and what was dropped.
  mutating func back(_ ticks: Tick) throws -> String {
    let from = world.now
    let before = present()
    let cut = try sim.back(ticks)
    let note = ticks > from ? " (only \(from) \(from == 1 ? "tick had" : "ticks had") passed; this is the start)" : ""
    return try afterRewind(cut: cut, before: before, note: note)
  }

  /// `goto T`: the world at tick `tick`.
  /// - Parameter column: where the tick was typed, for the error.
  /// - Throws: a ``Diagnostic`` for a future tick.
  /// - Returns: what to print, as ``back(_:)``.
  mutating func goto(_ tick: Tick, column: Int) throws -> String {
    guard tick <= world.now else {
      throw Diagnostic(
        column: column, length: 1,
        message: "tick \(tick) is in the future (the clock is at \(world.now))",
        hint: "goto only goes back; going back forgets what came after, so `fork` first to keep it, or `run until \(tick)`")
    }
    let before = present()
    return try afterRewind(cut: try sim.rewind(to: tick), before: before)
  }

  /// `explore expect …` found an order that breaks the learner's invariant: the world that
  /// order gives, as time travel makes it (`redo` gives the present back). Starts again from
  /// the world the journal starts from with the order set (`order C,…`), performs again the
  /// actions of every command but their own `order` and `choose`, each kept under its text,
  /// and runs until idle (`run`): what each of `explore`'s runs does.
  /// - Returns: what to print.
  /// - Throws: a ``SimulationError`` from an action (not expected: each ran on the same
  ///   world before, and `explore` ran them again); the world is then as it was.
  mutating func loadOrder(_ choices: [Int]) throws -> String {
    let before = present()
    let travel = beforeTravel
    let oldJournal = Array(sim.journal)
    var fresh = Simulation(world: sim.origin)
    var entries: [Entry] = []
    var kept = undoFloor
    do {
      if !choices.isEmpty {
        try fresh.perform(.setStepOrder(choices))
        entries.append(("order " + choices.map(String.init).joined(separator: ","), fresh.journal.count))
        if kept > 0 { kept += 1 }
      }
      var start = 0
      for (i, entry) in script.enumerated() {
        var performed = false
        for action in oldJournal[start..<Swift.min(entry.journalEnd, oldJournal.count)] {
          if case .setStepOrder = action { continue }
          if case .chooseNext = action { continue }
          try fresh.perform(action)
          performed = true
        }
        start = entry.journalEnd
        if performed {
          entries.append((entry.text, fresh.journal.count))
        } else if i < undoFloor {
          kept -= 1  // a lesson's own `order`: gone
        }
      }
      if fresh.world.nextEventTick != nil {
        try fresh.perform(.runUntilIdle)
        entries.append(("run", fresh.journal.count))
      }
    } catch {
      restore(before)
      beforeTravel = travel
      throw error
    }
    sim = fresh
    script = SharedLog(entries)
    travelCut = nil
    undoFloor = Swift.max(0, kept)
    if beforeTravel == nil { beforeTravel = before }
    return "  loaded it: the commands again from the start, after `order`, and `run`; `redo` gives back the world before\n"
  }

  /// `choose back`: the world as it was just before the last choice made at an open point
  /// (`choose K`), with its open point shown again. Undoes the way `undo` does (the journal
  /// cut to before the choice, replayed from a checkpoint): the commands after the choice go
  /// too, and with the choice they wait for `redo`, latest first. Of `choose 1,2` only the
  /// last choice goes: the command stays as `choose 1`.
  mutating func chooseBack(column: Int) throws -> String {
    // The last script entry whose actions include a choice.
    var found: (entry: Int, choice: Int)?
    for i in stride(from: script.count - 1, through: 0, by: -1) {
      let start = i == 0 ? 0 : script[i - 1].journalEnd
      let actions = sim.journal.elements(from: start, to: script[i].journalEnd)
      if let k = actions.lastIndex(where: { if case .chooseNext = $0 { true } else { false } }) {
        found = (i, start + k)
        break
      }
    }
    guard let (entry, choice) = found, entry >= undoFloor, case .chooseNext(let taken) = sim.journal[choice] else {
      throw Diagnostic(
        column: column, length: 4,
        message: found == nil
          ? "there is no choice to back out of" : "there is no choice of yours to back out of: the ones before yours are the lesson's",
        hint: "`choose` shows the next open point and `choose K` makes a choice there; `undo` takes back other commands")
    }
    let start = entry == 0 ? 0 : script[entry - 1].journalEnd
    let text = script[entry].text
    // The choices the same command made before this one (`choose 1,2`: the 1) stay.
    let earlier = sim.journal.elements(from: start, to: choice).compactMap { a -> Int? in
      if case .chooseNext(let k) = a { k } else { nil }
    }
    // (An entry that is not a `choose`, what time travel left of one, goes whole.)
    let isChoose = Lexer.tokens(text).first?.text.lowercased() == "choose"
    let kept = isChoose && !earlier.isEmpty ? "choose " + earlier.map(String.init).joined(separator: ",") : nil
    let cut = kept == nil ? start : choice
    try sim.truncate(toActions: cut)
    var later: [String] = []
    while script.count > entry + 1, let last = script.popLast() { later.append(last.text) }
    script.popLast()
    if let kept { script.append((kept, cut)) }
    if let t = travelCut, t.journalEnd > cut { travelCut = nil }
    pruneDeclaredQueues()
    let gone = kept == nil ? text : "choose \(taken)"
    // For `redo`, latest on top: the choice, then what came after it, in order.
    undone += later + [gone]
    var out = "  backed out of `\(gone)`"
    if !later.isEmpty { out += ", and took back what came after it: " + later.reversed().map { "`\($0)`" }.joined(separator: ", ") }
    out += "; the clock is at t=\(world.now)\n"
    return out + Races.openPointText(world.nextOpenPoint(), in: world)
  }

  private func present() -> Present {
    Present(sim: sim, script: script, declared: declaredQueue, travelCut: travelCut, undoFloor: undoFloor)
  }

  private mutating func restore(_ state: Present) {
    sim = state.sim
    script = state.script
    declaredQueue = state.declared
    travelCut = state.travelCut
    undoFloor = state.undoFloor
    beforeTravel = nil
  }

  /// After `back` or `goto`: cuts the script to match the journal, keeps the world before the
  /// travel for `redo` (the first of several travels in a row: the world with everything),
  /// and says what was dropped and how to get it back.
  private mutating func afterRewind(cut: Bool, before: Present, note: String = "") throws -> String {
    let gone = try cutScript(cut: cut)
    let start = before.script.count - gone.count
    let kept = script.count > start ? Array(script.elements(from: start)).map(\.text) : []
    let text = "  back at t=\(world.now)\(note)"
    guard let first = gone.first else { return text + "\n" }
    if beforeTravel == nil { beforeTravel = before }
    // The first command gone is the one the travel cut, if it kept any of it.
    let dropped = (kept.isEmpty ? gone : Array(gone.dropFirst())).map { "`\($0)`" }
    var parts: [String] = []
    if !kept.isEmpty { parts.append("cut `\(first)` short (kept as \(Interpreter.listed(kept.map { "`\($0)`" })))") }
    if !dropped.isEmpty { parts.append("dropped " + Interpreter.listed(dropped)) }
    return text + "; " + parts.joined(separator: " and ") + ": `redo` brings \(gone.count == 1 ? "it" : "them") back\n"
  }

  /// Cuts the script to match the journal after time travel: pops the entries of the
  /// commands that are gone and, when a command was cut short, appends what is left of it.
  /// - Returns: the texts of the popped entries, in order.
  private mutating func cutScript(cut: Bool) throws -> [String] {
    pruneDeclaredQueues()
    let n = sim.journal.count
    let floor = undoFloor
    // A cut clock command was replaced in the journal by a run to the tick.
    let isGone: (Entry) -> Bool = { cut ? $0.journalEnd >= n : $0.journalEnd > n }
    // Entries are in journal order, so the gone ones are the last.
    var firstGone: Int?
    var gone: [String] = []
    while let last = script.last, isGone(last) {
      script.popLast()
      gone.insert(last.text, at: 0)
      firstGone = script.count
    }
    if cut {
      let kept = try keptEntries(from: script.last?.journalEnd ?? 0)
      for entry in kept { script.append(entry) }
      travelCut = kept.isEmpty ? nil : script.last
      // The cut form of a command below the floor (a lesson's `run`) stays below it.
      if let k = firstGone, k < floor { undoFloor = k + kept.count }
    }
    return gone
  }

  /// The command that replays the journal's last action, a clock action cut short by
  /// Ctrl-C or time travel (``Action/cut(at:)``): `run until T`, or for a wait on the main
  /// thread `wait [QUEUE] from main until T`.
  private func cutText() -> String {
    switch sim.journal.last {
    case .waitOnMainThreadUntil(let q, let t)?: "wait \(q.map { world.name($0) + " " } ?? "")from main until \(t)"
    case .waitForOperations(let ops, let wait)?:
      "wait \(ops.map { world.name($0) }.joined(separator: ",")) \(wait.fromMain ? "from main " : "")until \(wait.until ?? world.now)"
    case .enqueueAll(let ops, let q, let wait?)?:
      "add \(ops.map { world.name($0) }.joined(separator: ",")) to \(world.name(q)) wait \(wait.fromMain ? "from main " : "")until \(wait.until ?? world.now)"
    default: "run until \(world.now)"
    }
  }

  /// The script entries that replay what is left of a command cut short by Ctrl-C or by
  /// time travel, whose actions are the journal's from `start` on, the last one cut
  /// (``Action/cut(at:)``). Most commands leave one clock action: ``cutText()``. A `choose
  /// K1,K2,…` journals a choice and a run to its open point for each choice, so what is left
  /// is `choose` with the choices whose open point was reached, then a run to the tick; a
  /// choice whose point lies past the cut belongs to the future that was cut, and goes (the
  /// journal is cut to match, so the world and its saved script stay the same).
  private mutating func keptEntries(from start: Int) throws -> [Entry] {
    let actions = Array(sim.journal.elements(from: start))
    let pairs = actions.count / 2
    let choices = (0..<pairs).compactMap { i -> Int? in
      guard case .chooseNext(let k) = actions[2 * i], case .runUntil = actions[2 * i + 1] else { return nil }
      return k
    }
    guard pairs > 0, choices.count == pairs, actions.count % 2 == 0 else { return [(cutText(), sim.journal.count)] }
    let tick = world.now
    try sim.truncate(toActions: start + 2 * (pairs - 1))
    var entries: [Entry] = []
    if pairs > 1 { entries.append(("choose " + choices.dropLast().map(String.init).joined(separator: ","), sim.journal.count)) }
    if world.now < tick {
      try sim.perform(.runUntil(tick))
      entries.append(("run until \(tick)", sim.journal.count))
    }
    return entries
  }

  /// Forgets the declared queues of operations that time travel or undo took away: the
  /// last ones made (a world replayed from its journal makes the rest in the same slots).
  mutating func pruneDeclaredQueues() {
    declaredQueue.keepFirst(sim.world.operations.count)
  }

  /// The queue the operation `name` was defined for with `on`, if any.
  func declaredQueue(of name: String) -> String? {
    sim.world.operationID(named: name).flatMap { declaredQueue[$0] }
  }

  // MARK: - Accounting

  /// Journal actions and script entries held by the present and by the branches, storage
  /// shared between them counted once: what forks cost in history.
  var storedHistory: Int {
    var seen = Set<ObjectIdentifier>()
    var total = sim.journal.storedElements(seen: &seen) + script.storedElements(seen: &seen)
    for b in branches { total += b.bookmark.journal.storedElements(seen: &seen) + b.script.storedElements(seen: &seen) }
    return total
  }

  /// Whole worlds kept: the present, the checkpoints of the present and of every branch
  /// (shared ones once), and the present before time travel. Branches add none of their own.
  var storedWorlds: Int {
    var seen = Set<ObjectIdentifier>()
    var total = 1 + Simulation.storedCheckpoints(sim.bookmark, seen: &seen)
    for b in branches { total += Simulation.storedCheckpoints(b.bookmark, seen: &seen) }
    if let before = beforeTravel { total += 1 + Simulation.storedCheckpoints(before.sim.bookmark, seen: &seen) }
    return total
  }
}

/// The queue each operation was defined for with `on` (`op a on q`), by the operation's
/// slot: an array, not a dictionary keyed by name, which a million-line script grew to a
/// million keys, rehashing all of them as it grew (#34). Copied in O(1) by `fork`.
struct DeclaredQueues: Sendable {
  private var byOperation: [String?] = []

  /// The queue `op` was declared for; setting `nil` forgets it.
  subscript(_ op: OpID) -> String? {
    get {
      let slot = Int(op.index)
      return slot >= 0 && slot < byOperation.count ? byOperation[slot] : nil
    }
    set {
      let slot = Int(op.index)
      guard slot >= 0 else { return }
      if slot >= byOperation.count {
        guard newValue != nil else { return }
        byOperation.append(contentsOf: repeatElement(nil, count: slot + 1 - byOperation.count))
      }
      byOperation[slot] = newValue
    }
  }

  /// Forgets every operation from slot `count` on.
  mutating func keepFirst(_ count: Int) {
    if byOperation.count > count { byOperation.removeLast(byOperation.count - count) }
  }
}
