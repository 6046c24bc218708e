import Foundation
import OpLabCore
import OpLabRender
import Synchronization

/// The lab's two ways of running: an interactive shell on a terminal, and batch
/// runs of scripts or piped input.
public enum Shell {
  /// The lab's version, shown by `oplab --version`.
  public static let version = "0.2.0"

  /// Exit statuses: success, an error in a script, bad usage. (A batch stopped by a signal
  /// does not exit: it dies by that signal, see ``batch(_:reader:name:keepGoing:)``.)
  public enum Status {
    public static let ok: Int32 = 0
    public static let scriptError: Int32 = 1
    public static let usage: Int32 = 2
  }

  /// Runs the lab on standard input: interactive when both standard input and output are
  /// terminals, batch otherwise.
  /// - Returns: the exit status.
  public static func main(options: ShellOptions, keepGoing: Bool = false, recover: Bool = false) -> Int32 {
    ignoreBrokenPipes()
    var options = options
    let terminal = isatty(0) == 1 && isatty(1) == 1
    if terminal, !options.widthGiven, let columns = terminalColumns() { options.width = columns }
    messageWidth.store(options.width, ordering: .relaxed)
    options.color = options.color && terminal
    let interpreter = Interpreter(options: options)
    let history = EditLineReader.defaultHistoryPath(environment: ProcessInfo.processInfo.environment)
    let reader = LineReaders.makeDefault(
      completer: { [interpreter] prefix in interpreter.completions(for: prefix) }, historyPath: history)
    if reader is StdinLineReader, !recover {
      return batch(interpreter, reader: reader, name: "<stdin>", keepGoing: keepGoing)
    }
    let journal = SessionJournal(directory: SessionJournal.defaultDirectory())
    interpreter.keepsJournal = true
    // A lab started with --platform linux journals it first, so a recovery rebuilds a Linux world.
    if options.platform != .apple { journal.preamble = ["platform \(options.platform.rawValue)"] }
    journal.prepare()
    let leftovers = journal.leftovers()
    if recover {
      guard journal.directory != nil else {
        warn("oplab: there is no state folder, so no session was journalled (set HOME or XDG_STATE_HOME to an absolute path)\n")
        return Status.usage
      }
      guard !leftovers.isEmpty else {
        warn("oplab: there is no unfinished session to recover\n")
        return Status.usage
      }
      if let chosen = choose(among: leftovers, reader: reader) {
        guard journal.claim(chosen) else {
          warn("oplab: another lab is restoring that session right now\n")
          return Status.usage
        }
        // Replayed first, then journalled in one go: stopped half-way, nothing is lost. What
        // is journalled anew is what the replay did: a line that fails now is left out, and said.
        var failures: [(line: String, message: String)] = []
        for line in chosen.lines {
          if let error = interpreter.execute(line).error { failures.append((line, error.message)) }
        }
        journal.start(with: interpreter.takeJournal())
        if journal.path != nil { journal.discard(chosen) }  // kept where it was, if it could not be journalled anew
        let which = chosen == leftovers[0] ? "the last session" : "the session last used at \(clockTime(chosen.modified))"
        let replayed = count(chosen.lines.count - failures.count, "command")
        say("Recovered \(which): \(replayed) replayed; the clock is at t=\(interpreter.world.now).\n")
        if !failures.isEmpty {
          say("\(count(failures.count, "command")) of it failed this time and \(failures.count == 1 ? "was" : "were") left out:\n")
          for failure in failures.prefix(5) { say("  \(Visible.shown(failure.line)): \(Visible.shown(failure.message))\n") }
          if failures.count > 5 { say("  … and \(failures.count - 5) more\n") }
        }
        if leftovers.count > 1 {
          say("\(count(leftovers.count - 1, "other unfinished session")) left; `oplab --recover` again to choose.\n")
        }
      } else {
        say("No session restored; `oplab --recover` asks again. A fresh session starts.\n")
      }
    } else if leftovers.count == 1 {
      say("The last session ended without quitting (\(count(leftovers[0].lines.count, "command"))). `oplab --recover` restores it.\n")
    } else if leftovers.count > 1 {
      let sizes = leftovers.map { "\($0.lines.count)" }
      say(
        "\(leftovers.count) sessions ended without quitting (\(listed(sizes)) commands). "
          + "`oplab --recover` lists them to choose from.\n")
    }
    if let warning = journal.takeWarning() { warn("oplab: warning: \(warning)\n") }
    if reader is StdinLineReader {
      // Piped input is not journalled; a session recovered here stays recoverable (its
      // journal is kept), or `oplab --recover < /dev/null` would have deleted it.
      return batch(interpreter, reader: reader, name: "<stdin>", keepGoing: keepGoing)
    }
    return interactive(interpreter, reader: reader, journal: journal)
  }

  /// Runs script files one after another in one session.
  /// - Returns: 0 when every line ran, 1 after an error.
  public static func run(files: [String], options: ShellOptions, keepGoing: Bool) -> Int32 {
    ignoreBrokenPipes()
    messageWidth.store(options.width, ordering: .relaxed)
    let interpreter = Interpreter(options: options)
    var status = Status.ok
    for file in files {
      // A file, or a stream read to its end (`oplab run /dev/stdin`, `oplab run <(…)`, a FIFO).
      let script: ScriptFile
      do {
        script = try FileIO.openScript(file)
      } catch {
        warn("oplab: \(Visible.escape(error.message))\n" + (error.hint.map { "  hint: \(Visible.escape($0))\n" } ?? ""))
        return Status.usage
      }
      let reader = StdinLineReader(items: script.next)
      // The script's own `source` lines find relative paths beside it.
      let result = interpreter.running(script, path: file, named: file) {
        batch(interpreter, reader: reader, name: file, keepGoing: keepGoing)
      }
      if result != Status.ok {
        status = result
        if !keepGoing { return status }
      }
    }
    return status
  }

  /// Reads lines until the end, printing output; errors go to standard error as
  /// `FILE:LINE:COL: error: message`. SIGINT, SIGTERM and SIGHUP are caught for the whole
  /// batch: the command running stops cleanly (a run between ticks, an export without
  /// leaving a temporary file), no further line runs, and after its message the lab dies
  /// by that signal (`BatchSignals.die(by:)`), so a shell loop around it stops too.
  static func batch(_ interpreter: Interpreter, reader: LineReader, name: String, keepGoing: Bool) -> Int32 {
    var lineNumber = 0
    // `real` and `explore` say how far they have got: in place on a terminal, else a line every few seconds.
    if interpreter.progress == nil {
      let progress = ProgressLine.forStandardError { [interpreter] in interpreter.options.width }
      interpreter.progress = { progress.update($0) }
    }
    /// `reading`: the signal came while the next line was awaited, not during a command.
    func stopped(_ signo: Int32, reading: Bool = false) -> Never {
      let place =
        lineNumber == 0 ? "before the first line of \(name)" : "\(reading ? "after" : "at") \(name):\(lineNumber)"
      warn("oplab: stopped by \(BatchSignals.name(signo)) \(place)\n")
      BatchSignals.die(by: signo)
    }
    let status = reader.whileCatchingInterrupts { interrupted in
      var failed = false
      reading: while true {
        let line: String
        switch reader.readLine(prompt: "") {
        case .line(let text): line = text
        case .endOfInput, .interrupted: break reading
        case .tooLong(let start, let bytes):
          lineNumber += 1
          failed = true
          let error = Diagnostic(
            column: 1, message: LineInput.tooLongMessage(start: start, bytes: bytes),
            hint: name == "<stdin>"
              ? "a command fits on one short line; is this the file you meant to pipe in?"
              : "a command fits on one short line; is \(name) a script?")
          writeError(error.located(defaultFile: name, defaultLine: lineNumber, width: interpreter.options.width))
          if !keepGoing { return Status.scriptError }
          continue reading
        }
        lineNumber += 1
        if let signo = reader.terminationSignal { stopped(signo) }  // caught between two lines
        let reply = interpreter.execute(line, interrupt: interrupted)
        writeOut(reply.output)
        // Output that cannot be written (a full disk, a closed terminal) ends the batch:
        // what it would print is lost. ``checked(_:)`` says why, with status 1.
        if outputFailure != nil { return Status.scriptError }
        if let error = reply.error {
          failed = true
          writeError(error.located(defaultFile: name, defaultLine: lineNumber, width: interpreter.options.width))
        }
        if let signo = reader.terminationSignal { stopped(signo) }
        if reply.error != nil, !keepGoing { return Status.scriptError }
        if reply.quit { break }
      }
      // A signal while reading piped input ends the read as if the input had ended.
      if let signo = reader.terminationSignal { stopped(signo, reading: true) }
      return failed ? Status.scriptError : Status.ok
    }
    // One that came after the last check, before the handlers were put back, still counts.
    if let signo = reader.terminationSignal { stopped(signo) }
    return status
  }

  /// The interactive loop: prompt with the tick, run, show errors under the bad token.
  static func interactive(_ interpreter: Interpreter, reader: LineReader, journal: SessionJournal) -> Int32 {
    say("OpLab \(version): a lab for Operation and OperationQueue.\n")
    say("Type 'help' for commands; Tab completes; Ctrl-D leaves.\n")
    say("Queues: main (serial) and queue (default).\nTry: op download takes 3\n")
    // A long `source` shows its lines' output as they run, not all at the end.
    interpreter.streamOutput = { writeOut($0) }
    // `real` and `explore` say how far they have got, on a line updated in place.
    let progress = ProgressLine.forStandardError { [interpreter] in interpreter.options.width }
    interpreter.progress = { progress.update($0) }
    while true {
      let prompt = "oplab t=\(interpreter.world.now)\(interpreter.inFork ? " (fork)" : "")> "
      switch reader.readLine(prompt: prompt) {
      case .interrupted:
        continue
      case .tooLong(let start, let bytes):  // only piped readers cut lines; said all the same
        warn("error: \(Visible.escape(LineInput.tooLongMessage(start: start, bytes: bytes)))\n")
        continue
      case .endOfInput:
        writeOut("\n")
        if let warning = reader.saveHistory() { warn("oplab: warning: \(warning)\n") }
        if let signo = reader.terminationSignal {
          // Ended from outside (kill, a closed terminal): keep the journal for `oplab --recover`.
          return 128 + signo
        }
        journal.finish()
        return Status.ok
      case .line(let line):
        if !line.allSatisfy(\.isWhitespace) { reader.addHistory(line) }
        if !interpreter.options.widthGiven, let columns = terminalColumns() { interpreter.options.width = columns }
        messageWidth.store(interpreter.options.width, ordering: .relaxed)
        // Ctrl-C stays caught while the output is printed too: it stops a long run, then a
        // long output (the command has happened by then), and never ends the lab.
        let reply = reader.whileCatchingInterrupts { interrupted in
          let reply = interpreter.execute(line, interrupt: interrupted)
          // What happened is journalled (a stopped run as `run until T`, the lines of a
          // `source` that did run), even when the command ended in an error or Ctrl-C.
          journal.append(interpreter.takeJournal())
          if let warning = journal.takeWarning() { warn("oplab: warning: \(warning)\n") }
          reader.clearInterrupt()
          if reply.clearScreen { writeOut(clearScreen) }
          let color = interpreter.options.color
          let shown = color && reply.colorable ? Colorizer.timeline(reply.output) : reply.output
          // A view the pager did not show (not found, failed) is printed after all, and why is said.
          var paged = false
          var pagerFailure: Pager.Failure?
          if reply.pageable, let pager = Pager.command(), let rows = terminalRows(),
            Pager.isTaller(shown, than: rows, width: interpreter.options.width)
          {
            pagerFailure = Pager.show(shown, through: pager)
            paged = pagerFailure == nil
          }
          if paged {
            // Shown by the pager.
          } else if !writeOut(shown, stoppingWhen: interrupted) {
            say("\n  output stopped (Ctrl-C); the command itself was done\n")
          } else if let pagerFailure {
            say(pagerFailure.note + "\n")
          }
          if let error = reply.error {
            let text = error.pointed(prompt: Names.width(prompt), typed: line, width: interpreter.options.width)
            writeError(color ? Colorizer.diagnostic(text) : text)
          }
          return reply
        }
        if reply.quit {
          if let warning = reader.saveHistory() { warn("oplab: warning: \(warning)\n") }
          journal.finish()
          return Status.ok
        }
        if let signo = reader.terminationSignal {
          // SIGTERM or SIGHUP while the command ran: it stopped cleanly; the session ends as
          // at the prompt, its journal kept for `oplab --recover`.
          if let warning = reader.saveHistory() { warn("oplab: warning: \(warning)\n") }
          return 128 + signo
        }
        if outputFailure != nil {
          // The terminal is gone: the session ends as a closed terminal ends it, recoverable.
          if let warning = reader.saveHistory() { warn("oplab: warning: \(warning)\n") }
          return Status.scriptError
        }
      }
    }
  }

  /// Which leftover to restore: the only one; the most recent in a batch (said); else the
  /// learner's choice from a list. `nil`: none (the learner declined, or input ended).
  static func choose(among leftovers: [SessionJournal.Leftover], reader: LineReader) -> SessionJournal.Leftover? {
    guard leftovers.count > 1 else { return leftovers.first }
    if reader is StdinLineReader {
      say("\(leftovers.count) sessions ended without quitting; restoring the most recent.\n")
      return leftovers[0]
    }
    say("\(leftovers.count) sessions ended without quitting:\n")
    for (i, leftover) in leftovers.enumerated() {
      let last = leftover.lines.last.map { Visible.shown($0) } ?? ""
      say("  \(i + 1). \(count(leftover.lines.count, "command")), the last at \(clockTime(leftover.modified)): \(last)\n")
    }
    while true {
      switch reader.readLine(prompt: "Restore which? (1-\(leftovers.count), Enter for 1, n for none) ") {
      case .line(let answer):
        let text = answer.trimmingCharacters(in: .whitespaces).lowercased()
        if text.isEmpty { return leftovers[0] }
        if ["n", "no", "none", "q", "quit"].contains(text) { return nil }
        if let n = Int(text), (1...leftovers.count).contains(n) { return leftovers[n - 1] }
        say("Type a number from 1 to \(leftovers.count), Enter for the most recent, or n for none.\n")
      case .interrupted, .tooLong:
        continue
      case .endOfInput:
        return nil
      }
    }
  }

  /// The width the lab's own messages are wrapped to: the session's (`--width`, else the
  /// terminal's, else 80), kept current as the terminal is resized.
  static let messageWidth = Atomic<Int>(80)

  /// Writes one of the lab's own messages to standard output, wrapped to ``messageWidth``.
  static func say(_ text: String) {
    writeOut(Wrap.text(text, width: messageWidth.load(ordering: .relaxed)))
  }

  /// Writes a warning or error to standard error, wrapped to ``messageWidth``.
  static func warn(_ text: String) {
    writeError(Wrap.text(text, width: messageWidth.load(ordering: .relaxed)))
  }

  /// Moves the cursor home and clears the screen and its scrollback (xterm, VT100).
  static let clearScreen = "\u{1B}[H\u{1B}[2J\u{1B}[3J"

  /// `n thing` or `n things`.
  static func count(_ n: Int, _ thing: String) -> String { "\(n) \(thing)\(n == 1 ? "" : "s")" }

  /// `a`, `a and b`, `a, b and c`.
  static func listed(_ items: [String]) -> String {
    items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
  }

  /// `HH:MM on YYYY-MM-DD`, local time.
  static func clockTime(_ seconds: Int) -> String {
    var t = time_t(seconds)
    var parts = tm()
    guard localtime_r(&t, &parts) != nil else { return "an unknown time" }
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)) on \(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
  }

  @discardableResult
  static func writeOut(_ text: String, stoppingWhen stop: (() -> Bool)? = nil) -> Bool {
    writeAll(text, to: 1, stoppingWhen: stop)
  }

  /// Writes to standard error; a failure there is ignored (there is nowhere left to say it).
  public static func writeError(_ text: String) { writeAll(text, to: 2) }

  /// Writes all of `text` with write(2). A closed pipe (`oplab … | head`) ends the process
  /// quietly with status 0 for stdout, instead of crashing as FileHandle.write does.
  /// - Parameter stop: asked before each chunk (see ``chunkEnd(_:from:)``); `true` stops the writing.
  /// - Returns: `false` when `stop` stopped it.
  @discardableResult
  static func writeAll(_ text: String, to fd: Int32, stoppingWhen stop: (() -> Bool)? = nil) -> Bool {
    guard !text.isEmpty else { return true }
    let bytes = Array(text.utf8)
    var offset = 0
    var end = 0
    while offset < bytes.count {
      if offset == end {
        if let stop, stop() { return false }
        end = chunkEnd(bytes, from: offset)
      }
      let written = bytes[offset..<end].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written > 0 {
        offset += written
      } else if written < 0, errno == EINTR {
        continue
      } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        // A non-blocking descriptor (a pipe set so by whoever reads it): wait until it drains.
        var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&ready, 1, -1)
        continue
      } else {
        let error = written < 0 ? errno : EIO
        if error == EPIPE, fd == 1 { exit(0) }
        if fd == 1 { outputFailureStore.withLock { $0 = $0 ?? error } }
        return true
      }
    }
    return true
  }

  /// The first error writing standard output (`errno`), if any: a full disk, a closed
  /// terminal. A batch stops at it; ``checked(_:)`` reports it.
  public static var outputFailure: Int32? { outputFailureStore.withLock { $0 } }
  private static let outputFailureStore = Mutex<Int32?>(nil)

  /// `status`, or 1 when standard output could not be written (said on standard error,
  /// with the reason): `oplab run x > /dev/full` fails instead of losing its output quietly.
  public static func checked(_ status: Int32) -> Int32 {
    guard let error = outputFailure else { return status }
    warn("oplab: cannot write to standard output: \(HistoryFile.describe(error))\n")
    return status == Status.ok ? Status.scriptError : status
  }

  /// Where the chunk starting at `offset` ends: just after the first line end once
  /// ``chunkSize`` bytes are in, so a stop never leaves half a line — a colour left on, or
  /// half a character — on the terminal. A line longer than another chunk is cut at a
  /// character boundary instead.
  static func chunkEnd(_ bytes: [UInt8], from offset: Int) -> Int {
    let soft = offset + chunkSize
    guard soft < bytes.count else { return bytes.count }
    let hard = min(bytes.count, soft + chunkSize)
    if let newline = bytes[(soft - 1)..<hard].firstIndex(of: UInt8(ascii: "\n")) { return newline + 1 }
    var end = hard
    while end < bytes.count, end > offset + 1, bytes[end] & 0b1100_0000 == 0b1000_0000 { end -= 1 }
    return end
  }

  /// How much output is written between two checks for Ctrl-C: a terminal shows 16 KiB
  /// in a moment, so a stop takes effect at once.
  static let chunkSize = 16 * 1024

  /// The terminal's height in rows, if standard output is a terminal that says.
  static func terminalRows() -> Int? {
    var size = winsize()
    guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row >= 5 else { return nil }
    return Int(size.ws_row)
  }

  /// The terminal's width in columns, if standard output is a terminal that says.
  static func terminalColumns() -> Int? {
    var size = winsize()
    guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 else { return nil }
    return Int(size.ws_col)
  }

  static func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
  }
}
