import Foundation
import Testing
import TestSupport

@testable import OpLabShell

/// The pager on a real terminal of 80 columns and 24 rows (#31, #29): a pager that cannot
/// run leaves the text printed, with a line saying why.
///
/// Each step waits for the text it needs (`<NEXT TEXT>`, up to 30 s), so a busy machine
/// only makes the tests slower.
extension TerminalTests {
  @Test(
    "A pager that cannot run (not found: exit 127; false: exit 1) leaves the view printed, with a line saying why",
    arguments: [
      ("no-such-pager", "(the pager `no-such-pager` could not run: exit 127; printed above)"),
      ("false", "(the pager `false` failed: exit 1; printed above)"),
    ])
  func pagerFailure(pager: String, note: String) throws {
    let out = try pagedSession(["help\\r", "<NEXT printed above>", "\\x04"], pager: pager)
    let help = try #require(out.range(of: "oplab t=0> help"), "\(out.suffix(500))")
    let after = out[help.upperBound...]
    // Its first and last lines: the whole view is there.
    #expect(after.contains("Commands (help COMMAND for more; Tab completes):"), "\(after.prefix(300))")
    #expect(after.contains("qos: background utility default userInitiated userInteractive\r\n\(note)\r\n"), "\(after.suffix(400))")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(300))")
  }
}
