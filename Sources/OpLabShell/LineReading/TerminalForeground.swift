#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lab as the terminal's foreground job while it reads from the terminal, as a shell
/// makes each job it runs.
///
/// Started by `make run`, the lab shares make's process group, and Ctrl-C at the prompt
/// reached make too: make died with `make: *** [run] Interrupt` while the lab, which
/// catches Ctrl-C, went on. In a process group of its own that is the terminal's
/// foreground group, Ctrl-C (and Ctrl-\) reach only the lab. The terminal is given back to
/// the group that had it when the lab is done. Ctrl-Z is ignored meanwhile: a job stopped
/// under a parent that does not do job control (make) would leave the terminal to nobody.
struct TerminalForeground {
  /// The group the terminal had before.
  private let previous: pid_t
  /// The previous disposition of SIGTSTP, put back with the terminal.
  private let previousStop: sigaction

  /// Takes the terminal (standard input) for a process group of the lab's own; `nil` when
  /// there is nothing to take: no terminal, or the lab already leads the foreground group
  /// (started by a shell with job control).
  static func take() -> TerminalForeground? {
    let foreground = tcgetpgrp(0)
    guard foreground > 0, getpgrp() == foreground, getpid() != foreground else { return nil }
    guard setpgid(0, 0) == 0 else { return nil }
    guard withoutTerminalStops({ tcsetpgrp(0, getpid()) }) == 0 else {
      _ = setpgid(0, foreground)  // back where it was
      return nil
    }
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    var previousStop = sigaction()
    sigaction(SIGTSTP, &ignore, &previousStop)
    return TerminalForeground(previous: foreground, previousStop: previousStop)
  }

  /// Gives the terminal back to the group that had it (make, say), and puts Ctrl-Z back.
  /// The lab's last touch of the terminal: SIGTTOU stays ignored after it, so that any
  /// later change of the terminal's settings cannot stop a lab about to exit.
  func giveBack() {
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    sigaction(SIGTTOU, &ignore, nil)
    _ = tcsetpgrp(0, previous)
    var stop = previousStop
    sigaction(SIGTSTP, &stop, nil)
  }

  /// Runs `body` with SIGTTOU ignored: a process changing the terminal's foreground group
  /// from outside it would otherwise be stopped by the kernel.
  private static func withoutTerminalStops(_ body: () -> Int32) -> Int32 {
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    var previous = sigaction()
    sigaction(SIGTTOU, &ignore, &previous)
    defer { sigaction(SIGTTOU, &previous, nil) }
    return body()
  }
}
