/// The words a lesson's prompts understand besides the lab's commands: one table that the
/// runner's dispatch, tab completion and the prompts' help lines all read.
///
/// Each row says where a word is understood (``Prompt``), how it may be typed there and
/// what it means there (``Meaning``). Where a word has no row, the line is the lab's (or,
/// at a prediction, the learner's answer): `back 2` is time travel at every prompt, and
/// `back` once the lesson is complete is the lab's `back`.
struct PromptCommand: Sendable {
  /// The lesson's own words, as completed at the prompts.
  enum Word: String, CaseIterable, Sendable {
    case next, back, hint, skip, restart, edit, `try`, quit
  }

  /// The prompts a lesson shows.
  enum Prompt: CaseIterable, Sendable {
    /// Between steps (`lesson N>`).
    case pause
    /// At a prediction (`your prediction>`).
    case prediction
    /// During a task (`task>`).
    case task
    /// At a Swift exercise (`exercise>`).
    case exercise
    /// Once the lesson is complete (`lesson N>`), where the learner explores freely.
    case complete
  }

  /// What a word does at a prompt.
  enum Meaning: Equatable, Sendable {
    /// Goes on: the next step, or at ``Prompt/complete`` the end of the lesson.
    case goOn
    /// Returns to the previous pause, rebuilding its world.
    case goBack
    /// Leaves the lesson, keeping the learner's place.
    case leave
    /// What the prompt itself does with it (a hint, a solution, the answer, a restart).
    case own
    /// Nothing to do here: this is said instead.
    case say(String)
  }

  /// The word.
  let word: Word
  /// The prompt this row is about.
  let prompt: Prompt
  /// How it is typed there, lower case; `""` is Enter alone.
  let spellings: [String]
  /// What it does there.
  let meaning: Meaning
  /// Its part of the prompt's help line (after its name), if it has one.
  let help: String?

  /// A row of the table: `word` at `prompt`, typed as one of `spellings`.
  init(_ word: Word, at prompt: Prompt, _ spellings: [String], _ meaning: Meaning, help: String? = nil) {
    self.word = word
    self.prompt = prompt
    self.spellings = spellings
    self.meaning = meaning
    self.help = help
  }

  /// Every row: the one place the lesson prompts' words are defined.
  static let table: [PromptCommand] = [
    .init(.next, at: .pause, ["", "next", "n"], .goOn, help: "goes on"),
    .init(.next, at: .task, ["next"], .say("Not yet: the task is not done. `hint` helps, `skip` shows a solution.")),
    .init(.next, at: .complete, ["", "next", "n"], .goOn),

    .init(.back, at: .pause, ["back"], .goBack, help: "returns"),
    .init(.back, at: .prediction, ["back"], .goBack),
    .init(.back, at: .task, ["back"], .goBack),

    .init(.hint, at: .pause, ["hint"], .say("There is nothing to hint at here: read on with Enter."), help: "help with tasks and exercises"),
    .init(.hint, at: .prediction, ["hint"], .say("A prediction has no hints: make your best guess (`skip` shows the answer).")),
    .init(.hint, at: .task, ["hint"], .own, help: "for a hint"),
    .init(.hint, at: .complete, ["hint"], .say("There is nothing to hint at: the lesson is complete. Any lab command works; `help` lists them.")),

    .init(.skip, at: .pause, ["skip"], .say("There is nothing to skip here: read on with Enter."), help: "help with tasks and exercises"),
    .init(.skip, at: .prediction, ["skip"], .own, help: "shows the answer"),
    .init(.skip, at: .task, ["skip"], .own, help: "to see one solution"),
    .init(.skip, at: .complete, ["skip"], .say("There is nothing to skip: the lesson is complete. Enter (or `quit`) ends it.")),

    .init(
      .restart, at: .pause, ["restart"],
      .say("`restart` starts a task again, and there is no task here: `back` returns to the previous step.")),
    .init(
      .restart, at: .prediction, ["restart"],
      .say("`restart` starts a task again, and this is a prediction: make your best guess (`skip` shows the answer).")),
    .init(.restart, at: .task, ["restart"], .own, help: "starts the task again"),
    .init(
      .restart, at: .complete, ["restart"],
      .say("`restart` starts a task again, and there is no task here: the lesson is complete.")),

    .init(.next, at: .exercise, ["next"], .own),
    .init(.back, at: .exercise, ["back"], .goBack),
    .init(.hint, at: .exercise, ["hint"], .own, help: "for a hint"),
    .init(.skip, at: .exercise, ["skip"], .own, help: "shows a solution and goes on"),
    .init(.restart, at: .exercise, ["restart"], .own, help: "gives back the starting file"),
    .init(.edit, at: .exercise, ["edit"], .own, help: "opens your file in your editor, then builds and runs it"),
    .init(.`try`, at: .exercise, ["try"], .own, help: "builds and runs it as it is"),
    .init(
      .edit, at: .pause, ["edit"], .say("There is no exercise here: `edit` opens an exercise's Swift file when the lesson gives one."),
      help: "help with tasks and exercises"),
    .init(.`try`, at: .pause, ["try"], .say("There is no exercise here: `try` builds an exercise's Swift file when the lesson gives one.")),
    .init(.edit, at: .task, ["edit"], .say("This task is done with lab commands; `edit` opens the Swift file of an exercise.")),
    .init(.quit, at: .exercise, ["quit", "exit"], .leave),

    .init(.quit, at: .pause, ["quit", "exit"], .leave, help: "keeps your place"),
    .init(.quit, at: .prediction, ["quit", "exit"], .leave),
    .init(.quit, at: .task, ["quit", "exit"], .leave),
    .init(.quit, at: .complete, ["quit", "exit"], .leave),
  ]

  /// The row for a line typed at `prompt` (already trimmed): `nil` when it is none of the
  /// lesson's words there.
  static func recognised(_ line: String, at prompt: Prompt) -> PromptCommand? {
    let typed = line.lowercased()
    return table.first { $0.prompt == prompt && $0.spellings.contains(typed) }
  }

  /// The row for `word` at `prompt`, if the word is understood there.
  static func row(_ word: Word, at prompt: Prompt) -> PromptCommand? {
    table.first { $0.word == word && $0.prompt == prompt }
  }

  /// The lesson's words that begin with `prefix`, for tab completion as a line's first word.
  static func completions(for prefix: String) -> [String] {
    Word.allCases.map(\.rawValue).filter { $0.hasPrefix(prefix.lowercased()) }
  }

  /// A word's help at `prompt`, as its part of a help line: `` `next` goes on ``.
  static func helpPhrase(_ word: Word, at prompt: Prompt) -> String {
    let name = "`\(word.rawValue)`"
    guard let row = row(word, at: prompt), let help = row.help else { return name }
    return name + " " + help
  }

  // MARK: - The prompts' help lines

  /// The line a lesson opens with: its pause's words, then that lab commands work too.
  ///
  /// Words with the same help are named together (`` `hint`/`skip` help with tasks ``),
  /// and a word typed as Enter alone says so first.
  static var lessonHelp: String {
    var parts: [(names: [String], help: String)] = []
    for word in Word.allCases {
      guard let row = row(word, at: .pause), let help = row.help else { continue }
      let name = "`\(word.rawValue)`"
      if let last = parts.last, last.help == help {
        parts[parts.count - 1].names.append(name)
      } else {
        parts.append(([row.spellings.contains("") ? "Enter or " + name : name], help))
      }
    }
    let said = parts.map { $0.names.joined(separator: "/") + " " + $0.help }.joined(separator: ", ")
    return "(\(said); any lab command works in between.)"
  }

  /// The line under a task's goal: its words, and `undo` (the lab's) before `restart`.
  static var taskHelp: String {
    "  (type lab commands; \(helpPhrase(.hint, at: .task)), \(helpPhrase(.skip, at: .task)), "
      + "`undo` takes back a command, \(helpPhrase(.restart, at: .task)))"
  }

  /// The line under an exercise's goal: its words.
  static var exerciseHelp: String {
    "  (" + [Word.edit, .`try`, .hint, .skip, .restart].map { helpPhrase($0, at: .exercise) }.joined(separator: "; ")
      + "; lab commands work too)"
  }

  /// The line under a prediction's question: how to answer (`letters`, e.g. `a, b or c`;
  /// `nil` for a typed answer), and how to skip it.
  static func predictionHelp(letters: String?) -> String {
    // A typed answer is one thing: `skip` shows "it".
    guard let letters else { return "  (type your answer; `\(Word.skip.rawValue)` shows it)" }
    return "  (type \(letters); \(helpPhrase(.skip, at: .prediction)))"
  }
}
