/// Reads lines from standard input when it is not a terminal (a pipe, a file, CI).
///
/// No prompt, no editing, no history: piped lines must not end up in the learner's
/// history. A trailing carriage return (a file with CRLF line ends) is removed.
public final class StdinLineReader: LineReader {
  private let nextLine: () -> String?

  /// - Parameter readLine: the source of lines, without their newline; `nil` at the
  ///   end of input. Defaults to `Swift.readLine(strippingNewline: true)`.
  public init(readLine: @escaping () -> String? = { Swift.readLine(strippingNewline: true) }) {
    self.nextLine = readLine
  }

  /// Reads the next line; `prompt` is not shown.
  public func readLine(prompt: String) -> LineInput {
    guard let line = nextLine() else { return .endOfInput }
    return .line(Self.strippingCarriageReturn(line))
  }

  /// No history for piped input.
  public func addHistory(_ line: String) {}

  /// No history for piped input.
  public func saveHistory() -> String? { nil }

  /// Runs `work` (a batch of commands) with SIGINT, SIGTERM and SIGHUP caught (see
  /// `BatchSignals`): the command running stops at its next check, and
  /// ``terminationSignal`` then tells the batch to end.
  public func whileCatchingInterrupts<T>(_ work: (_ interrupted: @escaping () -> Bool) -> T) -> T {
    BatchSignals.whileCatching(work)
  }

  /// The signal caught during the last `whileCatchingInterrupts`, if any: the batch stops.
  public var terminationSignal: Int32? { BatchSignals.caughtSignal }

  /// `line` without one trailing "\r" (or "\r\n", or "\n").
  static func strippingCarriageReturn(_ line: String) -> String {
    var scalars = Substring(line).unicodeScalars
    if scalars.last == "\n" { scalars.removeLast() }
    if scalars.last == "\r" { scalars.removeLast() }
    return String(scalars)
  }
}
