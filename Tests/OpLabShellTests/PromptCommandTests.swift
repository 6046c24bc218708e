import OpLabCore
import TestSupport
import Testing

@testable import OpLabShell

/// ``PromptCommand``, the one table of the lesson prompts' own words: every row completes,
/// is found by each of its spellings, and does at a lesson's prompt what it says (#33).
@Suite struct PromptCommandTests {
  /// A lesson with every prompt: a pause, a prediction, a task, an exercise (whose files
  /// are not there: `skip` goes on), then the end.
  static let lesson = """
    title: P
    Some text.

    ---

    predict: How long does a take?
      choice: 1 tick
      choice: 2 ticks
      answer: 2 ticks
      reveal: op a takes 2
      reveal: run

    task: Make b.
      hint: Type `op b takes 1`.
      check: exists b
      else: b does not exist yet.
      solution: op b takes 1

    exercise: Write b in Swift.
      file: none.swift
      solution: none.solution.swift
      fails: build
      check: finished b
      else: b never finished.
      hint: Swift it.
    """

  /// What the runner writes when `inputs` are typed through the lesson.
  func walk(_ inputs: [String]) throws -> String {
    var lines = inputs[...]
    let reader = StdinLineReader { lines.popFirst() }
    var out = ""
    var options = ShellOptions()
    options.width = 80
    let lesson = try LessonParser.parse(Self.lesson, file: "p.lesson")
    let runner = LessonRunner(lesson: lesson, reader: reader, options: options, progress: ProgressStore(path: nil)) { out += $0 }
    runner.run()
    return out
  }

  /// The inputs that reach `prompt` (each prompt is left with the words that move on).
  static func reach(_ prompt: PromptCommand.Prompt) -> [String] {
    switch prompt {
    case .pause: []
    case .prediction: [""]
    case .task: ["", "b"]
    case .exercise: ["", "b", "op b takes 1"]
    case .complete: ["", "b", "op b takes 1", "skip"]
    }
  }

  @Test("Every row's word completes at a lesson prompt, alone and from its first letter")
  func everyWordCompletes() throws {
    let lesson = try LessonParser.parse(Self.lesson, file: "p.lesson")
    let runner = LessonRunner(lesson: lesson, reader: StdinLineReader { nil }, options: ShellOptions(), progress: ProgressStore(path: nil)) { _ in }
    for row in PromptCommand.table {
      let word = row.word.rawValue
      #expect(PromptCommand.completions(for: word) == [word])
      #expect(PromptCommand.completions(for: String(word.prefix(1))).contains(word))
      #expect(runner.completions(for: String(word.prefix(2))).contains(word), "\(word)")
    }
    #expect(PromptCommand.completions(for: "") == PromptCommand.Word.allCases.map(\.rawValue))
  }

  @Test("Every spelling of every row is found at its prompt, in any case, and no spelling means two things at one prompt")
  func everySpellingDispatches() {
    for row in PromptCommand.table {
      for spelling in row.spellings {
        #expect(PromptCommand.recognised(spelling, at: row.prompt)?.word == row.word, "\(spelling) at \(row.prompt)")
        #expect(PromptCommand.recognised(spelling.uppercased(), at: row.prompt)?.word == row.word)
      }
    }
    for prompt in PromptCommand.Prompt.allCases {
      let spellings = PromptCommand.table.filter { $0.prompt == prompt }.flatMap(\.spellings)
      #expect(Set(spellings).count == spellings.count, "\(prompt)")
      let words = PromptCommand.table.filter { $0.prompt == prompt }.map(\.word)
      #expect(Set(words).count == words.count, "\(prompt)")
    }
    // Not the lesson's: the lab's time travel, and a prediction's answers.
    #expect(PromptCommand.recognised("back 2", at: .pause) == nil)
    #expect(PromptCommand.recognised("next", at: .prediction) == nil)
    #expect(PromptCommand.recognised("back", at: .complete) == nil)
  }

  @Test(
    "Every row that says something says it when typed at its prompt",
    arguments: PromptCommand.table.filter {
      if case .say = $0.meaning { true } else { false }
    }.map { "\($0.word)" + "@" + "\($0.prompt)" })
  func everySayingIsSaid(_ key: String) throws {
    let row = try #require(PromptCommand.table.first { "\($0.word)@\($0.prompt)" == key })
    guard case .say(let text) = row.meaning else { return }
    for spelling in row.spellings {
      let out = try walk(Self.reach(row.prompt) + [spelling, "quit"])
      // Fitted to the width: compared word for word.
      let flat = { (s: String) in s.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") }
      #expect(flat(out).contains(flat(text)), "\(spelling) at \(row.prompt): \(out)")
    }
  }

  @Test("The moves go on, back and out at every prompt that has them")
  func moves() throws {
    // Enter goes on from the pause; `back` at the prediction returns to the text.
    let back = try walk(["", "back", "quit"])
    #expect(back.components(separatedBy: "Some text.").count - 1 == 2, "\(back)")
    // `quit` and `exit` keep the place at every prompt but the last.
    for prompt in [PromptCommand.Prompt.pause, .prediction, .task, .exercise] {
      for spelling in ["quit", "exit"] {
        let out = try walk(Self.reach(prompt) + [spelling])
        #expect(out.contains("Your place"), "\(spelling) at \(prompt)")
      }
    }
    // `skip` at the prediction shows the answer; at the task a solution.
    #expect(try walk(["", "skip", "quit"]).contains("The answer: 2 ticks."))
    #expect(try walk(["", "b", "skip"]).contains("One solution:\n"))
    #expect(try walk(["", "b", "hint", "quit"]).contains("hint 1/1: Type `op b takes 1`."))
    #expect(try walk(["", "b", "restart", "quit"]).contains("The world is back as the task found it"))
    // At the end, Enter and `next` end the lesson; `back` is the lab's there.
    for spelling in ["", "next", "n", "quit", "exit"] {
      let out = try walk(Self.reach(.complete) + [spelling, "status"])
      #expect(!out.contains("queue  "), "\(spelling): the lesson ended before `status`")
    }
  }

  @Test("The prompts' help lines are built from the table, word for word as before")
  func helpLines() {
    #expect(
      PromptCommand.lessonHelp
        == "(Enter or `next` goes on, `back` returns, `hint`/`skip`/`edit` help with tasks and exercises, `quit` keeps your place; any lab command works in between.)"
    )
    #expect(
      PromptCommand.taskHelp
        == "  (type lab commands; `hint` for a hint, `skip` to see one solution, `undo` takes back a command, `restart` starts the task again)")
    #expect(PromptCommand.predictionHelp(letters: "a, b or c") == "  (type a, b or c; `skip` shows the answer)")
    #expect(PromptCommand.predictionHelp(letters: nil) == "  (type your answer; `skip` shows it)")
    #expect(
      PromptCommand.exerciseHelp
        == "  (`edit` opens your file in your editor, then builds and runs it; `try` builds and runs it as it is; `hint` for a hint; `skip` shows a solution and goes on; `restart` gives back the starting file; lab commands work too)"
    )
  }
}
