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
///
/// A line ends at LF, CRLF or a lone CR (a file saved by an old Mac editor), and a UTF-8
/// byte-order mark at the very start is dropped, so it neither becomes part of the first
/// word nor shifts the columns of a diagnostic. Any descriptor works: a file, a pipe, a
/// FIFO, `/dev/null`.
final class DescriptorLines {
  private let fd: Int32
  private var buffer: [UInt8] = []
  /// Where the next line starts, and how far the search for its line end has got.
  private var start = 0
  private var scanned = 0
  private var atEnd = false
  /// Whether the start of the input has still to be checked for a byte-order mark.
  private var markPending = true

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
  private static let lineFeed = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")

  init(fd: Int32) { self.fd = fd }

  /// The next line without its line end, or `nil` at the end of input.
  func next() -> String? {
    while true {
      if markPending, buffer.count - start >= Self.byteOrderMark.count || atEnd {
        markPending = false
        if buffer[start...].starts(with: Self.byteOrderMark) {
          start += Self.byteOrderMark.count
          scanned = start
        }
      }
      if !markPending {
        if let end = buffer[scanned...].firstIndex(where: { $0 == Self.lineFeed || $0 == Self.carriageReturn }) {
          let isCarriageReturn = buffer[end] == Self.carriageReturn
          // A CR last in the buffer may be the first half of a CRLF: look again with the next byte.
          if !(isCarriageReturn && end + 1 == buffer.count && !atEnd) {
            let line = String(decoding: buffer[start..<end], as: UTF8.self)
            start = end + (isCarriageReturn && end + 1 < buffer.count && buffer[end + 1] == Self.lineFeed ? 2 : 1)
            scanned = start
            if start > 1 << 16, start * 2 > buffer.count {  // drop what was read, now and then
              buffer.removeFirst(start)
              start = 0
              scanned = 0
            }
            return line
          }
          scanned = end
        } else {
          scanned = buffer.count
        }
        if atEnd {
          guard start < buffer.count else { return nil }
          defer {
            start = buffer.count
            scanned = start
          }
          return String(decoding: buffer[start...], as: UTF8.self)
        }
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
