#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations around libedit's history file: where it lives, checking its
/// header, moving a foreign file aside, creating its directory, replacing it atomically.
///
/// libedit itself only reads and writes the file (`H_LOAD`/`H_SAVE`); this type keeps
/// that from losing data: libedit silently overwrites a file it cannot parse, and it
/// writes in place (`fopen "w"`), so a crash mid-save would truncate the history.
enum HistoryFile {
  /// The first line libedit writes and requires (`_HiStOrY_V2_`).
  static let header = "_HiStOrY_V2_\n"

  /// What is at the history path before loading.
  enum Contents: Equatable {
    /// No file: start empty.
    case missing
    /// An empty file: start empty.
    case empty
    /// A file with libedit's header: load it.
    case libedit
    /// Something else: move it aside before the next save overwrites it.
    case foreign
  }

  /// A failed file operation, with the path and `errno` text.
  enum Failure: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case cannotMoveAside(path: String, reason: String)
    case cannotCreateDirectory(path: String, reason: String)
    case cannotWrite(path: String, reason: String)

    var description: String {
      switch self {
      case .unreadable(let path, let reason):
        "cannot read the history file \(path): \(reason)"
      case .cannotMoveAside(let path, let reason):
        "\(path) is not a history file and could not be moved aside (\(reason)); "
          + "history will not be saved"
      case .cannotCreateDirectory(let path, let reason):
        "cannot create the history directory \(path): \(reason)"
      case .cannotWrite(let path, let reason):
        "cannot save the history to \(path): \(reason)"
      }
    }
  }

  /// `$XDG_STATE_HOME/<app>/history` when that variable is an absolute path, else
  /// `$HOME/.local/state/<app>/history`; `nil` when neither is usable.
  static func defaultPath(app: String, environment: [String: String]) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return join(state, app, "history")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return join(home, ".local/state", app, "history")
    }
    return nil
  }

  /// Reads the start of the file at `path` to decide how to load it.
  static func inspect(_ path: String) -> Result<Contents, Failure> {
    let fd = open(path, O_RDONLY)
    if fd < 0 {
      let error = errno
      return error == ENOENT ? .success(.missing) : .failure(.unreadable(path: path, reason: describe(error)))
    }
    defer { close(fd) }
    let expected = Array(header.utf8)
    var bytes = [UInt8](repeating: 0, count: expected.count)
    var filled = 0
    while filled < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(.unreadable(path: path, reason: describe(errno)))
      }
      if count == 0 { break }
      filled += count
    }
    if filled == 0 { return .success(.empty) }
    return .success(bytes[..<filled].elementsEqual(expected) ? .libedit : .foreign)
  }

  /// Moves the file at `path` to `<path>.corrupt-<n>`, with the smallest free `n`. The
  /// new name is taken with link(2), which fails rather than replace a file already there,
  /// so an earlier copy is never overwritten, even by another lab doing the same at once.
  /// - Returns: the new path.
  static func moveAside(_ path: String) -> Result<String, Failure> {
    for n in 1...10_000 {
      let target = "\(path).corrupt-\(n)"
      if exists(target) { continue }
      if link(path, target) == 0 {
        unlink(path)
        return .success(target)
      }
      if errno == EEXIST { continue }  // taken meanwhile
      return .failure(.cannotMoveAside(path: path, reason: describe(errno)))
    }
    return .failure(.cannotMoveAside(path: path, reason: "too many earlier copies"))
  }

  /// Creates the directory holding `path`, and any missing parents, with mode 0700.
  static func createParentDirectory(of path: String) -> Failure? {
    let directory = parent(of: path)
    guard !directory.isEmpty else { return nil }
    var partial = directory.hasPrefix("/") ? "/" : ""
    for component in directory.split(separator: "/") {
      partial += (partial.isEmpty || partial.hasSuffix("/") ? "" : "/") + component
      if mkdir(partial, 0o700) != 0 {
        let error = errno
        if !isDirectory(partial) {
          // EEXIST here means a file is in the way.
          return .cannotCreateDirectory(path: partial, reason: describe(error == EEXIST ? ENOTDIR : error))
        }
      }
    }
    return nil
  }

  /// A temporary path next to `path`, so that `rename` onto it is atomic.
  static func temporaryPath(for path: String) -> String {
    "\(path).tmp-\(getpid())"
  }

  /// Atomically replaces `path` with the file at `temporary` (removing `temporary` on failure).
  static func replace(_ path: String, with temporary: String) -> Failure? {
    if rename(temporary, path) == 0 { return nil }
    let error = errno
    unlink(temporary)
    return .cannotWrite(path: path, reason: describe(error))
  }

  /// Removes a leftover temporary file, ignoring errors.
  static func remove(_ path: String) {
    unlink(path)
  }

  /// The directory part of `path` ("" when it has none).
  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// The text for an `errno` value.
  static func describe(_ error: Int32) -> String {
    guard let text = strerror(error) else { return "error \(error)" }
    return String(cString: text)
  }

  private static func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
  }

  private static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  private static func join(_ parts: String...) -> String {
    var path = ""
    for part in parts {
      if path.isEmpty {
        path = part
      } else {
        path += (path.hasSuffix("/") ? "" : "/") + part
      }
    }
    return path
  }
}
