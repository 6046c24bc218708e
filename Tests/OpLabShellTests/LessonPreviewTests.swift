import Foundation
import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// `oplab lesson preview`: every page of a lesson as a student sees it, with each
/// `else:` message filled in for a typical wrong attempt (#35).
@Suite struct LessonPreviewTests {
  static func preview(width: Int) throws -> String {
    let url = LessonCheckerTests.fixtures.appendingPathComponent("preview.lesson")
    let lesson = try LessonParser.parse(String(contentsOf: url, encoding: .utf8), file: "preview.lesson")
    var options = ShellOptions()
    options.width = width
    return LessonPreview.render(lesson, options: options)
  }

  /// Re-record after an intended change with
  /// `RECORD_SNAPSHOTS=1 swift test --skip-build --filter LessonPreviewTests`, then review
  /// `git diff Tests/OpLabShellTests/Snapshots/lesson-preview-80.txt`.
  @Test("The preview of a fixture lesson at 80 columns is its golden output")
  func golden() throws {
    assertSnapshot(try Self.preview(width: 80), named: "lesson-preview-80")
  }

  @Test("The preview shows every page to the end, each message filled, each wrong choice's feedback, and fits the width")
  func content() throws {
    for width in [80, 60] {
      let out = try Self.preview(width: width)
      let flat = out.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
      for line in out.split(separator: "\n") { #expect(line.count <= width, "\(width): \(line)") }
      // Both checks' messages, filled in from the world `run` leaves (keep is not cancelled: it holds).
      #expect(flat.contains("check: skipped spare else: spare was not skipped: it started t=10. Cancel it before it starts."))
      #expect(flat.contains("check: not cancelled keep (holds after `run`)"))
      #expect(!out.contains("{"), "no placeholder left")
      // The first wrong choice is picked: its feedback, then the second case, also answered wrong.
      #expect(flat.contains("your prediction> a oplab> run"))
      #expect(flat.contains("✗ You predicted 0; the simulation shows 3. 0 is believing"))
      #expect(flat.contains("0 is believing a dependency is only a preference: the filter waited for the download, which finished t=3."))
      #expect(flat.contains("You predicted never; the simulation shows at once. A finished dependency does not block"))
      // A typed answer is skipped; the task gets every hint, the wrong attempt, restart and a solution.
      #expect(flat.contains("your prediction> skip"))
      #expect(flat.contains("task> hint hint 1/2:"))
      #expect(flat.contains("task> run"))
      #expect(flat.contains("task> restart The world is back as the task found it"))
      #expect(flat.contains("task> skip One solution:"))
      #expect(flat.contains("✓ Task done."))
      #expect(flat.contains("✓ Lesson 0 complete."))
      #expect(!out.contains("state folder"), "no word about keeping a place")
    }
  }
}
