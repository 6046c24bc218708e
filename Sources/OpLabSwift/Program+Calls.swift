import OpLabCore

/// The calls that give work to queues, start it, and wait for it.
extension SwiftCode.Program {
  /// `addOperation` for one operation, else `addOperations(_:waitUntilFinished:)`, with
  /// the wait's caller when it waits.
  mutating func add(
    _ ops: [String], to queueName: String, wait: World.Waiter?, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    draft.shown = true
    draft.names.formUnion(ops + [queueName])
    if wait?.fromMain == true { draft.names.insert("main") }
    draft.lines.insert(contentsOf: declare(queueName), at: 1)
    if ops.count == 1, wait == nil {
      draft.lines.append("\(queue(queueName)).addOperation(\(names.variable(ops[0])))")
      call(.add(ops[0], to: queueName))
    } else {
      let list = "[" + ops.map(SwiftCode.variable).joined(separator: ", ") + "]"
      if let wait {
        now = entry.end  // the call returns when the work is done
        let call = "\(queue(queueName)).addOperations(\(list), waitUntilFinished: true)"
        draft.lines += exportedWait([call], fromMain: wait.fromMain, entry: entry)
        self.call(wait.fromMain ? .onMainThread(.addAndWait(ops, to: queueName), until: nil) : .addBatch(ops, to: queueName))
      } else {
        draft.lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: false)  // inserts all, then schedules once")
        call(.addBatch(ops, to: queueName))
      }
    }
    if !busy.contains(queueName) { busy.append(queueName) }
  }

  /// `start()` called by hand on the main thread, for an operation in no queue. The main
  /// thread runs the program's commands, and in the lab the next command does not wait for
  /// the call (a direct call would hold it until main() returned): the call is queued to
  /// the main thread, which makes it when it turns its run loop (at the next
  /// `sleep(untilTick:)`, a wait, or the end), behind the main-queue work already there.
  mutating func start(_ op: String, into draft: inout Draft) {
    draft.shown = true
    draft.names.formUnion([op, "main"])  // a call on the main thread
    draft.lines.append(
      "// called on the main thread, for an operation in no queue; queued there, as the lab's next command does not wait for it")
    draft.lines.append(
      "DispatchQueue.main.async { \(names.variable(op)).start() }  "
        + (cancelled.contains(op)
          ? "// isCancelled is true: its work never runs"
          : asyncOperations.contains(op)
            ? "// begins the work and returns at once"
            : "// main() runs on the main thread until it returns"))
  }

  /// `waitUntilFinished()` on each operation, from the lab's thread or the main thread.
  mutating func wait(
    for ops: [String], fromMain: Bool, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    now = entry.end  // the call returns when the operation is done: that is where the time went
    draft.shown = true
    draft.names.formUnion(ops)
    if fromMain { draft.names.insert("main") }
    draft.lines += exportedWait(ops.map { "\(names.variable($0)).waitUntilFinished()" }, fromMain: fromMain, entry: entry)
  }

  /// `waitUntilAllOperationsAreFinished()` on a queue, or (`nil`) on each queue given work.
  mutating func wait(
    forQueue target: String?, fromMain: Bool, entry: SwiftSource.Entry, into draft: inout Draft
  ) {
    now = entry.end  // the call returns when the work is done: that is where the time went
    let queues = target.map { [$0] } ?? busy
    draft.shown = true
    draft.names.formUnion(queues)
    if fromMain { draft.names.insert("main") }
    draft.lines += exportedWait(
      queues.map { "\(queue($0)).waitUntilAllOperationsAreFinished()" }, fromMain: fromMain, entry: entry)
  }

  /// The real blocking `calls` in an export, made on the thread the lab says: from main,
  /// queued to the main thread, which makes them when it gets to them (after the
  /// main-queue work already waiting), blocking it meanwhile, the program going on when
  /// they return (`Lab.callOnMain`), as the lab's next command comes then; else on the lab's own
  /// thread, the program going on when they return. Never the lab's predicted wait.
  /// A wait from the lab's thread that the lab found could never return is given up at
  /// the tick the lab stopped it, as the lab does (saying so), so the commands after it come.
  func exportedWait(_ calls: [String], fromMain: Bool, entry: SwiftSource.Entry) -> [String] {
    // On one line when it fits an echo too (a statement the layout cannot break).
    func closure(_ head: String) -> [String] {
      let one = "\(head) { \(calls.first ?? "") }"
      return calls.count == 1 && one.count <= SwiftCode.echoColumns ? [one] : ["\(head) {"] + calls.map { "  " + $0 } + ["}"]
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

  /// A run until idle: not a call that returns. The lab's clock moves on, and the next
  /// command's `sleep(untilTick:)`, or the program's end, waits for its tick.
  mutating func runUntilIdle(_ entry: SwiftSource.Entry, into draft: inout Draft) {
    draft.shown = true
    draft.lines.append("// the work goes on; the next sleep, or the program's end, waits for it")
    draft.names.formUnion(busy)
  }
}
