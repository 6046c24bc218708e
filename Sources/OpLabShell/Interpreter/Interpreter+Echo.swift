import OpLabCore

extension Interpreter {
  /// The events from `mark`, one line each, as a command that changed the world shows
  /// them (see ``World/echo(_:limit:)``); the cycles they closed are kept for the
  /// command's warnings (``warningLines(in:after:eventsFrom:)``), which need not decode
  /// the events again.
  func echo(from mark: Trace.Position) -> String {
    // An interrupted wait is replayed on a world rebuilt from the journal: read it by index.
    // The world is read where it is stored: through ``world``, the call copied it.
    let byIndex = interruptedRun
    let echoed = history.sim.withWorldBorrowed { world in
      let events = byIndex ? world.trace.events(from: mark.index) : world.trace.events(from: mark)
      return world.echo(events, limit: Self.echoLimit)
    }
    echoedEvents = (start: mark.index, end: world.trace.count, cycles: echoed.cycles)
    return echoed.text
  }
}

extension World {
  /// `events` one line each, as a command that changed the world shows them (at most
  /// `limit`): taps' and frames' bookkeeping and load changes left out, shares that one
  /// change gave several jobs at once on one line; and the cycles closed among them, shown
  /// or not. Written on the world so that its loop reads the world borrowed, once, where
  /// each `describe` called on the interpreter's world copied the `World` value (#34).
  func echo(_ events: some Sequence<Event>, limit: Int) -> (text: String, cycles: [Event]) {
    var cycles: [Event] = []
    var shown: [Event] = []
    shown.reserveCapacity(8)  // a script line shows two or three: made once, not grown
    var total = 0
    for e in events {
      if case .cycleClosed = e.kind { cycles.append(e) }
      // Taps and frames would fill the screen with their bookkeeping: show when they run.
      let kept: Bool
      if let op = e.op, let work = operation(op).mainThreadWork, work == .tap || work == .frame {
        switch e.kind {
        case .created: kept = work == .tap
        case .enqueued, .ready: kept = false
        default: kept = true
        }
      } else {
        switch e.kind {
        case .cpuLoad: kept = false
        case .created, .queueCreated: kept = e.reason != .command
        default: kept = true
        }
      }
      guard kept else { continue }
      total += 1
      if shown.count < limit { shown.append(e) }
    }
    // The text is made as UTF-8 bytes, then one string: appending to a `String` took
    // about 340 instructions a piece, five pieces a line (#34).
    var out: [UInt8] = []
    out.reserveCapacity(shown.count * 64)
    // Shares that one change gave several jobs at once read as one line, not one per job.
    var k = 0
    while k < shown.count {
      let e = shown[k]
      if case .cpuShare(let share) = e.kind, e.op != nil {
        var group = [e]
        while k + group.count < shown.count, case .cpuShare(share) = shown[k + group.count].kind,
          shown[k + group.count].tick == e.tick, shown[k + group.count].reason == e.reason, shown[k + group.count].op != nil
        {
          group.append(shown[k + group.count])
        }
        if group.count > 1 {
          let names = group.compactMap { $0.op.map { name($0) } }
          let list =
            names.count > 4
            ? names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more"
            : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
          out.append(contentsOf: "  t=\(e.tick)  \(list) run at \(Machine.describe(share)) each: \(explain(e.reason))\n".utf8)
          k += group.count
          continue
        }
      }
      out.appendUTF8("  t=" as StaticString)
      out.appendDecimal(e.tick)
      out.appendUTF8("  " as StaticString)
      describe(e, into: &out)
      out.append(0x0A)
      k += 1
    }
    if total > limit {
      out.append(contentsOf: "  … and \(total - limit) more events (see `events`)\n".utf8)
    }
    return (String(decoding: out, as: UTF8.self), cycles)
  }
}
