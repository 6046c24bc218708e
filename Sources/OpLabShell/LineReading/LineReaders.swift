#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Chooses the line reader for this process.
public enum LineReaders {
  /// libedit when standard input and output are both terminals and `TERM` is not
  /// "dumb"; plain standard input otherwise (pipes, files, CI).
  ///
  /// - Parameters:
  ///   - completer: what Tab offers (interactive only).
  ///   - historyPath: the history file (interactive only), usually
  ///     `EditLineReader.defaultHistoryPath(environment:)`; `nil` for no file.
  ///   - warn: receives a problem with the history file (e.g. a foreign file that was
  ///     moved aside). Defaults to printing "oplab: warning: …" on standard error.
  /// - Returns: the reader.
  public static func makeDefault(
    completer: @escaping Completer,
    historyPath: String?,
    warn: (String) -> Void = LineReaders.printWarning
  ) -> LineReader {
    let term = getenv("TERM").map { String(cString: $0) }
    if isInteractive(stdinIsTerminal: isatty(0) == 1, stdoutIsTerminal: isatty(1) == 1, term: term),
      let reader = EditLineReader(completer: completer, historyPath: historyPath)
    {
      if let warning = reader.loadWarning { warn(warning) }
      return reader
    }
    return StdinLineReader()
  }

  /// Whether to edit lines with libedit.
  static func isInteractive(stdinIsTerminal: Bool, stdoutIsTerminal: Bool, term: String?) -> Bool {
    stdinIsTerminal && stdoutIsTerminal && term != "dumb"
  }

  /// Writes "oplab: warning: `message`" and a newline to standard error.
  public static func printWarning(_ message: String) {
    let text = Array("oplab: warning: \(message)\n".utf8)
    var offset = 0
    while offset < text.count {
      let written = text[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
      if written <= 0 { break }
      offset += written
    }
  }
}
