// Fuzz target (b): the parser and the interpreter on a fresh world.
//
// The input is split into lines (at most `maxLines`), and each runs with
// `Interpreter().execute(line, interrupt:)`, as `oplab run FILE` would, stopping at `quit`.
// The size of the input picks the drawing options, so mutations reach both: odd sizes
// draw in ASCII, and bits 1-2 pick the width (80, 40, 57 or 132 columns).
//
// Bounding the work: durations are capped by the lab at 2^40 ticks and the clock at 2^62,
// but a `run` over a long operation that polls isCancelled every tick wakes up once per
// tick. Every clock command gets the same interrupt closure, which the simulator asks
// after every 1024 wake-ups (when the clock moves); after `maxChecks` questions per input
// it answers "stop", exactly like Ctrl-C in the shell. Time travel (back, goto, undo)
// replays the journal without an interrupt, but it never replays more than the runs
// already did, so an input costs at most ~maxLines x maxChecks x 1024 wake-ups.
//
// Lines that would touch the file system are not run: `save` and `source` are skipped,
// and `export KIND FILE` renders what it would write without writing it.
//
// Properties checked besides "does not crash":
//  1. After every line, `World.invariantViolations()` is empty.
//  2. A line that fails changes nothing (the journal and the trace keep their length),
//     as `Interpreter.execute` documents.
//  3. `timeline` output fits the width (`Timeline.render` documents "every line at most
//     `width` columns").
//  4. At the end: replaying `interpreter.script` (what `save` would write; a run the
//     budget interrupted is saved as a run to the tick it reached) in a fresh
//     interpreter runs without an error and gives the same
//     clock, the same trace (event by event), the same names and the same `status`.
//     Set OPLAB_FUZZ_NO_REPLAY=1 to skip this check.

import OpLabCore
import OpLabRender
import OpLabShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let maxLines = 128
private let maxChecks = 16
private let replayCheck = getenv("OPLAB_FUZZ_NO_REPLAY") == nil

private final class Budget {
  var questions = 0
  var fired = false
}

private func options(forSize size: Int) -> ShellOptions {
  var o = ShellOptions()
  o.ascii = size & 1 == 1
  o.width = [80, 40, 57, 132][(size >> 1) & 3]
  o.widthGiven = true
  return o
}

private func render(_ kind: ExportKind, _ world: World, _ o: ShellOptions) -> String {
  switch kind {
  case .timeline: Timeline.render(world, width: o.width, ascii: o.ascii)
  case .events: Exporters.eventsJSONLines(world)
  case .trace: Exporters.chromeTrace(world)
  case .mermaid: Exporters.mermaid(world)
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInterpreter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = Fuzz.text(data, size)
  let lines = Fuzz.lines(text)
  guard lines.count <= maxLines else { return -1 }
  let o = options(forSize: size)
  let interpreter = Interpreter(options: o)
  let budget = Budget()
  let interrupt: Interrupt = {
    budget.questions += 1
    if budget.questions > maxChecks { budget.fired = true }
    return budget.fired
  }
  var ran: [String] = []
  for line in lines {
    let command = try? Parser.parse(line, context: interpreter.context)
    switch command {
    case .save?, .source?:
      continue
    case .export(let kind, _)?:
      _ = render(kind, interpreter.world, o)
      continue
    default:
      break
    }
    ran.append(line)
    let journalBefore = interpreter.sim.journal.count
    let traceBefore = interpreter.world.trace.count
    let reply = interpreter.execute(line, interrupt: interrupt)
    func fail(_ what: String) -> Never {
      Fuzz.fail("\(what)\n==OPLAB-FUZZ== after line \(ran.count)", input: ran.joined(separator: "\n"))
    }
    if let error = reply.error {
      _ = error.pointed(prompt: 10)
      _ = error.located(defaultFile: "<fuzz>", defaultLine: ran.count)
      if interpreter.sim.journal.count != journalBefore || interpreter.world.trace.count != traceBefore {
        fail(
          "the line failed (\(error.message)) but changed the world: journal \(journalBefore) -> \(interpreter.sim.journal.count), trace \(traceBefore) -> \(interpreter.world.trace.count)"
        )
      }
    }
    let problems = interpreter.world.invariantViolations()
    if !problems.isEmpty { fail("invariants broken: " + problems.joined(separator: "; ")) }
    if case .timeline? = command, reply.error == nil {
      for row in reply.output.split(separator: "\n") where Names.width(String(row)) > o.width {
        fail("a timeline row is \(Names.width(String(row))) columns wide, more than \(o.width): \(String(reflecting: String(row)))")
      }
    }
    if reply.quit { break }
  }
  if replayCheck {
    let again = Interpreter(options: o)
    for (i, entry) in interpreter.script.enumerated() {
      let reply = again.execute(entry.text)
      if let error = reply.error {
        Fuzz.fail(
          "replaying the saved script fails at its line \(i + 1) \(String(reflecting: entry.text)): \(error.message)\n==OPLAB-FUZZ== saved script: \(String(reflecting: interpreter.script.map(\.text).joined(separator: "\n")))",
          input: ran.joined(separator: "\n"))
      }
    }
    // Compared as values, not through an export: a JSON export of both traces was a tenth
    // of the target's time.
    let a = again.world, b = interpreter.world
    if a.now != b.now || a.trace != b.trace || a.operationNames != b.operationNames || a.allQueueNames != b.allQueueNames
      || Status.render(a) != Status.render(b)
    {
      Fuzz.fail(
        "replaying the saved script gives another world: t=\(again.world.now) with \(again.world.trace.count) events, not t=\(interpreter.world.now) with \(interpreter.world.trace.count)\n==OPLAB-FUZZ== saved script: \(String(reflecting: interpreter.script.map(\.text).joined(separator: "\n")))",
        input: ran.joined(separator: "\n"))
    }
  }
  return 0
}
