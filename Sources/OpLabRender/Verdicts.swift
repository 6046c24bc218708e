import OpLabCore

/// What the lab says when the clock stops with nothing more to do: idle, or stalled.
///
/// `run`, `wait` (from main too) and `status` word it here, and count the unfinished
/// operations with one function, ``World/unfinishedOperations()``: the numbers they give
/// agree, whichever command stopped.
public enum Verdicts {
  /// "idle at t=8: every operation has finished". Operations never added to a queue have
  /// not finished, and the queues do not wait for them: they are named instead.
  public static func idle(in world: World) -> String {
    let unfinished = world.unfinishedOperations().filter { world.operation($0).queue == nil }
    // Started by hand (`start`), an asynchronous operation that never calls finish() runs on.
    let startedByHand = unfinished.filter { world.operation($0).startedAt != nil }
    let inNoQueue = unfinished.filter { world.operation($0).startedAt == nil }
    var parts: [String] = []
    if let first = inNoQueue.first {
      let names = Chains.list(count: inNoQueue.count, limit: 3) { world.name(inNoQueue[$0]) }
      let verb = inNoQueue.count == 1 ? "is" : "are"
      let add = inNoQueue.count == 1 ? "`add \(world.name(first))` enqueues it" : "`add OP` enqueues one"
      parts.append("\(names) \(verb) in no queue, never started (\(add))")
    }
    if !startedByHand.isEmpty {
      let names = Chains.list(count: startedByHand.count, limit: 3) { world.name(startedByHand[$0]) }
      parts.append("\(names), started by hand, never \(startedByHand.count == 1 ? "calls" : "call") finish()")
    }
    guard !parts.isEmpty else { return "  idle at t=\(world.now): every operation has finished\n" }
    return "  idle at t=\(world.now): every operation in a queue has finished; \(parts.joined(separator: "; "))\n"
  }

  /// "stalled at t=2: nothing more can happen, yet 3 operations are unfinished…", then what
  /// holds each (``Diagnoses/render(_:in:)``), the stalled wait's or run's own first.
  public static func stalled(_ d: Diagnosis, in world: World) -> String {
    "  stalled at t=\(world.now): nothing more can happen, yet \(unfinished(in: world)) and would wait forever "
      + "(anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):\n"
      + Diagnoses.render(d, in: world)
  }

  /// For `status`: the line a stalled world adds ("stalled: nothing more can happen on its
  /// own, yet 3 operations are unfinished…"), or `nil` while something can still happen or
  /// every queue is idle.
  public static func stallLine(in world: World) -> String? {
    guard world.nextEventTick == nil, !world.isIdle else { return nil }
    return
      "stalled: nothing more can happen on its own, yet \(unfinished(in: world)) (`run` says what holds each, `why OP` follows one to its cause)\n"
  }

  /// "1 operation is unfinished", "3 operations are unfinished".
  static func unfinished(in world: World) -> String {
    let n = world.unfinishedOperations().count
    return "\(Chains.grouped(n)) \(n == 1 ? "operation is" : "operations are") unfinished"
  }
}
