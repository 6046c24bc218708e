/// `help`: generated from the command table.
enum Help {
  static func render(_ name: String?) -> String {
    if let name, let spec = CommandTable.spec(named: name) {
      var out = "usage: \(spec.usage)\n\n\(spec.summary).\n\n"
      out += spec.details.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
      if !spec.aliases.isEmpty { out += "\nalso: " + spec.aliases.joined(separator: ", ") + "\n" }
      out += "\nexamples:\n" + spec.examples.map { "  \($0)\n" }.joined()
      return out
    }
    let width = (CommandTable.all.map(\.name.count).max() ?? 8) + 2
    var out = "Commands (help COMMAND for more; Tab completes):\n"
    for spec in CommandTable.all {
      out += "  " + spec.name + String(repeating: " ", count: width - spec.name.count) + spec.summary + "\n"
    }
    out += "\nEvery world starts with the queues `main` (serial) and `queue` (default settings).\n"
    out += "P: veryLow low normal high veryHigh   Q: background utility default userInitiated userInteractive\n"
    return out
  }
}
