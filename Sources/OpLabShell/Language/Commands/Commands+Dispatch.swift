import OpLabCore

extension CommandTable {
  /// Dispatch queues, and a queue's `underlyingQueue`.
  static let dispatch: [CommandSpec] = [
    CommandSpec(
      name: "dispatch", aliases: [],
      arguments: [.value(.newName, key: .name)],
      options: [.choice([.word("serial"), .word("concurrent")]), .seq([.word("qos"), .value(.qos, key: .qos)])],
      summary: "make a DispatchQueue, for a queue's underlyingQueue",
      details: """
        DispatchQueue(label: NAME): serial unless `concurrent`, with `qos` its quality of
        service. It runs nothing by itself: `underlying QUEUE NAME` makes an OperationQueue
        submit the operations it starts to it. A serial one runs one work item at a time, in
        the order they came, from every queue put on it.
        """,
      examples: ["dispatch io", "dispatch workers concurrent qos utility"],
      build: { m throws(ParseError) in
        let name = try m.need(.name, \.name)
        let context = m.context
        if context.isOperation(name) || context.isQueue(name) || context.isShared(name) || context.dispatchQueues.contains(name)
          || name == "nil", let t = m.token(.name)
        {
          throw ParseError(
            column: t.column, length: t.length,
            message: name == "nil"
              ? "'nil' is what `underlying QUEUE nil` sets: it cannot name a dispatch queue" : "the name '\(name)' is already taken",
            hint: "pick another name for the dispatch queue")
        }
        return .dispatchQueue(name: name, concurrent: m.has("concurrent"), qos: try m.get(.qos, \.qos))
      }),
    CommandSpec(
      name: "underlying", aliases: [],
      arguments: [.value(.queue, key: .queue), .choice([.word("nil"), .value(.dispatchQueue, key: .dispatch)])],
      options: [],
      summary: "set a queue's underlyingQueue (a dispatch queue, or nil)",
      details: """
        underlyingQueue = DISPATCHQ: the queue still starts operations by its
        maxConcurrentOperationCount and priorities, but runs each on that dispatch queue. On
        a serial one an operation it started may wait, holding its slot but not executing,
        until the work item before it returns: one at a time, whatever the count, and the
        count still decides which operation is handed over next. (An asynchronous
        operation's start() returns at once, so the next one goes on.) The dispatch queue's
        quality of service is the one the work runs at, unless an operation has its own.
        `nil` gives the queue its own dispatch queue back. It can be set only while the
        queue has no operations (Darwin raises NSInvalidArgumentException; corelibs crashes);
        the main queue ignores it (its underlying queue is the main thread's).
        """,
      examples: ["underlying thumbnails io", "underlying thumbnails nil"],
      build: { m throws(ParseError) in
        .underlying(queue: try m.need(.queue, \.name), dispatchQueue: m.has("nil") ? nil : try m.need(.dispatch, \.name))
      }),
  ]
}
