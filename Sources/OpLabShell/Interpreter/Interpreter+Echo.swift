import OpLabCore

extension Interpreter {
  /// The events since `mark`, one line each, as a command that changed the world shows
  /// them (at most ``echoLimit``): taps' and frames' bookkeeping and load changes left out,
  /// shares that one change gave several jobs at once on one line.
  func echo(from mark: Int) -> String {
    let events = world.trace.events(from: mark).filter { e in
      // Taps and frames would fill the screen with their bookkeeping: show when they run.
      if let op = e.op, let work = world.operation(op).mainThreadWork, work == .tap || work == .frame {
        switch e.kind {
        case .created: return work == .tap
        case .enqueued, .ready: return false
        default: return true
        }
      }
      switch e.kind {
      case .cpuLoad: return false
      case .created, .queueCreated: return e.reason != .command
      default: return true
      }
    }
    var out = ""
    // Shares that one change gave several jobs at once read as one line, not one per job.
    var k = 0
    let shown = Array(events.prefix(Self.echoLimit))
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
          let names = group.compactMap { $0.op.map { world.name($0) } }
          let list =
            names.count > 4
            ? names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more"
            : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
          out += "  t=\(e.tick)  \(list) run at \(Machine.describe(share)) each: \(world.explain(e.reason))\n"
          k += group.count
          continue
        }
      }
      out += "  t=\(e.tick)  \(world.describe(e))\n"
      k += 1
    }
    if events.count > Self.echoLimit {
      out += "  … and \(events.count - Self.echoLimit) more events (see `events`)\n"
    }
    return out
  }
}
