import Foundation
import Testing

@testable import OpLabShell

/// What an adversarial review of the crash journal and the line reader found: each case
/// failed before its fix.
@Suite(.timeLimit(.minutes(2))) struct ReviewRegressionTests {
  func folder() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("oplab-review-\(UUID().uuidString)/oplab/sessions").path
  }

  func items(_ chunks: [[UInt8]]) -> [DescriptorLines.Item] { pipedItems(chunks) }

  @Test("A too-long line ending in a CR that is the last byte read ends there: the next line is read, and CRLF is not counted in its length")
  func longLineEndingInCarriageReturn() {
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 70_000)
    let start = String(repeating: "a", count: 24)
    #expect(items([long + [13], Array("op b\r".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
    #expect(items([long + [13], Array("\nop b\r\n".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
    #expect(items([long + Array("\r\nop b\n".utf8)]) == [.tooLong(start: start, bytes: 70_000), .line("op b")])
  }

  @Test("After one failure the journal stays off: a journal begun later would hold a world with a hole in it")
  func journalStaysOffAfterAFailure() throws {
    let dir = folder()
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
    let journal = SessionJournal(directory: folder())
    journal.preamble = ["platform linux"]
    journal.append(["op a"])
    journal.append(["step 1"])
    let path = try #require(journal.path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "platform linux\nop a\nstep 1\n")
  }

  @Test("A leftover one lab is restoring cannot be claimed by another")
  func claimOnce() throws {
    let dir = folder()
    var dead: SessionJournal? = SessionJournal(directory: dir)
    dead?.append(["op a"])
    dead = nil
    let first = SessionJournal(directory: dir), second = SessionJournal(directory: dir)
    let leftover = try #require(first.leftovers().first)
    #expect(first.claim(leftover))
    #expect(!second.claim(leftover))
    #expect(second.leftovers().isEmpty)
  }

  @Test("why names an operation held behind a running barrier as held there, skipped or started when the block returns, not as waiting for a resume")
  func heldBehindBarrierWhy() {
    var options = ShellOptions()
    options.width = 300
    let i = Interpreter(options: options)
    for line in ["queue q max 2", "op a on q takes 1", "barrier q takes 3", "step 1", "op b on q takes 2", "op c on q takes 1", "suspend q", "cancel b", "step 1"] {
      _ = i.execute(line)
    }
    #expect(i.execute("why b").output.hasSuffix(
      "Now: b holds a slot of q, dispatched behind the barrier block running there: it is skipped when the block returns, suspended or not.\n"))
    // c found no slot when it was added: it waits in the queue, which the suspension holds.
    #expect(i.execute("why c").output.hasSuffix("Now: c is ready, but q is suspended: resume it.\n"))
    _ = i.execute("run")
    let b = i.world.operationID(named: "b").map { i.world.history(of: $0) }
    #expect(b.flatMap { $0.started }.map { i.world.trace[$0].kind == .skipped && i.world.trace[$0].tick == 4 } == true)
  }
}
