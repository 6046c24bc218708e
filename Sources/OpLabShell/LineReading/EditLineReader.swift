import CEditLine
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Line editing on a terminal, with libedit's native (histedit) API.
///
/// Emacs keys, Tab completion from a `Completer`, and a persistent history.
/// The only Swift file that imports `CEditLine`.
///
/// There is no global state except the SIGINT flag: libedit's client data holds an
/// unretained pointer to the reader, and the C callbacks (prompt, Tab) get it back.
/// Use it only when standard input and output are terminals (see `LineReaders`):
/// on a pipe libedit would still record piped lines in the history.
public final class EditLineReader: LineReader {
  /// Set by the SIGINT handler, which is installed only while `readLine` waits.
  private static let interrupted = Atomic<Bool>(false)

  /// Whether Ctrl-C came while a command runs (see ``whileCatchingInterrupts(_:)``): a read
  /// that would never end on its own (`source /dev/zero`) stops at it.
  static var interruptPending: Bool { interrupted.load(ordering: .relaxed) }
  /// The signal (SIGTERM, SIGHUP) that asked the lab to end while it waited for a line, or 0.
  private static let terminated = Atomic<Int32>(0)

  /// Set when SIGTERM or SIGHUP ended the session at the prompt: the shell saves history,
  /// keeps the journal for `--recover`, and exits with 128 + the signal.
  public var terminationSignal: Int32? {
    let signo = Self.terminated.load(ordering: .relaxed)
    return signo == 0 ? nil : signo
  }

  /// How many lines the history keeps.
  static let historySize: Int32 = 1000

  private let editLine: OpaquePointer
  private let history: OpaquePointer
  private let completer: Completer
  private let historyPath: String?
  /// The prompt as a C string; the prompt callback returns this pointer.
  private var prompt: UnsafeMutablePointer<CChar>
  /// False when a foreign history file could not be moved aside: saving would destroy it.
  private var canSaveHistory = true

  /// Anything that went wrong while loading the history, for the caller to show.
  public private(set) var loadWarning: String?

  /// Sets up libedit on the process's standard streams and loads the history.
  ///
  /// Sets `LC_CTYPE` from the environment first (falling back to `C.UTF-8`), since
  /// libedit silently drops non-ASCII input under the C locale.
  /// - Parameters:
  ///   - completer: what Tab offers for the line up to the cursor.
  ///   - historyPath: the history file (see `defaultHistoryPath(environment:)`), or
  ///     `nil` for a history kept in memory only.
  /// - Returns: `nil` if libedit cannot be initialised.
  public init?(completer: @escaping Completer, historyPath: String?) {
    Self.useUTF8Locale()
    _ = cel_signals_unblock()
    guard let history = history_init() else { return nil }
    guard let editLine = el_init("oplab", cel_stdin(), cel_stdout(), cel_stderr()) else {
      history_end(history)
      return nil
    }
    guard let prompt = strdup("") else {
      el_end(editLine)
      history_end(history)
      return nil
    }
    self.editLine = editLine
    self.history = history
    self.completer = completer
    self.historyPath = historyPath
    self.prompt = prompt

    cel_history_setsize(history, Self.historySize)
    cel_history_setunique(history, 1)
    cel_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
    cel_set_editor(editLine, "emacs")
    cel_set_signal(editLine, 1)
    cel_set_history(editLine, history)
    cel_set_prompt(editLine, { editLine in EditLineReader.reader(of: editLine)?.prompt }, 1)
    cel_add_function(editLine, "oplab-complete", "Complete the word before the cursor") { editLine, _ in
      EditLineReader.reader(of: editLine)?.complete() ?? UInt8(CC_ERROR)
    }
    cel_bind(editLine, "^I", "oplab-complete")
    // Ctrl-U and Ctrl-L take away the list a Tab showed (the line it was for, or the whole
    // screen): they forget it, so the next Tab shows it again, and then do what libedit's
    // own commands do, pushed as a key sequence of the lab's bound to them.
    for (key, name, builtin, alias) in [
      ("^U", "oplab-kill-line", "em-kill-line", "^X^U"), ("^L", "oplab-clear-screen", "ed-clear-screen", "^X^L"),
    ] {
      cel_bind(editLine, alias, builtin)
      cel_add_function(editLine, name, "Forget the completions shown, then \(builtin)") { editLine, typed in
        guard let reader = EditLineReader.reader(of: editLine) else { return UInt8(CC_ERROR) }
        reader.lastListed = nil
        el_push(editLine, typed == 0x0C ? "\u{18}\u{0C}" : "\u{18}\u{15}")
        return UInt8(CC_NORM)
      }
      cel_bind(editLine, key, name)
    }

    loadWarning = loadHistory()
    foreground = TerminalForeground.take()
  }

  /// The terminal taken as the foreground job (see ``TerminalForeground``), given back at the end.
  private var foreground: TerminalForeground?

  deinit {
    el_end(editLine)  // restores the terminal's settings: while the lab still has it
    history_end(history)
    free(prompt)
    foreground?.giveBack()
  }

  /// The history file for OpLab: `$XDG_STATE_HOME/oplab/history` when that variable
  /// is an absolute path, else `~/.local/state/oplab/history`.
  /// - Parameter environment: the process environment.
  /// - Returns: the path, or `nil` when neither variable is usable.
  public static func defaultHistoryPath(environment: [String: String]) -> String? {
    HistoryFile.defaultPath(app: "oplab", environment: environment)
  }

  // MARK: - LineReader

  /// Runs `work` with SIGINT caught: Ctrl-C sets a flag that `interrupted` reports, so a long
  /// run stops between two ticks and the lab returns to its prompt.
  ///
  /// SIGTERM and SIGHUP (a closed terminal) are caught too: they stop the command as Ctrl-C
  /// does (an export abandoned, its temporary file removed), and ``terminationSignal`` then
  /// ends the session, its journal kept for `oplab --recover`.
  public func whileCatchingInterrupts<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T {
    Self.interrupted.store(false, ordering: .relaxed)
    var previous = sigaction()
    let installed =
      cel_sigint_install({ _ in EditLineReader.interrupted.store(true, ordering: .relaxed) }, &previous) == 0
    var previousTerm = sigaction(), previousHup = sigaction()
    let onTerm: @convention(c) (Int32) -> Void = { signo in
      EditLineReader.terminated.store(signo, ordering: .relaxed)
      EditLineReader.interrupted.store(true, ordering: .relaxed)
    }
    let termInstalled = cel_signal_install(SIGTERM, onTerm, &previousTerm) == 0
    let hupInstalled = cel_signal_install(SIGHUP, onTerm, &previousHup) == 0
    defer {
      if installed { cel_sigint_restore(&previous) }
      if termInstalled { cel_signal_restore(SIGTERM, &previousTerm) }
      if hupInstalled { cel_signal_restore(SIGHUP, &previousHup) }
      Self.interrupted.store(false, ordering: .relaxed)
    }
    return work { EditLineReader.interrupted.load(ordering: .relaxed) }
  }

  /// The prompt and the line being edited are on the terminal.
  public var echoesLines: Bool { true }

  /// Forgets a Ctrl-C caught so far inside ``whileCatchingInterrupts(_:)``.
  public func clearInterrupt() { Self.interrupted.store(false, ordering: .relaxed) }

  /// Shows `prompt` and edits one line.
  ///
  /// Bytes of `prompt` between two `\u{1}` characters are printed but take no width
  /// (wrap ANSI colour codes in them).
  /// - Returns: the line (without its newline); `.interrupted` after Ctrl-C, with "^C"
  ///   printed; `.endOfInput` after Ctrl-D on an empty line (libedit echoes "^D"
  ///   and leaves the cursor after it: the caller prints the newline).
  ///   `.endOfInput` too after SIGTERM or SIGHUP (a closed terminal): see ``terminationSignal``.
  public func readLine(prompt: String) -> LineInput {
    setPrompt(prompt)
    lastListed = nil  // a new line: a list shown for an earlier one is behind its output (or cleared)
    Self.interrupted.store(false, ordering: .relaxed)
    var previous = sigaction()
    let installed =
      cel_sigint_install({ _ in EditLineReader.interrupted.store(true, ordering: .relaxed) }, &previous) == 0
    var previousTerm = sigaction(), previousHup = sigaction()
    let onTerm: @convention(c) (Int32) -> Void = { signo in EditLineReader.terminated.store(signo, ordering: .relaxed) }
    let termInstalled = cel_signal_install(SIGTERM, onTerm, &previousTerm) == 0
    let hupInstalled = cel_signal_install(SIGHUP, onTerm, &previousHup) == 0
    var count: Int32 = 0
    let raw = Self.terminated.load(ordering: .relaxed) != 0 ? nil : el_gets(editLine, &count)
    if installed { cel_sigint_restore(&previous) }
    if termInstalled { cel_signal_restore(SIGTERM, &previousTerm) }
    if hupInstalled { cel_signal_restore(SIGHUP, &previousHup) }
    if Self.terminated.load(ordering: .relaxed) != 0 { return .endOfInput }

    if let raw {
      var line = String(cString: raw)
      if line.hasSuffix("\n") { line.removeLast() }
      return .line(line)
    }
    if Self.interrupted.exchange(false, ordering: .relaxed) {
      write("^C\n")
      return .interrupted
    }
    // libedit has echoed "^D"; the caller ends the line (the shell prints "\n" at exit).
    return .endOfInput
  }

  /// Adds `line`, without trailing whitespace, to the history; ignores blank lines
  /// and a repeat of the previous line.
  public func addHistory(_ line: String) {
    var trimmed = Substring(line)
    while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
    guard !trimmed.isEmpty else { return }
    cel_history_enter(history, String(trimmed))
    if addedThisSession.last != String(trimmed) { addedThisSession.append(String(trimmed)) }
  }

  /// The lines this session added to the history, oldest first, not yet saved.
  private var addedThisSession: [String] = []

  /// Writes the history atomically (to a temporary file next to it, then a rename),
  /// merged with what other labs saved since this one started: under a lock on
  /// its folder, the file as it is now is loaded and this session's lines are added
  /// after it, so two labs at once lose none of each other's lines.
  /// - Returns: a warning when it could not be written; `nil` on success or when
  ///   there is no history file.
  public func saveHistory() -> String? {
    guard let historyPath, canSaveHistory else { return nil }
    if let failure = HistoryFile.createParentDirectory(of: historyPath) {
      return failure.description
    }
    // The lock is on the history's folder: no lock file to leave behind.
    let lock = open(HistoryFile.parent(of: historyPath).isEmpty ? "." : HistoryFile.parent(of: historyPath), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if lock >= 0 { _ = flock(lock, LOCK_EX) }  // if it cannot be had, the merge is still done, unguarded
    defer { if lock >= 0 { close(lock) } }
    guard let merged = history_init() else { return HistoryFile.Failure.cannotWrite(path: historyPath, reason: "out of memory").description }
    defer { history_end(merged) }
    cel_history_setsize(merged, Self.historySize)
    cel_history_setunique(merged, 1)
    if case .success(.libedit) = HistoryFile.inspect(historyPath) { _ = cel_history_load(merged, historyPath) }
    for line in addedThisSession { cel_history_enter(merged, line) }
    let temporary = HistoryFile.temporaryPath(for: historyPath)
    if cel_history_save(merged, temporary) < 0 {
      let reason = HistoryFile.describe(errno)
      HistoryFile.remove(temporary)
      return HistoryFile.Failure.cannotWrite(path: historyPath, reason: reason).description
    }
    chmod(temporary, 0o600)
    if let failure = HistoryFile.replace(historyPath, with: temporary) { return failure.description }
    addedThisSession.removeAll()
    return nil
  }

  // MARK: - For tests

  /// The history, oldest first.
  func historyEntries() -> [String] {
    var entries: [String] = []
    var entry = cel_history_oldest(history)
    while let current = entry {
      entries.append(String(cString: current))
      entry = cel_history_newer(history)
    }
    return entries
  }

  // MARK: - Private

  /// Loads the history file, moving a foreign one aside first.
  /// - Returns: a warning, or `nil`.
  private func loadHistory() -> String? {
    guard let historyPath else { return nil }
    switch HistoryFile.inspect(historyPath) {
    case .failure(let failure):
      return failure.description
    case .success(.missing), .success(.empty):
      return nil
    case .success(.libedit):
      return cel_history_load(history, historyPath) < 0
        ? HistoryFile.Failure.unreadable(path: historyPath, reason: HistoryFile.describe(errno)).description
        : nil
    case .success(.foreign):
      switch HistoryFile.moveAside(historyPath) {
      case .success(let newPath):
        return "\(historyPath) is not a libedit history file; it was moved to \(newPath)"
      case .failure(let failure):
        canSaveHistory = false
        return failure.description
      }
    }
  }

  private func setPrompt(_ text: String) {
    guard let copy = strdup(text) else { return }
    free(prompt)
    prompt = copy
  }

  private func write(_ text: String) {
    fputs(text, cel_stdout())
    fflush(cel_stdout())
  }

  /// Tab: inserts the single match or the matches' common prefix, lists the matches
  /// when there is nothing to insert, beeps when nothing matches.
  private func complete() -> UInt8 {
    guard let info = el_line(editLine)?.pointee, let buffer = info.buffer, let cursor = info.cursor
    else { return UInt8(CC_ERROR) }
    let length = buffer.distance(to: cursor)
    let prefix = buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
      String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    let edit = CompletionEdit.compute(prefix: prefix, candidates: completer(prefix))
    if !edit.insert.isEmpty {
      lastListed = nil
      return el_insertstr(editLine, edit.insert) == 0 ? UInt8(CC_REFRESH) : UInt8(CC_REFRESH_BEEP)
    }
    if let list = edit.list {
      // A second Tab on the same line shows nothing new: the list is on the screen already.
      if lastListed?.prefix == prefix, lastListed?.list == list { return UInt8(CC_REFRESH_BEEP) }
      lastListed = (prefix, list)
      let width = Int(cel_columns(editLine, 80))
      if CompletionEdit.needsConfirmation(list, width: width, rows: Shell.terminalRows() ?? 24) {
        write("\n" + CompletionEdit.question(count: list.count))
        var answer: CChar = 0
        let read = el_getc(editLine, &answer)
        guard read == 1, answer == CChar(UInt8(ascii: "y")) || answer == CChar(UInt8(ascii: "Y")) || answer == CChar(UInt8(ascii: " ")) else {
          write("\n")
          lastListed = nil  // declined: the next Tab asks again
          return UInt8(CC_REDISPLAY)
        }
      }
      write("\n" + CompletionEdit.columns(list, width: width))
      return UInt8(CC_REDISPLAY)
    }
    lastListed = nil
    return UInt8(CC_REFRESH_BEEP)
  }

  /// The line and list the last Tab showed, so that a second Tab does not show it again
  /// while it is still under the line; forgotten at a new line, Ctrl-U and Ctrl-L.
  private var lastListed: (prefix: String, list: [String])?

  private static func reader(of editLine: OpaquePointer?) -> EditLineReader? {
    guard let editLine, let data = cel_get_clientdata(editLine) else { return nil }
    return Unmanaged<EditLineReader>.fromOpaque(data).takeUnretainedValue()
  }

  /// Makes multibyte (UTF-8) input work: `LC_CTYPE` from the environment, or
  /// `C.UTF-8` when the environment gives none or only the plain C locale.
  private static func useUTF8Locale() {
    let name = setlocale(LC_CTYPE, "").map { String(cString: $0) }
    if name == nil || name == "C" || name == "POSIX" {
      _ = setlocale(LC_CTYPE, "C.UTF-8")
    }
  }
}

/// Catches SIGINT, SIGTERM and SIGHUP while a batch run (`oplab run FILE`, piped input)
/// works. The work sees them through its `interrupted` function, so a long `run` stops
/// between ticks and an export is abandoned — its temporary file removed, the old file
/// kept — instead of the process dying in the middle. After its message the lab then dies
/// by that signal (``die(by:)``), so the shell sees 128 + the signal and a loop running it
/// stops too, as Ctrl-C in `for f in *.oplab; do oplab run $f; done` should.
/// A second signal ends the lab at once, and a signal the lab was started ignoring
/// (`nohup`) stays ignored.
///
/// Here because this is the one file that imports `CEditLine`, whose `sigaction` helpers
/// it shares with ``EditLineReader``.
enum BatchSignals {
  /// The first signal caught during the current command, or 0.
  private static let caught = Atomic<Int32>(0)

  /// The signal caught during the last ``whileCatching(_:)``, if any.
  static var caughtSignal: Int32? {
    let signo = caught.load(ordering: .relaxed)
    return signo == 0 ? nil : signo
  }

  static func whileCatching<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T {
    caught.store(0, ordering: .relaxed)
    _ = cel_signals_unblock()
    let handler: @convention(c) (Int32) -> Void = { signo in
      // Only async-signal-safe work here: an atomic exchange; on a second signal, the
      // export's temporary file removed (an atomic and unlink), the default action back
      // and the signal again (it arrives as the handler returns).
      if BatchSignals.caught.exchange(signo, ordering: .relaxed) != 0 {
        FileIO.removePendingTemporary()
        signal(signo, SIG_DFL)
        raise(signo)
      }
    }
    let signals = [SIGINT, SIGTERM, SIGHUP].filter { cel_signal_is_ignored($0) == 0 }
    var previous = Array(repeating: sigaction(), count: signals.count)
    var installed = [Bool](repeating: false, count: signals.count)
    for i in signals.indices { installed[i] = cel_signal_install(signals[i], handler, &previous[i]) == 0 }
    defer {
      for i in signals.indices where installed[i] { cel_signal_restore(signals[i], &previous[i]) }
    }
    return work { BatchSignals.caught.load(ordering: .relaxed) != 0 }
  }

  /// Ends the process by `signo`'s default action, as if the lab had never caught it: the
  /// parent (a shell, `make`, a test runner) sees death by that signal, not an exit status.
  static func die(by signo: Int32) -> Never {
    signal(signo, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signo)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(signo)
    _exit(128 + signo)  // not reached: the default action of SIGINT, SIGTERM and SIGHUP ends the process
  }

  /// "SIGINT", "SIGTERM" or "SIGHUP" (else "signal N").
  static func name(_ signo: Int32) -> String {
    switch signo {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    default: "signal \(signo)"
    }
  }
}
