import OpLabCore

/// What `lesson check` proves about a task beyond its solution: that doing nothing does not
/// solve it, that a `not` check is met only once it can no longer change, and that the
/// goal acts on what the learner's world has.
extension LessonChecker {
  /// Do-nothing moves that solve the task: `run`, or `step` after `step`, from the task's
  /// starting world. Each is tried in a what-if branch (`fork`), which `unfork` leaves.
  /// - Returns: the move and the tick at which every check was met, or `nil`.
  static func doNothingSolves(_ t: LessonTask, _ interpreter: Interpreter) -> (move: String, tick: Tick)? {
    let done = { TaskCoach.done(t, in: interpreter.world) }
    func tryMove(_ body: () -> Tick?) -> Tick? {
      guard interpreter.execute("fork").error == nil else { return nil }
      defer { _ = interpreter.execute("unfork") }
      return body()
    }
    if let tick = tryMove({ interpreter.execute("run").error == nil && done() ? interpreter.world.now : nil }) {
      return ("run", tick)
    }
    if let tick = tryMove({
      for _ in 0..<200 {
        guard interpreter.world.nextEventTick != nil, interpreter.execute("step").error == nil else { return nil }
        if done() { return interpreter.world.now }
      }
      return nil
    }) {
      return ("step", tick)
    }
    return nil
  }

  /// The words a goal uses to ask the learner to act on an operation or queue that must already be there.
  static let actingVerbs: Set<String> = ["cancel", "cancels", "cancelling", "canceling", "suspend", "resume", "prioritise", "prioritize"]

  /// Names the goal asks the learner to act on ("cancel b") that the task's world does not
  /// have, though the solution makes them: the learner cannot do what the goal says.
  static func actsOnWhatOnlyTheSolutionMakes(_ goal: String, before: Set<String>, after: World) -> [(verb: String, name: String)] {
    let made = Set(after.operationNames + after.allQueueNames).subtracting(before)
    let byName = Dictionary(made.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    let words = goal.split(whereSeparator: { " \t,;:!?()`'\"".contains($0) }).map { w -> String in
      var w = Substring(w.lowercased())
      while let last = w.last, last == "." { w.removeLast() }
      return String(w)
    }
    var found: [(String, String)] = []
    for (i, w) in words.enumerated() where actingVerbs.contains(w) {
      // `cancel b`, `cancel all b`, `suspend the queue q`: the next few words.
      for next in words[(i + 1)..<min(words.count, i + 4)] {
        if let name = byName[next], !found.contains(where: { $0.1 == name }) { found.append((w, name)) }
      }
    }
    return found
  }

  /// Hints before the last that hand over a command of the solution word for word: a
  /// learner who asks for a first hint should get a direction, not the answer (the course's
  /// standards). Commands of one word (`run`, `tap`) are everywhere and not counted.
  static func hintProblems(_ t: LessonTask, file: String) -> [LessonError] {
    guard t.hints.count > 1 else { return [] }
    let commands = t.solution.map { $0.text.trimmingWhitespace() }.filter { $0.split(separator: " ").count > 1 }
    return t.hints.dropLast().enumerated().compactMap { k, hint in
      let lowered = hint.lowercased()
      guard let given = commands.first(where: { lowered.contains($0.lowercased()) }) else { return nil }
      return LessonError(
        file: file, line: t.line, column: 1,
        message: "the task's hint \(k + 1) of \(t.hints.count) hands over the solution's `\(given)` before the last hint",
        hint: "say the direction in that hint, and give the command only in the last one (the `restart` hint can come first)")
    }
  }
}
