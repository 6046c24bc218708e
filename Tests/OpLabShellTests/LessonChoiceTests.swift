import Foundation
import OpLabCore
import Testing

@testable import OpLabShell

/// A multiple-choice prediction whose choices say what they claim (`means:`) and why a
/// learner would pick them (`feedback:`): `lesson check` proves that only the answer's
/// claim holds, and holds the course to a feedback for every wrong choice (#35, #29).
@Suite struct LessonChoiceTests {
  static let fixtures = LessonCheckerTests.fixtures

  func lesson(_ name: String) throws -> Lesson {
    let url = Self.fixtures.appendingPathComponent(name + ".lesson")
    return try LessonParser.parse(String(contentsOf: url, encoding: .utf8), file: name + ".lesson")
  }

  /// The failures `lesson check` reports for a fixture, as `FILE:LINE:COL: message`.
  func failures(_ name: String, standards: Bool = false) throws -> [String] {
    LessonChecker.check(try lesson(name), standards: standards).failures.map { "\($0.file):\($0.line):\($0.column): \($0.message)" }
  }

  @Test("A choice's means: and feedback: lines are read under it; old lessons without them read as before")
  func parsed() throws {
    let l = try lesson("choices-proved")
    guard case .predict(let p)? = l.items.first(where: { if case .predict = $0 { true } else { false } }) else {
      Issue.record("no prediction")
      return
    }
    #expect(p.choices == ["0", "3", "5"])
    #expect(p.options.map { $0.means.map(\.source.text) } == [["started filter at 0"], ["started filter at 3"], ["started filter at 5"]])
    #expect(p.options[0].feedback.hasPrefix("0 is believing a dependency is only a preference"))
    #expect(p.options[1].feedback == "")
    #expect(p.options.map(\.source.line) == [9, 12, 14])
    #expect(p.answerChoice?.text == "3")
    #expect(p.answerSource?.line == 17)
  }

  @Test("Every choice proved and every wrong one with feedback: the lesson passes, with the course's standards too")
  func proved() throws {
    #expect(try failures("choices-proved", standards: true) == [])
  }

  @Test("A stated answer whose own claim does not hold is refused at the answer: line, naming the choice that happened")
  func answerWrong() throws {
    #expect(
      try failures("choice-answer-wrong") == [
        "choice-answer-wrong.lesson:18:11: the prediction's answer '5' is wrong: its choice's means: does not hold after the reveal (started filter at 5, line 16), and the choice '3' is what happened (its means: holds)"
      ])
  }

  @Test("A second choice whose claim holds beside the answer's is refused at its means: line")
  func twoTrue() throws {
    #expect(
      try failures("choice-two-true") == [
        "choice-two-true.lesson:13:12: the prediction's choice 'it runs once the queue has a free slot' is true too: its means: holds after the reveal (started filter), as the answer's does, so a learner who picks it is right"
      ])
  }

  @Test("A choice without means: among choices that have one is refused where it is")
  func withoutMeans() throws {
    let text = try String(contentsOf: Self.fixtures.appendingPathComponent("choice-without-means.lesson"), encoding: .utf8)
    #expect(throws: LessonError.self) { try LessonParser.parse(text, file: "m.lesson") }
    do {
      _ = try LessonParser.parse(text, file: "m.lesson")
    } catch {
      #expect(error.description.hasPrefix("m.lesson:11:3: error: the choice '3' has no means: line, though other choices of this predict: have one"))
    }
  }

  @Test("means: or feedback: with no choice: above it is refused")
  func strayMeans() {
    let text = """
      title: Stray

      predict: Which?
        means: started a
        choice: a
        answer: a
      """
    do {
      _ = try LessonParser.parse(text, file: "s.lesson")
      Issue.record("parsed")
    } catch {
      #expect(error.line == 4 && error.column == 3)
      #expect(error.message == "means: comes under the choice: it is about")
    }
  }

  @Test("The course's standards: a wrong choice without feedback, and an answer the page says before the question")
  func standards() throws {
    #expect(try failures("choice-feedback-missing") == [])
    #expect(
      try failures("choice-feedback-missing", standards: true) == [
        "choice-feedback-missing.lesson:12:11: the prediction's wrong choice 'no, because upload failed' has no feedback: line, so a learner who picks it is told only the answer",
        "choice-feedback-missing.lesson:13:11: the prediction's answer 'yes, its dependents still run' is shown before the question is asked: the page, or the lab's reply, before it says \"its dependents still run\"",
      ])
  }

  @Test("A learner who picks a wrong choice is shown its feedback, with its placeholders filled; the right pick shows none")
  func feedbackShown() throws {
    let l = try lesson("choices-proved")
    func walk(_ inputs: [String]) -> String {
      var lines = inputs[...]
      let reader = StdinLineReader { lines.popFirst() }
      var out = ""
      var options = ShellOptions()
      options.width = 200
      LessonRunner(lesson: l, reader: reader, options: options, progress: ProgressStore(path: nil)) { out += $0 }.run()
      // Prose is wrapped at 80 columns: compared with every line break as a space.
      return out.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }
    let wrong = walk(["a", "quit"])
    #expect(
      wrong.contains(
        "✗ You predicted 0; the simulation shows 3. 0 is believing a dependency is only a preference; the filter waited for the download (t=3). The download finished at t=3"
      ), "\(wrong)")
    let right = walk(["3", "quit"])
    #expect(right.contains("✓ You predicted 3, and that is what happened. The download finished at t=3"), "\(right)")
    #expect(!right.contains("believing"))
  }
  @Test(
    "A means: naming an operation the world lacks is said (a `not` claim would hold by the misspelling); a second case's wrong choice needs its feedback too"
  )
  func namesAndSecondCase() throws {
    let text = """
      title: Names

      run:
        queue work max 1
        op download on work takes 3
        op filter on work takes 2 after download

      predict: Does the filter run?
        choice: yes
          means: started filtr
        choice: no
          means: not started filtr
          feedback: A dependency delays; it does not cancel.
        answer: yes
        reveal: run

      again: And a second filter, added now?
        setup: op filter2 on work takes 1
        choice: yes
        choice: no
        answer: yes
        reveal: run
        verify: started filter2

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
    let report = LessonChecker.check(try LessonParser.parse(text, file: "n.lesson"), standards: true)
    #expect(
      report.failures.map { "\($0.line):\($0.column): \($0.message)" } == [
        "10:12: a choice's means: line names 'filtr', and there is no such operation: started filtr",
        "12:12: a choice's means: line names 'filtr', and there is no such operation: not started filtr",
        "20:11: the second case's wrong choice 'no' has no feedback: line, so a learner who picks it is told only the answer",
      ])
  }
}
