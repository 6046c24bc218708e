import Foundation

/// The shell's file access: reading scripts, writing exports and saves atomically.
enum FileIO {
  /// Reads a UTF-8 text file.
  /// - Throws: a ``Diagnostic`` naming the file and why it could not be read.
  static func read(_ path: String, column: Int) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      let why = !exists ? "no such file" : isDirectory.boolValue ? "it is a directory" : "it cannot be read"
      throw Diagnostic(column: column, length: path.count, message: "cannot read '\(path)': \(why)")
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Writes text whole or not at all: to a temporary file beside the target, then renamed.
  /// - Throws: a ``Diagnostic`` naming the file; nothing is left behind.
  static func writeAtomically(_ text: String, to path: String, column: Int) throws {
    try writeAtomically(to: path, column: column) { $0.write(text) }
  }

  /// Streams text whole or not at all: `body` writes to a temporary file beside the
  /// target (a megabyte at a time), which is renamed over the target only when every
  /// write succeeded. A big world's export never sits in memory whole.
  /// - Throws: a ``Diagnostic`` naming the file; nothing is left behind.
  /// - Parameter interrupted: asked at every megabyte; `true` (Ctrl-C) abandons the file.
  static func writeAtomically(
    to path: String, column: Int, interrupted: (() -> Bool)? = nil, _ body: (inout FileStream) -> Void
  ) throws {
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent().path
    // mkstemp: a fresh name no one could have planted a link at (O_EXCL).
    var template = Array(url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).oplab-XXXXXX").path.utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    func failure(_ why: String? = nil) -> Diagnostic {
      var isDirectory: ObjCBool = false
      var targetIsFolder: ObjCBool = false
      let why = why ?? (!FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue
        ? "the folder \(directory) does not exist"
        : path.hasSuffix("/") || FileManager.default.fileExists(atPath: path, isDirectory: &targetIsFolder) && targetIsFolder.boolValue
          ? "it is a folder: give the name of a file in it"
          : "permission denied or the path is not a file")
      return Diagnostic(column: column, length: path.count, message: "cannot write '\(path)': \(why)")
    }
    guard fd >= 0 else { throw failure() }
    _ = fchmod(fd, 0o644)
    var stream = FileStream(fd: fd, interrupted: interrupted)
    body(&stream)
    stream.flush()
    let failed = stream.error
    if close(fd) != 0 || failed != nil {
      unlink(temporary)
      if failed == ECANCELED { throw failure("interrupted, so nothing was written") }
      throw failure(failed.map { String(cString: strerror($0)) })
    }
    guard rename(temporary, path) == 0 else {
      unlink(temporary)
      throw failure()
    }
  }
}

/// Text written to a file descriptor through a 1 MB buffer; the first error stops writing.
struct FileStream: TextOutputStream {
  let fd: Int32
  var buffer = ""
  /// The `errno` of the first failed write (`ECANCELED` when interrupted).
  var error: Int32?
  let interrupted: (() -> Bool)?

  init(fd: Int32, interrupted: (() -> Bool)? = nil) {
    self.fd = fd
    self.interrupted = interrupted
  }

  mutating func write(_ text: String) {
    buffer += text
    if buffer.utf8.count >= 1 << 20 { flush() }
  }

  mutating func flush() {
    if error == nil, interrupted?() == true { error = ECANCELED }
    guard error == nil else { return buffer.removeAll(keepingCapacity: true) }
    buffer.withUTF8 { bytes in
      var done = 0
      while done < bytes.count {
        let n = Foundation.write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
        if n < 0 {
          if errno == EINTR { continue }
          error = errno
          return
        }
        done += n
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }
}
