import OpLabCore
import OpLabRender

/// The lab's warnings in a reply, as ``Reply/warnings`` carries them: found from what the
/// command did (the events it caused, the command itself), never by reading the reply's
/// words; and, for a lesson, a reply's text with them taken out.
///
/// A lesson holds the warnings of the commands that set up a prediction until the
/// learner has answered, since they could give the answer away
/// (``LessonRunner/show(_:holdingWarnings:)``).
enum LabWarnings {
  /// The note `max Q 0` adds after its events (as the interpreter words it).
  static func maxZeroNote(_ queue: String) -> String {
    "  note: with max 0 nothing on \(queue) will start until the limit is raised"
  }

  /// The note a barrier adds on a queue whose concurrent underlying dispatch queue another
  /// queue uses too: the lab holds back only this queue's operations behind it, where the
  /// real dispatch barrier holds every item submitted to that dispatch queue meanwhile.
  static func sharedBarrierNote(_ queue: String, in world: World) -> String {
    guard let q = world.queueID(named: queue), let d = world.queue(q).underlyingQueue, world.dispatchQueues[Int(d)].isConcurrent,
      let other = world.queueIDs.first(where: { $0 != q && world.queue($0).underlyingQueue == d })
    else { return "" }
    let name = world.dispatchQueueName(d)
    return "  note: \(name) is also \(World.possessive(world.name(other))) underlying queue: on the real \(name) this barrier "
      + "also holds back the work other queues submit to it while it runs; the lab holds back only \(World.possessive(queue)) (not modelled)\n"
  }

  /// The warnings `command` raised, in the order its reply shows them, each as the one
  /// line it is before the reply is fitted to the width: a dependency cycle closed (an
  /// event of `events`, echoed as the interpreter echoes events), and a queue set to start
  /// nothing.
  static func raised(by command: Command, events: [Event], in world: World) -> [String] {
    var lines: [String] = []
    for e in events {
      if case .cycleClosed = e.kind { lines.append("  t=\(e.tick)  \(world.describe(e))") }
    }
    if case .max(let queue, .count(0)) = command { lines.append(maxZeroNote(queue)) }
    return lines
  }

  /// Whether `command` sets a queue to start nothing (`max Q 0`), a warning of ``raised(by:events:in:)``.
  static func isMaxZero(_ command: Command) -> Bool {
    if case .max(_, .count(0)) = command { return true }
    return false
  }

  /// Where the `raised` lines are among the lines of `output` once fitted to `options`
  /// (wrapped, and folded to ASCII when asked): a range of line numbers each, its wrapped
  /// continuation lines included. A warning the output does not show (past the echo's
  /// limit) has none.
  static func lines(of raised: [String], in output: String, options: ShellOptions) -> [Range<Int>] {
    guard !raised.isEmpty else { return [] }
    let shown = Self.lines(output)
    var ranges: [Range<Int>] = []
    var from = 0
    for line in raised {
      var fitted: [String] = Wrap.lines(line[...], width: options.width, ascii: options.ascii)
      if options.ascii { fitted = fitted.map { ASCIIFold.fold($0) } }
      let count = fitted.count
      guard shown.count - count >= from else { continue }
      let starts = from...(shown.count - count)
      guard let at = starts.first(where: { start in shown[start..<(start + count)].map(String.init) == fitted }) else { continue }
      ranges.append(at..<(at + count))
      from = at + count
    }
    return ranges
  }

  /// The lines of `text`, without the empty one after a final newline.
  static func lines(_ text: String) -> [Substring] {
    Array(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0))
  }
}

extension Interpreter {
  /// The lab's warnings among the lines of `output`, the reply to `command`, whose events
  /// are the trace's from `mark` on (see ``Reply/warnings``).
  func warningLines(in output: String, after command: Command, eventsFrom mark: Int) -> [Range<Int>] {
    // The warnings read only the cycles closed: the echo's, when it read the same events.
    let events: [Event]
    if let echoed = echoedEvents, echoed.start == mark, echoed.end == world.trace.count {
      events = echoed.cycles
    } else {
      events = world.trace.count > mark ? Array(world.trace.events(from: mark)) : []
    }
    echoedEvents = nil
    // Without a cycle closed nor a queue set to start nothing, no warning (and no copy of
    // the world passed to `raised`).
    guard !events.isEmpty || LabWarnings.isMaxZero(command) else { return [] }
    return LabWarnings.lines(of: LabWarnings.raised(by: command, events: events, in: world), in: output, options: options)
  }
}

extension Reply {
  /// The reply's text split into what is shown now and its warnings (``warnings``), each
  /// warning's lines joined, without a final newline. Every line shown ends in a newline
  /// (an empty reply is one empty line).
  var separatingWarnings: (shown: String, warnings: [String]) {
    let lines = LabWarnings.lines(output)
    var shown = ""
    var held: [String] = []
    var index = 0
    for range in warnings {
      for line in lines[index..<range.lowerBound] { shown += line + "\n" }
      held.append(lines[range].joined(separator: "\n"))
      index = range.upperBound
    }
    for line in lines[index...] { shown += line + "\n" }
    return (shown, held)
  }
}
