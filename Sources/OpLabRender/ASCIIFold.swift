/// `--ascii` for every view: the few non-ASCII symbols the views draw with, replaced by ASCII.
///
/// The timeline has its own ASCII glyph set; this covers the sentences and tables
/// (arrows, check marks, dashes) so that no view prints anything else.
public enum ASCIIFold {
  static let table: [Character: String] = [
    "✓": "v", "✗": "x", "←": "<-", "→": "->", "⟲": "@", "—": "-", "…": "...", "‖": "|", "↩": "r",
    "░": "-", "█": "#", "▓": "=", "·": ".",
  ]

  /// `text` with the views' symbols folded to ASCII (names the learner typed are left alone
  /// unless they use these very symbols).
  public static func fold(_ text: String) -> String {
    guard text.contains(where: { table[$0] != nil }) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for ch in text {
      if let replacement = table[ch] { out += replacement } else { out.append(ch) }
    }
    return out
  }
}
