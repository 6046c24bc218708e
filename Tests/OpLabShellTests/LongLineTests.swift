import Foundation
import Testing

@testable import OpLabShell

/// Piped input is read a line at a time in bounded memory: a line longer than the cap is
/// skipped whole and reported, and the lines after it are read as usual.
@Suite(.timeLimit(.minutes(2))) struct LongLineTests {
  /// The items `DescriptorLines` reads from a pipe fed `input`, with a cap of `cap` bytes.
  func items(_ input: [UInt8], cap: Int) throws -> [DescriptorLines.Item] {
    pipedItems([input], cap: cap)
  }

  @Test("Lines up to the cap are read whole; a longer one, ended or not, is skipped with its start and length")
  func capped() throws {
    let input = Array("short\n0123456789\n\("y".repeated(11))\nafter\n\("z".repeated(30))".utf8)
    #expect(
      try items(input, cap: 10) == [
        .line("short"), .line("0123456789"), .tooLong(start: "yyyyyyyyyyy", bytes: 11), .line("after"),
        .tooLong(start: "zzzzzzzzzzzzzzzzzzzzzzzz", bytes: 30),
      ])
  }

  @Test("A line of many megabytes with no newline is counted through, not kept, and the next line is read")
  func endless() throws {
    var input = Array("first\n".utf8)
    input += [UInt8](repeating: 0, count: 5_000_000)
    input += Array("\nlast\n".utf8)
    let read = try items(input, cap: DescriptorLines.maxLineBytes)
    #expect(read == [.line("first"), .tooLong(start: "\\u{0}\\u{0}\\u{0}\\u{0}", bytes: 5_000_000), .line("last")])
  }

  @Test("A line cut inside a multi-byte character shows only whole characters")
  func cutCharacter() throws {
    let input = Array("é".repeated(40).utf8)  // 80 bytes, no newline
    #expect(try items(input, cap: 10) == [.tooLong(start: "é".repeated(24), bytes: 80)])
  }

  @Test("Messages shorten a word longer than 64 columns, keeping its start and end, and leave others alone")
  func shownMessage() {
    let long = "unexpected '" + "x".repeated(100_000) + "'; expected 'on'"
    let shown = Visible.shown(long)
    #expect(shown == "unexpected '" + "x".repeated(31) + "…" + "x".repeated(29) + "'; expected 'on'")
    #expect(Visible.shown("a short message, 'q'") == "a short message, 'q'")
    #expect(Visible.shown("nul \u{0}") == "nul \\u{0}")
  }

  @Test("A too-long line ending in a CR that is the last byte read ends there: the next line is read, and CRLF is not counted in its length")
  func longLineEndingInCarriageReturn() {
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 70_000)
    let start = String(repeating: "a", count: 24)
    #expect(pipedItems([long + [13], Array("op b\r".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
    #expect(pipedItems([long + [13], Array("\nop b\r\n".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
    #expect(pipedItems([long + Array("\r\nop b\n".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
  }
}

extension String {
  func repeated(_ n: Int) -> String { String(repeating: self, count: n) }
}

/// The items `DescriptorLines` reads from a pipe fed `chunks` one write at a time, a
/// tenth of a second apart when there are several (so a read ends where a chunk does).
func pipedItems(_ chunks: [[UInt8]], cap: Int = DescriptorLines.maxLineBytes) -> [DescriptorLines.Item] {
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { return [] }
  let (readEnd, writeEnd) = (fds[0], fds[1])
  // A writer thread: the input may be bigger than the pipe's buffer.
  let writer = Thread {
    for (i, chunk) in chunks.enumerated() {
      if i > 0 { usleep(100_000) }
      chunk.withUnsafeBytes { raw in
        var done = 0
        while done < raw.count {
          let n = write(writeEnd, raw.baseAddress.map { $0 + done }, raw.count - done)
          if n <= 0 { break }
          done += n
        }
      }
    }
    close(writeEnd)
  }
  writer.start()
  defer { close(readEnd) }
  let lines = DescriptorLines(fd: readEnd, maxLineBytes: cap)
  var out: [DescriptorLines.Item] = []
  while let item = lines.next() { out.append(item) }
  return out
}

/// The permission bits of the file at `path` (0 when it is not there).
func fileMode(_ path: String) -> mode_t {
  var info = stat()
  return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
}
