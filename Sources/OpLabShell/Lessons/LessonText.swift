import OpLabCore

/// An author's message with facts from the trace: `{started d6}` becomes `t=11` (or
/// `never`), so a message can say what the learner's world did, not what it should have.
///
/// | placeholder | becomes |
/// | --- | --- |
/// | `{now}` | the clock: `t=8` |
/// | `{started OP}` | when OP's `main()` began, or `never` (a skipped op never starts) |
/// | `{finished OP}` | when OP finished, or `never` |
/// | `{skipped OP}` | when the queue skipped OP (cancelled before it started), or `never` |
/// | `{cancelled OP}` | when OP was first cancelled, or `never` |
/// | `{suspended QUEUE}` | when QUEUE was last suspended, or `never` |
/// | `{resumed QUEUE}` | when QUEUE was last resumed, or `never` |
/// | `{state OP}` | OP's state now: `ready`, `executing`… |
/// | `{outcome OP}` | how OP finished (`succeeded`, `cancelled`…), or `not finished` |
public enum LessonText {
  /// One placeholder: its word, the name it reads (empty for `now`), and where it is.
  public struct Placeholder: Hashable, Sendable {
    public var kind: String
    public var name: String
    /// 0-based character offset of the `{` in the message.
    public var offset: Int
    /// Whether `name` is a queue (else an operation).
    public var namesQueue: Bool { kind == "suspended" || kind == "resumed" }
  }

  /// The placeholder words, with whether they take a name.
  public static let kinds: [String: Bool] = [
    "now": false, "started": true, "finished": true, "skipped": true, "cancelled": true,
    "suspended": true, "resumed": true, "state": true, "outcome": true,
  ]

  /// The placeholders in `message`.
  /// - Throws: where one is not well formed (0-based offset, message, hint).
  public static func placeholders(in message: String) throws(LessonTextError) -> [Placeholder] {
    var out: [Placeholder] = []
    let chars = Array(message)
    var i = 0
    while i < chars.count {
      if chars[i] == "}" {
        throw LessonTextError(offset: i, message: "a '}' without its '{'", hint: "placeholders look like {started d6}")
      }
      guard chars[i] == "{" else { i += 1; continue }
      guard let close = chars[(i + 1)...].firstIndex(of: "}") else {
        throw LessonTextError(offset: i, message: "a '{' without its '}'", hint: "placeholders look like {started d6}")
      }
      let words = String(chars[(i + 1)..<close]).split(separator: " ").map(String.init)
      let kind = words.first?.lowercased() ?? ""
      guard let takesName = kinds[kind] else {
        let guess = Suggest.closest(to: kind, in: Array(kinds.keys))
        throw LessonTextError(
          offset: i, message: "unknown placeholder '{\(words.joined(separator: " "))}'",
          hint: guess.map { "did you mean '{\($0)…}'?" } ?? "use one of: " + kinds.keys.sorted().joined(separator: ", "))
      }
      guard words.count == (takesName ? 2 : 1) else {
        throw LessonTextError(
          offset: i, message: takesName ? "{\(kind) …} needs one name" : "{\(kind)} takes no name",
          hint: takesName ? "e.g. {\(kind) \(kind == "suspended" || kind == "resumed" ? "downloads" : "d1")}" : nil)
      }
      out.append(Placeholder(kind: kind, name: takesName ? words[1] : "", offset: i))
      i = close + 1
    }
    return out
  }

  /// `message` with its placeholders filled in from `world` (one that does not parse is
  /// left as written: `lesson check` refuses it before a learner sees it).
  public static func fill(_ message: String, world: World) -> String {
    guard let found = try? placeholders(in: message), !found.isEmpty else { return message }
    var out = ""
    let chars = Array(message)
    var i = 0
    for p in found {
      out += String(chars[i..<p.offset])
      out += value(p, world: world)
      i = (chars[p.offset...].firstIndex(of: "}") ?? p.offset) + 1
    }
    out += String(chars[i...])
    return out
  }

  /// The placeholders in prose (narrative, a question, `explain:`, a goal, a hint), where a
  /// brace may also be Swift (`addOperation { }`): only a `{…}` that is a placeholder's
  /// word and its name counts; any other brace is text.
  public static func prosePlaceholders(in text: String) -> [Placeholder] {
    var out: [Placeholder] = []
    let chars = Array(text)
    var i = 0
    while i < chars.count {
      guard chars[i] == "{", let close = chars[(i + 1)...].firstIndex(where: { $0 == "}" || $0 == "{" }), chars[close] == "}" else {
        i += 1
        continue
      }
      let words = String(chars[(i + 1)..<close]).split(separator: " ").map(String.init)
      if let kind = words.first?.lowercased(), let takesName = kinds[kind], words.count == (takesName ? 2 : 1) {
        out.append(Placeholder(kind: kind, name: takesName ? words[1] : "", offset: i))
      }
      i = close + 1
    }
    return out
  }

  /// Prose with its placeholders filled in from `world` (see ``prosePlaceholders(in:)``).
  public static func fillProse(_ text: String, world: World) -> String {
    let found = prosePlaceholders(in: text)
    guard !found.isEmpty else { return text }
    var out = ""
    let chars = Array(text)
    var i = 0
    for p in found {
      out += String(chars[i..<p.offset])
      out += value(p, world: world)
      i = (chars[p.offset...].firstIndex(of: "}") ?? p.offset) + 1
    }
    out += String(chars[i...])
    return out
  }

  static func value(_ p: Placeholder, world: World) -> String {
    func tick(_ t: Tick?) -> String { t.map { "t=\($0)" } ?? "never" }
    let record = world.operationID(named: p.name).map { world.operation($0) }
    switch p.kind {
    case "now": return "t=\(world.now)"
    case "started":
      // An operation that has not started may still: "never" only once it has finished.
      if let t = Condition.startTick(p.name, in: world) { return "t=\(t)" }
      return record?.finishedAt == nil ? "not yet" : "never"
    case "finished": return tick(record?.finishedAt)
    case "skipped": return tick(Condition.skipTick(p.name, in: world))
    case "cancelled": return tick(record?.cancelledAt)
    case "state": return record.map { "\($0.phase)" } ?? "not there"
    case "outcome": return record?.outcome.map { "\($0)" } ?? "not finished"
    case "suspended", "resumed":
      guard let q = world.queueID(named: p.name) else { return "never" }
      let kind: EventKind = p.kind == "suspended" ? .suspended : .resumed
      return tick(world.trace.last { $0.queue == q && $0.op == nil && $0.kind == kind }?.tick)
    default: return "{\(p.kind)}"
    }
  }
}

/// A placeholder that is not well formed, at a 0-based offset in its message.
public struct LessonTextError: Error, Hashable, Sendable {
  public var offset: Int
  public var message: String
  public var hint: String?
}
