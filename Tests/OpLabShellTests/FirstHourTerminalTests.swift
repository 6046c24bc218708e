import Foundation
import TestSupport
import Testing

/// The screens a new user met in their first hour (issue "The first hour"), typed through a
/// real terminal of 80 columns and 24 rows: `status` whose counts add up, `graph` marking
/// what a dependent saw, time travel naming what it drops and `redo` giving it back, the
/// words of `narrate` and the event log, and `help op` with an example of `does`. Every line
/// the lab prints fits the 80 columns.
extension TerminalTests {
  /// What a terminal shows of `raw`: escape sequences and carriage returns removed, one
  /// string a line.
  static func screenLines(_ raw: String) -> [String] {
    enum State { case text, escape, csi, osc }
    var text = ""
    var state = State.text
    for scalar in raw.unicodeScalars {
      switch state {
      case .text:
        if scalar == "\u{1B}" {
          state = .escape
        } else if scalar != "\r", scalar != "\u{07}" {
          text.unicodeScalars.append(scalar)
        }
      case .escape:
        // ESC [ starts a control sequence, ESC ] an operating-system command; any other
        // character ends a two-character escape (ESC =, ESC >).
        state = scalar == "[" ? .csi : scalar == "]" ? .osc : .text
      case .csi:
        if ("@"..."~").contains(scalar) { state = .text }
      case .osc:
        if scalar == "\u{07}" { state = .text }
      }
    }
    return text.components(separatedBy: "\n")
  }

  func firstHourSession(_ lines: [String]) throws -> String {
    let state = stateFolder()
    defer { try? FileManager.default.removeItem(at: state) }
    // Each command waits for the prompt that follows its output, so a busy machine cannot
    // run two together.
    let bursts = lines.flatMap { ["\($0)\\r", "<NEXT > >"] } + ["\\x04"]
    return try session(bursts, state: state, environment: ["PTY_ROWS": "24", "PTY_COLS": "80", "PAGER": "cat"])
  }

  /// The part of `output` from the echo of `command` to the next prompt.
  func screen(of command: String, in output: String) -> String {
    let lines = Self.screenLines(output)
    guard let start = lines.lastIndex(where: { $0.hasSuffix("> \(command)") }) else { return "" }
    let rest = lines[(start + 1)...]
    let end = rest.firstIndex(where: { $0.hasPrefix("oplab t=") }) ?? rest.endIndex
    return rest[rest.startIndex..<end].joined(separator: "\n")
  }

  @Test(
    "The first hour's screens at 80x24: status adds up, graph marks what a dependent saw, back names what it drops and redo gives it back, and every line fits"
  )
  func firstHourScreens() throws {
    let out = try firstHourSession([
      "op download on main takes 3", "op sepia takes 2 after download", "tap at 1",
      "queue dl", "queue filters max 1", "op d3 on dl takes 4", "op f3 on filters takes 2 after d3 bail-if-dep-cancelled",
      "step 2", "cancel d3", "run", "status", "graph", "cancel sepia", "back 2", "redo", "narrate",
      "help op",
    ])
    #expect(out.hasSuffix("\nexit 0\n"), "\(out.suffix(400))")
    let status = screen(of: "status", in: out)
    // Lesson 1's world: main counts its one operation, and the tap on a line of its own.
    #expect(status.contains("main: max 1 (main)"), "\(status)")
    #expect(status.contains("operations: executing 0, ready 0, pending 0, finished 1"), "\(status)")
    #expect(status.contains("main thread, besides operations: 1 tap (finished)"), "\(status)")
    #expect(!status.contains("finished 2"), "the tap was counted with the operations: \(status)")

    let graph = screen(of: "graph", in: out)
    #expect(graph.contains("f3 [filters] ↩ ← d3 ✗"), "f3 returned at once because d3 was cancelled: \(graph)")
    #expect(graph.contains("sepia [queue] ✓ ← download ✓"), "\(graph)")

    let back = screen(of: "back 2", in: out)
    #expect(back.contains("dropped `cancel") && back.contains("sepia`"), "back names the command it drops: \(back)")
    #expect(back.contains("`redo` brings them back"), "\(back)")
    let redo = screen(of: "redo", in: out)
    #expect(redo.contains("every command it dropped is back"), "\(redo)")

    let narrate = screen(of: "narrate", in: out)
    #expect(narrate.contains("At tick 0, the default queue 'queue' was created"), "\(narrate)")
    #expect(narrate.contains("Then download was enqueued on main."), "\(narrate)")
    #expect(!narrate.contains("queue queue") && !narrate.contains("world "), "\(narrate)")

    let help = screen(of: "help op", in: out)
    #expect(help.contains(" does "), "help op shows an example of does: \(help)")

    let wide = Self.screenLines(out).filter { $0.count > 80 }
    #expect(wide.isEmpty, "lines wider than the terminal: \(wide)")
  }
}
