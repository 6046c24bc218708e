import Foundation
import OpLabRender

/// How far a long command (`real`, `explore`) has got, on standard error, so that a run that
/// takes seconds does not look hung.
///
/// On a terminal: one line updated in place, first after 0.3 s (a short command shows
/// nothing), then at most ten times a second, cut to the width, and erased when the command
/// ends (`nil`). In a script (standard error not a terminal): a whole line every three
/// seconds, first after three, so a log shows the command going on without filling up.
/// A text that ends in a newline is a note to keep: it is written at once, whole, above the
/// progress line (`explore` says so up front when its space is too big).
final class ProgressLine {
  private let clock = ContinuousClock()
  private var started: ContinuousClock.Instant?
  private var last: ContinuousClock.Instant?
  private var shown = false
  private let width: () -> Int
  /// Updated in place (a terminal), or written as whole lines (a script).
  private let inPlace: Bool
  /// Before the first line, and between two.
  private let firstAfter: Duration, every: Duration

  /// A progress line on standard error `width()` columns wide: in place on a terminal, a
  /// line every few seconds otherwise.
  static func forStandardError(width: @escaping () -> Int) -> ProgressLine {
    ProgressLine(width: width, inPlace: isatty(2) == 1)
  }

  init(width: @escaping () -> Int, inPlace: Bool = true) {
    self.width = width
    self.inPlace = inPlace
    (firstAfter, every) = inPlace ? (.milliseconds(300), .milliseconds(100)) : (.seconds(3), .seconds(3))
  }

  /// Shows `text` (in place of the line before it, on a terminal), keeps a note (a text
  /// ending in a newline), or erases the line (`nil`).
  func update(_ text: String?) {
    guard let text else {
      if shown, inPlace { Shell.writeError("\r\u{1B}[K") }
      shown = false
      started = nil
      last = nil
      return
    }
    if text.hasSuffix("\n") {
      if shown, inPlace { Shell.writeError("\r\u{1B}[K") }
      shown = false
      Shell.writeError(Wrap.text(text, width: width()))
      return
    }
    let now = clock.now
    guard let started else {
      self.started = now
      return
    }
    guard now - started >= firstAfter, last.map({ now - $0 >= every }) ?? true else { return }
    last = now
    let line = "  " + Names.shorten(text, to: max(10, width() - 3))
    if inPlace {
      shown = true
      Shell.writeError("\r\u{1B}[K" + line)
    } else {
      Shell.writeError(line + "\n")
    }
  }
}
