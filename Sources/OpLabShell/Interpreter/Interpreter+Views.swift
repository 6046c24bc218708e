import OpLabCore
import OpLabRender
import OpLabSwift

/// The commands that look at the world, explore it, or set the lab: they change nothing.
extension Interpreter {
  /// `timeline [QUEUE…] [from T] [to T]`.
  func timeline(_ names: [String], from: Int?, to: Int?) throws -> Reply {
    if let from, let to, to < from {
      throw Diagnostic(column: 1, message: "the window ends (t=\(to)) before it starts (t=\(from))")
    }
    if let from, from > world.now {
      throw Diagnostic(
        column: 1, message: "tick \(from) has not happened yet (the clock is at \(world.now))",
        hint: "step or run first, or pick an earlier `from`")
    }
    // Named queues are drawn from their first activity (Timeline says so in its title).
    let queues = try names.map(queue)
    let text = Timeline.render(world, queues: queues, from: from, to: to, width: options.width, ascii: options.ascii)
    return Reply(output: text, colorable: true)
  }

  /// `explore [N] [expect …]`: every order of the open points, with a progress line on a
  /// terminal; with `expect`, the order of fewest choices that breaks it is loaded (see
  /// ``SessionHistory/loadOrder(_:)``).
  func explore(limit: Int?, expect expectation: ExploreExpectation? = nil, preemptions bound: Int? = nil) -> Reply {
    guard world.shared != nil else { return Reply(output: Races.explorationText(Exploration(), in: world, script: [])) }
    defer { progress?(nil) }
    let journal = Array(sim.journal), origin = sim.origin, cap = limit ?? World.exploreLimit
    // Too big to finish within the cap: said up front (a note kept above the progress line), and in the summary.
    var tooBig: String?
    if bound == nil {
      let estimate = World.exploreEstimate(journal, from: origin, interrupt: interrupt)
      if estimate.runs > Double(cap) {
        tooBig = Races.tooBigText(estimate, cap: cap)
        progress?(tooBig)
      }
    }
    let started = ContinuousClock.now, width = options.width
    let e = World.explore(
      journal, from: origin, limit: cap, expect: expectation, preemptions: bound, interrupt: interrupt,
      progress: progress.map { report in
        { p in
          let elapsed = (ContinuousClock.now - started).components
          let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
          let rate = seconds > 0 ? " (\(Int(Double(p.orders) / seconds)) a second)" : ""
          let text =
            "exploring: \(p.orders) distinct \(p.orders == 1 ? "order" : "orders")\(rate) in \(p.runs) runs, at choice \(p.depth) of \(p.openPoints)"
          // The hint only where it fits: the counts are what the line is for.
          let hint = "; Ctrl-C keeps what was found"
          report(text + (text.count + hint.count <= width - 3 ? hint : ""))
        }
      })
    // Without a terminal or a script around it (a lesson, a test), the note leads the summary.
    var out = (progress == nil ? tooBig ?? "" : "") + Races.explorationText(e, in: world, script: script.map(\.text))
    if let expectation {
      out += Races.expectationText(e, expectation)
      if let broken = e.shortestBroken {
        do {
          out += try history.loadOrder(broken.choices)
        } catch {
          out += "  (not loaded: \(error))\n"
        }
      }
    }
    return Reply(output: out)
  }

  /// `choose [K,…]`: shows the next open point, or makes the choices there one after another.
  func choose(_ choices: [Int], line: String) throws -> Reply {
    guard world.shared != nil else {
      return Reply(output: "  nothing to choose: no operation works on shared state (`var`, `lock`, `op … does …`)\n")
    }
    var out = ""
    for (n, k) in choices.enumerated() {
      guard let point = world.nextOpenPoint() else {
        if n == 0 {
          throw Diagnostic(
            column: argumentColumn(line), length: 1, message: "no open point comes from here", hint: "`choose` alone says so; `run` goes on")
        }
        let unused = choices[n...].map(String.init).joined(separator: ",")
        out += "  no open point is left for \(choices.count - n == 1 ? "choice" : "choices") \(unused): not used\n"
        break
      }
      guard k < point.options else {
        throw Diagnostic(
          column: argumentColumn(line), length: 1,
          message: "the open point at t=\(point.tick) has choices 0 to \(point.options - 1), not \(k)",
          hint: "`choose` alone lists them")
      }
      // The point's tick is the one its steps take; they run (and it is decided) as it ends.
      out += try perform([.chooseNext(k), .runUntil(point.tick + 1)]).0
      if interruptedRun { break }  // Ctrl-C: the choices after this one are not made
    }
    return Reply(output: out + Races.openPointText(world.nextOpenPoint(), in: world))
  }

  /// `order` alone: the choices in force, those made so far and those still to come.
  func orderInForce() -> Reply {
    // `order` alone: the choices in force, those made so far and those still to come.
    guard let order = world.shared?.order, !order.script.isEmpty || !order.taken.isEmpty else {
      return Reply(output: "  no choices in force: every open point takes the normal order (choice 0)\n")
    }
    let made = order.taken.map { "\($0.chosen) at t=\($0.tick)" }
    let ahead = order.script.dropFirst(order.taken.count).map(String.init)
    var text = made.isEmpty ? "" : "  made so far: " + made.joined(separator: ", ") + "\n"
    if !ahead.isEmpty { text += "  still to come: " + ahead.joined(separator: ",") + " (then 0)\n" }
    return Reply(output: text + "  `order 0` goes back to the normal order\n")
  }

  /// `set [swift-echo on|off]`.
  func setting(swiftEcho echo: Bool?) -> Reply {
    guard let echo else {
      return Reply(output: "  swift-echo \(options.swiftEcho ? "on" : "off"): `set swift-echo on|off` switches\n")
    }
    options.swiftEcho = echo
    return Reply(
      output: echo
        ? "  swift-echo on: each command that changes the world is followed by its Swift\n"
        : "  swift-echo off\n")
  }

  /// `real [N]`: the world on Foundation's OperationQueue, N ms a tick.
  func real(msPerTick ms: Int?, line: String) throws -> Reply {
    let column = Lexer.tokens(line).dropFirst().first?.column ?? 1
    defer { progress?(nil) }
    let text = try RealComparison.run(
      source: swiftSource(), world: world, ms: ms ?? 50, at: column, width: options.width, ascii: options.ascii,
      interrupt: interrupt, progress: progress)
    return Reply(output: text)
  }
}
