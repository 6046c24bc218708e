import Foundation
import Testing

@testable import OpLabShell

/// The crash journal: one locked file per live session, what happened rather than what was
/// typed, private files, and leftovers found only when no lab holds them.
@Suite(.timeLimit(.minutes(2))) struct SessionJournalTests {
  func folder() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-journal-\(UUID().uuidString)")
    return dir.appendingPathComponent("oplab/sessions").path
  }

  @Test("A journal is written at the first line, 0600 in a 0700 folder, and a clean exit deletes it")
  func lifecycle() throws {
    let dir = try folder()
    let journal = SessionJournal(directory: dir)
    #expect(journal.path == nil)
    journal.append([])
    #expect(journal.path == nil)  // nothing to keep, nothing written
    journal.append(["op a takes 3"])
    journal.append(["step 1", "run until 4"])
    let path = try #require(journal.path)
    #expect(path.hasPrefix(dir + "/session-") && path.contains("-\(getpid())-") && path.hasSuffix(".journal"))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "op a takes 3\nstep 1\nrun until 4\n")
    #expect(fileMode(path) == 0o600 && fileMode(dir) == 0o700)
    journal.finish()
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
  }

  @Test("Two sessions at once: neither sees the other's live journal as a leftover; once one dies, it is one, whole")
  func twoSessions() throws {
    let dir = try folder()
    var first: SessionJournal? = SessionJournal(directory: dir)
    first?.append(["op a takes 3", "step 1"])
    let second = SessionJournal(directory: dir)
    second.append(["op b"])
    #expect(second.leftovers().isEmpty)
    #expect(SessionJournal(directory: dir).leftovers().isEmpty)
    // The first lab dies without quitting: its lock goes with it, its file stays.
    let path = try #require(first?.path)
    first = nil
    let found = second.leftovers()
    #expect(found.map(\.path) == [path])
    #expect(found.first?.lines == ["op a takes 3", "step 1"])
    // The second lab quits: its own journal goes, the first's stays for --recover.
    second.finish()
    #expect(SessionJournal(directory: dir).leftovers().map(\.lines) == [["op a takes 3", "step 1"]])
  }

  @Test("A recovered session starts a new journal whole and 0600; the leftover is discarded only then")
  func recovery() throws {
    let dir = try folder()
    var dead: SessionJournal? = SessionJournal(directory: dir)
    dead?.append(["op a takes 3", "run until 2"])
    dead = nil
    let next = SessionJournal(directory: dir)
    let leftover = try #require(next.leftovers().first)
    next.start(with: leftover.lines)
    next.discard(leftover)
    let path = try #require(next.path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "op a takes 3\nrun until 2\n")
    #expect(fileMode(path) == 0o600)
    #expect(!FileManager.default.fileExists(atPath: leftover.path))
    #expect(SessionJournal(directory: dir).leftovers().isEmpty)  // the recovering lab is alive
  }

  @Test("Journals of earlier versions count as leftovers; an empty leftover is deleted; several come newest first")
  func olderAndEmpty() throws {
    let dir = try folder()
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let parent = (dir as NSString).deletingLastPathComponent
    try "op old\n".write(toFile: parent + "/session.journal", atomically: true, encoding: .utf8)
    try "".write(toFile: dir + "/session-1-1.journal", atomically: true, encoding: .utf8)
    try "op newer\n".write(toFile: dir + "/session-2-2.journal", atomically: true, encoding: .utf8)
    let old = Date(timeIntervalSince1970: 1_000_000)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: parent + "/session.journal")
    let found = SessionJournal(directory: dir).leftovers()
    #expect(found.map(\.lines) == [["op newer"], ["op old"]])
    #expect(!FileManager.default.fileExists(atPath: dir + "/session-1-1.journal"))
  }

  @Test(
    "The state folder is XDG_STATE_HOME or HOME only when absolute, as the XDG spec says",
    arguments: [
      (["XDG_STATE_HOME": "/s", "HOME": "/h"], "/s/oplab/sessions"),
      (["XDG_STATE_HOME": "relative/state", "HOME": "/h"], "/h/.local/state/oplab/sessions"),
      (["XDG_STATE_HOME": "", "HOME": "/h"], "/h/.local/state/oplab/sessions"),
      (["HOME": "relative"], nil),
      ([:], nil),
    ] as [([String: String], String?)])
  func stateFolder(environment: [String: String], expected: String?) {
    #expect(SessionJournal.defaultDirectory(environment: environment) == expected)
  }

  @Test("Without a usable state folder, journalling is off and the lab says so once")
  func warnsOnce() throws {
    let none = SessionJournal(directory: nil)
    #expect(none.takeWarning() == "crash recovery is off: there is no state folder (set HOME or XDG_STATE_HOME to an absolute path)")
    #expect(none.takeWarning() == nil)
    // A folder that cannot be made: a file is in the way.
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-journal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    try "".write(toFile: base + "/oplab", atomically: true, encoding: .utf8)
    let blocked = SessionJournal(directory: base + "/oplab/sessions")
    #expect(blocked.takeWarning() == nil)  // nothing tried yet
    blocked.append(["op a"])
    blocked.append(["op b"])
    #expect(blocked.path == nil)
    let warning = try #require(blocked.takeWarning())
    #expect(warning == "crash recovery is off: cannot make the folder \(base)/oplab (not a directory)")
    #expect(blocked.takeWarning() == nil)
  }

  // MARK: - What is journalled

  func journalling() -> Interpreter {
    let i = Interpreter()
    i.keepsJournal = true
    return i
  }

  @Test("The journal keeps what happened: commands as save writes them, time travel as typed, views not at all")
  func whatHappened() throws {
    let i = journalling()
    for line in [
      "queue  q   max 1", "op a on q takes 3", "status", "step 2", "op bogus takes x", "back 1", "fork", "step 1", "unfork", "undo",
      "export events /nonexistent/x",
    ] {
      _ = i.execute(line)
    }
    #expect(i.takeJournal() == ["queue q max 1", "op a on q takes 3", "step 2", "back 1", "fork", "step 1", "unfork", "undo"])
    #expect(i.takeJournal().isEmpty)
    // Replayed, the journal gives the same world.
    let again = Interpreter()
    for line in ["queue q max 1", "op a on q takes 3", "step 2", "back 1", "fork", "step 1", "unfork", "undo"] {
      #expect(again.execute(line).error == nil, "\(line)")
    }
    #expect(again.world.trace == i.world.trace && again.script.map(\.text) == i.script.map(\.text))
  }

  @Test("A run stopped by Ctrl-C is journalled as a run to the tick it reached, not as the run typed")
  func interruptedRun() throws {
    let i = journalling()
    _ = i.execute("queue q max 1")
    for n in 0..<3_000 { _ = i.execute("op o\(n) on q takes 1") }
    _ = i.takeJournal()
    _ = i.execute("run", interrupt: { true })
    let t = i.world.now
    #expect(t > 0 && t < 3_000)
    #expect(i.takeJournal() == ["run until \(t)"])
  }

  @Test("A sourced file is journalled as its lines that ran: all of them, or those before Ctrl-C or an error")
  func sourcedLines() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-journal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("s.oplab").path
    try "op a takes 1\nhelp\nop b   takes 1\nstep 1\nop c takes oops\nop d\n".write(toFile: file, atomically: true, encoding: .utf8)
    let whole = journalling()
    let failed = whole.execute("source \(file)")
    #expect(failed.error != nil)
    #expect(whole.takeJournal() == ["op a takes 1", "op b takes 1", "step 1"])
    let stopped = journalling()
    var asked = 0
    _ = stopped.execute(
      "source \(file)",
      interrupt: {
        asked += 1; return asked > 3
      })
    #expect(stopped.takeJournal() == ["op a takes 1", "op b takes 1"])
  }

  @Test("A hidden journal left by a lab that died while creating it is removed; one being created is not")
  func orphanedTemporary() throws {
    let dir = try folder()
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try "op a\n".write(toFile: dir + "/session-1-1-abcdef.tmp", atomically: true, encoding: .utf8)
    let held = dir + "/session-2-2-ghijkl.tmp"
    try "op b\n".write(toFile: held, atomically: true, encoding: .utf8)
    let fd = open(held, O_RDONLY)
    defer { close(fd) }
    #expect(flock(fd, LOCK_EX) == 0)  // its creator is alive
    #expect(SessionJournal(directory: dir).leftovers().isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["session-2-2-ghijkl.tmp"])
  }

  @Test("An interpreter that keeps no journal (batch runs, lessons) gives none")
  func noJournal() {
    let i = Interpreter()
    _ = i.execute("op a takes 1")
    #expect(i.takeJournal().isEmpty)
  }
}

/// The crash journal when its folder or its disk fails, and when two labs find one leftover.
extension SessionJournalTests {
  @Test("After one failure the journal stays off: a journal begun later would hold a world with a hole in it")
  func journalStaysOffAfterAFailure() throws {
    let dir = try folder()
    let parent = (dir as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: (parent as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try "in the way".write(toFile: parent, atomically: true, encoding: .utf8)  // oplab is a file
    let journal = SessionJournal(directory: dir)
    journal.append(["op a"])
    #expect(journal.path == nil)
    try FileManager.default.removeItem(atPath: parent)  // the way is clear now
    journal.append(["op b"])
    #expect(journal.path == nil)
    #expect(SessionJournal(directory: dir).leftovers().isEmpty)
    let warning = try #require(journal.takeWarning())
    #expect(warning.hasPrefix("crash recovery is off: cannot make the folder \(parent) (not a directory)"), "\(warning)")
  }

  @Test("A write cut short by a full disk is cut back to the last whole line, and journalling stops there", .enabled(if: geteuid() == 0))
  func fullDisk() throws {
    let mount = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-full-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
    defer {
      _ = umount(mount)
      try? FileManager.default.removeItem(atPath: mount)
    }
    #expect(Foundation.mount("tmpfs", mount, "tmpfs", 0, "size=16k") == 0, "tmpfs: \(String(cString: strerror(errno)))")
    let journal = SessionJournal(directory: mount + "/sessions")
    var written = 0
    for n in 0..<2_000 {
      journal.append(["op o\(n) takes \(n) priority high qos userInitiated"])
      if journal.takeWarning() != nil { break }
      written += 1
    }
    #expect(written > 10 && written < 2_000)
    let text = try String(contentsOfFile: try #require(journal.path), encoding: .utf8)
    let lines = text.split(separator: "\n")
    #expect(text.hasSuffix("\n") && lines.count == written)
    #expect(lines.last == "op o\(written - 1) takes \(written - 1) priority high qos userInitiated")
    journal.append(["op after"])
    #expect(try String(contentsOfFile: try #require(journal.path), encoding: .utf8) == text)
  }

  @Test("A lab started with --platform linux journals it first, before its first command")
  func preambleAndCloseOnExec() throws {
    let journal = SessionJournal(directory: try folder())
    journal.preamble = ["platform linux"]
    journal.append(["op a"])
    journal.append(["step 1"])
    let path = try #require(journal.path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "platform linux\nop a\nstep 1\n")
  }

  @Test("A leftover one lab is restoring cannot be claimed by another")
  func claimOnce() throws {
    let dir = try folder()
    var dead: SessionJournal? = SessionJournal(directory: dir)
    dead?.append(["op a"])
    dead = nil
    let first = SessionJournal(directory: dir), second = SessionJournal(directory: dir)
    let leftover = try #require(first.leftovers().first)
    #expect(first.claim(leftover))
    #expect(!second.claim(leftover))
    #expect(second.leftovers().isEmpty)
  }
}
