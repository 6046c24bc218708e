import OpLabCore

/// Exports: text for people, and formats that real viewers open.
public enum Exporters {
  /// The length of one tick in exported traces: 1 ms (1000 µs).
  public static let microsecondsPerTick = 1_000

  // MARK: - Events as JSON Lines

  /// One JSON object per event, keys in a fixed order:
  /// `t`, `seq`, `event`, `op`, `queue`, `from`, `to`, `reason`, then `outcome` on `finished`
  /// (`success`, `cancelled`, `failed` or `bailed`) and `detail` where the event carries a value.
  public static func eventsJSONLines(_ world: World) -> String {
    var out = ""
    eventsJSONLines(world, to: &out)
    return out
  }

  /// The same lines, written to `out` one at a time: a big world's export need not be
  /// held in memory whole (the shell streams it to a file).
  public static func eventsJSONLines<Out: TextOutputStream>(_ world: World, to out: inout Out) {
    var line = ""
    for (seq, e) in world.trace.enumerated() {
      line.removeAll(keepingCapacity: true)
      line += "{\"t\":"
      line += String(e.tick)
      line += ",\"seq\":"
      line += String(seq)
      line += ",\"event\":"
      line += json(eventName(e, in: world))
      line += ",\"op\":"
      line += e.op.map { json(world.name($0)) } ?? "null"
      line += ",\"queue\":"
      line += e.queue.map { json(world.name($0)) } ?? "null"
      line += ",\"from\":"
      line += e.from.map { json($0.description) } ?? "null"
      line += ",\"to\":"
      line += e.to.map { json($0.description) } ?? "null"
      line += ",\"reason\":"
      let why = world.explain(e.reason, about: e.op)
      line += json(why.isEmpty ? "command" : why)
      if case .finished(let outcome) = e.kind {
        line += ",\"outcome\":"
        let text =
          switch outcome {
          case .succeeded: "\"success\""
          case .cancelled: "\"cancelled\""
          case .failed: "\"failed\""
          case .bailed: "\"bailed\""
          case .dropped: "\"dropped\""
          }
        line += text
      }
      if let detail = detail(e, in: world) {
        line += ",\"detail\":"
        line += json(detail)
      }
      line += "}\n"
      out.write(line)
    }
  }

  /// The schema's event name. Barrier operations start and finish as `barrierStarted` and `barrierFinished`.
  public static func eventName(_ e: Event, in world: World) -> String {
    let isBarrier = e.op.map { world.operations[Int($0.index)].isBarrier } ?? false
    switch e.kind {
    case .queueCreated: return "queueCreated"
    case .created: return "created"
    case .enqueued: return "enqueued"
    case .ready: return "ready"
    case .unready: return "unready"
    case .dispatched: return "dispatched"
    case .started: return isBarrier ? "barrierStarted" : "started"
    case .skipped: return "skipped"
    case .cancelRequested: return "cancelRequested"
    case .cancelObserved: return "cancelObserved"
    case .finished: return isBarrier ? "barrierFinished" : "finished"
    case .completionStarted: return "completionStarted"
    case .completionFinished: return "completionFinished"
    case .workEnded: return "workEnded"
    case .blockStarted: return "blockStarted"
    case .blockFinished: return "blockFinished"
    case .kvoWillChange: return "willChangeValue"
    case .kvoDidChange: return "didChangeValue"
    case .suspended: return "suspended"
    case .resumed: return "resumed"
    case .maxChanged: return "maxChanged"
    case .priorityChanged: return "priorityChanged"
    case .qualityOfServiceChanged: return "qualityOfServiceChanged"
    case .dependencyAdded: return "dependencyAdded"
    case .dependencyRemoved: return "dependencyRemoved"
    case .cycleClosed: return "cycleWarning"
    case .barrierAdded: return "barrierAdded"
    case .waitStarted: return "waitStarted"
    case .waitEnded: return "waitEnded"
    case .waitStalled: return "waitStalled"
    case .platformChanged: return "platformChanged"
    case .machineChanged: return "machineChanged"
    case .cpuLoad: return "cpuLoad"
    case .cpuShare: return "cpuShare"
    case .tapScheduled: return "tapScheduled"
    case .framesChanged: return "framesChanged"
    case .ignoredOnMainQueue: return "ignoredOnMainQueue"
    case .startCalled: return "startCalled"
    case .executionBlockAdded: return "executionBlockAdded"
    case .gated: return "gated"
    case .gateOpened: return "gateOpened"
    case .variableCreated: return "variableCreated"
    case .lockCreated: return "lockCreated"
    case .variableRead: return "read"
    case .computed: return "computed"
    case .variableWritten: return "write"
    case .lockAcquired: return "lockAcquired"
    case .lockWaiting: return "lockWaiting"
    case .lockReleased: return "lockReleased"
    case .touchedUI: return "touchedUI"
    case .addRefused: return "addRefused"
    case .dispatchQueueCreated: return "dispatchQueueCreated"
    case .underlyingQueueSet: return "underlyingQueueSet"
    }
  }

  static func detail(_ e: Event, in world: World) -> String? {
    switch e.kind {
    case .queueCreated(let max), .maxChanged(let max): max.map(String.init) ?? "default"
    case .priorityChanged(let p): p.description
    case .qualityOfServiceChanged(let q): q.description
    case .dependencyAdded(let d), .dependencyRemoved(let d), .cycleClosed(let d): world.name(d)
    case .blockStarted(let i), .blockFinished(let i): String(i + 1)
    case .kvoWillChange(let key), .kvoDidChange(let key): key.description
    case .platformChanged(let p): p.rawValue
    case .machineChanged(let n): n.map(String.init) ?? "unlimited"
    case .cpuLoad(let used), .cpuShare(let used): coresText(used)
    case .tapScheduled(let t): String(t)
    case .framesChanged(let every): every.map(String.init) ?? "off"
    case .ignoredOnMainQueue(let request): world.code(of: request)
    case .dispatchQueueCreated(let d): "\(world.dispatchQueueName(d)) (\(world.dispatchQueues[Int(d)].summary))"
    case .underlyingQueueSet(let d): d.map(world.dispatchQueueName) ?? "nil"
    case .executionBlockAdded(let t): String(t)
    case .gated(let g), .gateOpened(let g): world.gateName(g)
    case .variableCreated(let v, let value), .variableRead(let v, let value), .variableWritten(let v, let value):
      "\(world.variableName(v))=\(value)"
    case .computed(let n, let result): "\(n)=\(result)"
    case .lockCreated(let l), .lockAcquired(let l), .lockWaiting(let l), .lockReleased(let l): world.lockName(l)
    case .addRefused(let op): world.name(op)
    default: nil
    }
  }

  // MARK: - Chrome / Perfetto trace

  /// Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing open.
  ///
  /// One process per queue (sorted in queue order), one thread per operation (so intervals
  /// never overlap on a lane), `X` events for each state (waiting, ready, executing,
  /// completion), `i` instants for cancel requests, cancel checks, suspension and resumption,
  /// and `M` metadata naming everything. One tick is 1 ms (`ts` in µs).
  public static func chromeTrace(_ world: World) -> String {
    var out = ""
    chromeTrace(world, to: &out)
    return out
  }

  /// The same trace, written to `out` an event at a time.
  public static func chromeTrace<Out: TextOutputStream>(_ world: World, to out: inout Out) {
    let lanes = Lanes(world)
    out.write(
      "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"OpLab\",\"tick\":\"1 tick = 1 ms\",\"now\":\(world.now)},\"traceEvents\":[\n")
    var first = true
    /// Writes one trace event, with the separator the array needs.
    func emit(_ event: String) {
      if !first { out.write(",\n") }
      first = false
      out.write(event)
    }
    func pid(_ q: QueueID?) -> Int { Int(q.map { $0.index + 1 } ?? 0) }
    for q in world.queueIDs {
      emit(#"{"name":"process_name","ph":"M","pid":\#(pid(q)),"args":{"name":\#(json("queue " + world.name(q)))}}"#)
      emit(#"{"name":"process_sort_index","ph":"M","pid":\#(pid(q)),"args":{"sort_index":\#(q.index)}}"#)
    }
    for op in world.operationIDs {
      let r = world.operation(op)
      let p = pid(r.queue), tid = Int(op.index) + 1
      emit(#"{"name":"thread_name","ph":"M","pid":\#(p),"tid":\#(tid),"args":{"name":\#(json(r.name))}}"#)
      emit(#"{"name":"thread_sort_index","ph":"M","pid":\#(p),"tid":\#(tid),"args":{"sort_index":\#(op.index)}}"#)
      for s in lanes.segments[op] ?? [] {
        let name =
          switch s.state {
          case .pending: "waiting on dependencies"
          case .ready: "ready, waiting for a slot"
          case .executing: "executing"
          case .executingCancelled: "executing, cancel requested"
          case .completion: "completion block"
          case .executingShared: "executing on a shared core"
          case .waitingForLock: "waiting for a lock"
          case .heldBehindBarrier: "holding a slot, behind a barrier"
          case .heldOnDispatchQueue: "holding a slot, waiting on a serial dispatch queue"
          }
        emit(
          #"{"name":\#(json(name)),"cat":\#(json(s.state.rawValue)),"ph":"X","ts":\#(micro(s.from)),"dur":\#(micro(s.to - s.from)),"pid":\#(p),"tid":\#(tid),"args":{"op":\#(json(r.name))}}"#
        )
      }
      for m in lanes.marks[op] ?? [] {
        let name: String
        switch m.kind {
        case .cancelRequested: name = "cancel requested"
        case .cancelObserved: name = "saw isCancelled"
        case .skipped: name = "skipped (cancelled)"
        case .finished(let outcome): name = "finished: \(outcome)"
        case .read: name = "read"
        case .wrote: name = "write"
        case .touchedUI: name = "touched the UI"
        case .race: name = "data race"
        case .uiOffMain: name = "ui off the main thread"
        }
        emit(#"{"name":\#(json(name)),"ph":"i","s":"t","ts":\#(micro(m.tick)),"pid":\#(p),"tid":\#(tid)}"#)
      }
    }
    // The CPU model's load as a counter track, in cores.
    for load in lanes.cpuLoad {
      emit(#"{"name":"CPU","ph":"C","ts":\#(micro(load.tick)),"pid":0,"args":{"busy cores":\#(coresText(load.used))}}"#)
    }
    for e in world.trace where e.op == nil {
      guard let q = e.queue, e.kind == .suspended || e.kind == .resumed else { continue }
      emit(#"{"name":\#(json(e.kind == .suspended ? "suspended" : "resumed")),"ph":"i","s":"p","ts":\#(micro(e.tick)),"pid":\#(pid(q))}"#)
    }
    out.write("\n]}\n")
  }

  // MARK: - Mermaid

  /// A Mermaid `gantt` chart: one section per queue, in queue order (operations in no
  /// queue last), each with a bar per state of each of its operations, labelled with the
  /// operation's name.
  ///
  /// - Work is tagged `done` when the operation succeeded, `active` while it runs, and
  ///   `crit` when it was cancelled, failed, returned early or was dropped; work that ran on
  ///   after cancel() was requested is `crit` too.
  /// - Each operation that ended without success gets a `crit, milestone` where it ended,
  ///   saying how: skipped (cancelled before it started), cancelled, failed, returned early,
  ///   dropped. A skipped operation has no work bar, so the milestone is its only mark.
  /// - Each suspension of a queue is a bar `QUEUE suspended` at the top of its section.
  ///
  /// Times are ticks written as seconds (`dateFormat X`, `axisFormat %s`); `todayMarker off`,
  /// since the chart starts in 1970. Task ids are unique whatever the names:
  /// `o<operation>_<n>`, `o<operation>_end`, `q<queue>_s<n>`.
  public static func mermaid(_ world: World) -> String {
    var out = ""
    mermaid(world, to: &out)
    return out
  }

  /// The same chart, written to `out` a line at a time.
  public static func mermaid<Out: TextOutputStream>(_ world: World, to out: inout Out) {
    let lanes = Lanes(world)
    out.write("gantt\n  title OpLab timeline (1 tick = 1 s)\n  dateFormat X\n  axisFormat %s\n  todayMarker off\n")
    let (byQueue, inNoQueue) = world.operationsByQueue()
    var sections: [(name: String, queue: QueueID?, ops: [OpID])] = world.queueIDs.map { (world.name($0), $0, byQueue[Int($0.index)]) }
    sections.append(("in no queue", nil, inNoQueue))
    for section in sections {
      let suspensions = section.queue.flatMap { lanes.suspensions[$0] } ?? []
      let shown = section.ops.filter { lanes.segments[$0] != nil || mermaidEnd(of: $0, in: world, lanes: lanes) != nil }
      guard !suspensions.isEmpty || !shown.isEmpty else { continue }
      out.write("  section \(mermaidText(section.name))\n")
      if let q = section.queue {
        for (i, s) in suspensions.enumerated() {
          out.write("  \(mermaidLabel(world.name(q) + " suspended", what: "queue")) :q\(q.index)_s\(i), \(s.from), \(s.to)\n")
        }
      }
      for op in shown {
        let r = world.operation(op)
        let work: String =
          switch r.outcome {
          case .succeeded?: "done, "
          case .cancelled?, .failed?, .bailed?, .dropped?: "crit, "
          case nil: "active, "
          }
        for (i, s) in (lanes.segments[op] ?? []).enumerated() {
          let (state, tag): (String, String) =
            switch s.state {
            case .pending: ("waiting", "")
            case .ready: ("ready", "")
            case .executing: ("executing", work)
            case .executingCancelled: ("executing, cancel requested", work == "crit, " ? work : "crit, " + work)
            case .completion: ("completion", "")
            case .executingShared: ("executing, sharing a core", work)
            case .waitingForLock: ("waiting for a lock", work)
            case .heldBehindBarrier: ("holding a slot, behind a barrier", "")
            case .heldOnDispatchQueue: ("holding a slot, waiting on a serial dispatch queue", "")
            }
          out.write("  \(mermaidLabel(r.name + " " + state)) :\(tag)o\(op.index)_\(i), \(s.from), \(s.to)\n")
        }
        if let end = mermaidEnd(of: op, in: world, lanes: lanes) {
          out.write("  \(mermaidLabel(r.name + " " + end.how)) :crit, milestone, o\(op.index)_end, \(end.tick), \(end.tick)\n")
        }
      }
    }
  }

  /// How and when an operation ended without success, for its milestone; `nil` when it
  /// succeeded or has not finished.
  static func mermaidEnd(of op: OpID, in world: World, lanes: Lanes) -> (how: String, tick: Tick)? {
    let r = world.operation(op)
    guard let outcome = r.outcome, outcome != .succeeded, let tick = r.finishedAt else { return nil }
    let skipped = (lanes.marks[op] ?? []).contains { $0.kind == .skipped }
    let how =
      switch outcome {
      case .cancelled: skipped ? "skipped (cancelled before it started)" : "cancelled"
      case .failed: "failed"
      case .bailed: "returned early (a dependency was cancelled)"
      case .dropped: "dropped (the main thread was busy)"
      case .succeeded: ""
      }
    return (how, tick)
  }

  // MARK: - Helpers

  /// Work per tick in cores, as a decimal with up to six places: `0.333333`, `1`, `1.5`.
  public static func coresText(_ used: Int64) -> String {
    let whole = used / Machine.subTicks
    var frac = (used % Machine.subTicks) * 1_000_000 / Machine.subTicks
    guard frac > 0 else { return String(whole) }
    var digits = 6
    while frac % 10 == 0 { frac /= 10; digits -= 1 }
    let text = String(frac)
    return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
  }

  /// Ticks as microseconds (1 tick = 1 ms), written as text so huge ticks cannot overflow.
  static func micro(_ ticks: Tick) -> String {
    ticks == 0 ? "0" : "\(ticks)000"
  }

  /// A JSON string literal: quotes, backslashes and control characters escaped.
  public static func json(_ s: String) -> String {
    // Most names and reasons need no escaping: skip the per-scalar copy for them.
    if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) { return "\"" + s + "\"" }
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  /// Text Mermaid's gantt grammar reads as plain text: `:` (it ends a task's name), `#` and
  /// `%` (comments), `;` and line breaks (they end a statement) become `_`.
  static func mermaidText(_ s: String) -> String {
    String(s.map { ":#;%\n\r".contains($0) ? "_" : $0 })
  }

  /// Words that begin a gantt statement: a task whose name began with one, as a whole
  /// word, would be read as that statement (the grammar ignores case).
  static let mermaidKeywords = [
    "gantt", "dateformat", "inclusiveenddates", "topaxis", "axisformat", "tickinterval", "includes", "excludes",
    "todaymarker", "weekday", "weekend", "title", "accdescription", "acctitle", "accdescr", "section", "click", "call",
    "href", "displaymode",
  ]

  /// A task's name as Mermaid reads it: ``mermaidText(_:)``, and `what` (`op`, `queue`)
  /// before a name whose first word is a keyword (an operation named `title`, or `gantt.2`:
  /// `.` ends a word).
  static func mermaidLabel(_ s: String, what: String = "op") -> String {
    let text = mermaidText(s)
    let lower = text.lowercased()
    let clashes = mermaidKeywords.contains { word in
      lower.hasPrefix(word) && !(lower.dropFirst(word.count).first.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false)
    }
    return clashes ? what + " " + text : text
  }
}
