import Foundation
import Synchronization

/// The shell's file access: reading scripts, writing exports and saves atomically.
///
/// Written with the system calls themselves, not Foundation's file APIs, so every failure
/// has its `errno` and is told in words (``FileError``), never as "error 512".
enum FileIO {
  // MARK: - Reading

  /// Opens a script for reading line by line: a regular file, or a stream read until its
  /// end (`/dev/stdin`, a pipe such as `<(…)`, a FIFO, `/dev/null`). Lines end at LF,
  /// CRLF or a lone CR, and a UTF-8 byte-order mark at the start is dropped
  /// (``DescriptorLines``).
  /// - Throws: ``FileError`` naming why it cannot be read (a folder is refused).
  /// - Parameter regularOnly: refuse anything but a regular file (a symbolic link is
  ///   followed), without waiting on a FIFO or reading a device: a lesson file.
  static func openScript(_ path: String, regularOnly: Bool = false) throws(FileError) -> ScriptFile {
    func fail(_ reason: FileError.Reason) -> FileError { FileError(path: path, access: .read, reason: reason) }
    guard !path.isEmpty else { throw fail(.empty) }
    guard !path.contains("\u{0}") else { throw fail(.nul) }
    // O_NONBLOCK: opening a FIFO no one writes to must not wait, when only a file will do.
    let fd = open(path, O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK : 0))
    guard fd >= 0 else { throw fail(.system(errno)) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      throw fail(.system(code))
    }
    if info.st_mode & S_IFMT == S_IFDIR {
      close(fd)
      throw fail(.folder)
    }
    if regularOnly, let refusal = refusal(info) {
      close(fd)
      throw fail(refusal)
    }
    if regularOnly { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
    // A stream (a pipe, a FIFO, the lab's own /dev/stdin or /dev/fd/N) is in no folder.
    let inFolder = info.st_mode & S_IFMT == S_IFREG && ownDescriptor(path) == nil && !path.hasPrefix("/proc/")
    return ScriptFile(
      fd: fd, identity: ScriptFile.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), inFolder: inFolder)
  }

  /// Reads a whole text file (a lesson), its lines joined by "\n" whatever they ended
  /// with, without a byte-order mark. Only a regular file (through a symbolic link, its
  /// target): a FIFO or a device such as /dev/zero would never end.
  /// - Throws: ``FileError``.
  static func readText(_ path: String) throws(FileError) -> String {
    let file = try openScript(path, regularOnly: true)
    var lines: [String] = []
    while let item = file.next() {
      switch item {
      case .line(let line): lines.append(line)
      case .tooLong(_, let bytes):
        throw FileError(path: path, access: .read, reason: .lineTooLong(line: lines.count + 1, bytes: bytes))
      }
    }
    return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
  }

  // MARK: - Writing

  /// What a write did to the path.
  enum WriteOutcome: Equatable, Sendable {
    /// Nothing was there.
    case created
    /// A regular file was replaced.
    case replaced
    /// The path is a symbolic link to a regular file: the file it leads to was replaced,
    /// and the link kept.
    case replacedThroughLink(String)
    /// The path names one of the lab's own descriptors (`/dev/stdout`, `/dev/fd/3`): the
    /// text was written to it as a stream, nothing replaced.
    case descriptor(Int32)

    /// " (it replaced the file there)", for the learner's confirmation.
    var note: String {
      switch self {
      case .created: ""
      case .replaced: " (it replaced the file there)"
      case .replacedThroughLink(let target): " (through the link: it replaced \(FileError.shown(target)))"
      case .descriptor: ""
      }
    }

    /// Where the text went, as the confirmation names it: the path as typed (a relative one
    /// with the folder it is in: the lab's working folder is easy to forget), or "standard
    /// output" for `/dev/stdout`.
    func destination(_ path: String) -> String {
      if case .descriptor(let fd) = self { return FileIO.descriptorName(fd) }
      guard !path.hasPrefix("/"), !path.hasPrefix("~") else { return path }
      let folder = FileManager.default.currentDirectoryPath
      return "\(path) (in \(folder))"
    }
  }

  /// The descriptor `path` names when it is one of the lab's own: `/dev/stdin`,
  /// `/dev/stdout`, `/dev/stderr` (0, 1, 2), `/dev/fd/N` or `/proc/self/fd/N` (N).
  /// Such a path is a link to whatever the descriptor is open on, often a file the shell
  /// redirected the lab's output to: replacing that file would destroy what the lab wrote
  /// there, so it is written to as a stream instead.
  static func ownDescriptor(_ path: String) -> Int32? {
    switch path {
    case "/dev/stdin": return 0
    case "/dev/stdout": return 1
    case "/dev/stderr": return 2
    default: break
    }
    for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
      let number = path.dropFirst(prefix.count)
      guard !number.isEmpty, number.count <= 9, number.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
      return Int32(number)
    }
    return nil
  }

  /// "standard output", "standard error", "standard input" or "descriptor 3".
  static func descriptorName(_ fd: Int32) -> String {
    switch fd {
    case 0: "standard input"
    case 1: "standard output"
    case 2: "standard error"
    default: "descriptor \(fd)"
    }
  }

  /// Streams `body` straight to the lab's descriptor `fd` (no temporary file, no rename).
  /// - Throws: ``FileError`` when `fd` is not open, is open only for reading, or a write fails.
  static func writeToDescriptor(
    _ fd: Int32, path: String, interrupted: (() -> Bool)?, _ body: (inout FileStream) -> Void
  ) throws(FileError) {
    func fail(_ reason: FileError.Reason) -> FileError { FileError(path: path, access: .write, reason: reason) }
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0 else { throw fail(.closedDescriptor(fd)) }
    guard flags & O_ACCMODE != O_RDONLY else { throw fail(.readOnlyDescriptor(fd)) }
    var stream = FileStream(fd: fd, interrupted: interrupted)
    body(&stream)
    stream.flush()
    if let failed = stream.error { throw fail(failed == ECANCELED ? .system(EINTR) : .system(failed)) }
  }

  /// Writes text whole or not at all (see ``writeAtomically(to:interrupted:privateMode:_:)``).
  /// - Throws: a ``Diagnostic`` at `column` naming the file; nothing is left behind.
  static func writeAtomically(_ text: String, to path: String, column: Int) throws {
    do {
      try writeAtomically(to: path) { $0.write(text) }
    } catch {
      throw Diagnostic(error, column: column, length: path.count)
    }
  }

  /// Streams text whole or not at all (see ``writeAtomically(to:interrupted:privateMode:_:)``).
  /// - Throws: a ``Diagnostic`` at `column` naming the file; nothing is left behind.
  static func writeAtomically(
    to path: String, column: Int, interrupted: (() -> Bool)? = nil, _ body: (inout FileStream) -> Void
  ) throws {
    do {
      try writeAtomically(to: path, interrupted: interrupted, body)
    } catch {
      throw Diagnostic(error, column: column, length: path.count)
    }
  }

  /// Streams text whole or not at all: `body` writes to a fresh temporary file beside the
  /// target (a megabyte at a time), which is renamed over the target only when every write
  /// succeeded. A big world's export never sits in memory whole.
  ///
  /// - A path naming one of the lab's own descriptors (`/dev/stdout`, `/dev/fd/3`, see
  ///   ``ownDescriptor(_:)``) is written to that descriptor as a stream: the file a shell
  ///   redirected it to is appended to, never replaced.
  /// - Only regular files are written: a folder, a device (`/dev/full`), a FIFO or a socket
  ///   is refused, never replaced. A symbolic link to a regular file is written through
  ///   (its target replaced, the link kept).
  /// - A replaced file keeps its permissions (and, when allowed, its owner); a new file
  ///   gets 0666 minus the umask, as `open(O_CREAT, 0666)` gives.
  /// - The temporary file is removed on every path: a failed write, Ctrl-C, and a second
  ///   signal that ends a batch run at once (``removePendingTemporary()``).
  /// - Parameters:
  ///   - interrupted: asked at every megabyte; `true` (Ctrl-C) abandons the file.
  ///   - privateMode: the lab's own state (progress, a lesson's kept world): always 0600,
  ///     new or replaced, whatever the umask or an earlier version left.
  /// - Throws: ``FileError``; nothing is left behind.
  @discardableResult
  static func writeAtomically(
    to path: String, interrupted: (() -> Bool)? = nil, privateMode: Bool = false, _ body: (inout FileStream) -> Void
  ) throws(FileError) -> WriteOutcome {
    func fail(_ reason: FileError.Reason) -> FileError { FileError(path: path, access: .write, reason: reason) }
    guard !path.isEmpty else { throw fail(.empty) }
    guard !path.contains("\u{0}") else { throw fail(.nul) }
    if path.hasSuffix("/") { throw fail(.folder) }
    if !privateMode, let fd = ownDescriptor(path) {
      try writeToDescriptor(fd, path: path, interrupted: interrupted, body)
      return .descriptor(fd)
    }
    var target = path
    var outcome = WriteOutcome.created
    var kept: stat?
    var info = stat()
    if lstat(path, &info) == 0 {
      if info.st_mode & S_IFMT == S_IFLNK {
        var followed = stat()
        guard stat(path, &followed) == 0 else {
          let code = errno
          throw fail(code == ENOENT ? .danglingLink(linkTarget(path)) : .system(code))
        }
        if let refusal = refusal(followed) { throw fail(refusal) }
        target =
          realpath(path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
          } ?? path
        outcome = .replacedThroughLink(target)
        kept = followed
      } else {
        if let refusal = refusal(info) { throw fail(refusal) }
        outcome = .replaced
        kept = info
      }
      if access(target, W_OK) != 0, errno == EACCES || errno == EROFS {
        throw fail(errno == EROFS ? .system(EROFS) : .readOnlyFile)
      }
    } else if errno != ENOENT {
      throw fail(.system(errno))
    }

    let folder = folder(of: target)
    // One atomic write at a time: the temporary file's name lives in one buffer, for the
    // signal handler, and the umask is read by setting it. Two labs in one process (the
    // tests run many at once) would otherwise rename each other's temporary files.
    temporaryLock.lock()
    defer { temporaryLock.unlock() }
    let fd = createTemporary(beside: target)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT {
        var folderInfo = stat()
        if stat(folder, &folderInfo) == 0 { throw fail(folderInfo.st_mode & S_IFMT == S_IFDIR ? .noNewFiles(folder) : .system(ENOTDIR)) }
      }
      // Through a link, the folder that refused is the target's, not the one in the path.
      throw fail(target == path ? .system(code) : .creatingIn(folder, code))
    }
    defer { removePendingTemporary() }  // whatever happens below, no temporary file stays
    if privateMode {
      _ = fchmod(fd, 0o600)
    } else if let kept {
      _ = fchmod(fd, kept.st_mode & 0o7777)
      if kept.st_uid != geteuid() || kept.st_gid != getegid() { _ = fchown(fd, kept.st_uid, kept.st_gid) }
    } else {
      let mask = umask(0)
      umask(mask)
      _ = fchmod(fd, 0o666 & ~mask)
    }
    var stream = FileStream(fd: fd, interrupted: interrupted)
    body(&stream)
    stream.flush()
    var failed = stream.error
    if close(fd) != 0, failed == nil { failed = errno }
    if let failed { throw fail(failed == ECANCELED ? .interrupted : .system(failed)) }
    guard rename(temporaryPath(), target) == 0 else { throw fail(.system(errno)) }
    pendingTemporary.store(false, ordering: .sequentiallyConsistent)  // renamed: nothing to remove
    return outcome
  }

  /// Creates `path` and the folders above it that are missing (`mkdir -p`).
  /// - Throws: ``FileError`` for the first that cannot be made.
  static func makeFolders(_ path: String, mode: mode_t = 0o700) throws(FileError) {
    var info = stat()
    if stat(path, &info) == 0 {
      if info.st_mode & S_IFMT == S_IFDIR { return }
      throw FileError(path: path, access: .write, reason: .system(ENOTDIR))
    }
    let parent = folder(of: path)
    if parent != path, parent != ".", parent != "/" { try makeFolders(parent, mode: mode) }
    if mkdir(path, mode) != 0, errno != EEXIST {
      throw FileError(path: path, access: .write, reason: .makingFolder(errno))
    }
  }

  /// Why a target that exists must not be replaced, or `nil` for a regular file.
  private static func refusal(_ info: stat) -> FileError.Reason? {
    switch info.st_mode & S_IFMT {
    case S_IFREG: nil
    case S_IFDIR: .folder
    case S_IFCHR, S_IFBLK: .notAFile("a device")
    case S_IFIFO: .notAFile("a named pipe (FIFO)")
    case S_IFSOCK: .notAFile("a socket")
    default: .notAFile("not a regular file")
    }
  }

  private static func linkTarget(_ path: String) -> String {
    var bytes = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink(path, &bytes, bytes.count - 1)
    guard n > 0 else { return "?" }
    return String(decoding: bytes[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The folder of `path` as written ("." when it names none, "/" for a top-level file).
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let folder = path[..<slash]
    return folder.isEmpty ? "/" : String(folder)
  }

  // MARK: - The temporary file, for the signal handler

  /// The temporary file being written, as a C string the signal handler can read: a fixed
  /// buffer (never freed), valid while ``pendingTemporary`` is set.
  nonisolated(unsafe) private static let temporaryBuffer: UnsafeMutablePointer<CChar> = {
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: temporaryCapacity)
    buffer.initialize(repeating: 0, count: temporaryCapacity)
    return buffer
  }()
  private static let temporaryCapacity = Int(PATH_MAX) + 1
  /// Held from the temporary file's creation to its rename or removal (see ``writeAtomically(to:interrupted:privateMode:_:)``).
  private static let temporaryLock = NSLock()
  private static let pendingTemporary = Atomic<Bool>(false)

  /// Creates the temporary file beside `target` with mkstemp (a fresh name no one could have
  /// planted a link at) and records its name for ``removePendingTemporary()``.
  /// - Returns: the descriptor, or -1 with `errno` set.
  private static func createTemporary(beside target: String) -> Int32 {
    // A name near the file system's limit must still leave room for the suffix.
    var base = Substring(target[(target.lastIndex(of: "/").map(target.index(after:)) ?? target.startIndex)...])
    while base.utf8.count > 200 { base = base.dropLast() }
    let folder = folder(of: target)
    let template = Array((folder == "/" ? "/" : folder + "/").utf8) + Array(".\(base).oplab-XXXXXX".utf8)
    guard template.count < temporaryCapacity else {
      errno = ENAMETOOLONG
      return -1
    }
    for (i, byte) in template.enumerated() { temporaryBuffer[i] = CChar(bitPattern: byte) }
    temporaryBuffer[template.count] = 0
    let fd = mkstemp(temporaryBuffer)
    if fd >= 0 { pendingTemporary.store(true, ordering: .sequentiallyConsistent) }
    return fd
  }

  private static func temporaryPath() -> String { String(cString: temporaryBuffer) }

  /// Removes the temporary file being written, if any. Async-signal-safe (an atomic and
  /// `unlink`): the batch's signal handler calls it before a second signal ends the lab.
  static func removePendingTemporary() {
    if pendingTemporary.exchange(false, ordering: .sequentiallyConsistent) { unlink(temporaryBuffer) }
  }

  /// Whether a temporary file is being written now (for tests).
  static var isWriting: Bool { pendingTemporary.load(ordering: .sequentiallyConsistent) }
}

/// A script being read, line by line (see ``FileIO/openScript(_:regularOnly:)``); closed when released.
final class ScriptFile {
  /// Which file it is, to tell a script that sources itself, whatever path named it.
  struct Identity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
  }

  let identity: Identity
  /// Whether it is a regular file in a folder of its own, where its `source` lines'
  /// relative paths are found; a stream (stdin, a pipe, a FIFO, /dev/fd/N) is not.
  let inFolder: Bool
  private let fd: Int32
  private let lines: DescriptorLines

  init(fd: Int32, identity: Identity, inFolder: Bool = true) {
    self.fd = fd
    self.identity = identity
    self.inFolder = inFolder
    lines = DescriptorLines(fd: fd)
  }

  /// The next line without its line end (or a line too long to keep), or `nil` at the end.
  func next() -> DescriptorLines.Item? { lines.next() }

  deinit { close(fd) }
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
