import Foundation
import OpLabCore
import OpLabRender

/// Runs a lesson with a learner: narrative, the lab's commands, predictions, tasks.
///
/// At a pause, Enter (or `next`) goes on, `back` returns to the previous pause, `quit`
/// leaves with progress kept; any lab command can be typed in between. At a prediction
/// the learner's line is their answer (a letter, or a choice's words), and a command that
/// only looks runs; during a task it is a lab command, checked after each one that changes
/// the world (see ``judge(_:from:clockMoved:)``), with `hint`, `skip`, `restart` and
/// `back`. `back N` is time travel, at any prompt.
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
  private var page: String?
  /// The last timeline the lesson drew, and how many lines have been shown since its top.
  private var lastTimeline: (text: String, linesSince: Int)?
  var progress: ProgressStore
  let options: ShellOptions
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
    write("━━ Lesson \(lesson.number): \(lesson.title) ━━\n")
    write(wrap("(Enter or `next` goes on, `back` returns, `hint`/`skip` help with tasks, `quit` keeps your place; any lab command works in between.)") + "\n\n")
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
      // Narrative and the lesson's commands are gathered into a page, shown at the next prompt.
      switch lesson.items[index] {
      case .text, .run, .expect: if page == nil, screenRows != nil, showPage != nil { page = "" }
      default: flushPage()
      }
      switch step(index) {
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
    flushPage()
    progress.record(lesson.id, .done, position: 0)
    progress.removeWorld(lesson.id)
    write("\n✓ Lesson \(lesson.number) complete. Explore freely: `export timeline FILE` keeps this timeline. Enter (or `quit`) ends the lesson; `oplab lesson` lists the others.\n")
    handOver()
    while true {
      switch readLine(prompt: "lesson \(lesson.number)> ") {
      case .endOfInput: return true
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        if ["", "next", "n", "quit", "exit"].contains(line.lowercased()) { return true }
        if line.lowercased() == "restart" {
          write("`restart` starts a task again, and there is no task here: the lesson is complete.\n")
          continue
        }
        free(raw, prompt: "lesson \(lesson.number)> ")
      }
    }
  }

  enum Move { case next, back, quit }

  func step(_ index: Int) -> Move {
    switch lesson.items[index] {
    case .text(let paragraph):
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
    case .expect:
      return .next
    case .pause:
      return pause()
    case .predict(let p):
      return predict(p)
    case .task(let t):
      return task(t)
    }
  }

  /// The lab's warnings held back while a prediction is set up, shown at its reveal.
  var heldWarnings: [String] = []

  /// The next item after `index` that waits for the learner's answer or work (a prediction
  /// or a task), if any.
  func nextPrompt(after index: Int) -> Int? {
    lesson.items.indices.dropFirst(index + 1).first { i in
      switch lesson.items[i] {
      case .predict, .task: true
      default: false
      }
    }
  }

  /// Splits a reply into what is shown now and the lab's own warnings (`WARNING:` events
  /// and `note:` lines, with their wrapped continuation lines), which could give a
  /// prediction's answer away before it is given.
  static func separatingWarnings(_ text: String) -> (shown: String, warnings: [String]) {
    var shown = "", warnings: [String] = []
    var holdingIndent: Int?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
      let indent = line.prefix { $0 == " " }.count
      if let held = holdingIndent, indent > held, let last = warnings.indices.last {
        warnings[last] += "\n" + line
        continue
      }
      holdingIndent = nil
      let rest = line.dropFirst(indent)
      if line.contains("WARNING:") || rest.hasPrefix("note: ") {
        warnings.append(String(line))
        holdingIndent = indent
      } else {
        shown += line + "\n"
      }
    }
    return (shown, warnings)
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
      let (shown, warnings) = Self.separatingWarnings(output)
      output = shown
      heldWarnings += warnings.map { indent($0 + "\n") }
    }
    // Code is laid out already: re-wrapped like prose, a comment's tail would become code.
    if !output.isEmpty { write(indent(output), asIs: reply.preformatted) }
    if reply.colorable { lastTimeline = (indent(reply.output), reply.output.filter { $0 == "\n" }.count) }
    if let e = reply.error { write(indent("error: \(e.message)\n")) }
    return reply.error == nil
  }

  /// Shows `text` fitted to the width: gathered into the page, if one is being gathered.
  /// - Parameter asIs: `text` is laid out already (code): it is shown as it is.
  func write(_ text: String, asIs: Bool = false) {
    let fitted = asIs ? text : Wrap.text(text, width: options.width, ascii: options.ascii)
    lastTimeline?.linesSince += fitted.filter { $0 == "\n" }.count
    if page != nil { page? += fitted } else { output(fitted) }
  }

  /// Shows the page gathered so far: through ``showPage`` when it is taller than the screen
  /// (printed after all, and why said below it, when the pager could not show it).
  func flushPage() {
    guard let text = page else { return }
    page = nil
    if text.isEmpty { return }
    if let rows = screenRows, let show = showPage, Pager.isTaller(text, than: rows, width: options.width) {
      guard let failure = show(text) else { return }  // shown by the pager
      output(text)
      write(failure + "\n")
      return
    }
    output(text)
  }

  /// Reads what the learner typed; a piped line too long to keep is said and skipped
  /// (a fresh prompt follows, as after Ctrl-C).
  func readLine(prompt: String) -> LineInput {
    flushPage()
    let input = reader.readLine(prompt: prompt)
    guard case .tooLong(let start, let bytes) = input else { return input }
    write(indent("error: \(Visible.escape(LineInput.tooLongMessage(start: start, bytes: bytes)))\n"))
    return .interrupted
  }

  /// The learner takes over: `undo` takes back only what is typed from now on — or, just
  /// after a resume, also what they had typed before they left.
  func handOver() {
    if let floor = resumedFloor {
      interpreter.undoFloor = min(floor, interpreter.script.count)
      resumedFloor = nil
    } else {
      interpreter.undoFloor = interpreter.script.count
    }
  }

  /// Where the lesson's own commands ended in a world rebuilt on resume.
  var resumedFloor: Int?
  /// Whether the learner was told there is nowhere to keep their place (said once).
  private var warnedNoState = false

  func pause() -> Move {
    handOver()
    while true {
      switch readLine(prompt: "lesson \(lesson.number)> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        switch line.lowercased() {
        case "", "next", "n": return .next
        case "back": return .back
        case "quit", "exit": return .quit
        case "hint": write("There is nothing to hint at here: read on with Enter.\n")
        case "skip": write("There is nothing to skip here: read on with Enter.\n")
        case "restart": write("`restart` starts a task again, and there is no task here: `back` returns to the previous step.\n")
        default: free(raw, prompt: "lesson \(lesson.number)> ")
        }
      }
    }
  }

  func predict(_ p: Prediction) -> Move {
    write(wrap("? " + p.question) + "\n")
    let letters = Array("abcdefgh")
    for (i, choice) in p.choices.enumerated() where i < letters.count { write("   \(letters[i])) \(choice)\n") }
    let listed = letters.prefix(min(p.choices.count, letters.count)).map(String.init)
    let letterList = listed.count == 1 ? listed[0] : listed.dropLast().joined(separator: ", ") + " or " + (listed.last ?? "a")
    write(p.choices.isEmpty ? "  (type your answer; `skip` shows it)\n" : "  (type \(letterList); `skip` shows the answer)\n")
    var answer: String?
    while answer == nil {
      switch readLine(prompt: "your prediction> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        switch line.lowercased() {
        case "": write("Type your prediction (or `skip` to see the answer).\n")
        case "quit", "exit": return .quit
        case "back": return .back
        case "skip": answer = ""
        case "hint": write("A prediction has no hints: make your best guess (`skip` shows the answer).\n")
        case "restart": write("`restart` starts a task again, and this is a prediction: make your best guess (`skip` shows the answer).\n")
        default:
          // A choice's letter, as typed or as listed: `b`, `b)`, `(b)`, `b.`; or its words.
          let letter = line.lowercased().filter { !"().:".contains($0) }
          if letter.count == 1, let k = letters.firstIndex(of: Character(letter)), k < p.choices.count {
            answer = p.choices[k]
          } else if let k = Answers.choice(named: line, among: p.choices) {
            answer = p.choices[k]
          } else if let command = spelledOutCommand(line) {
            // A lab command, not an answer: looking is fine; changing the world the question
            // is about waits until the answer is in.
            if (try? command.get())?.onlyLooks == true {
              free(raw, prompt: "your prediction> ")
            } else if case .failure = command, !p.choices.isEmpty {
              // It does not parse (and is no choice): its error says what is wrong; nothing changes.
              free(raw, prompt: "your prediction> ")
            } else if case .success = command {
              write("That would change the world the question is about: it can wait until after your answer. `status`, `timeline`, `events`, `why OP` and `graph` work now.\n")
            } else {
              answer = line  // a typed answer that happens to start with a command's name
            }
          } else if !p.choices.isEmpty {
            let listed = letters.prefix(p.choices.count).map(String.init)
            write("Pick one of \(listed.joined(separator: ", ")) (a letter, or words of one choice; `skip` shows the answer).\n")
          } else if let short = incomplete(line, for: p) {
            write(short)
          } else {
            answer = line
          }
        }
      }
    }
    for c in p.reveal { show(c.text) }
    if !heldWarnings.isEmpty {
      write("The lab's warning from setting this up, held until you answered:\n")
      for w in heldWarnings { write(w) }
      heldWarnings = []
    }
    var said = answer ?? ""
    var wrong = false
    // Echoed inside a sentence: without the learner's own end punctuation.
    while let last = said.last, ".!?;:,".contains(last) { said.removeLast() }
    if said.isEmpty, answer?.isEmpty == false { said = answer ?? "" }
    // The answer was written for the lesson's world; the learner's own (a task solved
    // another way) may show something else, and then it is not theirs to be judged by.
    let differs = p.verify.contains { !$0.condition.holds(in: interpreter.world) }
    if differs {
      let yours = said.isEmpty ? "" : "You predicted \(said). "
      write(wrap("\(yours)In the lesson's world the answer is \(p.answer); your world went another way, so look at what it shows (`timeline`, `why`).") + "\n")
    } else if said.isEmpty {
      write("The answer: \(p.answer).\n")
    } else if Answers.matches(said, p.answer) {
      write(wrap("✓ You predicted \(said), and that is what happened.") + "\n")
    } else {
      write(wrap("✗ You predicted \(said); the simulation shows \(p.answer).") + "\n")
      wrong = true
    }
    if !p.explain.isEmpty { write(wrap(p.explain) + "\n") }
    write("\n")
    if wrong, let again = p.again { return secondCase(again) }
    return .next
  }

  /// After a wrong prediction: a similar case to predict, in a what-if branch of the world,
  /// left afterwards so the lesson goes on from the world the first reveal made.
  func secondCase(_ again: SecondCase) -> Move {
    write(wrap("Try a second case like it. It runs in a what-if branch: the lesson's world comes back after it.") + "\n")
    let fork = interpreter.execute("fork")
    guard fork.error == nil else { return .next }
    for c in again.setup { show(c.text, holdingWarnings: true) }
    let move = predict(again.prediction)
    _ = interpreter.execute("unfork")
    heldWarnings = []
    if move == .next { write("(Back in the lesson's world, at t=\(interpreter.world.now).)\n\n") }
    return move
  }

  /// Why a typed answer cannot be graded yet: it names fewer of the answer's items than the
  /// question asks for (`b d` for `b d c a`). `nil` when it is complete enough to grade.
  func incomplete(_ typed: String, for p: Prediction) -> String? {
    let want = Answers.normalize(p.answer).split(separator: " ")
    let got = Answers.normalize(typed).split(separator: " ")
    // A number asked for (`8`, `t=8`): an answer with no number in it is asked again.
    let digits: (Substring) -> Bool = { $0.contains(where: \.isNumber) }
    if want.count == 1, let w = want.first, digits(w), !got.contains(where: digits) {
      return wrap("The answer is a number (a tick such as 8, or t=8): type one (or `skip` to see the answer).") + "\n"
    }
    guard want.count > 1, !got.isEmpty, got.count < want.count else { return nil }
    // Only a list of names: each word one of the answer's, or an operation of the world.
    let world = interpreter.world
    let names = Set(world.operationNames.map { $0.lowercased() })
    guard got.allSatisfy({ want.contains($0) || names.contains(String($0)) }) else { return nil }
    return wrap("That names \(got.count) of the \(want.count) the question asks for: type all \(want.count), in order (or `skip` to see the answer).") + "\n"
  }

  func task(_ t: LessonTask) -> Move {
    write(wrap("★ Task: " + t.goal) + "\n  (type lab commands; `hint` for a hint, `skip` to see one solution, `undo` takes back a command, `restart` starts the task again)\n")
    var hintsShown = 0
    handOver()
    // The task's starting state, for `restart` and for the ways out of an impossible task.
    let start = TaskStart(
      commands: interpreter.script.map(\.text), floor: interpreter.undoFloor, tick: interpreter.world.now,
      required: Self.named(by: t, in: interpreter.world), possible: Self.possible(t, in: interpreter.world))
    feedback = Feedback(failing: failingChecks(t))
    while !done(t) {
      switch readLine(prompt: "task> ") {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        switch line.lowercased() {
        case "": continue
        case "quit", "exit": return .quit
        case "back": return .back
        case "next":
          write("Not yet: the task is not done. `hint` helps, `skip` shows a solution.\n")
        case "restart":
          if rebuild(from: start.commands) {
            interpreter.undoFloor = min(start.floor, interpreter.script.count)
            write("The world is back as the task found it, at t=\(interpreter.world.now).\n")
          } else {
            write("The task's starting world could not be rebuilt: `back` returns to the previous step.\n")
          }
          feedback = Feedback(failing: failingChecks(t))
        case "hint":
          if hintsShown < t.hints.count {
            write("hint \(hintsShown + 1)/\(t.hints.count): \(t.hints[hintsShown])\n")
            hintsShown += 1
          } else {
            write("No more hints. `skip` shows a solution.\n")
          }
        case "skip":
          write("One solution:\n")
          // It stops at a line that fails: the rest was written for the world that line makes.
          let floor = interpreter.undoFloor
          for c in t.solution {
            if !show(c.text) { break }
          }
          // The learner goes on from here: `undo` takes back the solution's lines and their
          // own, never the lesson's (show() lifted the floor for the lesson's commands).
          interpreter.undoFloor = min(floor, interpreter.script.count)
          if !done(t) {
            write("(That solution does not finish the task in this world as you left it: `restart` starts the task again; then `skip` again.)\n")
          }
        default:
          let before = worldMark
          free(raw, prompt: "task> ", inTask: true)
          // Feedback only after a command that changed the world or moved the clock.
          if worldMark != before {
            judge(t, from: start, clockMoved: worldMark[0] != before[0])
          }
        }
      }
    }
    write("✓ Task done.\n\n")
    return .next
  }

  /// What the learner was last told about the task, so nothing is said twice.
  struct Feedback {
    var lastSaid: String?
    var impossible = false
    /// The checks that failed at the last judgement: when they change, the world changed in
    /// a way that matters, and a message said before may be said again.
    var failing: [Int] = []
    /// The tick the last way out went back to; when the task fails for good again after
    /// the learner took it, that tick was a dead end (work already started there), and the
    /// next way out goes back further.
    var wayOutTick: Tick?
    /// Ticks a way out led to that turned out to be dead ends: later ways out go back before them.
    var deadEnds: Set<Tick> = []
  }
  var feedback = Feedback()

  /// Which of the task's checks fail now.
  func failingChecks(_ t: LessonTask) -> [Int] {
    t.checks.indices.filter { !t.checks[$0].condition.holds(in: interpreter.world) }
  }

  /// The world's clock, trace and commands: when any of them moves, the world changed.
  var worldMark: [Int] {
    [interpreter.world.now, interpreter.world.trace.count, interpreter.script.count, interpreter.sim.journal.count]
  }

  /// After a command that changed the world: says at once when the task can no longer
  /// succeed (and the exact way out), when it can again, and, once the world has come to
  /// rest (nothing left that can happen) short of the goal after the clock moved or the
  /// failing checks changed, what is still missing — each only when it differs from what
  /// was said last.
  func judge(_ t: LessonTask, from start: TaskStart, clockMoved: Bool) {
    guard !done(t) else { return }
    let world = interpreter.world
    let failing = t.checks.filter { !$0.condition.holds(in: world) }
    let indices = failingChecks(t)
    let changed = indices != feedback.failing
    if changed { feedback.lastSaid = nil }
    feedback.failing = indices
    if let broken = failing.first(where: { $0.condition.settled(in: world) }) {
      if !feedback.impossible, let back = feedback.wayOutTick { feedback.deadEnds.insert(back) }
      let text = "✗ This can no longer succeed: \(explain(broken)) \(wayOut(t, from: start))"
      if text != feedback.lastSaid { write(wrap(text) + "\n") }
      feedback.lastSaid = text
      feedback.impossible = true
      return
    }
    if feedback.impossible {
      feedback.impossible = false
      feedback.lastSaid = nil
      write("Back at t=\(world.now): nothing the task checks has failed for good yet.\n")
    }
    // Back at the task's start (the learner's commands all taken back), there is nothing of
    // theirs to judge.
    // Not done yet: once the world has come to rest, after the clock moved or something the
    // checks look at changed (not after a setting that changes nothing they read).
    guard interpreter.script.count > start.commands.count, world.nextEventTick == nil, changed || clockMoved,
      let missing = failing.first
    else { return }
    let text = "Not done yet: \(explain(missing)) (`hint` helps.)"
    if text != feedback.lastSaid { write(wrap(text) + "\n") }
    feedback.lastSaid = text
  }

  /// The operations and queues the task's checks name that `world` has.
  static func named(by t: LessonTask, in world: World) -> Set<String> {
    var found = Set<String>()
    for c in t.checks {
      let (ops, queues) = c.condition.names
      found.formUnion(ops.filter { world.operationID(named: $0) != nil })
      found.formUnion(queues.filter { world.queueID(named: $0) != nil }.map { "queue " + $0 })
    }
    return found
  }

  /// A failed check in the lesson's words: its `else:` message with the world's facts.
  func explain(_ c: CheckedCondition) -> String {
    if let m = c.message { return LessonText.fill(m.text, world: interpreter.world) }
    // A lesson `lesson check` has not passed: what the world shows, without the syntax.
    return c.condition.observed(in: interpreter.world).map { "the task's goal is not met (\($0))." } ?? "the task's goal is not met."
  }

  /// The exact way back to a world where the task can still succeed: `undo` of the last
  /// command, else `goto T` to the latest tick since the task began that works, else
  /// `restart` — or, when the task's start cannot succeed either, an earlier `goto T`.
  func wayOut(_ t: LessonTask, from start: TaskStart) -> String {
    let script = interpreter.script
    if script.count > max(interpreter.undoFloor, start.commands.count), let last = script.last {
      var sim = interpreter.sim
      if (try? sim.truncate(toActions: script.count >= 2 ? script[script.count - 2].journalEnd : 0)) != nil, Self.possible(t, in: sim.world),
        !feedback.deadEnds.contains(where: { $0 <= sim.world.now })
      {
        feedback.wayOutTick = sim.world.now
        return "`undo` takes back `\(last.text)` and returns to t=\(sim.world.now)."
      }
    }
    // The latest tick that works since the task began; then the task's start itself; then,
    // for a task that asks to go back in time, an earlier tick — as long as what the checks
    // name and the task's world had is still there.
    func goto(_ ticks: [Tick]) -> String? {
      for tick in ticks where !feedback.deadEnds.contains(where: { $0 <= tick }) {
        var sim = interpreter.sim
        guard (try? sim.rewind(to: tick)) != nil else { continue }
        if Self.named(by: t, in: sim.world).isSuperset(of: start.required), Self.possible(t, in: sim.world) {
          feedback.wayOutTick = tick
          return "`goto \(tick)` goes back to t=\(tick), from where it can."
        }
      }
      return nil
    }
    let now = interpreter.world.now
    if now > start.tick, let way = goto(candidates(from: start.tick, below: now)) { return way }
    let restart = "`restart` puts the world back as the task found it."
    feedback.wayOutTick = nil
    if start.possible { return restart }
    return goto(candidates(from: 0, below: min(start.tick, now))) ?? restart
  }

  /// The ticks worth trying for `goto`, latest first: the world changes only where
  /// something happens, so the latest tick that works is just before an event's tick, or
  /// the last one of the range. At most 100 of them, so a long world stays quick.
  func candidates(from low: Tick, below high: Tick) -> [Tick] {
    guard high > low else { return [] }
    var ticks: [Tick] = [high - 1]
    for e in interpreter.world.trace.reversed() {
      if e.tick <= low || ticks.count >= 100 { break }
      if e.tick <= high, let last = ticks.last, e.tick - 1 < last { ticks.append(e.tick - 1) }
    }
    if let last = ticks.last, last > low, ticks.count < 100 { ticks.append(low) }
    return ticks
  }

  /// Whether no check of `t` has failed for good in `world`.
  static func possible(_ t: LessonTask, in world: World) -> Bool {
    !t.checks.contains { !$0.condition.holds(in: world) && $0.condition.settled(in: world) }
  }

  /// A task's starting state: what `restart` rebuilds and what a way out must keep.
  struct TaskStart {
    var commands: [String]
    var floor: Int
    var tick: Tick
    /// What the checks name that the task's world already has (the rest the learner makes).
    var required: Set<String>
    /// Whether the task could succeed from its start without going back in time.
    var possible: Bool
  }

  func done(_ t: LessonTask) -> Bool { t.checks.allSatisfy { $0.condition.holds(in: interpreter.world) } }

  /// Runs a line the learner typed at `prompt` (in a task when `inTask`).
  func free(_ line: String, prompt: String, inTask: Bool = false) {
    let floor = interpreter.undoFloor
    let reply = interpreter.execute(line)
    if reply.clearScreen, reader.echoesLines { write(Shell.clearScreen) }
    write(reply.output)
    if interpreter.undoFloor < floor {
      write("(That went back past the lesson's own commands, so the lesson's world is not all there. `back` alone returns to the previous step and rebuilds it.)\n")
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

  func replaySilently(upTo end: Int) {
    for item in lesson.items.prefix(end) {
      switch item {
      case .run(let commands): for c in commands { _ = interpreter.execute(c.text) }
      case .predict(let p): for c in p.reveal { _ = interpreter.execute(c.text) }
      case .task(let t): if !done(t) { for c in t.solution { _ = interpreter.execute(c.text) } }
      default: break
      }
    }
  }

  /// Tab completion at a lesson's prompts: the lab's commands and names, and as a first
  /// word the lesson's own (`next`, `back`, `hint`, `skip`, `restart`, `quit`).
  public func completions(for prefix: String) -> [String] {
    var words = interpreter.completions(for: prefix)
    if !prefix.contains(where: \.isWhitespace) {
      words += ["next", "back", "hint", "skip", "restart", "quit"].filter { $0.hasPrefix(prefix.lowercased()) && !words.contains($0) }
      words.sort()
    }
    return words
  }

  /// The line as a lab command, when its first word is a command's full name (not an
  /// alias such as `b` or `s`, which typed answers start with): parsed, or why not.
  func spelledOutCommand(_ line: String) -> Result<Command, ParseError>? {
    guard let first = Lexer.tokens(line).first, CommandTable.all.contains(where: { $0.name == first.text.lowercased() }) else { return nil }
    do {
      guard let command = try Parser.parse(line, context: interpreter.context) else { return nil }
      return .success(command)
    } catch {
      return .failure(error)
    }
  }

  /// Records the learner's place, and the commands that made their world there.
  /// Keeps the learner's place and world; `false` (with a warning written) when it could not.
  @discardableResult
  func keep(at index: Int) -> Bool {
    guard progress.path != nil else {
      if !warnedNoState {
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

  func isPause(_ index: Int) -> Bool {
    if index < lesson.items.count, case .pause = lesson.items[index] { return true }
    return false
  }

  /// How far the lesson's own commands and their replies are indented: 4 columns, fewer
  /// on a terminal too narrow to spare them.
  var indentWidth: Int { min(4, max(0, options.width - Wrap.narrowest)) }

  func indent(_ text: String) -> String {
    let margin = String(repeating: " ", count: indentWidth)
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
      .map { margin + $0 + "\n" }.joined()
  }

  /// Prose at a reading measure: the terminal's width, at most 80 columns.
  func wrap(_ paragraph: String) -> String {
    Wrap.paragraph(paragraph, width: min(options.width, 80), ascii: options.ascii)
  }

}
