/// The command table: the one description of the language. Parsing, `help`, usage
/// lines, Tab completion, the man page and `docs/commands.md` all read it.
///
/// Adding a command touches three places: its case in ``Command`` and its
/// ``Command/traits`` (one exhaustive switch: the compiler asks), its ``CommandSpec`` in
/// one of the topic files of `Language/Commands/` (grammar, help, examples, and the
/// `build` that makes the typed command), and what ``Interpreter`` does with it (an
/// exhaustive switch too). Saving, the session journal, undo and paging follow from the
/// traits; `CommandTableTests` walks every entry's examples.
public enum CommandTable {
  /// Every command, in the order `help` lists them.
  public static let all: [CommandSpec] = operations + dispatch + control + machine + clock + views + session + sharedState

  /// Finds a command by name or alias.
  public static func spec(named name: String) -> CommandSpec? {
    index(named: name).map { all[$0] }
  }

  /// Where the command of this name or alias is in ``all``.
  static func index(named name: String) -> Int? {
    let lower = name.utf8.contains { (0x41...0x5A).contains($0) || $0 >= 0x80 } ? name.lowercased() : name
    return byName[lower]
  }

  /// The keyword each option of each command starts with (``Pattern/leadingWord``), in
  /// the order of ``all`` and of its options: what the parser's quick pass compares the
  /// next word with, found once rather than from the patterns on every line (#34).
  static let optionWords: [[String?]] = all.map { $0.options.map(\.leadingWord) }

  /// Each name and alias, with its command's place in ``all`` (the first, if two shared one).
  private static let byName: [String: Int] = {
    var index: [String: Int] = [:]
    for (k, spec) in all.enumerated() {
      for name in [spec.name] + spec.aliases where index[name] == nil { index[name] = k }
    }
    return index
  }()

  /// Every name and alias.
  public static var names: [String] { all.flatMap { [$0.name] + $0.aliases } }
}
