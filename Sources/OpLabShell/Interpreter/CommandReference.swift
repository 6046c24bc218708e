/// `docs/commands.md`: every command of ``CommandTable`` as `help COMMAND` shows it, in
/// Markdown, so the reference in the repository is the lab's own and cannot drift from it (a
/// test compares the file with this; `swift run oplab --generate-command-reference >
/// docs/commands.md` writes it anew).
public enum CommandReference {
  /// The whole page, ending in a newline.
  public static func markdown() -> String {
    var out = """
      # The lab's commands

      Every command the lab takes, at its prompt, in script files (`oplab run`) and in lessons,
      as `help COMMAND` shows it inside the lab. This page is generated from the lab's command
      table (`oplab --generate-command-reference`); a test keeps it current.

      """
    out += "\n" + Help.notes.map { "- \($0)\n" }.joined() + "\n"
    out += "| command | what it does |\n|---|---|\n"
    for spec in CommandTable.all {
      out += "| [`\(spec.name)`](#\(spec.name)) | \(cell(spec.summary)) |\n"
    }
    for spec in CommandTable.all {
      out += "\n## \(spec.name)\n\n"
      out += "```\n\(spec.usage)\n```\n\n"
      out += capitalized(spec.summary) + ".\n\n"
      for paragraph in spec.details.split(separator: "\n\n") {
        out += paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") + "\n\n"
      }
      if !spec.aliases.isEmpty { out += "Also: " + spec.aliases.map { "`\($0)`" }.joined(separator: ", ") + ".\n\n" }
      if !spec.examples.isEmpty { out += "Examples:\n\n```\n" + spec.examples.map { $0 + "\n" }.joined() + "```\n" }
    }
    return out
  }

  private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

  private static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
