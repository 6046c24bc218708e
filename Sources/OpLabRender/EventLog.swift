import OpLabCore

/// The event log: one line per trace event, with its tick and reason.
///
/// A pure function of the world's trace. Timelines and the richer views come with
/// the "Timeline diagrams" issue; this plain log is what the shell shows until then.
public enum EventLog {
  /// Renders the trace, or only the events about one operation.
  /// - Parameters:
  ///   - world: the world whose trace is shown.
  ///   - op: when given, only events about this operation.
  /// - Returns: one line per event, each ending in a newline.
  public static func render(_ world: World, only op: OpID? = nil) -> String {
    var out = ""
    for (seq, event) in world.trace.enumerated() where op == nil || event.op == op {
      out += "t=\(event.tick) #\(seq) \(world.describe(event))\n"
    }
    return out
  }
}
