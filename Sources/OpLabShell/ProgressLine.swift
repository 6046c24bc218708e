import Foundation
import OpLabRender

/// How far a long command (`real`, `explore`) has got, as one line on the terminal updated in
/// place, so that a run that takes seconds does not look hung: written to standard error
/// only when it is a terminal, first after 0.3 s (a short command shows nothing), then at
/// most ten times a second, cut to the width, and erased when the command ends (`nil`).
final class ProgressLine {
  private let clock = ContinuousClock()
  private var started: ContinuousClock.Instant?
  private var last: ContinuousClock.Instant?
  private var shown = false
  private let width: () -> Int

  /// A progress line for a terminal `width()` columns wide; `nil` when standard error is not a terminal.
  static func forStandardError(width: @escaping () -> Int) -> ProgressLine? {
    isatty(2) == 1 ? ProgressLine(width: width) : nil
  }

  init(width: @escaping () -> Int) { self.width = width }

  /// Shows `text` in place of the line before it, or erases the line (`nil`).
  func update(_ text: String?) {
    guard let text else {
      if shown { Shell.writeError("\r\u{1B}[K") }
      shown = false
      started = nil
      last = nil
      return
    }
    let now = clock.now
    guard let started else {
      self.started = now
      return
    }
    guard now - started >= .milliseconds(300), last.map({ now - $0 >= .milliseconds(100) }) ?? true else { return }
    last = now
    shown = true
    Shell.writeError("\r\u{1B}[K  " + Names.shorten(text, to: max(10, width() - 3)))
  }
}
