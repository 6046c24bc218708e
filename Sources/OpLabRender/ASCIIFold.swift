/// `--ascii` for every view: the few non-ASCII symbols the views draw with, replaced by ASCII.
///
/// The timeline has its own ASCII glyph set; this covers the sentences and tables
/// (arrows, check marks, dashes) so that no view prints anything else.
public enum ASCIIFold {
  /// The ASCII for a symbol the views draw with, or `nil` for any other scalar (the
  /// symbols, and the one character canonically equivalent to one of them). A switch on
  /// the scalar's value, not a `[Character: String]`: hashing every character of every reply
  /// was a tenth of the interpreter fuzz target's time.
  static func replacement(for scalar: Unicode.Scalar) -> String? {
    switch scalar.value {
    case 0x2713: "v"  // ✓
    case 0x2717: "x"  // ✗
    case 0x2190: "<-"  // ←
    case 0x2192: "->"  // →
    case 0x27F2: "@"  // ⟲
    case 0x2014: "-"  // —
    case 0x2026: "..."  // …
    case 0x2016: "|"  // ‖
    case 0x21A9: "r"  // ↩
    case 0x2591: "-"  // ░
    case 0x2588: "#"  // █
    case 0x2593: "="  // ▓
    case 0x00B7, 0x0387: "."  // ·, and the Greek ano teleia, which is canonically the same character
    default: nil
    }
  }

  /// `text` with the views' symbols folded to ASCII (names the learner typed are left alone
  /// unless they use these very symbols). A symbol is folded only where it is a character
  /// of its own: with a combining mark on it, it is another character and is kept.
  public static func fold(_ text: String) -> String {
    // Most replies are ASCII already: one pass over the bytes, no characters formed.
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
    guard text.unicodeScalars.contains(where: { replacement(for: $0) != nil }) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for ch in text {
      let scalars = ch.unicodeScalars
      if let first = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex,
        let replacement = replacement(for: first)
      {
        out += replacement
      } else {
        out.append(ch)
      }
    }
    return out
  }
}
