import Foundation
import Testing

@testable import OpLabShell

/// On a terminal, a lesson page taller than the screen goes through the pager, and a
/// paragraph about "the timeline above" has the timeline on screen (#18).
@Suite struct LessonPagingTests {
  static let lesson = """
    title: Pages

    run:
      op a takes 3
      op b takes 2 after a
      run
      timeline

    First paragraph after the drawing, long enough to take a line or two at the width of this test.

    Second paragraph, also long enough to take a line or two at the width of this test.

    Third paragraph, which pushes the drawing further up and off a small screen.

    In the timeline above, b starts when a finishes.

    ---

    A short page.
    """

  /// Runs `lesson` on a screen of `rows` rows, typing `inputs`, through a pager that
  /// shows each page it is given, or fails with `failure`.
  func play(_ lesson: Lesson, _ inputs: [String], rows: Int?, failure: String? = nil) -> (shown: String, paged: [String]) {
    var lines = inputs[...]
    var shown = ""
    var paged: [String] = []
    let runner = LessonRunner(
      lesson: lesson, reader: StdinLineReader { lines.popFirst() }, options: ShellOptions(), progress: ProgressStore(path: nil)
    ) { shown += $0 }
    runner.screenRows = rows
    runner.showPage = {
      paged.append($0)
      return failure
    }
    runner.run()
    return (shown, paged)
  }

  /// Runs the lesson with Enter at every pause on a screen of `rows` rows, through a pager
  /// that shows each page, or fails with `failure`.
  func walk(rows: Int?, failure: String? = nil) throws -> (shown: String, paged: [String]) {
    play(try LessonParser.parse(Self.lesson, file: "pages.lesson"), ["", "", ""], rows: rows, failure: failure)
  }

  @Test("A page taller than the screen goes whole to the pager; a short one is printed; the drawing is repeated where the text points at it")
  func tallPageIsPaged() throws {
    let (shown, paged) = try walk(rows: 16)
    #expect(paged.count == 1)
    let page = try #require(paged.first)
    // The page is the title and controls, then the narrative and commands up to the pause,
    // in order, and nothing after it: the pager shows the title at its top, never scrolled
    // off above it.
    #expect(page.hasPrefix("━━ Lesson "), "\(page)")
    #expect(page.contains("━━\n(Enter or `next` goes on"), "\(page)")
    #expect(!shown.contains("━━ Lesson "), "the title was printed above the pager: \(shown)")
    #expect(page.contains("\n  oplab> op a takes 3\n"), "\(page)")
    #expect(page.contains("\nIn the timeline above, b starts when a finishes.\n"), "\(page)")
    #expect(!page.contains("A short page."))
    #expect(!shown.contains("oplab> op a takes 3"))
    #expect(shown.contains("A short page.\n"))
    // By the paragraph, the drawing had scrolled out of a 16-row screen: it is shown again just before it.
    let again = try #require(page.range(of: "(The timeline again, as it has scrolled out of sight:)\n"))
    let drawing = try #require(page.range(of: "    t=0-5, now t=5\n"))
    #expect(drawing.lowerBound < again.lowerBound)
    let rest = page[again.upperBound...]
    #expect(rest.hasPrefix("    t=0-5, now t=5\n    tick     0    5\n"), "\(rest)")
    #expect(rest.contains("In the timeline above"))
  }

  @Test("A page the pager could not show is printed whole, with the pager's line saying why after it")
  func pagerFailure() throws {
    let note = "(the pager `false` failed: exit 1; printed above)"
    let (shown, paged) = try walk(rows: 16, failure: note)
    let page = try #require(paged.first)
    #expect(shown.contains(page + note + "\n"), "\(shown)")
    #expect(shown.contains("A short page.\n"))
  }

  @Test("On a tall screen nothing is paged or repeated; piped (no screen), neither")
  func tallScreenAndPipes() throws {
    for rows in [200, nil] as [Int?] {
      let (shown, paged) = try walk(rows: rows)
      #expect(paged.isEmpty)
      #expect(!shown.contains("The timeline again"))
      #expect(shown.contains("In the timeline above, b starts when a finishes."))
    }
  }

  @Test(
    "A prediction's answer is a page like any other: its reveal, verdict and explanation go whole to the pager when taller than the screen, from the first revealed line to the next prompt"
  )
  func revealIsPaged() throws {
    let text = """
      title: Reveal

      run:
        queue q max 1
        op a on q takes 2
        op b on q takes 2
        op c on q takes 2

      predict: Which finishes last?
        choice: a
          feedback: a was added first, and a serial queue runs in that order.
        choice: c
        answer: c
        reveal: run
        reveal: timeline
        verify: finished c at 6
        explain: One at a time, in the order they were added.

      After the answer.

      ---

      The end.
      """
    let lesson = try LessonParser.parse(text, file: "reveal.lesson")
    let (shown, paged) = play(lesson, ["", "a", ""], rows: 12)
    let answer = try #require(paged.first { $0.contains("oplab> run") }, "\(paged)")
    #expect(answer.hasPrefix("  oplab> run\n"), "\(answer)")
    #expect(answer.contains("✗ You predicted a; the simulation shows c.\n"), "\(answer)")
    #expect(answer.contains("One at a time, in the order they were added.\n"))
    #expect(answer.hasSuffix("One at a time, in the order they were added.\n\n"), "\(answer)")
    // What follows the answer is a page of its own (short here: printed).
    #expect(!paged.contains { $0.contains("After the answer.") }, "\(paged)")
    #expect(shown.contains("After the answer.\n"))
    #expect(!shown.contains("oplab> run"), "the reveal was printed besides: \(shown)")
    #expect(shown.contains("The end.\n"))
    // On a screen tall enough, the same answer is printed, not paged.
    let tall = play(lesson, ["", "a", ""], rows: 200)
    #expect(tall.paged.isEmpty)
    #expect(tall.shown.contains("  oplab> run\n") && tall.shown.contains("✗ You predicted a; the simulation shows c.\n"))
  }

  @Test("A long view typed at a lesson's prompt (help) goes through the pager, as at the lab's prompt; a short one is printed")
  func longViewAtThePromptIsPaged() throws {
    let lesson = try LessonParser.parse(Self.lesson, file: "pages.lesson")
    let (shown, paged) = play(lesson, ["help", "why b", "", "", ""], rows: 16)
    let help = try #require(paged.first { !$0.contains("━━ Lesson") }, "only the first page was paged: \(paged)")
    #expect(help.contains("timeline"), "\(help)")
    #expect(!shown.contains(help), "help was printed besides the pager")
    #expect(shown.contains("b was created at t=0."), "a short view is printed: \(shown)")
    #expect(!paged.contains { $0.contains("b was created at t=0.") })
  }
}
