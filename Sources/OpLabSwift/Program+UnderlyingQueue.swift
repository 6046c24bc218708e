import OpLabCore

extension SwiftCode.Program {
  /// A `DispatchQueue` made for `underlyingQueue`, or a queue's `underlyingQueue` set.
  mutating func underlyingQueue(_ action: Action, into draft: inout Draft) {
    switch action {
    case .createDispatchQueue(let name, let concurrent, let qos):
      let arguments =
        [SwiftCode.literal(name)].map { "label: \($0)" } + (qos.map { ["qos: .\($0)"] } ?? [])
        + (concurrent ? ["attributes: .concurrent"] : [])
      draft.lines.append(
        "let \(SwiftCode.variable(name)) = DispatchQueue(\(arguments.joined(separator: ", ")))"
          + (concurrent ? "" : "  // serial: one work item at a time"))
      call(.makeDispatchQueue(name, concurrent: concurrent, qos))
    case .setUnderlyingQueue(let q, let d):
      let name = world.name(q)
      draft.lines += declareByName(name)
      draft.names.insert(name)
      let set = "\(queue(name)).underlyingQueue = \(d.map { SwiftCode.variable(world.dispatchQueueName($0)) } ?? "nil")"
      if name == "main" {
        // Corelibs ignores it; Darwin documents that it cannot be set: not written as code.
        draft.lines += ["// \(set)", "// (not done: the main queue's underlying queue is the main thread's dispatch queue)"]
      } else {
        // The lab set it on an empty queue; the program makes sure of it, as the setter crashes
        // (Darwin: raises) while the queue has operations, even one finishing at that instant.
        if busy.contains(name) { draft.lines.append("\(queue(name)).waitUntilAllOperationsAreFinished()  // the setter needs an empty queue") }
        draft.lines.append(set)
        call(.setUnderlyingQueue(name, d.map(world.dispatchQueueName)))
      }
    default:
      return
    }
    draft.shown = true
  }
}
