import Foundation
import OpLabRender
import Synchronization

/// Shows a view taller than the terminal through a pager, as `git log` does: `$PAGER` when
/// it is set (empty or `cat` turns paging off), else `less -FRXK` (quits at once when the
/// text fits, keeps colours, leaves the text on the screen, quits at Ctrl-C) with a prompt
/// naming its keys, else `more`. Interactive only: batch runs and pipes never page.
///
/// The pager has the keyboard while it runs, and only then: keys typed ahead of it are
/// dropped before it starts and keys it left unread are dropped when it ends, so none
/// becomes a pager command or a lab command by accident; and it runs with `LESSSECURE=1`,
/// so in less a stray `s` (save to a file), `!` (shell), `|` (pipe) or `v` (editor) does
/// nothing. Ctrl-C leaves the pager for the lab's prompt. A pager that did not show the text
/// (not found: exit 127; or any other failure) leaves it to the caller to print, with a line
/// saying why (``Failure/note``).
enum Pager {
  /// The pager command for `environment`, or `nil` for none.
  static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let chosen = environment["PAGER"] {
      let trimmed = chosen.trimmingCharacters(in: .whitespaces)
      return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }
    for (program, command) in [("less", lessCommand), ("more", "more")] where onPath(program, environment: environment) {
      return command
    }
    return nil
  }

  /// `less -FRXK` with a prompt that says the keys: in `less`, Enter only moves a line, and
  /// a lesson's "Enter goes on" would mislead a reader there. On the last page (`?e`, at
  /// the end of the file) it says `(END)` instead of offering a next page.
  static let lessCommand = #"less -FRXK '-Ps?e(END)  :space\: next page  .b\: back  q\: done'"#

  /// Whether `text` needs more rows than `rows` (less one for the prompt), counting the
  /// rows a line longer than `width` wraps onto.
  static func isTaller(_ text: String, than rows: Int, width: Int) -> Bool {
    var count = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      count += max(1, (Names.width(String(line)) + width - 1) / max(1, width))
      if count > rows - 1 { return true }
    }
    return false
  }

  /// Why the pager did not show a text: the caller prints the text, then ``note``.
  struct Failure: Equatable {
    enum Reason: Equatable {
      /// The pager could not be started at all (`pipe` or `posix_spawn` failed with this error).
      case notStarted(errno: Int32)
      /// The pager, or the shell running it, exited with this status: 127 is a command not
      /// found, 126 one that cannot be run.
      case exited(Int32)
      /// The pager was ended by this signal.
      case signaled(Int32)
    }

    /// The pager command, as `$PAGER` gave it.
    let command: String
    let reason: Reason

    /// One line, said after the printed text: "(the pager `no-such-pager` could not run:
    /// exit 127; printed above)".
    var note: String {
      let pager = "the pager `\(Visible.shown(command))`"
      switch reason {
      case .notStarted(let code): return "(\(pager) could not start: \(String(cString: strerror(code))); printed above)"
      case .exited(let status) where status == 126 || status == 127: return "(\(pager) could not run: exit \(status); printed above)"
      case .exited(let status): return "(\(pager) failed: exit \(status); printed above)"
      case .signaled(let signo): return "(\(pager) was ended by signal \(signo); printed above)"
      }
    }
  }

  /// Runs `command` with `text` on its standard input and the terminal as its output.
  ///
  /// Spawned in the lab's own process group, the terminal's foreground group: Foundation's
  /// `Process` starts a child in a new group, where a pager reading the keyboard is stopped
  /// by the kernel (SIGTTIN) and the lab waits for ever. Ctrl-C reaches the lab as well as
  /// the pager: the lab catches it meanwhile (a lesson would otherwise die of it, leaving
  /// the pager behind on the terminal) and waits for the pager to quit.
  /// - Returns: `nil` when the pager showed the text (quit with q, or left with Ctrl-C: it
  ///   exits non-zero then, but the learner saw the text); else why it did not, and the
  ///   caller prints the text.
  static func show(_ text: String, through command: String) -> Failure? {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return Failure(command: command, reason: .notStarted(errno: errno)) }
    let (readEnd, writeEnd) = (fds[0], fds[1])
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
    posix_spawn_file_actions_addclose(&actions, readEnd)
    posix_spawn_file_actions_addclose(&actions, writeEnd)
    let arguments: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (word: String) in strdup(word) } + [nil]
    var variables = ProcessInfo.processInfo.environment
    variables["LESSSECURE"] = "1"
    let environment: [UnsafeMutablePointer<CChar>?] =
      variables.map { (key: String, value: String) in strdup("\(key)=\(value)") } + [nil]
    defer {
      arguments.forEach { free($0) }
      environment.forEach { free($0) }
    }
    interrupted.store(false, ordering: .relaxed)
    var previous = sigaction()
    let caught = catchInterrupts(saving: &previous)
    defer { if caught { sigaction(SIGINT, &previous, nil) } }
    dropTypedAhead()
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, arguments, environment)
    close(readEnd)
    guard spawned == 0 else {
      close(writeEnd)
      return Failure(command: command, reason: .notStarted(errno: spawned))
    }
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {  // a pager quit early (q) closes the pipe: EPIPE, stop
      let n = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress.map { $0 + done }, $0.count - done) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { break }
      done += n
    }
    close(writeEnd)
    var status: Int32 = 0
    var waited = waitpid(pid, &status, 0)
    while waited < 0, errno == EINTR { waited = waitpid(pid, &status, 0) }
    // What was typed into the pager is the pager's: what it left unread is not a command.
    dropTypedAhead()
    // Ctrl-C is the learner leaving the pager (less -K exits 2), not a failure to show.
    if waited < 0 || interrupted.load(ordering: .relaxed) { return nil }
    let signo = status & 0x7f
    if signo == 0 {
      let code = (status >> 8) & 0xff
      return code == 0 ? nil : Failure(command: command, reason: .exited(code))
    }
    return Failure(command: command, reason: .signaled(signo))
  }

  /// Set by the SIGINT handler ``show(_:through:)`` installs while the pager runs.
  private static let interrupted = Atomic<Bool>(false)

  /// Catches SIGINT (Ctrl-C) in the lab, without SA_RESTART, saving the action it replaces.
  /// The pager gets the default action back when it is started (a caught signal does not
  /// survive exec), so Ctrl-C still reaches it.
  /// - Returns: whether the handler was installed.
  private static func catchInterrupts(saving previous: inout sigaction) -> Bool {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in Pager.interrupted.store(true, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    return sigaction(SIGINT, &action, &previous) == 0
  }

  /// Drops what was typed on the terminal and not yet read: before the pager, keys typed
  /// ahead (the rest of a pasted line, `status` typed while `help` was starting) would be
  /// pager commands; after it, keys it left unread would be the lab's next command.
  private static func dropTypedAhead() {
    if isatty(0) != 0 { _ = tcflush(0, TCIFLUSH) }
  }

  private static func onPath(_ program: String, environment: [String: String]) -> Bool {
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
  }
}
