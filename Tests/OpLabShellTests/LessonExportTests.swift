import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// Every lesson's world as Swift: the world each lesson ends in, exported with `export swift`,
/// type-checks in Swift 6 mode without a warning (#21). Some of them also run on the real
/// queue in OpLabDifferentialTests.
@Suite struct LessonExportTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Lessons")

  static var lessonFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".lesson") }.sorted()
  }

  @Test("There are lessons to export")
  func lessonsFound() { #expect(Self.lessonFiles.count >= 12) }

  @Test("Each lesson's final world exports as a main.swift that type-checks, warning-free", arguments: lessonFiles)
  func exportCompiles(file: String) throws {
    let path = Self.folder.appendingPathComponent(file).path
    let lesson = try LessonParser.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    let lab = lesson.solved()
    let queued = lab.world.operationsByQueue().queued
    #expect(queued.contains { !$0.isEmpty }, "\(file) ends with no operations")
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let reply = lab.execute("export swift \(dir.path)/main.swift")
    #expect(reply.error == nil, "\(reply.error?.message ?? "")")
    let result = try Swiftc.run(["-typecheck", "main.swift"], in: dir)
    #expect(result.status == 0 && !result.said.contains("warning:"), "\(file): \(result.said)")
  }
}
