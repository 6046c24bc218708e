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

/// A page taller than the screen is an error of `lesson check`, and a `quiet:` block
/// builds a world without showing it (#35).
@Suite struct LessonPageTests {
  func lesson(_ name: String) throws -> Lesson {
    let url = LessonCheckerTests.fixtures.appendingPathComponent(name + ".lesson")
    return try LessonParser.parse(String(contentsOf: url, encoding: .utf8), file: name + ".lesson")
  }

  @Test("A run: block that echoes ten operations and a status makes a page of five screens: an error at the block, offering a quiet: block")
  func tallPage() throws {
    let report = LessonChecker.check(try lesson("tall-page"), standards: true)
    #expect(!report.ok)
    #expect(
      report.failures.map(\.description) == [
        "tall-page.lesson:6:1: error: this run: block prints 75 rows at 80 columns, more than a 24-row screen, and its page needs 96 rows with the prompt under it: a learner reads it through the pager, 5 screens\n  hint: make the commands that only build the world a `quiet:` block, which shows nothing, and show what matters after it (`timeline`, `slots QUEUE`)"
      ])
    // Only the course's standards measure pages.
    #expect(LessonChecker.check(try lesson("tall-page")).ok)
  }

  @Test("A page tall with narrative alone is an error where it begins, with the ways to shorten it")
  func tallNarrative() throws {
    let paragraph = (1...30).map { "Line \($0) of a long page." }.joined(separator: "\n\n")
    let text = """
      title: Long

      \(paragraph)

      run:
        queue later max 1
        op blocker on later takes 3
        op spare on later takes 1

      task: Make sure spare never runs.
        hint: `restart` puts the world back as the task found it.
        check: skipped spare
        else: spare was not skipped.
        solution: cancel spare
        solution: run
      """
    let report = LessonChecker.check(try LessonParser.parse(text, file: "long.lesson"), standards: true)
    #expect(!report.ok)
    #expect(report.failures.map { "\($0.line): \($0.message)" }.first?.hasPrefix("3: the page that begins here needs ") == true, "\(report.failures)")
    #expect(report.failures.first?.hint?.hasPrefix("end it sooner with a `---` pause") == true)
  }

  @Test("The same world built in a quiet: block (fork and unfork included) shows nothing of it, fits the screen, and is the same world")
  func quietSetup() throws {
    let quiet = try lesson("quiet-setup")
    let report = LessonChecker.check(quiet, standards: true)
    #expect(report.ok, "\(report.failures)")
    var options = ShellOptions()
    options.width = 80
    let out = LessonPreview.render(quiet, options: options)
    for hidden in ["fork", "op p1", "enqueued on photos", "queue photos"] { #expect(!out.contains(hidden), "\(hidden)") }
    #expect(out.contains("  oplab> slots photos\n    photos: max 2, 2 slots used so far\n      slot 1: p1 t=0-now\n      slot 2: p2 t=0-now\n"))
    // The world is the one the loud block builds: ten photos on photos, none forked away.
    let loud = try lesson("tall-page").solved()
    let built = quiet.solved()
    #expect(built.world.operationNames == loud.world.operationNames)
    #expect(built.world.trace.count == loud.world.trace.count)
  }

  @Test("A quiet: command that fails is shown to the learner, and lesson check points at it")
  func quietError() throws {
    let text = """
      title: Quiet, broken

      quiet:
        queue q max 1
        op a on q after nothing
      """
    let lesson = try LessonParser.parse(text, file: "q.lesson")
    let failures = LessonChecker.check(lesson).failures
    #expect(failures.first.map { "\($0.line):\($0.column)" } == "5:19", "at `nothing`: \(failures)")
    var options = ShellOptions()
    options.width = 80
    let out = LessonPreview.render(lesson, options: options)
    #expect(out.contains("error: `op a on q after nothing`: "), "\(out)")
  }
}
