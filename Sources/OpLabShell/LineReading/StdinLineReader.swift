#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads lines from standard input when it is not a terminal (a pipe, a file, CI).
///
/// No prompt, no editing, no history: piped lines must not end up in the learner's
/// history. A trailing carriage return (a file with CRLF line ends) is removed.
public final class StdinLineReader: LineReader {
  private let nextLine: () -> String?

  /// - Parameter readLine: the source of lines, without their newline; `nil` at the
  ///   end of input. Defaults to the lines of standard input (``DescriptorLines``).
  public init(readLine: (() -> String?)? = nil) {
    if let readLine {
      self.nextLine = readLine
    } else {
      let lines = DescriptorLines(fd: 0)
      self.nextLine = { lines.next() }
    }
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

/// The lines of a file descriptor, read with read(2) in large chunks.
///
/// Not `Swift.readLine`: it retries a read that a signal interrupted for as long as the
/// stream reports the interruption, and once glibc has marked the stream in error that is
/// for ever — a batch reading a pipe would spin at full speed after Ctrl-C. Here an
/// interrupted read ends the input when the batch caught a signal (see `BatchSignals`),
/// and is simply retried otherwise. Invalid UTF-8 is repaired, as `readLine` does.
final class DescriptorLines {
  private let fd: Int32
  private var buffer: [UInt8] = []
  /// Where the next line starts, and how far the search for its newline has got.
  private var start = 0
  private var scanned = 0
  private var atEnd = false

  init(fd: Int32) { self.fd = fd }

  /// The next line without its newline, or `nil` at the end of input.
  func next() -> String? {
    while true {
      if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[start..<newline], as: UTF8.self)
        start = newline + 1
        scanned = start
        if start > 1 << 16, start * 2 > buffer.count {  // drop what was read, now and then
          buffer.removeFirst(start)
          start = 0
          scanned = 0
        }
        return line
      }
      scanned = buffer.count
      if atEnd {
        guard start < buffer.count else { return nil }
        defer { start = buffer.count }
        return String(decoding: buffer[start...], as: UTF8.self)
      }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        buffer.append(contentsOf: chunk[..<count])
      } else if count < 0, errno == EINTR {
        if BatchSignals.caughtSignal != nil { return nil }
      } else {
        atEnd = true  // the end, or an error reading: either way no more lines
      }
    }
  }
}
