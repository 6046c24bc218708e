import Foundation

/// The interactive session's journal, so that after a crash, `kill -9` or a closed terminal
/// `oplab --recover` restores the world.
///
/// Each live session writes its own file in `$XDG_STATE_HOME/oplab/sessions/` (else
/// `~/.local/state/oplab/sessions/`), `session-SECONDS-PID-UNIQUE.journal`, and holds an
/// exclusive `flock` on it for as long as it runs. A journal whose lock can be taken is
/// therefore a leftover: its session ended without quitting (the kernel drops the lock of
/// a process that dies, however it dies). Two labs at once never touch each other's file.
/// A clean exit deletes the session's own journal. Files are 0600, folders 0700.
///
/// What is journalled is what happened, not what was typed (``Interpreter/takeJournal()``):
/// lines are appended with `O_APPEND` as each command ends, so a crash right after loses nothing.
public final class SessionJournal {
  /// The folder of journals; `nil` when there is no usable state folder (no recovery).
  public let directory: String?
  /// This session's journal, once it has written one.
  public private(set) var path: String?
  /// This session's journal, open and locked (-1 until the first line).
  private var fd: Int32 = -1
  /// Why journalling stopped working, said once (see ``takeWarning()``).
  private var warning: String?
  private var warned = false
  /// Set at the first failure: a journal with a hole in it would recover another world,
  /// so after one, nothing more is journalled (and the learner is told).
  private var disabled = false
  /// Lines every journal of this session starts with (`platform linux` for a lab started
  /// with `--platform linux`), so that a recovery rebuilds the same kind of world.
  public var preamble: [String] = []
  /// A leftover this lab is restoring, locked so that no other lab restores it too.
  private var claimed: (path: String, fd: Int32)?

  /// A journal left by a session that ended without quitting.
  public struct Leftover: Equatable, Sendable {
    /// The file.
    public var path: String
    /// Its lines, in order.
    public var lines: [String]
    /// When its last line was written (seconds since 1970).
    public var modified: Int
  }

  /// The folder of journals for `environment`: under `XDG_STATE_HOME` when that is an
  /// absolute path, else under an absolute `HOME`; `nil` when neither is (the XDG base
  /// directory spec says a relative path is invalid and must be ignored).
  public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/oplab/sessions" }
    if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/oplab/sessions" }
    return nil
  }

  /// A journal in `directory`; nothing is written until the first line.
  public init(directory: String?) {
    self.directory = directory
    if directory == nil {
      warning = "crash recovery is off: there is no state folder (set HOME or XDG_STATE_HOME to an absolute path)"
    }
  }

  deinit {
    if fd >= 0 { close(fd) }
    if let claimed { close(claimed.fd) }
  }

  /// Makes the journal's folder now, so that a state folder that cannot be used is said
  /// at the start (``takeWarning()``), not after the first command.
  public func prepare() {
    guard let directory, !disabled else { return }
    if let failure = HistoryFile.createParentDirectory(of: directory + "/x") { fail(Self.folderFailure(failure)) }
  }

  /// "crash recovery is off: cannot make the folder X (reason)".
  private static func folderFailure(_ failure: HistoryFile.Failure) -> String {
    switch failure {
    case .cannotCreateDirectory(let path, let reason): "crash recovery is off: cannot make the folder \(path) (\(reason.lowercased()))"
    default: "crash recovery is off: \(failure)"
    }
  }

  // MARK: - This session

  /// Appends `lines` (the journal lines of one command).
  public func append(_ lines: [String]) {
    let kept = lines.filter { !$0.contains("\n") }
    guard !kept.isEmpty, !disabled else { return }
    if fd < 0 { create(with: preamble + kept) } else { write(kept) }
  }

  /// Starts this session's journal with `lines` (a recovered session, replayed), in one
  /// write to a file that becomes visible whole: stopped half-way, nothing is lost.
  public func start(with lines: [String]) {
    if fd >= 0 { finish() }
    let kept = lines.filter { !$0.contains("\n") }
    if !kept.isEmpty, !disabled { create(with: kept) }
  }

  /// A clean exit: nothing to recover.
  public func finish() {
    if let path { unlink(path) }
    if fd >= 0 { close(fd) }
    fd = -1
    path = nil
  }

  /// Why journalling does not work, once: the first time it is asked after it failed.
  public func takeWarning() -> String? {
    guard let warning, !warned else { return nil }
    warned = true
    return warning
  }

  /// Creates the journal under a hidden name, locks it, writes `lines`, then renames it
  /// into place: another lab starting meanwhile never sees it unlocked, or half-written.
  private func create(with lines: [String]) {
    guard let directory else { return }
    if let failure = HistoryFile.createParentDirectory(of: directory + "/x") {
      return fail(Self.folderFailure(failure))
    }
    chmod(directory, 0o700)
    // mkstemp's unique part stays in the final name: two journals of one process (a
    // recovery right after a start) never share a name, whatever the clock says.
    let base = "\(directory)/session-\(Int(time(nil)))-\(getpid())-XXXXXX"
    var template = Array("\(base).tmp".utf8CString)
    let opened = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemps($0, 4) } ?? -1 }
    guard opened >= 0 else { return fail("crash recovery is off: cannot create a journal in \(directory): \(HistoryFile.describe(errno))") }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    fchmod(opened, 0o600)
    _ = fcntl(opened, F_SETFD, FD_CLOEXEC)  // a pager the lab starts must not hold its lock
    _ = flock(opened, LOCK_EX)
    fd = opened
    let target = String(temporary.dropLast(4)) + ".journal"
    guard write(lines), rename(temporary, target) == 0 else {
      let reason = HistoryFile.describe(errno)
      unlink(temporary)
      close(opened)
      fd = -1
      return fail("crash recovery is off: cannot write a journal in \(directory) (\(reason.lowercased()))")
    }
    path = target
  }

  /// Writes `lines` whole, or not at all: a write cut short (a full disk) is cut back to
  /// the last whole line, and journalling stops there (said once), so the journal never
  /// holds half a command or a hole. `false` on an error.
  @discardableResult
  private func write(_ lines: [String]) -> Bool {
    let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
    let before = lseek(fd, 0, SEEK_END)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress.map { $0 + done }, $0.count - done) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else {
        let reason = HistoryFile.describe(n < 0 ? errno : ENOSPC).lowercased()
        if before >= 0 { _ = ftruncate(fd, before) }
        if path != nil {
          fail("crash recovery stops here: the journal cannot be written (\(reason)); what you did before this command can still be recovered")
        }
        return false
      }
      done += n
    }
    return true
  }

  private func fail(_ why: String) {
    disabled = true
    if warning == nil { warning = why }
  }

  /// Locks `leftover` for this lab's recovery; `false` when another lab is restoring it.
  public func claim(_ leftover: Leftover) -> Bool {
    let fd = open(leftover.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return false }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      close(fd)
      return false
    }
    if let claimed { close(claimed.fd) }
    claimed = (leftover.path, fd)
    return true
  }

  // MARK: - Leftovers

  /// The journals of sessions that ended without quitting, the most recent first. A
  /// journal still locked belongs to a lab running now and is left alone; an empty
  /// leftover is deleted. Journals of earlier versions (`oplab/session.journal`,
  /// `oplab/session.recovered`) count too.
  public func leftovers() -> [Leftover] {
    guard let directory else { return [] }
    var found: [Leftover] = []
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    // A journal being created is hidden as .tmp under its creator's lock; one whose lock
    // can be taken was left by a lab that died creating it, and holds nothing to recover.
    for name in names where name.hasPrefix("session-") && name.hasSuffix(".tmp") {
      let fd = open(directory + "/" + name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      guard fd >= 0 else { continue }
      if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(directory + "/" + name) }
      close(fd)
    }
    var candidates = names.filter { $0.hasPrefix("session-") && $0.hasSuffix(".journal") }.map { directory + "/" + $0 }
    let parent = (directory as NSString).deletingLastPathComponent
    candidates += ["\(parent)/session.journal", "\(parent)/session.recovered"]
    for candidate in candidates where candidate != path {
      if let leftover = Self.unlocked(candidate) { found.append(leftover) }
    }
    return found.sorted { ($0.modified, $0.path) > ($1.modified, $1.path) }
  }

  /// Forgets a leftover once it has been restored (and journalled anew).
  public func discard(_ leftover: Leftover) {
    unlink(leftover.path)
    if let claimed, claimed.path == leftover.path {
      close(claimed.fd)
      self.claimed = nil
    }
  }

  /// The leftover at `path`, if no running lab holds its lock and it has lines.
  private static func unlocked(_ path: String) -> Leftover? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }  // a live session's
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { break }
      bytes += chunk[..<n]
    }
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    guard !lines.isEmpty else {
      unlink(path)
      return nil
    }
    return Leftover(path: path, lines: lines, modified: Int(info.st_mtim.tv_sec))
  }
}
