import Foundation
import Synchronization
import Testing

/// `explore` on a space too big to finish (#30): it says so up front, shows how far it has
/// got (in place on a terminal, a line every few seconds in a script), and Ctrl-C keeps what
/// it found. Nothing here depends on timing but "a progress line appeared": the world has
/// far more orders than any machine explores in the two minutes the tests wait.
enum ExploreProgressWorld {
  /// Ten operations of nine steps (three read-modify-writes each) on two variables.
  static let lines: [String] =
    ["var x = 0", "var y = 0"]
    + (0..<10).map { i in
      let v = i % 2 == 0 ? "x" : "y"
      return "op o\(i) does " + Array(repeating: "read \(v), compute 1, write \(v)", count: 3).joined(separator: ", ")
    }
}

extension TerminalTests {
  @Test("explore on a terminal at 80x24: the too-big note up front, a progress line in place, and Ctrl-C keeps what was found")
  func exploreProgressOnTerminal() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-tty-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let out = try session(
      ExploreProgressWorld.lines.map { $0 + "\\r" } + [
        "explore 1000000\\r", "<WAIT exploring: >", "\\x03", "<WAIT before Ctrl-C stopped it>", "\\x04",
      ], state: state, environment: ["PTY_ROWS": "24", "PTY_COLS": "80"])
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(600))")
    // Up front, before any progress: the normal order's open points and the bound to use.
    let note = try #require(out.range(of: "too big to explore whole within 1000000 runs: the normal order has "), "\(out.suffix(1500))")
    let progress = try #require(out.range(of: "exploring: "), "\(out.suffix(1500))")
    #expect(note.lowerBound < progress.lowerBound)
    #expect(out.contains("`explore preemptions 2`"))
    // The progress line is drawn in place: it starts by going back to the line's start and erasing it.
    let line = out[progress.lowerBound...].prefix { $0 != "\r" && $0 != "\n" && $0 != "\u{1B}" && $0 != "^" }
    #expect(out.contains("\u{1B}[K  exploring: "), "\(out.suffix(1500))")
    #expect(line.contains("distinct order") && line.contains(" runs, at choice ") && !line.contains("…"), "\(line)")
    #expect(line.count + 2 <= 80, "\(line)")
    // Ctrl-C kept what was found: the summary of the orders met so far.
    #expect(out.contains("distinct orders ("), "\(out.suffix(1500))")
    #expect(out.contains("runs) before Ctrl-C stopped it: more may\r\n    remain"), "\(out.suffix(1500))")  // wrapped at 80
    #expect(out.contains("final values: x = "), "\(out.suffix(1500))")
  }
}

@Suite struct ExploreProgressScriptTests {
  /// Standard error read as it comes.
  final class Collect: @unchecked Sendable {
    private let bytes = Mutex(Data())
    init(_ handle: FileHandle) {
      handle.readabilityHandler = { [self] h in
        let chunk = h.availableData
        if chunk.isEmpty { h.readabilityHandler = nil }
        bytes.withLock { $0.append(chunk) }
      }
    }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
  }

  @Test("explore in a script: the too-big note and whole progress lines go to standard error, and SIGINT keeps what was found")
  func exploreProgressInScript() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-explore-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("big.oplab")
    try (ExploreProgressWorld.lines + ["explore 1000000"]).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = EndToEndTests.binary
    process.arguments = ["run", "--width", "80", file.path]
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let out = EndToEndTests.Drain(output.fileHandleForReading)
    let err = Collect(error.fileHandleForReading)
    // A progress line comes after three seconds of exploring; waited for up to two minutes.
    let deadline = ContinuousClock.now + .seconds(120)
    while !err.text.contains("exploring: "), ContinuousClock.now < deadline, process.isRunning {
      Thread.sleep(forTimeInterval: 0.1)
    }
    process.interrupt()
    process.waitUntilExit()
    let stdout = String(decoding: out.data(), as: UTF8.self)
    Thread.sleep(forTimeInterval: 0.2)
    let stderr = err.text
    let note = try #require(stderr.range(of: "too big to explore whole within 1000000 runs"), "\(stderr)")
    let progress = try #require(stderr.range(of: "  exploring: "), "\(stderr)")
    #expect(note.lowerBound < progress.lowerBound)
    // Whole lines, nothing drawn in place.
    #expect(!stderr.contains("\r") && !stderr.contains("\u{1B}"), "\(stderr)")
    #expect(stderr[progress.lowerBound...].contains("\n"))
    // SIGINT stopped the search, not the output: what was found is printed, then the lab dies by the signal.
    #expect(stdout.contains("before Ctrl-C stopped it"), "\(stdout)")
    #expect(stderr.contains("oplab: stopped by SIGINT"), "\(stderr)")
    #expect(process.terminationReason == .uncaughtSignal)
  }
}
