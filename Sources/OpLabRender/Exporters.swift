import OpLabCore

/// Exports: text for people, and formats that real viewers open.
public enum Exporters {
  /// Chrome/Perfetto trace-event JSON: one process per queue, one thread per operation,
  /// complete ("X") events for execution and completion blocks, instants for cancels.
  /// One tick is shown as one millisecond.
  public static func chromeTrace(_ world: World) -> String {
    var events: [String] = []
    for q in world.queueIDs {
      events.append(#"{"name":"process_name","ph":"M","pid":\#(q.index + 1),"args":{"name":\#(json(world.name(q)))}}"#)
    }
    for op in world.operationIDs {
      let r = world.operation(op)
      let pid = (r.queue?.index ?? -1) + 1
      let tid = op.index + 1
      events.append(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(tid),"args":{"name":\#(json(r.name))}}"#)
      if let s = r.startedAt {
        let end = r.finishedAt ?? world.now
        let outcome = r.outcome.map { "\($0)" } ?? "running"
        events.append(
          #"{"name":\#(json(r.name)),"cat":"operation","ph":"X","ts":\#(s * 1000),"dur":\#((end - s) * 1000),"pid":\#(pid),"tid":\#(tid),"args":{"outcome":\#(json(outcome))}}"#)
      }
    }
    for e in world.trace {
      guard let op = e.op else { continue }
      let pid = (world.operation(op).queue?.index ?? -1) + 1
      let tid = op.index + 1
      switch e.kind {
      case .cancelRequested, .cancelObserved, .ready:
        let name = e.kind == .ready ? "ready" : e.kind == .cancelRequested ? "cancel requested" : "saw isCancelled"
        events.append(
          #"{"name":\#(json(name)),"ph":"i","s":"t","ts":\#(e.tick * 1000),"pid":\#(pid),"tid":\#(tid),"args":{"why":\#(json(world.describe(e)))}}"#)
      case .completionStarted:
        let end = world.trace.first { $0.op == op && $0.kind == .completionFinished }?.tick ?? world.now
        events.append(
          #"{"name":\#(json(world.name(op) + " completion")),"cat":"completion","ph":"X","ts":\#(e.tick * 1000),"dur":\#((end - e.tick) * 1000),"pid":\#(pid),"tid":\#(tid)}"#)
      default: break
      }
    }
    return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n]}\n"
  }

  /// A Mermaid `gantt` chart: one section per queue, one bar per operation that started.
  public static func mermaid(_ world: World) -> String {
    var out = "gantt\n  title OpLab timeline (1 tick = 1 ms)\n  dateFormat x\n  axisFormat %L\n"
    for q in world.queueIDs {
      let ops = world.operationIDs.filter { world.operation($0).queue == q && world.operation($0).startedAt != nil }
      guard !ops.isEmpty else { continue }
      out += "  section \(mermaidText(world.name(q)))\n"
      for op in ops {
        let r = world.operation(op)
        let s = r.startedAt ?? 0
        let end = max(r.finishedAt ?? world.now, s)
        let tag = switch r.outcome {
        case .cancelled?, .bailed?: "crit, "
        case .failed?: "crit, "
        case .succeeded?: "done, "
        case nil: "active, "
        }
        out += "  \(mermaidText(r.name)) :\(tag)\(s), \(end == s ? s + 1 : end)\n"
      }
    }
    return out
  }

  static func json(_ s: String) -> String {
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

  static func mermaidText(_ s: String) -> String {
    String(s.map { $0 == ":" || $0 == "#" || $0 == ";" ? "_" : $0 })
  }
}
