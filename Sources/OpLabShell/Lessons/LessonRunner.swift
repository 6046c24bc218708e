import Foundation
import OpLabCore
import OpLabRender

/// Runs a lesson with a learner: narrative, the lab's commands, predictions, tasks.
///
/// At a pause, Enter (or `next`) goes on, `back` returns to the previous pause, `quit`
/// leaves with progress kept; any lab command can be typed in between. At a prediction
/// the learner's line is their answer (a letter, or a choice's words), and a command that
/// only looks runs; during a task it is a lab command, checked after each one that changes
/// the world (see ``TaskCoach``), with `hint`, `skip`, `restart` and `back`. `back N` is
/// time travel, at any prompt. The prompts' own words are one table, ``PromptCommand``.
///
/// The runner is split by concern: this file walks the lesson's items and keeps the
/// learner's place; `LessonRunner+Prediction.swift` asks and grades predictions;
/// `LessonRunner+Page.swift` is its page and terminal.
public final class LessonRunner {
  let lesson: Lesson
  var interpreter: Interpreter
  let reader: LineReader
  /// Where everything the lesson shows goes, fitted to the width (see ``write(_:)``).
  let output: (String) -> Void
  /// The terminal's rows, when the lesson runs on one: a page of narrative taller than
  /// this goes through ``showPage``, and a paragraph about "the timeline above" repeats a
  /// timeline that has scrolled away. `nil` (piped input): neither.
  public var screenRows: Int?
  /// Shows a page taller than the screen (a pager): `nil` when it did, else a line saying
  /// why it did not; the page is then printed, with that line after it.
  public var showPage: ((String) -> String?)?
  /// A page being gathered: the narrative and the lesson's commands up to the next prompt.
  var page: String?
  /// The last timeline the lesson drew, and how many lines have been shown since its top.
  var lastTimeline: (text: String, linesSince: Int)?
  var progress: ProgressStore
  let options: ShellOptions
  /// `lesson preview`'s student, told each question and task as it comes; the preview
  /// shows every task's messages filled in, and says nothing about keeping a place.
  var preview: LessonPreview.Student?
  /// Told of each page taller than ``screenRows`` (the lesson's item it began at, and its
  /// rows), instead of showing it through ``showPage``: `lesson check` measures pages so.
  var tallPage: ((_ item: Int, _ rows: Int) -> Void)?
  /// Finds the compiler the Swift exercises build with (`nil`: there is none, and an
  /// exercise says so and can be skipped).
  var findCompiler: () -> String? = { ExerciseBuild.swiftc() }
  /// The item the page being gathered began at.
  var pageStart = 0
  /// The lesson file's fingerprint: a kept world belongs to this very text.
  lazy var fingerprint: String = {
    let text = FileManager.default.contents(atPath: lesson.file).map { String(decoding: $0, as: UTF8.self) } ?? lesson.title
    return ProgressStore.fingerprint(of: text)
  }()
  /// The command that resumes this lesson, as the learner is told on `quit`.
  public lazy var resumeCommand = "oplab lesson \(lesson.number)"

  /// Creates a runner; `write` receives everything to show.
  public init(lesson: Lesson, reader: LineReader, options: ShellOptions, progress: ProgressStore, write: @escaping (String) -> Void) {
    self.lesson = lesson
    self.reader = reader
    self.options = options
    self.progress = progress
    // Everything a lesson shows fits the terminal: its own words, the lab's replies.
    self.output = write
    interpreter = Interpreter(options: options)
  }

  /// Runs from the learner's saved position (or the start).
  /// - Returns: `true` when the lesson was finished.
  @discardableResult
  public func run() -> Bool {
    let saved = progress.entries[lesson.id]
    var position = saved.map { $0.status == .done ? 0 : $0.position } ?? 0
    // The title and the controls open the first page, so a pager shows them at its top
    // instead of scrolling them off above it.
    beginPage(at: 0)
    write("━━ Lesson \(lesson.number): \(lesson.title) ━━\n")
    write(wrap(PromptCommand.lessonHelp) + "\n\n")
    if position > 0, position < lesson.items.count {
      let kept = progress.loadWorld(lesson.id, position: position, fingerprint: fingerprint)
      if kept == .lessonChanged {
        // Its places may be other steps now: the learner's world would not fit them.
        write("The lesson has changed since you left it, so it starts again from the beginning.\n\n")
        position = 0
      } else {
        write("Resuming where you left off.\n\n")
        if isPause(position) { position += 1 }  // the step before the pause was already read
        if case .kept(let commands, let lessonsOwn) = kept, rebuild(from: commands) {
          // The learner's commands stay theirs to undo.
          resumedFloor = lessonsOwn
          write("(Your world is as you left it, your own commands included.)\n\n")
        } else {
          if case .kept = kept { write("(Your own commands could not be replayed here, so the lesson rebuilt its world.)\n\n") }
          interpreter = Interpreter(options: options)
          replaySilently(upTo: position)
        }
      }
    } else {
      position = 0
    }
    keep(at: position)
    var index = position
    while index < lesson.items.count {
      // Narrative and the lesson's commands are gathered into a page, shown at the next
      // prompt. A question or a task's goal comes after a pager (an answer typed in the
      // pager would be its keys: `b` went back a page), but `lesson check` measures it
      // with the page, as it shares the learner's screen with it.
      switch lesson.items[index] {
      case .text, .run, .quiet, .expect, .code: beginPage(at: index)
      default: if tallPage == nil { flushPage() }
      }
      switch present(index) {
      case .next: index += 1
      case .back:
        flushPage()
        heldWarnings = []
        let target = previousPause(before: index)
        interpreter = Interpreter(options: options)
        replaySilently(upTo: target)
        index = target
        write("\n")
      case .quit:
        flushPage()
        if keep(at: index) {
          write("Your place is kept: `\(resumeCommand)` resumes here.\n")
        } else {
          write("Your place could not be kept (see the warning above): `\(resumeCommand)` starts the lesson again.\n")
        }
        return false
      }
      if index < lesson.items.count, case .pause = lesson.items[index] {
        keep(at: index)
      }
    }
    progress.record(lesson.id, .done, position: 0)
    progress.removeWorld(lesson.id)
    // The last page ends with the lesson's end, so the two are on one screen (or one pager).
    // One blank line above it: a page of narrative ends with one already.
    write(
      (page?.hasSuffix("\n\n") == true ? "" : "\n")
        + "✓ Lesson \(lesson.number) complete. Explore freely: `export timeline FILE` keeps this timeline. Enter (or `quit`) ends the lesson; `oplab lesson` lists the others.\n"
    )
    flushPage()
    handOver()
    while true {
      switch readLine(prompt: "lesson \(lesson.number)> ") {
      case .endOfInput: return true
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        switch PromptCommand.recognised(raw.trimmingWhitespace(), at: .complete)?.meaning {
        case .goOn?, .leave?: return true
        case .say(let text)?: write(text + "\n")
        case .goBack?, .own?, nil: free(raw, prompt: "lesson \(lesson.number)> ")
        }
      }
    }
  }

  /// Where the lesson goes after an item: on, back to the previous pause, or out.
  enum Move { case next, back, quit }

  /// Shows or runs the lesson's item at `index`, waiting for the learner where it asks.
  func present(_ index: Int) -> Move {
    switch lesson.items[index] {
    case .text(let written):
      let paragraph = LessonText.fillProse(written, world: interpreter.world)
      let text = wrap(paragraph) + "\n\n"
      // "The timeline above" must be on the screen as it is read: drawn again if it has scrolled away.
      if let rows = screenRows, let drawn = lastTimeline, paragraph.lowercased().contains("timeline above"),
        drawn.linesSince + text.filter({ $0 == "\n" }).count > rows - 1
      {
        write("(The timeline again, as it has scrolled out of sight:)\n")
        write(drawn.text + "\n")
      }
      write(text)
      return .next
    case .run(let commands):
      let setsUpPrediction = nextPrompt(after: index).map { if case .predict = lesson.items[$0] { true } else { false } } ?? false
      for c in commands { show(c.text, holdingWarnings: setsUpPrediction) }
      write("\n")
      return .next
    case .quiet(let commands):
      for c in commands { quietly(c.text) }
      return .next
    case .expect:
      return .next
    case .code(let lines):
      write(indent(lines.map(\.text).joined(separator: "\n") + "\n") + "\n", asIs: true)
      return .next
    case .pause:
      return pause()
    case .predict(let p):
      return predict(p, at: index)
    case .task(let t):
      return task(t)
    case .exercise(let e):
      return exercise(e)
    }
  }

  /// The lab's warnings held back while a prediction is set up, shown at its reveal.
  var heldWarnings: [String] = []

  /// The next item after `index` that waits for the learner's answer or work (a prediction
  /// or a task), if any.
  func nextPrompt(after index: Int) -> Int? {
    lesson.items.indices.dropFirst(index + 1).first { i in
      switch lesson.items[i] {
      case .predict, .task, .exercise: true
      default: false
      }
    }
  }

  /// Runs one of the lesson's commands, echoed as if typed.
  /// - Parameter holdingWarnings: keep the lab's warnings for the next prediction's reveal.
  /// - Returns: `false` when it failed.
  @discardableResult
  func show(_ command: String, holdingWarnings: Bool = false) -> Bool {
    write("  oplab> \(command)\n")
    // The lesson's own commands may take back the lesson's own (an `undo` in a run:
    // block), exactly as `lesson check` runs them; the learner's floor is set again at
    // the next prompt.
    interpreter.undoFloor = 0
    // Drawn narrower by the indent, so the indented reply still fits.
    let width = interpreter.options.width
    interpreter.options.width = max(Wrap.narrowest, width - indentWidth)
    let reply = interpreter.execute(command)
    interpreter.options.width = width
    var output = reply.output
    if holdingWarnings, !reply.colorable {
      let (shown, warnings) = reply.separatingWarnings
      output = shown
      heldWarnings += warnings.map { indent($0 + "\n") }
    }
    // Code is laid out already: re-wrapped like prose, a comment's tail would become code.
    if !output.isEmpty { write(indent(output), asIs: reply.preformatted) }
    if reply.colorable { lastTimeline = (indent(reply.output), reply.output.filter { $0 == "\n" }.count) }
    if let e = reply.error { write(indent("error: \(e.message)\n")) }
    return reply.error == nil
  }

  /// Runs one of the lesson's `quiet:` commands: nothing is shown but an error.
  func quietly(_ command: String) {
    interpreter.undoFloor = 0
    let reply = interpreter.execute(command)
    if let e = reply.error { write(indent("error: `\(command)`: \(e.message)\n")) }
  }

  /// Where the lesson's own commands ended in a world rebuilt on resume.
  var resumedFloor: Int?
  /// Whether the learner was told there is nowhere to keep their place (said once).
  private var warnedNoState = false

  /// Waits at a pause between steps: the lesson's words (see ``PromptCommand``) or the lab's commands.
  /// - Returns: where the lesson goes next.
  func pause() -> Move {
    handOver()
    while true {
      switch readLine(prompt: "lesson \(lesson.number)> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        guard let command = PromptCommand.recognised(raw.trimmingWhitespace(), at: .pause) else {
          free(raw, prompt: "lesson \(lesson.number)> ")
          continue
        }
        switch command.meaning {
        case .goOn: return .next
        case .goBack: return .back
        case .leave: return .quit
        case .say(let text): write(text + "\n")
        case .own: break  // none at a pause
        }
      }
    }
  }

  /// Runs a task: the learner's commands, judged by a ``TaskCoach`` after each one that
  /// changes the world, with `hint`, `skip`, `restart` and `back` (see ``PromptCommand``).
  /// - Returns: where the lesson goes next.
  func task(_ t: LessonTask) -> Move {
    if let student = preview {
      // The preview's own lines are for the teacher: not on the page `lesson check` measures.
      if tallPage == nil {
        write(wrap("(preview) What each check says to a learner who types `\(LessonPreview.typicalWrongAttempt)` now:") + "\n")
        for (check, message) in LessonPreview.messages(t, interpreter) {
          let measure = max(Wrap.narrowest, min(options.width, 80) - indentWidth)
          for line in ["check: \(check)", message.map { "else: " + $0 } ?? "(holds after `\(LessonPreview.typicalWrongAttempt)`)"] {
            write(indent(Wrap.paragraph(line, width: measure, ascii: options.ascii)), asIs: true)
          }
        }
      }
      student.set(t)
    }
    write(wrap("★ Task: " + LessonText.fillProse(t.goal, world: interpreter.world)) + "\n" + PromptCommand.taskHelp + "\n")
    var hintsShown = 0
    handOver()
    // The task's starting state, for `restart` and for the ways out of an impossible task.
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(interpreter))
    while !TaskCoach.done(t, in: interpreter.world) {
      switch readLine(prompt: "task> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        if line.isEmpty { continue }
        guard let command = PromptCommand.recognised(line, at: .task) else {
          let before = worldMark
          free(raw, prompt: "task> ", inTask: true)
          // Feedback only after a command that changed the world or moved the clock.
          if worldMark != before {
            for remark in coach.judge(in: TaskCoach.Lab(interpreter), clockMoved: worldMark[0] != before[0]) {
              write(remark.isProse ? wrap(remark.text) + "\n" : remark.text + "\n")
            }
          }
          continue
        }
        switch (command.meaning, command.word) {
        case (.goBack, _): return .back
        case (.leave, _): return .quit
        case (.say(let text), _): write(text + "\n")
        case (.own, .restart):
          if rebuild(from: coach.start.commands) {
            interpreter.undoFloor = min(coach.start.floor, interpreter.script.count)
            write("The world is back as the task found it, at t=\(interpreter.world.now).\n")
          } else {
            write("The task's starting world could not be rebuilt: `back` returns to the previous step.\n")
          }
          coach.restarted(in: TaskCoach.Lab(interpreter))
        case (.own, .hint):
          if hintsShown < t.hints.count {
            write("hint \(hintsShown + 1)/\(t.hints.count): \(LessonText.fillProse(t.hints[hintsShown], world: interpreter.world))\n")
            hintsShown += 1
          } else {
            write("No more hints. `skip` shows a solution.\n")
          }
        case (.own, .skip):
          write("One solution:\n")
          // It stops at a line that fails: the rest was written for the world that line makes.
          let floor = interpreter.undoFloor
          for c in t.solution {
            if !show(c.text) { break }
          }
          // The learner goes on from here: `undo` takes back the solution's lines and their
          // own, never the lesson's (show() lifted the floor for the lesson's commands).
          interpreter.undoFloor = min(floor, interpreter.script.count)
          if !TaskCoach.done(t, in: interpreter.world) {
            write("(That solution does not finish the task in this world as you left it: `restart` starts the task again; then `skip` again.)\n")
          }
        case (.own, _), (.goOn, _): break  // none other at a task
        }
      }
    }
    write("✓ Task done.\n\n")
    return .next
  }

  /// The world's clock, trace and commands: when any of them moves, the world changed.
  var worldMark: [Int] {
    [interpreter.world.now, interpreter.world.trace.count, interpreter.script.count, interpreter.sim.journal.count]
  }

  /// Runs a line the learner typed at `prompt` (in a task when `inTask`).
  func free(_ line: String, prompt: String, inTask: Bool = false) {
    let floor = interpreter.undoFloor
    let reply = interpreter.execute(line)
    if reply.clearScreen, reader.echoesLines { write(Shell.clearScreen) }
    // A long view (`help`, `timeline`, `status`…) goes through the pager, as at the lab's prompt.
    if reply.pageable, let rows = screenRows, let show = showPage, Pager.isTaller(reply.output, than: rows, width: options.width) {
      if let failure = show(reply.output) { write(reply.output + failure + "\n") }
    } else {
      write(reply.output)
    }
    if interpreter.undoFloor < floor {
      write(
        "(That went back past the lesson's own commands, so the lesson's world is not all there. `back` alone returns to the previous step and rebuilds it.)\n"
      )
    }
    guard var e = reply.error else { return }
    if inTask, let hint = e.hint {
      // `reset` would throw away the world the task set up: in a task the way back is `restart`.
      e.hint = hint.replacing("or `reset` to start again", with: "or `restart` to start the task again")
    }
    if reader.echoesLines {
      write(e.pointed(prompt: Names.width(prompt), typed: line, width: options.width))
    } else {
      // Nothing on the screen to point at: the column is said instead.
      write("error: column \(e.column): \(Visible.escape(e.message))\n" + (e.hint.map { "hint: \(Visible.escape($0))\n" } ?? ""))
    }
  }

  /// Rebuilds the lesson's world up to item `end` without showing anything: its commands,
  /// the reveals, and the solution of each task not already done.
  func replaySilently(upTo end: Int) {
    for item in lesson.items.prefix(end) {
      switch item {
      case .run(let commands), .quiet(let commands): for c in commands { _ = interpreter.execute(c.text) }
      case .predict(let p): for c in p.reveal { _ = interpreter.execute(c.text) }
      case .task(let t): if !TaskCoach.done(t, in: interpreter.world) { for c in t.solution { _ = interpreter.execute(c.text) } }
      default: break
      }
    }
  }

  /// Tab completion at a lesson's prompts: the lab's commands and names, and as a first
  /// word the lesson's own (``PromptCommand/Word``: `next`, `back`, `hint`, `skip`,
  /// `restart`, `quit`).
  public func completions(for prefix: String) -> [String] {
    var words = interpreter.completions(for: prefix)
    if !prefix.contains(where: \.isWhitespace) {
      words += PromptCommand.completions(for: prefix).filter { !words.contains($0) }
      words.sort()
    }
    return words
  }

  /// Records the learner's place, and the commands that made their world there.
  /// Keeps the learner's place and world; `false` (with a warning written) when it could not.
  @discardableResult
  func keep(at index: Int) -> Bool {
    guard progress.path != nil else {
      if !warnedNoState, preview == nil {
        write("warning: there is no state folder to keep your place in (set HOME or XDG_STATE_HOME to an absolute path)\n")
        warnedNoState = true
      }
      return false
    }
    if let warning = progress.record(lesson.id, .started, position: index) {
      write("warning: \(warning)\n")
      return false
    }
    // At a prompt the floor marks where the lesson's commands end; elsewhere all are the lesson's.
    let lessonsOwn = min(interpreter.undoFloor == 0 ? interpreter.script.count : interpreter.undoFloor, interpreter.script.count)
    if let warning = progress.saveWorld(
      lesson.id, commands: interpreter.script.map(\.text), position: index, fingerprint: fingerprint, lessonsOwn: lessonsOwn)
    {
      write("warning: \(warning)\n")
      return false
    }
    return true
  }

  /// Replays kept commands into a fresh world; `false` when one of them fails.
  func rebuild(from commands: [String]) -> Bool {
    interpreter = Interpreter(options: options)
    for command in commands where interpreter.execute(command).error != nil { return false }
    return true
  }

  /// The start of the step before the one `index` is in (steps are separated by pauses).
  func previousPause(before index: Int) -> Int {
    var starts = [0]
    for (i, item) in lesson.items.enumerated() where i + 1 < lesson.items.count {
      if case .pause = item { starts.append(i + 1) }
    }
    // A pause item belongs to the step it ends.
    let current = starts.last { $0 <= index && !(isPause(index) && $0 == index + 1) } ?? 0
    return starts.last { $0 < current } ?? 0
  }

  /// Whether the item at `index` is a pause.
  func isPause(_ index: Int) -> Bool {
    if index < lesson.items.count, case .pause = lesson.items[index] { return true }
    return false
  }

}
