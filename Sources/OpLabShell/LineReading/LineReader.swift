import OpLabRender

/// What one read from the learner produced.
public enum LineInput: Equatable, Sendable {
  /// A line of text, without its newline.
  case line(String)
  /// Ctrl-C at the prompt: the partial line is dropped and a fresh prompt follows.
  case interrupted
  /// Ctrl-D on an empty line, or the end of piped input.
  case endOfInput
  /// A piped line too long to keep (see `DescriptorLines.maxLineBytes`): skipped whole,
  /// so nothing half-read runs. Its first characters and its length in bytes, for the message.
  case tooLong(start: String, bytes: Int)
}

extension LineInput {
  /// What the lab says of a ``tooLong`` line: its length, the limit, and how it began.
  static func tooLongMessage(start: String, bytes: Int) -> String {
    "this line is \(Chains.grouped(bytes)) bytes long, more than the \(Chains.grouped(DescriptorLines.maxLineBytes)) a line may have, "
      + "so none of it ran (it began '\(start)…')"
  }

}

/// Completes the word under the cursor.
///
/// - Parameter prefix: the line from its start up to the cursor.
/// - Returns: every full word that could replace the last (partial) word of `prefix`,
///   sorted; empty when nothing fits.
public typealias Completer = (_ prefix: String) -> [String]

/// A source of input lines: libedit on a terminal, plain standard input otherwise.
///
/// The shell only talks to this protocol, so it can be driven by tests and scripts.
public protocol LineReader: AnyObject {
  /// Shows `prompt` (when interactive) and reads one line.
  func readLine(prompt: String) -> LineInput
  /// Records an accepted line in the history (no-op for non-interactive readers).
  func addHistory(_ line: String)
  /// Writes the history to disk (no-op for non-interactive readers).
  /// - Returns: a warning to show, or `nil` on success.
  func saveHistory() -> String?
  /// Runs `work` with Ctrl-C caught: instead of killing the process, Ctrl-C makes the
  /// `interrupted` function `work` receives return `true`.
  func whileCatchingInterrupts<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T
  /// Inside `whileCatchingInterrupts`: forgets a Ctrl-C already caught, so `interrupted`
  /// reports only a later one (the shell stops a command, then the printing of its output).
  func clearInterrupt()
  /// The signal that ended input (SIGTERM, SIGHUP), if any.
  var terminationSignal: Int32? { get }
  /// Whether the prompt and the typed line are on the screen, so an error can point at
  /// its column with a caret under the line.
  var echoesLines: Bool { get }
}

extension LineReader {
  /// Piped input ends only at its end.
  public var terminationSignal: Int32? { nil }

  /// Piped input is neither prompted for nor echoed.
  public var echoesLines: Bool { false }

  /// Nothing to forget by default (a batch stops at the first signal it catches).
  public func clearInterrupt() {}

  /// Without a terminal there is no Ctrl-C to catch: `interrupted` is always `false`.
  public func whileCatchingInterrupts<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T {
    work { false }
  }
}
