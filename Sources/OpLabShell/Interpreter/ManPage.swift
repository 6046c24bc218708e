import Foundation
import OpLabRender

/// The man page, `oplab.1`, in mdoc(7): the command line as swift-argument-parser describes
/// it, then the lab's own commands from ``CommandTable``, with the text `help` shows.
/// `make install` writes it with `oplab --generate-man-page`, from the binary it has just
/// built, so the page cannot drift from the program and costs no second build.
public enum ManPage {
  /// A command as swift-argument-parser describes it in the JSON of
  /// `--experimental-dump-help` (its `ToolInfoV0`): only the fields the page uses.
  public struct Command: Decodable, Sendable {
    public var commandName: String
    public var abstract: String?
    public var discussion: String?
    public var shouldDisplay: Bool?
    public var subcommands: [Command]?
    public var arguments: [Argument]?
  }

  /// An argument, option or flag of a ``Command``.
  public struct Argument: Decodable, Sendable {
    public enum Kind: String, Decodable, Sendable { case positional, option, flag }

    /// One spelling: `kind` is `long` (`--width`), `short` (`-h`) or `longWithSingleDash`.
    public struct Name: Decodable, Sendable {
      public var kind: String
      public var name: String
    }

    public var kind: Kind
    public var shouldDisplay: Bool
    public var isOptional: Bool
    public var isRepeating: Bool
    public var names: [Name]?
    public var valueName: String?
    public var abstract: String?
  }

  /// Why no page was made.
  public enum Failure: Error, CustomStringConvertible {
    /// The command line's description was not the JSON expected; the decoder's words.
    case unreadableDescription(String)

    public var description: String {
      switch self {
      case .unreadableDescription(let why):
        "oplab: cannot make the man page: swift-argument-parser's description of the command line did not read as expected (\(why))"
      }
    }
  }

  /// The page for the command line `description` describes.
  /// - Parameters:
  ///   - description: the JSON `--experimental-dump-help` prints.
  ///   - date: the page's date (`.Dd`), taken in UTC.
  /// - Returns: the page's mdoc source, ending in a newline.
  /// - Throws: ``Failure/unreadableDescription(_:)`` when `description` is not that JSON.
  public static func render(description: String, date: Date) throws -> String {
    struct Tool: Decodable { var command: Command }
    do {
      let tool = try JSONDecoder().decode(Tool.self, from: Data(description.utf8))
      return render(tool.command, date: date)
    } catch {
      throw Failure.unreadableDescription(String(describing: error))
    }
  }

  /// The page for `root`: name, synopsis, description, options, subcommands, the lab's
  /// commands and the exit statuses.
  public static func render(_ root: Command, date: Date) -> String {
    let name = root.commandName
    let subcommands = (root.subcommands ?? []).filter { $0.shouldDisplay ?? true }
    var lines = [
      #".\" \#(name).1: made by `\#(name) --generate-man-page` from the command line's own"#,
      #".\" description and the lab's command table. Edit those, not this."#,
      ".Dd " + day(date),
      ".Dt \(name.uppercased()) 1",
      ".Os",
      ".Sh NAME",
      ".Nm " + argument(name),
      ".Nd " + argument(sentence(root.abstract ?? "", capital: false, period: false)),
      ".Sh SYNOPSIS",
      ".Nm",
    ]
    lines += displayed(root.arguments).map(synopsis)
    for sub in subcommands {
      lines += [".Nm", ".Cm " + argument(sub.commandName)]
      let args = displayed(sub.arguments).filter { !builtIn($0) }
      if args.contains(where: { $0.kind != .positional }) { lines.append(".Op Ar options") }
      lines += args.filter { $0.kind == .positional }.map(synopsis)
    }

    lines.append(".Sh DESCRIPTION")
    lines += text(sentence(root.discussion ?? root.abstract ?? "", capital: true, period: true))
    lines += [".Pp", "At its prompt, in scripts and in lessons, the lab reads the commands of", ".Sx LAB COMMANDS ."]

    lines += [".Sh OPTIONS", ".Bl -tag -width Ds"]
    lines += displayed(root.arguments).flatMap(item)
    lines.append(".El")

    if !subcommands.isEmpty {
      // The options a subcommand shares with the root were described above: named only
      // (--help and --version, which every command takes, not even that).
      let rootNames = Set(displayed(root.arguments).compactMap { spelled($0).first })
      lines += [".Sh SUBCOMMANDS", ".Bl -tag -width Ds"]
      for sub in subcommands {
        lines.append(".It Nm Cm " + argument(sub.commandName))
        lines += text(sentence(sub.abstract ?? "", capital: true, period: true))
        if let discussion = sub.discussion, !discussion.isEmpty { lines += [".Pp"] + text(discussion) }
        let args = displayed(sub.arguments).filter { !builtIn($0) }
        let own = args.filter { arg in spelled(arg).first.map { !rootNames.contains($0) } ?? true }
        let shared = args.filter { arg in spelled(arg).first.map { rootNames.contains($0) } ?? false }
        if !own.isEmpty { lines += [".Bl -tag -width Ds"] + own.flatMap(item) + [".El"] }
        if !shared.isEmpty {
          lines += [".Pp", "It also takes the options above:"]
          lines.append(".Fl " + shared.compactMap { spelled($0).first.map(flag) }.joined(separator: " , Fl ") + " .")
        }
      }
      lines.append(".El")
    }

    lines += labCommands()

    lines += [
      ".Sh EXIT STATUS",
      ".Bl -tag -width Ds",
      ".It \(Shell.Status.ok)", "Success.",
      ".It \(Shell.Status.scriptError)", "An error in a script, in a lesson check or in piped input.",
      ".It \(Shell.Status.usage)", "Bad usage: an unknown option or a bad value.",
      ".El",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// The LAB COMMANDS section: every command of ``CommandTable`` as `help COMMAND` shows it
  /// (names, summary, usage, details, examples), then what `help` says under its list.
  static func labCommands() -> [String] {
    var lines = [
      ".Sh LAB COMMANDS",
      "The lab's own language: typed at its prompt, in script files",
      ".Pq Nm Cm run",
      "and in lessons.",
      "Inside the lab,",
      ".Ic help",
      "lists them and",
      ".Ic help Ar command",
      "shows one as here.",
    ]
    for note in Help.notes { lines += [".Pp"] + text(note) }
    lines += [".Bl -tag -width Ds"]
    for spec in CommandTable.all {
      lines.append(".It " + ([spec.name] + spec.aliases).map { "Ic " + argument($0) }.joined(separator: " , "))
      lines += text(sentence(spec.summary, capital: true, period: true))
      lines += [".Pp", "Usage:"] + text(Help.glued(spec.usage))
      for paragraph in spec.details.split(separator: "\n\n") { lines += [".Pp"] + text(String(paragraph)) }
      if !spec.examples.isEmpty {
        lines += [".Pp", "Examples:", ".Bd -literal -offset indent"]
        lines += spec.examples.map { line in literal(escaped(line)) }
        lines.append(".Ed")
      }
    }
    lines.append(".El")
    return lines
  }

  /// Only the arguments `--help` shows.
  private static func displayed(_ arguments: [Argument]?) -> [Argument] {
    (arguments ?? []).filter(\.shouldDisplay)
  }

  /// Whether it is an option every command takes: `--help`, `--version`.
  private static func builtIn(_ arg: Argument) -> Bool {
    ["--help", "--version"].contains(spelled(arg).first ?? "")
  }

  /// Its spellings with their dashes, long ones first: `--help`, `-h`.
  private static func spelled(_ arg: Argument) -> [String] {
    let names = arg.names ?? []
    let long = names.filter { $0.kind == "long" }.map { "--" + $0.name }
    let other = names.filter { $0.kind != "long" }.map { "-" + $0.name }
    return long + other
  }

  /// `--width` as the argument of `Fl`, which writes one dash itself.
  private static func flag(_ spelling: String) -> String { argument(String(spelling.dropFirst())) }

  /// What the argument takes: `Ar width`, `Ar files ...`.
  private static func value(_ arg: Argument) -> String {
    "Ar " + argument(arg.valueName ?? "value") + (arg.isRepeating ? " ..." : "")
  }

  /// One argument in the synopsis: `.Op Fl -width Ar width`.
  private static func synopsis(_ arg: Argument) -> String {
    let body: String
    switch arg.kind {
    case .positional: body = value(arg)
    case .option: body = "Fl " + flag(spelled(arg).first ?? "") + " " + value(arg)
    case .flag: body = "Fl " + flag(spelled(arg).first ?? "")
    }
    return arg.isOptional ? ".Op " + body : "." + body
  }

  /// One argument in a tag list: every spelling, then its help.
  private static func item(_ arg: Argument) -> [String] {
    let title: String
    switch arg.kind {
    case .positional: title = value(arg)
    case .option: title = spelled(arg).map { "Fl " + flag($0) + " " + value(arg) }.joined(separator: " , ")
    case .flag: title = spelled(arg).map { "Fl " + flag($0) }.joined(separator: " , ")
    }
    return [".It " + title] + text(arg.abstract ?? "")
  }

  /// `summary` as a sentence: a capital or not, with or without a closing period.
  private static func sentence(_ summary: String, capital: Bool, period: Bool) -> String {
    var s = summary.trimmingCharacters(in: .whitespacesAndNewlines)
    if s.hasSuffix(".") { s.removeLast() }
    if let first = s.first {
      s = (capital ? first.uppercased() : first.lowercased()) + s.dropFirst()
    }
    return period && !s.isEmpty ? s + "." : s
  }

  /// Prose as text lines, as mdoc wants them: each sentence on a line of its own (roff
  /// takes a line's end after a full stop for a sentence's end, and a full stop within a
  /// line for none), lines wrapped at 80 bytes between words, none empty (an empty line is
  /// no paragraph break in mdoc) and none starting with a blank (that breaks the line).
  private static func text(_ prose: String) -> [String] {
    let words = prose.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
    let typeset = words.map { word in (isCode(word) ? "\\%" : "") + escaped(word) }
    var lines: [String] = []
    var line = ""
    for (i, word) in words.enumerated() {
      line += line.isEmpty ? typeset[i] : " " + typeset[i]
      guard i + 1 < words.count else { break }
      // Not after a full stop that ends no sentence ("e.g."): that would make one.
      let tooLong = line.utf8.count + 1 + typeset[i + 1].utf8.count > 80 && !endsSentence(word)
      if tooLong || (endsSentence(word) && startsSentence(words[i + 1])) {
        lines.append(literal(line))
        line = ""
      }
    }
    if !line.isEmpty { lines.append(literal(line)) }
    return lines
  }

  /// Whether a word is code (`` `max` ``, `super.isReady`, `maxConcurrentOperationCount:`),
  /// which `\%` keeps from being hyphenated.
  private static func isCode(_ word: String) -> Bool {
    word.contains { "`._()[]".contains($0) } || word.dropFirst().contains { $0.isUppercase }
  }

  /// Whether a word ends the way a sentence does: `.`, `?` or `!`, then maybe closing
  /// quotes or brackets (`done.)`).
  private static func endsSentence(_ word: String) -> Bool {
    let end = word.reversed().drop { ")]\"'`".contains($0) }
    return end.first.map { ".?!".contains($0) } ?? false
  }

  /// Whether a word can start a sentence: a capital, or a `command` in backquotes.
  private static func startsSentence(_ word: String) -> Bool {
    word.first.map { $0.isUppercase || $0 == "`" } ?? false
  }

  /// A text line that cannot be taken for a request: one starting with `.` or `'` gets
  /// a zero-width `\&` first.
  private static func literal(_ line: String) -> String {
    line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
  }

  /// roff's escapes: `\` as `\e`, ``Wrap/glue`` as an unbreakable space, other non-ASCII
  /// characters by code point (`\[u2014]`), which groff and mandoc both read.
  private static func escaped(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\\": out += "\\e"
      case "\t": out += " "
      case _ where Character(scalar) == Wrap.glue: out += "\\~"
      case _ where scalar.isASCII: out.unicodeScalars.append(scalar)
      default:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
      }
    }
    return out
  }

  /// A macro's argument: escaped, `"` as `\(dq`, quoted when it holds a blank, and led by
  /// `\&` unless it starts with a lower-case letter, a digit or `-`, so that neither a
  /// macro's name (`Op`) nor punctuation (`?`) is read as such.
  private static func argument(_ s: String) -> String {
    var out = escaped(s.replacingOccurrences(of: "\n", with: " ")).replacingOccurrences(of: "\"", with: "\\(dq")
    if let first = out.unicodeScalars.first, !("a"..."z" ~= first || "0"..."9" ~= first || first == "-") {
      out = "\\&" + out
    }
    return out.isEmpty || out.contains(" ") ? "\"" + out + "\"" : out
  }

  /// A date as `.Dd` wants it: `April 5, 2026`, in UTC.
  private static func day(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    let months = [
      "January", "February", "March", "April", "May", "June",
      "July", "August", "September", "October", "November", "December",
    ]
    let month = months[min(max((parts.month ?? 1) - 1, 0), 11)]
    return "\(month) \(parts.day ?? 1), \(parts.year ?? 1970)"
  }
}
