import Foundation
import OpLabCore
import OpLabRender
import OpLabSwift

/// Options that change how the lab draws, not what it simulates.
public struct ShellOptions: Sendable {
  /// Columns available for timelines, kept within ``Timeline/widths`` (a terminal's own
  /// width included: a window can report 65,535 columns).
  public var width: Int = 80 {
    didSet { width = min(max(Timeline.widths.lowerBound, width), Timeline.widths.upperBound) }
  }
  /// Whether the width was given (`--width`); otherwise a terminal's width is used.
  public var widthGiven = false
  /// ASCII-only drawing.
  public var ascii = false
  /// `set swift-echo on`: each command that changes the world is followed by its Swift.
  public var swiftEcho = false
  /// Colour (only on a terminal).
  public var color = false
  /// The platform a fresh world imitates.
  public var platform: Platform = .apple

  /// Default options.
  public init() {}
}

/// What running one line produced.
public struct Reply: Sendable {
  /// Text for standard output.
  public var output: String = ""
  /// The error, if the line failed (nothing changed then).
  public var error: Diagnostic?
  /// Whether the learner asked to leave.
  public var quit = false
  /// Whether the output is a drawing that may be coloured on a terminal.
  public var colorable = false
  /// Whether the learner asked to clear the screen (`clear`; a terminal only).
  public var clearScreen = false
  /// Whether the output is a view to read at leisure (help, events, why…): taller than
  /// the terminal, the interactive shell shows it through a pager.
  public var pageable = false
  /// Whether the output is laid out already (code), so it is not wrapped like prose.
  public var preformatted = false
  /// The lab's warnings among the lines of ``output`` (a dependency cycle the command
  /// closed, a queue set to start nothing), known from what the command did: each a range
  /// of line numbers of `output`, from 0, its wrapped continuation lines included. The
  /// output shows them too; a lesson holds them back while it sets up a prediction.
  public var warnings: [Range<Int>] = []
}

/// Runs command lines against a simulation: the heart of the shell, with no terminal I/O.
///
/// Files are read and written only by `source`, `save` and `export`.
public final class Interpreter {
  /// The simulation, the commands that made it, and what undo, redo, time travel and
  /// forks keep (``SessionHistory``).
  var history: SessionHistory
  /// The simulation and its history (lent, not copied: see ``world``).
  public var sim: Simulation {
    _read { yield history.sim }
  }
  /// Drawing options.
  public var options: ShellOptions
  /// Effective commands: the lines that made the present world, with the journal length after each.
  public var script: SharedLog<(text: String, journalEnd: Int)> { history.script }
  /// How many of the first ``script`` commands `undo` never takes back: a lesson sets it
  /// before the learner types, so `undo` takes back the learner's commands and not the
  /// lesson's. Time travel that cuts the script lowers it.
  public var undoFloor: Int {
    get { history.undoFloor }
    set { history.undoFloor = newValue }
  }

  /// Journal actions and script entries held by the present and by the branches `fork`
  /// kept, storage shared between them counted once: what forks cost in history.
  var storedHistory: Int { history.storedHistory }
  /// Whole worlds held: the present and the checkpoints (``SessionHistory/storedWorlds``).
  var storedWorlds: Int { history.storedWorlds }
  /// Set when `redo` gave back what time travel dropped (journalled as typed).
  private var redidTravel: Bool { history.redidTravel }
  var sourceDepth = 0
  /// The scripts being run, outermost first: a `source` line's relative path is found
  /// beside the script it is in, and a script that sources one already running is a cycle.
  var scripts: [(named: String, path: String, identity: ScriptFile.Identity, inFolder: Bool)] = []
  /// Whether to keep ``pendingJournal`` (the interactive shell does; batch runs and lessons
  /// need no crash journal, and a long script would keep a second copy of itself).
  public var keepsJournal = false
  /// What a session journal should keep of the commands run since ``takeJournal()``.
  var pendingJournal: [String] = []
  /// Deepest `source` nesting allowed (a longer chain of different scripts stops here; a
  /// cycle is named sooner, see `source`).
  public static let maxSourceDepth = 16
  /// When set, `source` hands each line's output to it as soon as the line has run (the
  /// interactive shell prints it at once), instead of returning it all at the end.
  public var streamOutput: ((String) -> Void)?
  /// When set, a command that takes a while (`real`, `explore`) reports how far it has got,
  /// often, a note to keep up front (a text ending in a newline), and `nil` when it ends
  /// (shown by ``ProgressLine``: in place on a terminal, a line every few seconds in a script).
  public var progress: ((String?) -> Void)?
  /// Most event lines a single command echoes.
  public static let echoLimit = 200
  /// The Swift lowered so far for swift-echo, and the script and journal it has read.
  var swiftEcho: EchoState?

  /// Creates an interpreter with a fresh world.
  public init(options: ShellOptions = ShellOptions()) {
    self.options = options
    history = SessionHistory(world: Self.freshWorld(options.platform))
  }

  static func freshWorld(_ platform: Platform) -> World {
    var w = World(platform: platform)
    _ = try? w.createQueue(name: "queue")
    return w
  }

  /// The world now, lent in place: a copy of a `World` retains every array it holds, and
  /// a script line reads the world a dozen times (#34).
  public var world: World {
    _read { yield history.sim.world }
  }

  /// Whether a what-if branch is open.
  public var inFork: Bool { history.inFork }

  /// The names the parser may refer to (a fresh context each time: see ``ParseContext/init(world:)``).
  public var context: ParseContext {
    ParseContext(world: world, declared: history.declaredQueue)
  }

  /// Tab completion for the line up to the cursor.
  public func completions(for prefix: String) -> [String] {
    Parser.completions(for: prefix, context: context)
  }

  /// Asked between ticks during long runs (Ctrl-C); set for the duration of one line.
  var interrupt: Interrupt?

  /// Runs one line. An erroneous line changes nothing.
  /// - Parameter interrupt: asked between ticks during long runs; `true` stops the run there.
  public func execute(_ line: String, interrupt: Interrupt? = nil) -> Reply {
    let outer = self.interrupt
    if let interrupt { self.interrupt = interrupt }
    defer { self.interrupt = outer }
    // Parsed on the world where it is, not on a copy of it (see ``ParseContext/LentWorld``).
    let declared = history.declaredQueue
    var command: Command?
    var failure: ParseError?
    history.sim.withWorldInPlace { world in
      do throws(ParseError) {
        command = try Parser.parse(line, context: ParseContext(lent: world, declared: declared))
      } catch {
        failure = error
      }
    }
    if let error = failure {
      return Reply(error: Diagnostic(column: error.column, length: error.length, message: error.message, hint: error.hint))
    }
    guard let command else { return Reply() }
    let traceMark = world.trace.count
    var reply = dispatch(command, line: line)
    // Drawings are fitted as they are drawn; everything else is wrapped here, once.
    if !reply.colorable, !reply.preformatted { reply.output = Wrap.text(reply.output, width: options.width, ascii: options.ascii) }
    if options.ascii { reply.output = ASCIIFold.fold(reply.output) }
    reply.warnings = warningLines(in: reply.output, after: command, eventsFrom: traceMark)
    return reply
  }

  private func dispatch(_ command: Command, line: String) -> Reply {
    do {
      let traits = command.traits
      let journalBefore = sim.journal.count, before = (tick: world.now, traced: world.trace.endIndex)
      interruptedRun = false
      history.redidTravel = false
      var reply = try run(command, line: line)
      // A command that performed nothing (`queue q` on an existing queue) is not worth replaying.
      // A clock command stopped by Ctrl-C is journalled as a run to the tick it reached,
      // and is saved as that (the command itself would replay further).
      let scriptBefore = script.count
      if reply.error == nil, traits.changesWorld, sim.journal.count > journalBefore {
        try history.record(Self.canonical(line), journalBefore: journalBefore, interrupted: interruptedRun)
        let echo = options.swiftEcho ? echoedSwift(scriptBefore: scriptBefore, journalBefore: journalBefore, before: before) : ""
        if !echo.isEmpty {
          // The echo is code, laid out already: the output is fitted before it, not with it.
          if !reply.colorable, !reply.preformatted { reply.output = Wrap.text(reply.output, width: options.width, ascii: options.ascii) }
          reply.output += echo
          reply.preformatted = true
        }
      }
      if keepsJournal, reply.error == nil { journal(command, line: line, scriptBefore: scriptBefore) }
      if reply.error == nil { history.settle(forgetsUndone: traits.forgetsUndone, keepsTravel: traits.keepsTravel) }
      switch traits.effect {
      case .looks, .session, .changesWorld, .runsScript: break
      default: swiftEcho?.scriptCount = -1
      }
      if case .quit = command { reply.quit = true }
      reply.pageable = traits.pages
      return reply
    } catch let error as SimulationError {
      // The line is split again only for an error's column.
      let tokens = Lexer.tokens(line)
      let argumentColumn = tokens.dropFirst().first?.column ?? 1
      let argumentLength = tokens.dropFirst().first?.text.count ?? 1
      // An error about a tick points at the number typed for it (`tap at 3`: at the 3).
      let about = error.tick.flatMap { t in tokens.dropFirst().last { $0.text == String(t) } }
      return Reply(
        error: Diagnostic(
          column: about?.column ?? argumentColumn, length: about?.length ?? argumentLength, message: error.description,
          hint: error.hint))
    } catch let error as Diagnostic {
      return Reply(error: error)
    } catch {
      return Reply(error: Diagnostic(column: 1, message: "\(error)"))
    }
  }

  /// The lines a session journal keeps, replayed in order by `oplab --recover`: what
  /// happened rather than what was typed. A command that changed the world is kept as
  /// `save` writes it (a run stopped by Ctrl-C as `run until T`, a sourced file as its
  /// lines, each kept as it ran); time travel and branches as typed, since from the same
  /// world they do the same again.
  private func journal(_ command: Command, line: String, scriptBefore: Int) {
    let traits = command.traits
    if traits.journalledAsTyped || (traits.effect == .givesBack && redidTravel) {
      // A `redo` that gave back what time travel dropped is replayed after it, the same.
      pendingJournal.append(Self.canonical(line))
    } else if traits.effect == .givesBack || traits.effect == .runsScript {
      // Its lines were journalled as they ran (a failed one's too: see ``source(_:column:)``).
    } else if script.count > scriptBefore {
      pendingJournal += script.elements(from: scriptBefore).map(\.text)
    }
  }

  /// The journal lines of the commands run since the last call (see ``keepsJournal``);
  /// a `source` that stopped at an error or Ctrl-C gives the lines that did run.
  public func takeJournal() -> [String] {
    defer { pendingJournal.removeAll() }
    return pendingJournal
  }

  static func canonical(_ line: String) -> String {
    Lexer.canonical(line)
  }

  // MARK: - Commands

  func op(_ name: String) throws -> OpID {
    guard let id = world.operationID(named: name) else { throw SimulationError.unknownOperation(name) }
    return id
  }

  func queue(_ name: String) throws -> QueueID {
    guard let id = world.queueID(named: name) else { throw SimulationError.unknownQueue(name) }
    return id
  }

  /// Performs actions and echoes the events they caused.
  func perform(_ actions: [Action]) throws -> (String, [ActionResult]) {
    let mark = world.trace.end
    var results: [ActionResult] = []
    for action in actions { results.append(try history.sim.perform(action, interrupt: interrupt)) }
    if results.contains(.verdict(.interrupted)) { interruptedRun = true }
    return (echo(from: mark), results)
  }

  /// What a wait from the main thread leaves behind: a main thread still blocked.
  func waitNotes(_ result: ActionResult?, fromMain: Bool, until: Tick?) -> String {
    var text = ""
    if until != nil, fromMain, let wait = world.mainThreadWait, !world.operation(wait).isFinished {
      text += "  the wait has not returned: the main thread stays blocked, and later runs go on waiting\n"
    }
    if fromMain, case .verdict(.stalled)? = result {
      text += "  the main thread stays blocked, so the app is frozen for good: `undo` takes the wait back\n"
    }
    return text
  }

  /// Set when a clock action of the command being run was interrupted (see `dispatch`).
  var interruptedRun = false
  /// The trace's events the last echo read (from `start` to `end`) and the cycles closed
  /// among them: what the command's warnings need, unless it performed more since.
  var echoedEvents: (start: Int, end: Int, cycles: [Event])?

  /// `machine` alone: the cores and what runs on them now.
  func machineText() -> String {
    var out = "  cores: \(world.cores.map(String.init) ?? "unlimited")\n"
    if let cores = world.cores {
      let load = world.cpuLoad
      out +=
        "  now: \(load.units) \(load.units == 1 ? "unit" : "units") of work running, "
        + "\(Exporters.coresText(load.used)) of \(cores) \(cores == 1 ? "core" : "cores") busy\n"
    }
    out += "  weights: background 1, utility 2, default 4, userInitiated 8, userInteractive 16\n"
    if let f = world.frames {
      out += "  frames: every \(f.every) \(f.every == 1 ? "tick" : "ticks"), next at t=\(f.next)\(f.until.map { ", until t=\($0)" } ?? "")\n"
    }
    return out
  }

  private func run(_ command: Command, line: String) throws -> Reply {
    switch command {
    case .queue(let name, let max, let qos):
      return try queueCommand(name, max: max, qos: qos)
    case .op(let def):
      return try define(def)
    case .add(let names, let to, let wait):
      return try add(names, to: to, wait: wait, line: line)
    case .start(let name):
      return try start(name)
    case .blocks(let name, let ticks):
      return Reply(output: try perform([.addExecutionBlock(try op(name), duration: ticks)]).0)
    case .open(let gate):
      return Reply(output: try perform([.openGate(gate)]).0)
    case .depend(let name, let deps):
      return try depend(name, on: deps)
    case .undepend(let name, let dep):
      return Reply(output: try perform([.removeDependency(try op(name), on: try op(dep))]).0)
    case .priority(let name, let p):
      return Reply(output: try perform([.setPriority(try op(name), p)]).0)
    case .qos(let target, let qos):
      if let id = world.operationID(named: target) { return Reply(output: try perform([.setOperationQualityOfService(id, qos)]).0) }
      return Reply(output: try perform([.setQueueQualityOfService(try queue(target), qos)]).0)
    case .max(let name, let setting):
      let out = try perform([.setMaxConcurrent(try queue(name), setting.value)]).0
      return Reply(output: out + (setting == .count(0) ? LabWarnings.maxZeroNote(name) + "\n" : ""))
    case .cancel(let name):
      return Reply(output: try perform([.cancel(try op(name))]).0)
    case .cancelAll(let name):
      let queues = try name.map { [try queue($0)] } ?? world.queueIDs
      return Reply(output: try perform(queues.map { .cancelAll($0) }).0)
    case .suspend(let name):
      return Reply(output: try perform([.suspend(try queue(name))]).0)
    case .resume(let name):
      return Reply(output: try perform([.resume(try queue(name))]).0)
    case .barrier(let name, let takes):
      return Reply(output: try perform([.addBarrier(try queue(name), duration: takes)]).0 + LabWarnings.sharedBarrierNote(name, in: world))
    case .wait(let name, let fromMain, let until):
      return try wait(for: name, fromMain: fromMain, until: until)
    case .machine(let cores):
      guard let cores else { return Reply(output: machineText()) }
      let (out, _) = try perform([.setCores(cores)])
      return Reply(output: out)
    case .tap(let at):
      let (out, _) = try perform([.tap(at: at ?? world.now)])
      return Reply(output: out)
    case .variable, .lock, .dispatchQueue, .underlying:
      return try worldObjectCommand(command)
    case .frames(let every, let from, let to):
      let (out, _) = try perform([.frames(every: every, from: from, until: to)])
      return Reply(output: out)
    case .step(let n):
      let (out, results) = try perform([.step(n)])
      return Reply(output: out + (results.first == .verdict(.interrupted) ? verdictText(results.first) : "  now t=\(world.now)\n"))
    case .run(let target):
      return try runClock(until: target)
    case .back(let n):
      return Reply(output: try history.back(n))
    case .goto(let t):
      return Reply(output: try history.goto(t, column: argumentColumn(line)))
    case .undo:
      return Reply(output: try history.undo())
    case .redo:
      switch try history.redo() {
      case .travel(let text):
        return Reply(output: text)
      case .command(let text):
        history.isRedoing = true
        let again = execute(text, interrupt: interrupt)
        history.isRedoing = false
        if let error = again.error {  // not expected: the world is the one it ran in before
          history.putBack(text)
          throw error
        }
        return Reply(output: "  redid `\(text)`\n" + again.output, colorable: again.colorable)
      }
    case .clear:
      var reply = Reply()
      reply.clearScreen = true
      return reply
    case .fork:
      return Reply(output: history.fork())
    case .unfork:
      return Reply(output: try history.unfork())
    case .timeline(let names, let from, let to):
      return try timeline(names, from: from, to: to)
    case .events(let name):
      let out = EventLog.render(world, only: try name.map(op))
      return Reply(output: out.isEmpty ? "no events yet\n" : out)
    case .why(let name):
      return Reply(output: Why.render(try op(name), in: world))
    case .slots(let name):
      return Reply(output: Slots.render(world, queue: try queue(name)))
    case .narrate(let name):
      return Reply(output: Narrate.render(world, only: try name.map(op)))
    case .status:
      return Reply(output: Status.render(world))
    case .races:
      return Reply(output: Races.render(world))
    case .explore(let limit, let expectation, let bound):
      return explore(limit: limit, expect: expectation, preemptions: bound)
    case .choose(let choices):
      return try choose(choices, line: line)
    case .chooseBack:
      return Reply(output: try history.chooseBack(column: argumentColumn(line)))
    case .order(let choices) where choices.isEmpty:
      return orderInForce()
    case .order(let choices):
      let (out, _) = try perform([.setStepOrder(choices.allSatisfy { $0 == 0 } ? [] : choices)])
      let text =
        choices.allSatisfy { $0 == 0 }
        ? "  the open points take the normal order again\n"
        : "  the next \(choices.count) open \(choices.count == 1 ? "point takes" : "points take") the choices \(choices.map(String.init).joined(separator: ","))\n"
      return Reply(output: text + out)
    case .graph:
      return Reply(output: Graph.render(world))
    case .swift(let name):
      if let name, world.operationID(named: name) == nil, world.queueID(named: name) == nil {
        throw SimulationError.unknownOperation(name)
      }
      return Reply(output: SwiftCode.render(swiftSource(), focus: name), preformatted: true)
    case .set(let echo):
      return setting(swiftEcho: echo)
    case .real(let ms):
      return try real(msPerTick: ms, line: line)
    case .export(let kind, let file):
      return try export(kind, to: file, line: line)
    case .save(let file):
      return try save(to: file, line: line)
    case .source(let file):
      return try sourceCommand(file, line: line)
    case .reset:
      return try reset()
    case .platform(let p):
      guard let p else {
        let what = world.platform == .apple ? "Darwin's documented behaviour (iOS, macOS)" : "swift-corelibs-foundation on Linux"
        return Reply(output: "  platform \(world.platform.rawValue): \(what); `platform apple|linux` switches\n")
      }
      return Reply(output: try perform([.setPlatform(p)]).0)
    case .help(let name):
      return Reply(output: Help.render(name, width: options.width))
    case .quit:
      return Reply()
    }
  }

  /// Where a command's first argument starts, for an error about it.
  func argumentColumn(_ line: String) -> Int { Lexer.tokens(line).dropFirst().first?.column ?? 1 }

  /// "a", "a and b", "a, b and c".
  static func listed(_ items: [String]) -> String {
    items.count <= 2 ? items.joined(separator: " and ") : items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
  }

  func verdictText(_ result: ActionResult?) -> String {
    guard case .verdict(let v)? = result else { return "" }
    switch v {
    case .idle: return Verdicts.idle(in: world)
    case .reached: return "  now t=\(world.now)\n"
    case .capped: return "  stopped at t=\(world.now)\n"
    case .interrupted: return "  interrupted at t=\(world.now); the world is as it was at that tick\n"
    case .stalled(let d): return Verdicts.stalled(d, in: world)
    }
  }
}
