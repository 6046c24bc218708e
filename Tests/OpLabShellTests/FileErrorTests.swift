import Foundation
import Testing

@testable import OpLabShell

/// The errno → words table of ``FileError``: a person reads the reason, never a number,
/// "error 512", or "permission denied or not a file".
@Suite struct FileErrorTests {
  static let cases: [(code: Int32, access: FileError.Access, path: String, reason: String)] = [
    (EACCES, .write, "/root/x.jsonl", "permission denied (the folder /root is not writable by you)"),
    (EACCES, .write, "x.jsonl", "permission denied (the current folder is not writable by you)"),
    (EACCES, .read, "/root/a.oplab", "permission denied (you may not read it, or a folder on the way)"),
    (EPERM, .write, "/x", "the system does not permit it (operation not permitted)"),
    (EROFS, .write, "/mnt/x", "the file system there is read-only"),
    (ENOSPC, .write, "/tmp/x", "no space left on the device (or no free inodes)"),
    (EDQUOT, .write, "/home/u/x", "your disk quota is used up"),
    (EFBIG, .write, "/tmp/x", "the file would be larger than the file system allows"),
    (EMFILE, .read, "a", "the lab has too many files open"),
    (ENFILE, .read, "a", "the system has too many files open"),
    (ENOENT, .read, "/no/a.oplab", "no such file"),
    (ENOENT, .write, "/no/x.jsonl", "the folder /no does not exist"),
    (ENOTDIR, .write, "/etc/hosts/x", "a part of the path is a file, not a folder"),
    (EISDIR, .write, "/tmp", "it is a folder: give the name of a file in it"),
    (EISDIR, .read, "/tmp", "it is a folder, not a script"),
    (ELOOP, .write, "/tmp/loop", "too many symbolic links (a link that leads back to itself?)"),
    (ENAMETOOLONG, .write, "/tmp/nnn", "the name is too long"),
    (EIO, .read, "/mnt/a", "an input/output error (the disk or device failed)"),
    (EBUSY, .write, "/x", "it is in use"),
    (EXDEV, .write, "/x", "invalid cross-device link"),
  ]

  @Test("Each errno reads as words a learner understands", arguments: cases.indices)
  func errnoInWords(_ k: Int) {
    let c = Self.cases[k]
    #expect(FileError.describe(errno: c.code, path: c.path, access: c.access) == c.reason)
    let message = FileError(path: c.path, access: c.access, reason: .system(c.code)).message
    #expect(message == "cannot \(c.access == .read ? "read" : "write") '\(c.path)': \(c.reason)")
  }

  @Test("Every errno reads as a phrase: lowercase (an acronym aside), no raw 'errno' or 'error N', no final period")
  func noBareNumbers() throws {
    let rawNumber = try Regex("[Ee]rror [0-9]")
    for code in Int32(1)...Int32(133) {
      for access in [FileError.Access.read, .write] {
        let text = FileError.describe(errno: code, path: "/x/y", access: access)
        let first = text.prefix { !$0.isWhitespace }
        #expect(
          text.first(where: \.isLetter)?.isLowercase == true || (first.count > 1 && first.allSatisfy { $0.isUppercase || !$0.isLetter }),
          "\(code): \(text)")
        #expect(!text.contains("errno") && !text.contains(rawNumber), "\(code): \(text)")
        #expect(!text.hasSuffix(".") && !text.contains("NSCocoaErrorDomain") && !text.contains("permission denied or"), "\(code): \(text)")
      }
    }
    #expect(FileError.describe(errno: 41, path: "/x", access: .read) == "the system refused it for a reason it does not name (code 41)")
  }

  @Test("A NUL in a path is refused before any system call cuts it, for oplab run's arguments too")
  func nulRefusedByFileIO() {
    #expect(throws: FileError(path: "a\u{0}b", access: .read, reason: .nul)) { try FileIO.openScript("a\u{0}b") }
    #expect(
      FileError(path: "a\u{0}b", access: .read, reason: .nul).message
        == "cannot read 'a\\0b': a file name cannot hold a NUL byte (shown as \\0)")
    #expect(throws: FileError(path: "x\u{0}", access: .write, reason: .nul)) { try FileIO.writeAtomically(to: "x\u{0}") { $0.write("") } }
  }

  @Test("A script in a quoted path is saved with a replay line that quotes it")
  func quotedReplayLine() {
    #expect(Interpreter.quotedIfNeeded("plain.oplab") == "plain.oplab")
    #expect(Interpreter.quotedIfNeeded("my run.oplab") == "\"my run.oplab\"")
    #expect(Interpreter.quotedIfNeeded("a\"b c") == "\"a\\\"b c\"")
  }
}
