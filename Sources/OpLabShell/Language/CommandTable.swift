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
    let lower = name.lowercased()
    return all.first { $0.name == lower || $0.aliases.contains(lower) }
  }

  /// Every name and alias.
  public static var names: [String] { all.flatMap { [$0.name] + $0.aliases } }
}
