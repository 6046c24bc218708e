import OpLabCore
import Testing

@testable import OpLabRender

@Suite("Wrapping to the width")
struct WrapTests {
  @Test("An event line hangs under its text, clear of the t=N column; marks and numbers stay with their word")
  func eventLine() {
    let line = "  t=12  fetch-thumbnail finished (succeeded): work done, although cancelled: its code did not stop ✓"
    #expect(
      Wrap.text(line + "\n", width: 40) == """
          t=12  fetch-thumbnail finished
                (succeeded): work done, although
                cancelled: its code did not
                stop ✓

        """)
    #expect(
      Wrap.text("t=3 #40 d2 ready: dependency fetch-the-thumbnail-image finished\n", width: 40) == """
        t=3 #40 d2 ready: dependency
                fetch-the-thumbnail-image
                finished

        """)
  }

  @Test("Text whose lines fit is kept as it is; a line that only a CR LF splits is one line, and wraps")
  func fitsAsItIs() {
    let fitting = "  t=1  d1 enqueued on downloads\n  t=1  d1 ready\n\n" + String(repeating: "x", count: 40) + "\n"
    #expect(Wrap.text(fitting, width: 40) == fitting)
    #expect(Wrap.text("é" + String(repeating: "y", count: 39), width: 40) == "é" + String(repeating: "y", count: 39))
    // CR LF is one Character, not a line break, for the wrapping: 60 characters of one line.
    let crlf = String(repeating: "a ", count: 15) + "\r\n" + String(repeating: "b ", count: 14)
    #expect(Wrap.text(crlf, width: 40) != crlf)
    #expect(Wrap.text(crlf, width: 40) == Wrap.lines(crlf[...], width: 40).joined(separator: "\n"))
  }

  @Test("A table row hangs under its second column; a label under the text after it; prose two in")
  func shapes() {
    #expect(
      Wrap.text("  wait      waitUntilAllOperationsAreFinished, from main (or all)", width: 40) == """
          wait      waitUntilAllOp…sAreFinished,
                    from main (or all)
        """)
    #expect(
      Wrap.text("hint: usage: queue NAME [max N|default] [qos Q]", width: 40) == """
        hint: usage: queue NAME [max N|default]
              [qos Q]
        """)
    #expect(
      Wrap.text("It was added to filters at t=0 (waits on 1 unfinished dependency).", width: 40) == """
        It was added to filters at t=0 (waits
          on 1 unfinished dependency).
        """)
  }

  @Test("Glued words break together unless they fit on no line; a word longer than a line is shortened")
  func glueAndLongWords() {
    let usage = "usage: op NAME [on\(Wrap.glue)QUEUE] [cancel-check\(Wrap.glue)every\(Wrap.glue)N|start|never]"
    #expect(Wrap.text(usage, width: 41) == "usage: op NAME [on QUEUE]\n       [cancel-check every N|start|never]")
    #expect(Wrap.text(usage, width: 40) == "usage: op NAME [on QUEUE]\n       [cancel-check every\n       N|start|never]")
    let long = String(repeating: "x", count: 30) + String(repeating: "y", count: 30)
    let shown = Wrap.text("finished: \(long) at t=3", width: 40)
    #expect(shown == "finished: \(String(repeating: "x", count: 15))…\(String(repeating: "y", count: 14))\n  at t=3")
    #expect(Wrap.text("tiny \(long)", width: 40, ascii: true).contains("~"))
  }

  @Test("Lines that fit are untouched, blank lines and the final newline kept, glue printed as a space")
  func fitting() {
    let text = "a  b\n\n   indented\n"
    #expect(Wrap.text(text, width: 40) == text)
    #expect(Wrap.text("a\(Wrap.glue)b\n", width: 40) == "a b\n")
  }

  @Test("For random text at every width, no line is too wide and the words are kept in order", arguments: 0..<40)
  func randomText(seed: Int) {
    var rng = SplitMix64(seed: UInt64(seed))
    let vocabulary = ["op", "d1", "fetch-image", "t=3", "—", "✓", "0,", "queue", "(finished)", "cancelled:", "漢字名", "barrier"]
    let width = 40 + Int(rng.next() % 90)
    var lines: [String] = []
    for _ in 0..<8 {
      let indent = String(repeating: " ", count: Int(rng.next() % 6))
      let words = (0..<Int(rng.next() % 40)).map { _ in vocabulary[Int(rng.next() % UInt64(vocabulary.count))] }
      lines.append(indent + words.joined(separator: " "))
    }
    let text = lines.joined(separator: "\n")
    let wrapped = Wrap.text(text, width: width)
    for line in wrapped.split(separator: "\n") { #expect(Names.width(String(line)) <= width, "\(width): \(line)") }
    #expect(wrapped.split(whereSeparator: \.isWhitespace) == text.split(whereSeparator: \.isWhitespace))
    #expect(Wrap.text(wrapped, width: width) == wrapped)
  }
}
