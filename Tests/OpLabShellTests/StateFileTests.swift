import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// The lab's own state files: private, never overwriting an earlier copy, and a learner
/// told "your place is kept" only when it was.
extension LessonTests {
  func stateFolder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-state-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test("Progress and a lesson's kept world are 0600, new or replacing a 0644 file an earlier version left")
  func privateStateFiles() throws {
    let dir = try stateFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    try "".write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o644)
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, _) = walk(lesson, ["quit"], progress: ProgressStore(path: path))
    #expect(out.contains("Your place is kept"))
    #expect(fileMode(path) == 0o600)
    let world = dir.appendingPathComponent("lessons/t.oplab").path
    #expect(FileManager.default.fileExists(atPath: world))
    #expect(fileMode(world) == 0o600)
  }

  @Test("A progress file that cannot be written: the learner is warned and not told the place is kept")
  func placeNotKept() throws {
    let dir = try stateFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try "a file, not a folder".write(toFile: dir.appendingPathComponent("blocker").path, atomically: true, encoding: .utf8)
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, finished) = walk(lesson, ["quit"], progress: ProgressStore(path: dir.appendingPathComponent("blocker/progress").path))
    #expect(!finished)
    #expect(!out.contains("Your place is kept"))
    #expect(
      unwrapped(out).contains("warning: could not save progress: cannot write '\(dir.path)/blocker': a part of the path is a file, not a folder"))
    #expect(out.contains("Your place could not be kept (see the warning above): `oplab lesson "))
  }

  @Test("With no state folder at all, the learner is told once, not at every pause")
  func noStateFolder() throws {
    let lesson = try LessonParser.parse(Self.sample, file: "t.lesson")
    let (out, _) = walk(lesson, ["", "a.", "skip", "quit"], progress: ProgressStore(path: nil))
    #expect(out.components(separatedBy: "there is no state folder to keep your place in").count - 1 == 1)
    #expect(!out.contains("Your place is kept"))
  }

  @Test("A corrupt progress file is moved aside under a fresh name each time: an earlier copy is never overwritten")
  func corruptCopiesNeverCollide() throws {
    let dir = try stateFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("progress").path
    for n in 1...3 {
      try "garbage \(n)\n".write(toFile: path, atomically: true, encoding: .utf8)
      let store = ProgressStore(path: path)
      #expect(store.warning == "the progress file could not be read; it was moved to \(path).corrupt-\(n) and a fresh one started")
    }
    for n in 1...3 {
      #expect(try String(contentsOfFile: "\(path).corrupt-\(n)", encoding: .utf8) == "garbage \(n)\n")
    }
  }

  @Test("The progress file's place ignores a relative HOME or XDG_STATE_HOME, as the XDG spec says")
  func progressPath() {
    #expect(ProgressStore.defaultPath(environment: ["HOME": "relative"]) == nil)
    #expect(ProgressStore.defaultPath(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]) == "/h/.local/state/oplab/progress")
    #expect(ProgressStore.defaultPath(environment: ["XDG_STATE_HOME": "/s"]) == "/s/oplab/progress")
  }
}
