import OpLabRender

/// `help`: generated from the command table, laid out for the width it is shown at.
enum Help {
  static func render(_ name: String?, width: Int) -> String {
    if let name, let spec = CommandTable.spec(named: name) {
      var out = "usage: \(glued(spec.usage))\n\n\(spec.summary).\n\n"
      // The details are prose: reflowed to the width, paragraph by paragraph.
      let paragraphs = spec.details.split(separator: "\n\n").map { Wrap.paragraph(String($0), width: width, indent: 2) }
      out += paragraphs.joined(separator: "\n\n") + "\n"
      if !spec.aliases.isEmpty { out += "\nalso: " + spec.aliases.joined(separator: ", ") + "\n" }
      out += "\nexamples:\n" + spec.examples.map { "  \($0)\n" }.joined()
      return out
    }
    let column = (CommandTable.all.map(\.name.count).max() ?? 8) + 2
    var out = "Commands (help COMMAND for more; Tab completes):\n"
    for spec in CommandTable.all {
      out += "  " + spec.name + String(repeating: " ", count: column - spec.name.count) + spec.summary + "\n"
    }
    out += "\n" + notes.map { $0 + "\n" }.joined()
    return out
  }

  /// What `help` says under the command list (the man page says it too).
  static let notes = [
    "Every world starts with the queues `main` (serial) and `queue` (default settings).",
    "priorities: veryLow low normal high veryHigh",
    "qos: background utility default userInitiated userInteractive",
  ]

  /// A usage line whose bracketed groups (`[on QUEUE]`, `[async [forgets-finish]]`) are kept
  /// whole on one line when it wraps.
  static func glued(_ usage: String) -> String {
    var depth = 0
    return String(
      usage.map { ch -> Character in
        if ch == "[" { depth += 1 }
        if ch == "]" { depth = max(0, depth - 1) }
        return ch == " " && depth > 0 ? Wrap.glue : ch
      })
  }
}
