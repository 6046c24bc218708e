import Foundation

/// The interactive session's journal: every accepted command is appended as it is entered,
/// so that after a crash, `kill -9` or a closed terminal, `oplab --recover` restores the world.
///
/// Lives in `$XDG_STATE_HOME/oplab/session.journal` (else `~/.local/state/oplab/…`). A clean
/// exit deletes it; at the next start a leftover journal is kept as `session.recovered`.
public struct SessionJournal: Sendable {
  /// The journal being written.
  public var path: String?
  /// Where a previous, unfinished session's journal is kept.
  public var recoveredPath: String? { path.map { ($0 as NSString).deletingLastPathComponent + "/session.recovered" } }

  /// The default location.
  public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/oplab/session.journal" }
    if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/oplab/session.journal" }
    return nil
  }

  /// Creates a journal at `path` (nothing is written until the first command).
  public init(path: String?) { self.path = path }

  /// Commands worth replaying: those that build the world (not exports, saves or help).
  static func worthKeeping(_ line: String) -> Bool {
    guard let first = Lexer.tokens(line).first?.text.lowercased() else { return false }
    return !["export", "save", "help", "?", "quit", "exit"].contains(first)
  }

  /// Appends one accepted command line (O_APPEND, so a crash right after loses nothing).
  public func append(_ line: String) {
    guard let path, Self.worthKeeping(line), !line.contains("\n") else { return }
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Starts the journal afresh with `lines` (a recovered session, replayed), written to a
  /// temporary file and renamed over it: a crash or a signal during the replay leaves
  /// `session.recovered` whole and no partial journal to set aside over it next time.
  public func replace(with lines: [String]) {
    guard let path else { return }
    let kept = lines.filter { Self.worthKeeping($0) && !$0.contains("\n") }
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try? FileIO.writeAtomically(kept.map { $0 + "\n" }.joined(), to: path, column: 1)
  }

  /// A clean exit: nothing to recover.
  public func finish() {
    if let path { try? FileManager.default.removeItem(atPath: path) }
  }

  /// At start: a journal left by a session that did not end cleanly is moved to
  /// `session.recovered`. Returns how many commands it holds (0: nothing to recover).
  public func setAsideLeftover() -> Int {
    guard let path, let recovered = recoveredPath, let data = FileManager.default.contents(atPath: path) else { return 0 }
    let count = String(decoding: data, as: UTF8.self).split(separator: "\n").count
    guard count > 0 else {
      try? FileManager.default.removeItem(atPath: path)
      return 0
    }
    try? FileManager.default.removeItem(atPath: recovered)
    try? FileManager.default.moveItem(atPath: path, toPath: recovered)
    return count
  }

  /// Forgets the recovered session once it has been restored (and journalled anew).
  public func consumeRecovered() {
    if let recovered = recoveredPath { try? FileManager.default.removeItem(atPath: recovered) }
  }

  /// The commands of the last unfinished session, for `--recover`.
  public func recoveredLines() -> [String] {
    guard let recovered = recoveredPath, let data = FileManager.default.contents(atPath: recovered) else { return [] }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}
