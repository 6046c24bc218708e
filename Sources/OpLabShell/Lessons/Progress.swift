import Foundation

/// Which lessons a learner has done, kept in `$XDG_STATE_HOME/oplab/progress`.
///
/// One line per lesson: `id<TAB>status<TAB>position`. Written atomically; a file that
/// cannot be read is moved aside (never lost) and a fresh one started.
public struct ProgressStore: Sendable {
  /// Where a lesson stands.
  public enum Status: String, Sendable {
    case new, started, done
  }

  /// The file.
  public var path: String?
  /// Per lesson id: status and the item to resume at.
  public var entries: [String: (status: Status, position: Int)] = [:]
  /// A problem met while loading, to show as a warning.
  public var warning: String?

  /// The default path: `$XDG_STATE_HOME/oplab/progress`, else `~/.local/state/oplab/progress`.
  public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/oplab/progress" }
    if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/oplab/progress" }
    return nil
  }

  /// Loads the progress file (a missing file is an empty record).
  public init(path: String?) {
    self.path = path
    guard let path, let data = FileManager.default.contents(atPath: path) else { return }
    let text = String(decoding: data, as: UTF8.self)
    var parsed: [String: (Status, Int)] = [:]
    for line in text.split(separator: "\n") where !line.isEmpty {
      let fields = line.split(separator: "\t").map(String.init)
      guard fields.count == 3, let status = Status(rawValue: fields[1]), let position = Int(fields[2]), position >= 0 else {
        switch HistoryFile.moveAside(path) {
        case .success(let aside):
          warning = "the progress file could not be read; it was moved to \(aside) and a fresh one started"
        case .failure(let failure):
          // Not moved: saving would destroy it, so this session keeps progress in memory only.
          self.path = nil
          warning = "the progress file \(path) could not be read, nor moved aside (\(failure)); progress will not be saved"
        }
        return
      }
      parsed[fields[0]] = (status, position)
    }
    entries = parsed.mapValues { (status: $0.0, position: $0.1) }
  }

  /// The status of a lesson.
  public func status(of id: String) -> Status { entries[id]?.status ?? .new }

  /// Records a lesson's status and position, and saves.
  /// - Returns: a warning when the file could not be written.
  @discardableResult
  public mutating func record(_ id: String, _ status: Status, position: Int) -> String? {
    if entries[id]?.status == .done, status != .done {
      entries[id] = (.done, position)
    } else {
      entries[id] = (status, position)
    }
    return save()
  }

  // MARK: - The learner's world in a lesson

  /// Where a lesson's world is kept while the lesson is under way: the commands that made
  /// it (the learner's own among the lesson's), beside the progress file, in
  /// `lessons/ID.oplab`. Resuming replays them, so the learner finds their own world.
  func worldPath(_ id: String) -> String? {
    guard let path else { return nil }
    let safe = id.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    return ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("lessons/\(safe.isEmpty ? "lesson" : safe).oplab")
  }

  /// Keeps the commands that made the lesson's world at `position` (atomically).
  /// - Returns: a warning when the file could not be written.
  @discardableResult
  func saveWorld(_ id: String, commands: [String], position: Int, fingerprint: String, lessonsOwn: Int) -> String? {
    guard let file = worldPath(id) else { return nil }
    let text =
      "# oplab lesson \(id) at position \(position) of \(fingerprint)\n# the lesson's own: \(lessonsOwn)\n"
      + commands.map { $0 + "\n" }.joined()
    do throws(FileError) {
      try FileIO.makeFolders(FileIO.folder(of: file))
      try FileIO.writeAtomically(to: file, privateMode: true) { $0.write(text) }
      return nil
    } catch {
      return "could not keep the lesson's world: \(error.message)"
    }
  }

  /// What was kept of a lesson's world.
  enum KeptWorld: Equatable {
    /// Nothing (or something kept at another place of the lesson).
    case none
    /// The commands, kept at this place of this very lesson, and how many of the first
    /// were the lesson's own (the learner's `undo` stops there).
    case kept([String], lessonsOwn: Int)
    /// The lesson file has changed since: its places may mean other steps now.
    case lessonChanged
  }

  /// The commands kept for `id` at `position` of the lesson whose text has `fingerprint`.
  func loadWorld(_ id: String, position: Int, fingerprint: String) -> KeptWorld {
    guard let file = worldPath(id), let data = FileManager.default.contents(atPath: file) else { return .none }
    var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let prefix = "# oplab lesson \(id) at position \(position) of "
    guard let header = lines.first, header.hasPrefix(prefix) else { return .none }
    guard header == prefix + fingerprint else { return .lessonChanged }
    lines.removeFirst()
    var lessonsOwn = 0
    if let second = lines.first, second.hasPrefix("# the lesson's own: ") {
      lessonsOwn = Int(second.dropFirst("# the lesson's own: ".count)) ?? 0
      lines.removeFirst()
    }
    if lines.last == "" { lines.removeLast() }
    return .kept(lines, lessonsOwn: lessonsOwn)
  }

  /// A short fingerprint of a lesson's text (FNV-1a, 64 bits), to tell an edited lesson.
  static func fingerprint(of text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
  }

  /// Forgets a lesson's kept world (the lesson is done).
  func removeWorld(_ id: String) {
    if let file = worldPath(id) { try? FileManager.default.removeItem(atPath: file) }
  }

  func save() -> String? {
    guard let path else { return nil }
    let text = entries.sorted { $0.key < $1.key }.map { id, e in "\(id)\t\(e.status.rawValue)\t\(e.position)\n" }.joined()
    do throws(FileError) {
      try FileIO.makeFolders(FileIO.folder(of: path))
      try FileIO.writeAtomically(to: path, privateMode: true) { $0.write(text) }
      return nil
    } catch {
      return "could not save progress: \(error.message)"
    }
  }
}
