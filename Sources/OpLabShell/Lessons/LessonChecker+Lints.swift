import OpLabCore
import OpLabRender

/// Lints of `lesson check` that read the lesson's prose and its order: placeholders that
/// cannot be filled, and a `run:` that shows a prediction's answer before it is asked.
extension LessonChecker {
  /// A problem at an offset in a text.
  struct TextProblem: Equatable {
    var offset: Int
    var message: String
    var hint: String?
  }

  /// The placeholders of prose (narrative, a question, `explain:`, a goal, a hint) that
  /// name an operation or queue `world` does not have where the text is shown.
  static func placeholderProblems(in text: String, world: World) -> [TextProblem] {
    LessonText.prosePlaceholders(in: text).compactMap { p in
      guard !p.name.isEmpty else { return nil }
      let known = p.namesQueue ? world.queueID(named: p.name) != nil : world.operationID(named: p.name) != nil
      if known { return nil }
      let guess = Suggest.closest(to: p.name, in: p.namesQueue ? world.allQueueNames : world.operationNames)
      return TextProblem(
        offset: p.offset,
        message:
          "the placeholder {\(p.kind) \(p.name)} names '\(p.name)', and the world has no such \(p.namesQueue ? "queue" : "operation") where the text is shown",
        hint: guess.map { "did you mean '\($0)'?" } ?? "at t=\(world.now)")
    }
  }

  /// The screen `lesson check` measures pages against: 80 columns, 24 rows.
  static let screen = (columns: 80, rows: 24)

  /// Pages taller than ``screen`` (narrative and the lesson's commands between two prompts,
  /// as a learner meets them): each is read through the pager, a screen at a time.
  /// - Parameter printed: the rows each `run:` block prints, by item index: a page whose
  ///   `run:` block alone fills the screen is told to build its world in a `quiet:` block.
  static func tallPageProblems(_ lesson: Lesson, options: ShellOptions, printed: [Int: Int] = [:]) -> [LessonError] {
    var options = options
    options.width = screen.columns
    return LessonPreview.tallPages(lesson, options: options, rows: screen.rows).compactMap { page in
      var line = 1
      switch lesson.items[page.item] {
      case .text: line = lesson.paragraphLines[page.item] ?? 1
      case .run(let commands), .quiet(let commands), .code(let commands): line = commands.first?.line ?? 1
      case .expect(let cs): line = cs.first?.source.line ?? 1
      case .predict:
        // A prediction's answer (its reveal, the verdict, the explanation) is as long as the
        // simulation makes it: it goes through the pager when taller, and is not linted.
        // What follows it is a page of its own, measured as any.
        return nil
      default: break
      }
      let screens = (page.rows + screen.rows - 2) / (screen.rows - 1)
      // The page runs to the next prompt: its loudest run: block.
      let end =
        lesson.items.indices.dropFirst(page.item).first { i in
          switch lesson.items[i] {
          case .pause, .predict, .task: true
          default: false
          }
        } ?? lesson.items.count
      let loudest = (page.item..<end).compactMap { i in printed[i].map { (item: i, rows: $0) } }.max { $0.rows < $1.rows }
      if let loudest, loudest.rows > screen.rows - 1, case .run(let commands) = lesson.items[loudest.item], let first = commands.first {
        return LessonError(
          file: lesson.file, line: first.line, column: 1,
          message:
            "this run: block prints \(loudest.rows) rows at \(screen.columns) columns, more than a \(screen.rows)-row screen, and its page needs \(page.rows + 1) rows with the prompt under it: a learner reads it through the pager, \(screens) screens",
          hint:
            "make the commands that only build the world a `quiet:` block, which shows nothing, and show what matters after it (`timeline`, `slots QUEUE`)"
        )
      }
      return LessonError(
        file: lesson.file, line: line, column: 1,
        message:
          "the page that begins here needs \(page.rows + 1) rows at \(screen.columns) columns with the prompt under it, more than a \(screen.rows)-row screen: a learner reads it through the pager, \(screens) screens",
        hint:
          "end it sooner with a `---` pause, show less (`timeline`, not `status`), or make the commands that only build the world a `quiet:` block, which shows nothing"
      )
    }
  }

  /// The rows `text` takes on the screen, indented as the lesson's replies are (4 columns).
  static func rows(of text: String) -> Int {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0).reduce(0) { sum, line in
      sum + max(1, (Names.width(String(line)) + 4 + screen.columns - 1) / screen.columns)
    }
  }

  /// Placeholders where none can be filled: a choice or an answer is compared with what
  /// the learner types, so it must be text as written.
  static func placeholderRefused(in text: String, what: String) -> TextProblem? {
    guard let p = LessonText.prosePlaceholders(in: text).first else { return nil }
    return TextProblem(
      offset: p.offset, message: "a placeholder cannot be filled in \(what): it is compared with what the learner types, as written",
      hint: "write the tick or the name itself, proved by `verify:`")
  }

  /// Whether the world already shows a prediction's answer before its reveal: what the
  /// question asks has happened (the operation it names has its tick; the operations an
  /// order answer lists have theirs; every proof about what operations did holds for good).
  /// - Returns: what shows it, in a few words, or `nil`.
  static func answerShown(_ p: Prediction, in world: World) -> String? {
    let finishing = asksAboutFinishing(p.question)
    func tick(_ name: String) -> Tick? {
      finishing ? world.operationID(named: name).flatMap { world.operation($0).finishedAt } : Condition.startTick(name, in: world)
    }
    let verb = finishing ? "finished" : "started"
    if p.choices.isEmpty, asksForATick(p.question) {
      let named = operations(namedIn: p.question, in: world)
      if named.count == 1, let t = tick(named[0]) { return "\(named[0]) \(verb) at t=\(t)" }
      return nil
    }
    let words = Answers.normalize(p.answer).split(separator: " ").map(String.init)
    let names = words.compactMap { w in world.operationNames.first { $0.lowercased() == w } }
    if p.choices.isEmpty, words.count >= 2, names.count == words.count {
      let ticks = names.map(tick)
      if ticks.allSatisfy({ $0 != nil }) {
        return "they \(verb): " + zip(names, ticks).map { "\($0) t=\($1 ?? 0)" }.joined(separator: ", ")
      }
      return nil
    }
    // About what operations did: all of it has happened, and can no longer change.
    let about = p.verify.filter { c in
      switch c.condition {
      case .started, .finished, .skipped, .outcome, .order, .overlap, .completed: true
      default: false
      }
    }
    guard !about.isEmpty, about.count == p.verify.count,
      about.allSatisfy({ $0.condition.holds(in: world) && $0.condition.settled(in: world) })
    else { return nil }
    return about.map(\.source.text).joined(separator: "; ") + " already"
  }
}
