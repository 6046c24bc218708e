/// The command table: the one description of the language. Parsing, `help`, usage
/// lines and Tab completion all read it.
public enum CommandTable {
  /// Every command, in the order `help` lists them.
  public static let all: [CommandSpec] = operations + control + machine + clock + views + session + sharedState

  /// Finds a command by name or alias.
  public static func spec(named name: String) -> CommandSpec? {
    let lower = name.lowercased()
    return all.first { $0.name == lower || $0.aliases.contains(lower) }
  }

  /// Every name and alias.
  public static var names: [String] { all.flatMap { [$0.name] + $0.aliases } }
}
