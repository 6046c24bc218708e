import Foundation
import Testing

/// `real` at a terminal (#31): it says how far it has got, and Ctrl-C stops it at once, even
/// while main-queue work sleeps on the main thread, which is the thread that plays the run.
extension TerminalTests {
  @Test("real shows a progress line, and Ctrl-C stops it within moments while a 29-second main-queue operation sleeps")
  func realStopsAtCtrlC() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let started = ContinuousClock.now
    let out = try session(
      [
        "platform linux\\r", "op m on main takes 580\\r", "run\\r",
        "real\\r", "<WAIT playing on the real queue: t=>", "\\x03",
        "<WAIT Stopped by Ctrl-C>", "status\\r", "<WAIT operationCount>", "\\x04",
      ], state: state)
    let seconds = (ContinuousClock.now - started).components.seconds
    #expect(out.contains("playing on the real queue: t="), "\(out)")
    #expect(out.contains("Stopped by Ctrl-C at t="), "\(out)")
    #expect(out.hasSuffix("\nexit 0\n"), "\(out)")
    // The operation alone sleeps 29 s on the main thread; before, Ctrl-C waited for it.
    #expect(seconds < 20, "took \(seconds) s: \(out)")
  }
}
