import OpLabCore

/// What kind of value a command argument takes: drives validation, messages and completion.
public enum ValueKind: Hashable, Sendable {
  /// A name for something new (identifier).
  case newName
  /// Names for new operations, separated by commas (`op a,b,c`).
  case newNames
  /// An existing operation.
  case op
  /// An existing queue.
  case queue
  /// A comma-separated list of existing operations.
  case opList
  /// A whole number, 0 or more (or -1, the default limit: a `maxConcurrentOperationCount`).
  case count
  /// A whole number, 1 or more.
  case positive
  /// A length of work in ticks (0 to ``OperationSpec/maxDuration``).
  case duration
  /// A tick on the clock (0 to ``World/maxTick``).
  case tick
  /// A number of ticks to move the clock by (0 to ``World/maxTick``).
  case ticks
  /// The tick of `run until`: any tick, since work already running can carry the clock
  /// past ``World/maxTick`` (the world refuses it when nothing is scheduled).
  case runTarget
  /// A comma-separated list of whole numbers (block durations).
  case durations
  /// A queue priority name.
  case priority
  /// A quality-of-service name.
  case qos
  /// `apple` or `linux`.
  case platform
  /// A file path.
  case file
  /// A command name.
  case command
  /// An existing operation or queue.
  case opOrQueue
  /// A block's length in ticks after a `+` (`blocks OP +3`).
  case plusDuration
  /// A gate's name, new or existing (`op … gate network`).
  case gateName
  /// An existing gate (`open network`).
  case gate
  /// A whole number, negative or not (a shared variable's value).
  case integer
  /// Steps on shared state, separated by commas: `read count, compute 1, write count`
  /// (several tokens; see ``Matcher``).
  case steps
  /// Choices at open points, separated by commas (`order 1,0,2`).
  case choices
  /// An existing dispatch queue (made by `dispatch`).
  case dispatchQueue

  /// How the value is named in usage lines and messages.
  public var placeholder: String {
    switch self {
    case .newName: "NAME"
    case .newNames: "NAME[,NAME...]"
    case .op: "OP"
    case .queue: "QUEUE"
    case .opList: "OP[,OP...]"
    case .count, .positive, .duration, .ticks: "N"
    case .tick, .runTarget: "T"
    case .durations: "D1,D2,..."
    case .priority: "P"
    case .qos: "Q"
    case .platform: "apple|linux"
    case .file: "FILE"
    case .command: "COMMAND"
    case .opOrQueue: "OP|QUEUE"
    case .plusDuration: "+D"
    case .gateName, .gate: "GATE"
    case .integer: "N"
    case .steps: "STEP[,STEP...]"
    case .choices: "C[,C...]"
    case .dispatchQueue: "DISPATCHQ"
    }
  }

  /// A phrase for "expected …" messages.
  public var phrase: String {
    switch self {
    case .newName, .newNames: "a name"
    case .op: "an operation name"
    case .queue: "a queue name"
    case .opList: "operation names separated by commas"
    case .count: "a whole number (0 or more, or -1 for the default)"
    case .positive: "a whole number (1 or more)"
    case .duration: "a number of ticks (0 or more)"
    case .tick, .runTarget: "a tick (0 or more)"
    case .ticks: "a number of ticks (0 or more)"
    case .durations: "block durations separated by commas"
    case .priority: "a priority (veryLow, low, normal, high, veryHigh)"
    case .qos: "a quality of service (background, utility, default, userInitiated, userInteractive)"
    case .platform: "apple or linux"
    case .file: "a file path"
    case .command: "a command name"
    case .opOrQueue: "an operation or queue name"
    case .plusDuration: "a block's ticks after a plus sign (e.g. +3)"
    case .gateName: "a gate's name"
    case .gate: "the name of a gate (made by `op … gate NAME`)"
    case .integer: "a whole number"
    case .steps: "steps separated by commas (read VAR, compute N, write VAR, lock L, unlock L, touch ui, add OP)"
    case .choices: "choices separated by commas (0 or more each)"
    case .dispatchQueue: "a dispatch queue's name (made by `dispatch NAME`)"
    }
  }
}

/// The shape of a command's arguments: the single description that parsing, usage
/// lines, help and completion all read.
public indirect enum Pattern: Sendable {
  /// A literal keyword.
  case word(String)
  /// A value, stored under `key`.
  case value(ValueKind, key: ArgumentKey)
  /// All of these, in order.
  case seq([Pattern])
  /// The first of these that matches.
  case choice([Pattern])
  /// This, or nothing.
  case optional(Pattern)
  /// Zero or more values, stored under `key`.
  case many(ValueKind, key: ArgumentKey)

  /// The usage text, e.g. `[max N|default]`.
  public var usage: String {
    switch self {
    case .word(let w): w
    case .value(let kind, _): kind.placeholder
    case .seq(let parts): parts.map(\.usage).joined(separator: " ")
    case .choice(let parts): parts.map(\.usage).joined(separator: "|")
    case .optional(let p): "[\(p.usage)]"
    case .many(let kind, _): "[\(kind.placeholder)...]"
    }
  }

  /// Every literal keyword in the pattern.
  var words: [String] {
    switch self {
    case .word(let w): [w]
    case .seq(let parts), .choice(let parts): parts.flatMap(\.words)
    case .optional(let p): p.words
    case .value, .many: []
    }
  }

  /// The literal keyword a pattern starts with, if any.
  var leadingWord: String? {
    switch self {
    case .word(let w): w
    case .seq(let parts): parts.first?.leadingWord
    default: nil
    }
  }
}

/// The name a command's pattern stores a value under, and its build reads it by: a
/// closed set, so a typo is a compile error rather than a value silently missing.
public enum ArgumentKey: String, Hashable, Sendable {
  case after, at, block, blocks, choices, command, completion, completionDoes, cores, dep, deps, does
  case dispatch, every, failsAt, file, from, gate, limit, max, ms, name, on, op, platform, preemptions, priority, qos
  case queue
  case queues, takes, target, tick, ticks, to, until, value
}

/// One command of the language, declared once: its name, the shape of its arguments
/// (which parsing, usage lines and Tab completion read), its help, and how its typed
/// value is built from what the line matched. What the command does to a session (changes
/// the world, only looks, travels in time, pages) is ``Command/traits``.
public struct CommandSpec: Sendable {
  /// Makes the command from the typed values a line matched; throws for what the
  /// grammar alone cannot refuse (a name already taken, options that clash).
  public typealias Build = @Sendable (Matches) throws(ParseError) -> Command

  /// The command's name.
  public var name: String
  /// Other names that mean the same.
  public var aliases: [String]
  /// Arguments in order.
  public var arguments: [Pattern]
  /// Options: each starts with its own keyword, may come in any order, at most once.
  public var options: [Pattern]
  /// One line for the command list.
  public var summary: String
  /// More help: what it does and what the real API does.
  public var details: String
  /// Example lines.
  public var examples: [String]
  /// Makes the typed command from a match.
  public var build: Build

  /// The usage line, generated from the patterns.
  public var usage: String {
    ([name] + arguments.map(\.usage) + options.map { "[\($0.usage)]" }).joined(separator: " ")
  }

  /// Every keyword the command takes after its name (`async`, `every`, `from`, …).
  public var keywords: [String] { (arguments + options).flatMap(\.words) }
}
