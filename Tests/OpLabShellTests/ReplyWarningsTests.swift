import OpLabCore
import Testing

@testable import OpLabShell

/// ``Reply/warnings``: the interpreter says which lines of its reply are the lab's
/// warnings, from what the command did, and a lesson takes them out by that field (#33).
@Suite struct ReplyWarningsTests {
  func interpreter(width: Int = 80, ascii: Bool = false) -> Interpreter {
    var options = ShellOptions()
    options.width = width
    options.ascii = ascii
    return Interpreter(options: options)
  }

  /// The lines of `reply.output` its warnings name.
  func warned(_ reply: Reply) -> [String] {
    let lines = LabWarnings.lines(reply.output)
    return reply.warnings.map { lines[$0].joined(separator: "\n") }
  }

  @Test("Closing a dependency cycle: its event's line is a warning, with its wrapped lines, at every width", arguments: [40, 80, 120])
  func cycle(width: Int) {
    let i = interpreter(width: width)
    for line in ["op a takes 1 hold", "op b takes 1 after a hold"] { #expect(i.execute(line).error == nil) }
    let reply = i.execute("depend a on b")
    #expect(reply.warnings.count == 1)
    let warning = warned(reply).joined()
    #expect(warning.hasPrefix("  t=0  a WARNING: depending on b closes"))
    #expect(warning.hasSuffix("never start"))
    let (shown, held) = reply.separatingWarnings
    #expect(held == warned(reply))
    #expect(!shown.contains("WARNING"))
    // Nothing lost: every line of the reply is shown or held, once.
    #expect(LabWarnings.lines(shown).count + held.map { LabWarnings.lines($0 + "\n").count }.reduce(0, +) == LabWarnings.lines(reply.output).count)
  }

  @Test("`max Q 0` ends with its note, a warning; other limits have none")
  func maxZero() {
    let i = interpreter(width: 40, ascii: true)
    #expect(i.execute("queue q").error == nil)
    let reply = i.execute("max q 0")
    #expect(
      warned(reply).map { $0.split(separator: "\n").map { String($0).trimmingWhitespace() }.joined(separator: " ") }
        == ["note: with max 0 nothing on q will start until the limit is raised"])
    #expect(reply.warnings.last?.upperBound == LabWarnings.lines(reply.output).count)
    #expect(i.execute("max q 2").warnings.isEmpty)
  }

  @Test("A view that shows a warning from the past raises none; nor does a reply with no warning")
  func viewsRaiseNone() {
    let i = interpreter()
    for line in ["op a takes 1 hold", "op b takes 1 after a hold", "depend a on b"] { _ = i.execute(line) }
    #expect(i.execute("events").warnings.isEmpty)
    #expect(i.execute("status").warnings.isEmpty)
    let plain = i.execute("op c takes 1")
    #expect(plain.warnings.isEmpty)
    #expect(plain.separatingWarnings.shown == plain.output)
  }
}
