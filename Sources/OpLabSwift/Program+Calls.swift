import OpLabCore

/// The calls that give work to queues, start it, and wait for it.
extension SwiftCode.Program {
  /// `addOperation` for one operation, else `addOperations(_:waitUntilFinished:)`, with
  /// the wait's caller when it waits.
  mutating func add(
    _ ops: [String], to queueName: String, wait: World.Waiter?, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    given(ops, to: queueName)
    draft.shown = true
    draft.names.formUnion(ops + [queueName])
    if wait?.fromMain == true { draft.names.insert("main") }
    draft.lines.insert(contentsOf: declare(queueName), at: 1)
    draft.lines += submitting(ops, to: queueName)
    if ops.count == 1, wait == nil {
      draft.lines.append("\(queue(queueName)).addOperation(\(names.variable(ops[0])))")
    } else {
      let list = "[" + ops.map(SwiftCode.variable).joined(separator: ", ") + "]"
      if let wait {
        now = entry.end  // the call returns when the work is done
        if forExport {
          let call = "\(queue(queueName)).addOperations(\(list), waitUntilFinished: true)"
          draft.lines += exportedWait([call], fromMain: wait.fromMain, entry: entry)
        } else {
          if wait.fromMain { draft.lines.append("// called on the main thread: nothing else runs there until it returns") }
          if wait.until != nil { draft.lines.append("// (the lab stopped its clock before this wait returned)") }
          draft.lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: true)  // inserts all, then schedules once")
        }
      } else {
        draft.lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: false)  // inserts all, then schedules once")
      }
    }
    if !busy.contains(queueName) { busy.append(queueName) }
  }

  /// `start()` called by hand on the main thread, for an operation in no queue.
  mutating func start(_ op: String, into draft: inout Draft) {
    given([op], to: nil)
    draft.shown = true
    draft.names.formUnion([op, "main"])  // a call on the main thread
    draft.lines.append("// called on the main thread, for an operation in no queue")
    draft.lines += submitting([op], to: nil)
    if forExport {
      // The lab's own commands go on meanwhile: the call runs when the main thread gets to it.
      draft.lines.append("DispatchQueue.main.async { \(names.variable(op)).start() }  // runs when the main thread is free")
      return
    }
    draft.lines.append(
      "\(names.variable(op)).start()  "
        + (cancelled.contains(op)
          ? "// isCancelled is true: its work never runs"
          : asyncOperations.contains(op)
            ? "// begins the work and returns at once"
            : "// main() runs here, on the main thread, until it returns"))
  }

  /// `waitUntilFinished()` on each operation, from the lab's thread or the main thread.
  mutating func wait(
    for ops: [String], fromMain: Bool, until: Tick?, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    now = entry.end  // the call returns when the operation is done: that is where the time went
    draft.shown = true
    draft.names.formUnion(ops)
    if fromMain { draft.names.insert("main") }
    waitCalls(ops.map { "\(names.variable($0)).waitUntilFinished()" }, fromMain: fromMain, until: until, entry: entry, into: &draft)
  }

  /// `waitUntilAllOperationsAreFinished()` on a queue, or (`nil`) on each queue given work.
  mutating func wait(
    forQueue target: String?, fromMain: Bool, until: Tick?, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    now = entry.end  // the call returns when the work is done: that is where the time went
    let queues = target.map { [$0] } ?? busy
    draft.shown = true
    draft.names.formUnion(queues)
    if fromMain { draft.names.insert("main") }
    waitCalls(queues.map { "\(queue($0)).waitUntilAllOperationsAreFinished()" }, fromMain: fromMain, until: until, entry: entry, into: &draft)
  }

  /// The lines of a wait: in an export from the lab's thread (or cut short), the time it
  /// took; otherwise the `calls`, with what calling them from main means.
  private func waitCalls(_ calls: [String], fromMain: Bool, until: Tick?, entry: SwiftSource.Entry, into draft: inout Draft) {
    if forExport {
      draft.lines += exportedWait(calls, fromMain: fromMain, entry: entry)
    } else {
      if fromMain { draft.lines.append("// called on the main thread: nothing else runs there until it returns") }
      if until != nil { draft.lines.append("// (the lab stopped its clock before this wait returned)") }
      draft.lines += calls
    }
  }

  /// The real blocking `calls` in an export, made on the thread the lab says: from main,
  /// queued to the main thread, which makes them when it gets to them (after the
  /// main-queue work already waiting), blocking it meanwhile, the program going on when
  /// they return (`Lab.callOnMain`), as the lab's next command comes then; else on the lab's own
  /// thread, the program going on when they return. Never the lab's predicted wait.
  /// A wait from the lab's thread that the lab found could never return is given up at
  /// the tick the lab stopped it, as the lab does (saying so), so the commands after it come.
  func exportedWait(_ calls: [String], fromMain: Bool, entry: SwiftSource.Entry) -> [String] {
    func closure(_ head: String) -> [String] {
      let one = "\(head) { \(calls.first ?? "") }"
      return calls.count == 1 && one.count <= SwiftCode.columns - 2 ? [one] : ["\(head) {"] + calls.map { "  " + $0 } + ["}"]
    }
    if fromMain {
      // The lab's next command comes when the call returns: the program goes on then too.
      return ["// called on the main thread when it gets to it: nothing else runs there until it returns"]
        + closure("Lab.callOnMain")
    }
    guard entry.waitStalled else {
      return ["// the lab's own thread waits; the main thread runs its run loop meanwhile"]
        + closure("Lab.waitOnTheLabsThread")
    }
    return [
      "// the lab's own thread waits; the lab found this wait can never return and",
      "// stopped it at t=\(entry.end): the harness gives it up then, as the lab does",
    ] + closure("Lab.waitOnTheLabsThread(givingUpAt: \(entry.end))")
  }

  /// A run until idle: the program waits for the work, or says it would hang.
  mutating func runUntilIdle(_ entry: SwiftSource.Entry, into draft: inout Draft) {
    draft.shown = true
    if forExport {
      // Not a call that returns: the lab's clock moves on, and the next command's sleep waits for its tick.
      draft.lines.append("// the work goes on until nothing is left: the next sleep or the end waits")
      draft.names.formUnion(busy)
      return
    }
    now = entry.end
    if entry.stalled {
      draft.lines.append("// stalled: some work never finishes, so a wait for it would hang")
    } else {
      draft.lines += waitForTheWork()
    }
    draft.names.formUnion(busy)
  }

  /// Records that `ops` are given to `queueName` (or, with none, started by hand): a
  /// `run` waits for them. Each completion block among them is counted in first, so the
  /// count cannot reach zero before it has run.
  /// - Parameter indent: for a step of a closure, which the operation that runs it
  ///   accounts for (`addsOf`).
  mutating func submitting(_ ops: [String], to queueName: String?, indent: String = "") -> [String] {
    for name in ops where indent.isEmpty && submittedNames.insert(name).inserted { submitted.append(name) }
    if queueName == "main" { mainWork = true }
    guard tracksCompletionBlocks else { return [] }
    return ops.filter(withCompletion.contains).map { name in
      needsCompletionGroup = true
      return "\(indent)completionBlocks.enter()  // \(World.possessive(names.variable(name))) completion block is to run"
    }
  }

  /// The end of a `run` that ended idle: the program waits for the work. Waiting on each
  /// queue is enough unless main-queue work, completion blocks or work added to another
  /// queue are involved: then the main thread must run the main run loop (the main
  /// queue's work runs nowhere else), no queue waits for completion blocks, and a
  /// queue's wait may be over before other work adds to it.
  mutating func waitForTheWork() -> [String] {
    // Every operation submitted and what their steps add, once each, in order.
    var waitedFor: [String] = []
    var seen: Set<String> = []
    var next = submitted
    var i = 0
    while i < next.count {
      let name = next[i]
      i += 1
      guard seen.insert(name).inserted else { continue }
      waitedFor.append(name)
      next += addsOf[name] ?? []
    }
    let adds = crossQueueAdds
    let completions = !withCompletion.isDisjoint(with: seen)
    guard mainWork || adds || completions else {
      return ["// a program's work just goes on; a command-line tool waits for it:"]
        + busy.filter { $0 != "main" }.map { "\(queue($0)).waitUntilAllOperationsAreFinished()" }
    }
    needsMainLoop = true
    let why = [
      mainWork
        ? "The main thread runs the main run loop, not a queue's wait: the main queue's"
          + " work runs only there (or under dispatchMain())." : nil,
      completions
        ? "No queue waits for completion blocks"
          + (tracksCompletionBlocks ? ": completionBlocks counts them." : ".") : nil,
      adds && !mainWork
        ? "A queue's wait can return before work that another queue's work adds is in it,"
          + " so the main thread waits for the operations themselves." : nil,
    ].compactMap { $0 }
    let list = waitedFor.map(SwiftCode.variable)
    return ["// a command-line tool waits for the work itself. " + why.joined(separator: " ")]
      + SwiftCode.call("runMainLoop(untilFinished: [", list, "])", width: SwiftCode.columns - 2)
  }

  /// The operation's declaration: a BlockOperation when its work is one plain call, else
  /// an Operation subclass whose `main()` (or `start()`, when asynchronous) shows how it
  /// polls isCancelled, bails or fails.
}
