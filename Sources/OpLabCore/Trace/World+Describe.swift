/// Plain-text descriptions of events: the simulator's own words for what happened and why.
extension World {
  /// The name of an operation.
  public func name(_ op: OpID) -> String { operations[op.slot].name }
  /// The name of a queue.
  public func name(_ q: QueueID) -> String { queues[q.slot].name }

  /// The possessive of a name: `d1's`, and `downloads'` for a name ending in s.
  public static func possessive(_ name: String) -> String {
    name.last == "s" || name.last == "S" ? name + "'" : name + "'s"
  }

  /// A one-line description of an event: subject, what happened, and why.
  ///
  /// ```
  /// d2 started on downloads: slot freed by d1
  /// ```
  /// - Parameters:
  ///   - e: the event.
  ///   - prose: a clause of a sentence in the past tense (`narrate`), such as `b was enqueued
  ///     on dl`, rather than the event log's short form, `b enqueued on dl`.
  public func describe(_ e: Event, prose: Bool = false) -> String {
    switch e.kind {
    case .tapScheduled(let t):
      if t != e.tick { return "the user will tap at t=\(t) (the tap will need the main thread)" }
      return prose ? "the user tapped (the tap needs the main thread)" : "the user taps (the tap needs the main thread)"
    case .gateOpened(let g):
      return e.reason == .alreadyFinished
        ? "gate \(gateName(g)) opened: no effect, it was open" : "gate \(gateName(g)) \(prose ? "opened" : "opens")"
    case .framesChanged(let every):
      let text =
        every.map {
          "the display \(prose ? "began to ask" : "asks") for a frame every \($0) \($0 == 1 ? "tick" : "ticks") (each needs the main thread)"
        } ?? "the display \(prose ? "stopped" : "stops") asking for frames"
      return e.reason == .command ? text : "\(text): \(explain(e.reason))"
    default: break
    }
    // An event of no operation and no queue is a wait on every queue (`wait` alone: the
    // lab's shorthand for waitUntilAllOperationsAreFinished() on each queue in turn) or a
    // setting of the world.
    let isWait: Bool
    switch e.kind {
    case .waitStarted, .waitEnded, .waitStalled: isWait = true
    default: isWait = false
    }
    // A setting of the world (a shared variable, a lock, the platform) is its own subject.
    var subject = e.op.map { name($0) } ?? e.queue.map { name($0) } ?? (isWait ? "every queue:" : nil)
    let whereText = e.op != nil ? e.queue.map { " on \(name($0))" } ?? "" : ""
    var what: String
    switch e.kind {
    case .queueCreated(let max):
      // The queue every world starts with is called `queue`: "queue queue created" stutters.
      if subject == "queue" {
        subject = "the default queue 'queue'"
        what = "created (max \(max.map(String.init) ?? "default"))"
      } else {
        what = "queue created (max \(max.map(String.init) ?? "default"))"
      }
    case .created: what = "created"
    case .enqueued where isRunLoopWork(e.op): what = "reached the main thread's run loop"
    case .enqueued: what = "enqueued\(whereText)"
    case .ready: what = "ready"
    case .unready: what = "not ready any more"
    case .dispatched:
      if case .dispatchQueueBusy(let d, _) = e.reason {
        what = "dispatched\(whereText), waiting on its underlying queue \(dispatchQueueName(d))"
      } else {
        what = "dispatched\(whereText), waiting behind the barrier block"
      }
    case .started where isRunLoopWork(e.op): what = "began on the main thread"
    case .started: what = "started\(whereText)"
    case .skipped:
      // An asynchronous operation's start() is its own: it is called, and must look at the flag.
      if let op = e.op, case .async = operations[op.slot].spec.kind {
        what = "start() called\(whereText), already cancelled"
      } else {
        what = "skipped\(whereText) (cancelled: main() never runs)"
      }
    case .cancelRequested: what = "cancel requested"
    case .cancelObserved: what = "saw isCancelled"
    // A dropped frame never ran: it did not finish anything.
    case .finished(.dropped): what = "dropped, never drawn"
    case .finished(let outcome): what = "finished (\(outcome))"
    case .completionStarted: what = "completion block started"
    case .completionFinished: what = "completion block finished"
    case .workEnded: what = e.reason == .asyncStartForgotFinish ? "start() returned without calling finish()" : "work ended without calling finish()"
    case .blockStarted(let i): what = "block \(i + 1) started"
    case .blockFinished(let i): what = "block \(i + 1) finished"
    case .kvoWillChange(let key): what = "willChangeValue(forKey: \"\(key)\")"
    case .kvoDidChange(let key): what = "didChangeValue(forKey: \"\(key)\")"
    case .suspended: what = "suspended"
    case .resumed: what = "resumed"
    case .maxChanged(let max): what = "maxConcurrentOperationCount = \(max.map(String.init) ?? "default")"
    case .priorityChanged(let p): what = "queuePriority = \(p)"
    case .qualityOfServiceChanged(let q): what = "qualityOfService = \(q)"
    case .dependencyAdded(let dep): what = "depends on \(name(dep))"
    case .dependencyRemoved(let dep): what = "no longer depends on \(name(dep))"
    case .cycleClosed(let dep): what = "WARNING: depending on \(name(dep)) closes a dependency cycle; these operations can never start"
    case .barrierAdded: what = "barrier added to \(e.queue.map { name($0) } ?? "?")"
    case .waitStarted: what = "\(waitCall(e)) began"
    case .waitEnded: what = "\(waitCall(e)) returned"
    case .waitStalled: what = "\(waitCall(e)) would block forever"
    case .platformChanged(let p): what = "platform set to \(p.rawValue)"
    case .machineChanged(let cores): what = "machine set to \(cores.map { "\($0) \($0 == 1 ? "core" : "cores")" } ?? "unlimited cores")"
    case .cpuLoad(let used): what = "CPU busy: \(used == 0 ? "idle" : Machine.describe(used))"
    case .cpuShare(let share): what = "runs at \(Machine.describe(share))"
    case .tapScheduled(let t): what = "a tap is coming at t=\(t)"
    case .framesChanged(let every):
      what = every.map { "the display asks for a frame every \($0) \($0 == 1 ? "tick" : "ticks")" } ?? "the display stops asking for frames"
    case .ignoredOnMainQueue(let request): what = "\(code(of: request)) ignored"
    case .startCalled: what = "start() called by hand"
    case .gated(let g): what = "isReady also waits for gate \(gateName(g))" + (gates[Int(g)].isOpen ? " (open)" : " (closed)")
    case .gateOpened(let g): what = "gate \(gateName(g)) opened"
    case .executionBlockAdded(let t):
      let count: Int
      if let op = e.op, case .blocks(let blocks) = operations[op.slot].spec.kind { count = blocks.count } else { count = 0 }
      what = "addExecutionBlock: a block of \(t) \(t == 1 ? "tick" : "ticks")" + (count > 0 ? " (\(count) blocks now)" : "")
    case .variableCreated(let v, let value): what = "shared variable \(variableName(v)) = \(value) created"
    case .lockCreated(let l): what = "lock \(lockName(l)) created (an NSLock)"
    case .variableRead(let v, let value): what = "read \(variableName(v)) = \(value) into its register"
    case .computed(let n, let result): what = "computed: register \(n < 0 ? "-" : "+") \(n.magnitude) = \(result)"
    case .variableWritten(let v, let value): what = "wrote \(variableName(v)) = \(value)"
    case .lockAcquired(let l): what = "took lock \(lockName(l))"
    case .lockWaiting(let l): what = "waits for lock \(lockName(l)), keeping its slot"
    case .lockReleased(let l): what = "unlocked \(lockName(l))"
    case .touchedUI: what = "touched the user interface" + (Self.isOnMainThread(e) ? " on the main thread" : " OFF the main thread")
    case .addRefused(let target):
      what =
        "addOperation(\(name(target))) refused: \(name(target)) \(whyAddRefused(target)) (the real call raises NSInvalidArgumentException on Apple platforms and crashes on Linux; the lab skipped it)"
    case .dispatchQueueCreated(let d):
      subject = nil
      what = "dispatch queue \(dispatchQueueName(d)) created (\(dispatchQueues[Int(d)].summary))"
    case .underlyingQueueSet(let d):
      what =
        d.map { "underlyingQueue = \(dispatchQueueName($0)) (\(dispatchQueues[Int($0)].summary))" }
        ?? "underlyingQueue = nil (its own dispatch queue again)"
    }
    if prose, let clause = proseClause(e, subject: subject, what: what, whereText: whereText) {
      (subject, what) = clause
    }
    let why: String
    switch e.kind {
    case .kvoWillChange, .kvoDidChange: why = ""  // the state change beside it says why
    case .completionFinished: why = ""  // its start said why it ran
    case .ignoredOnMainQueue(let request):
      if case .ignoredOnMainQueue(let p) = e.reason { why = Self.mainQueueIgnores(request, on: p) } else { why = explain(e.reason) }
    case .waitEnded where e.op.map({ operations[$0.slot].mainThreadWork == nil }) ?? false:
      why = "it finished"
    case .waitEnded where e.op.map({ operations[$0.slot].mainThreadWork == .waitForOperations }) ?? false:
      let targets = e.op.map { callTargets(of: $0) } ?? []
      why = targets.map { name($0) }.joined(separator: ", ") + (targets.count == 1 ? " finished" : " all finished")
    case .finished(.succeeded) where e.op.map { operations[$0.slot].isCancelled } ?? false:
      why = explain(e.reason, about: e.op) + ", although cancelled: its code did not stop"
    case .started where isRunLoopWork(e.op):
      why = explain(e.reason, about: e.op).replacing("slot freed by", with: "the main thread was freed by")
        .replacing("a slot was free when it was enqueued", with: "the main thread was free")
        .replacing("became ready with a slot free", with: "the main thread was free")
    case .skipped:
      if case .startedByHand(let call) = e.reason {
        why = "start() called by hand on the main thread (\(name(call))) found it cancelled, so main() never runs"
      } else {
        why = explain(e.reason, about: e.op)
      }
    default: why = explain(e.reason, about: e.op)
    }
    let clause = subject.map { "\($0) \(what)" } ?? what
    return why.isEmpty ? clause : "\(clause): \(why)"
  }

  /// ``describe(_:prose:)``'s text of `e`, as UTF-8 appended to `out`: the same bytes,
  /// written directly for the events a script line echoes most (an operation's dependency,
  /// its enqueueing, its becoming ready), where interpolating the text took about 2,700
  /// instructions an event (#34); any other event through ``describe(_:prose:)``.
  public func describe(_ e: Event, into out: inout [UInt8]) {
    guard let op = e.op else { return out.appendUTF8(describe(e)) }
    let why: StaticString?
    var count: Int32 = 0
    var dependency: OpID?
    switch e.reason {
    case .command: why = nil
    case .waitingOnDependencies(let n):
      why = n == 1 ? "waits on 1 unfinished dependency" : "waits on "
      count = n
    case .noUnfinishedDependencies: why = "no unfinished dependencies"
    case .dependencyFinished(let dep) where operations[dep.slot].outcome == .succeeded:
      why = "dependency "
      dependency = dep
    default: return out.appendUTF8(describe(e))
    }
    switch e.kind {
    case .dependencyAdded(let dep):
      out.appendUTF8(name(op))
      out.appendUTF8(" depends on " as StaticString)
      out.appendUTF8(name(dep))
    case .enqueued where !isRunLoopWork(op):
      out.appendUTF8(name(op))
      out.appendUTF8(" enqueued" as StaticString)
      if let q = e.queue {
        out.appendUTF8(" on " as StaticString)
        out.appendUTF8(name(q))
      }
    case .ready:
      out.appendUTF8(name(op))
      out.appendUTF8(" ready" as StaticString)
    default: return out.appendUTF8(describe(e))
    }
    guard let why else { return }
    out.appendUTF8(": " as StaticString)
    out.appendUTF8(why)
    if let dependency {
      out.appendUTF8(name(dependency))
      out.appendUTF8(" finished" as StaticString)
    } else if count != 1, case .waitingOnDependencies = e.reason {
      out.appendDecimal(Int(count))
      out.appendUTF8(" unfinished dependencies" as StaticString)
    }
  }

  /// The subject and verb of an event's clause in the past tense, for `narrate`, where the
  /// event log's short form is no sentence (`b enqueued on dl`, `q maxConcurrentOperationCount
  /// = 2`); `nil` where that form already reads as one (`b started on dl`).
  private func proseClause(_ e: Event, subject: String?, what: String, whereText: String) -> (String?, String)? {
    let owner = subject.map { World.possessive($0) }
    switch e.kind {
    case .queueCreated:
      guard let subject, !subject.hasPrefix("the ") else { return (subject, "was " + what) }
      return ("the \(subject) queue", "was " + what.dropFirst("queue ".count))
    case .created: return (subject, "was created")
    case .enqueued where !isRunLoopWork(e.op): return (subject, "was enqueued\(whereText)")
    case .ready: return (subject, "became ready")
    case .unready: return (subject, "was no longer ready")
    case .dispatched, .suspended, .resumed: return (subject, "was " + what)
    case .skipped:
      if let op = e.op, case .async = operations[op.slot].spec.kind { return (owner, "start() was called\(whereText), already cancelled") }
      return (subject, "was skipped\(whereText) (cancelled: main() never runs)")
    case .cancelRequested: return (subject, "had cancel() called")
    case .completionStarted, .completionFinished, .blockStarted, .blockFinished, .workEnded: return (owner, what)
    case .kvoWillChange, .kvoDidChange: return (subject, "sent " + what)
    case .underlyingQueueSet: return (owner, what.replacing(" = ", with: " was set to "))
    case .maxChanged(let max): return (owner, "maxConcurrentOperationCount was set to \(max.map(String.init) ?? "default")")
    case .priorityChanged(let p): return (owner, "queuePriority was set to \(p)")
    case .qualityOfServiceChanged(let q): return (owner, "qualityOfService was set to \(q)")
    case .dependencyAdded(let dep): return (subject, "was made to depend on \(name(dep))")
    case .dependencyRemoved(let dep): return (subject, "stopped depending on \(name(dep))")
    case .cycleClosed(let dep):
      return (subject, "was made to depend on \(name(dep)), which closed a dependency cycle: these operations can never start")
    case .barrierAdded: return (subject, "was added to \(e.queue.map { name($0) } ?? "?") as a barrier block")
    case .waitStarted, .waitEnded, .waitStalled:
      guard e.op != nil else { return nil }
      return (owner, what)
    case .platformChanged, .machineChanged: return (nil, "the " + what.replacing(" set to ", with: " was set to "))
    case .cpuLoad(let used): return (nil, used == 0 ? "the CPU became idle" : "the CPU was busy: \(Machine.describe(used))")
    case .cpuShare(let share): return (subject, "ran at \(Machine.describe(share))")
    case .ignoredOnMainQueue(let request): return (owner, "\(code(of: request)) was ignored")
    case .startCalled: return (subject, "had start() called by hand")
    case .gated(let g):
      return (subject, "was given an isReady that also waits for gate \(gateName(g))" + (gates[Int(g)].isOpen ? " (open)" : " (closed)"))
    case .executionBlockAdded: return (subject, what.replacing("addExecutionBlock: a block", with: "was given an execution block"))
    case .variableCreated(let v, let value): return (nil, "the shared variable \(variableName(v)) was created with the value \(value)")
    case .lockCreated: return (nil, "the " + what.replacing(" created", with: " was created"))
    case .lockWaiting(let l): return (subject, "waited for lock \(lockName(l)), keeping its slot")
    case .addRefused(let target):
      return (owner, what.replacing("addOperation(\(name(target))) refused", with: "addOperation(\(name(target))) was refused"))
    default: return nil
    }
  }

  /// Whether `op` is work the main thread's run loop takes (a tap, a frame, a call made on
  /// the main thread) rather than a main-queue operation: it never waits in a queue.
  public func isRunLoopWork(_ op: OpID?) -> Bool {
    guard let op, let work = operations[op.slot].mainThreadWork else { return false }
    return work == .tap || work == .frame
  }

  /// The reason, as a phrase; empty for the learner's own command.
  public func explain(_ reason: Reason, about op: OpID? = nil) -> String {
    switch reason {
    case .command: ""
    case .cancelAll(let q): "cancelAllOperations() on \(name(q))"
    case .waitingOnDependencies(let n): "waits on \(n) unfinished \(n == 1 ? "dependency" : "dependencies")"
    case .noUnfinishedDependencies: "no unfinished dependencies"
    case .dependencyFinished(let op):
      switch operations[op.slot].outcome {
      case .failed?: "dependency \(name(op)) finished — it failed, but isFinished does not mean success"
      case .cancelled?: "dependency \(name(op)) finished — it was cancelled, and cancellation does not propagate"
      case .bailed?: "dependency \(name(op)) finished — it returned early, and dependents still run"
      default: "dependency \(name(op)) finished"
      }
    case .dependencyRemoved(let op): "dependency \(name(op)) removed"
    case .dependencyAdded(let op): "new dependency \(name(op)) is unfinished"
    case .cancelledWhilePending: "cancelled while waiting: dependencies are ignored"
    case .picked(let trigger, let beat):
      explain(trigger) + (beat.map { "; " + beatRule(op, over: $0) } ?? "")
    case .emptyQueueBarrier: "barrier on an empty queue runs at once, ignoring suspension and the limit (corelibs)"
    case .dispatchBarrierEnded(let b): "the barrier block \(name(b)) it waited behind ended"
    case .alreadyFinished: "no effect, already finished"
    case .alreadyCancelled: "no effect, already cancelled"
    case .alreadyStarted: "no effect on an operation that has started"
    case .checkedIsCancelled(let elapsed): "checked isCancelled after \(elapsed) \(elapsed == 1 ? "tick" : "ticks") of work"
    case .workDone: "work done"
    case .failedAt(let t): "work failed after \(t) \(t == 1 ? "tick" : "ticks")"
    case .sawCancellation: "returned early after seeing isCancelled"
    case .skippedBecauseCancelled: "start() skipped main() because it was cancelled"
    case .dependencyWasCancelled(let op): "returned at once: dependency \(name(op)) was cancelled"
    case .cancelledOutsideQueue: "cancel() on an operation in no queue finishes it at once (Darwin)"
    case .finishCalled: "its work called finish()"
    case .forgotFinish:
      op.map { operations[$0.slot].queue == nil } == true
        ? "it never calls finish(), so it never finishes (started by hand, it holds no queue's slot)"
        : "it never calls finish(), so it holds its slot forever"
    case .asyncStartSawCancellation: "its own start() saw isCancelled and called finish() without doing the work"
    case .asyncStartForgotFinish: "it saw isCancelled and returned early, so it holds its slot forever"
    case .afterFinish: "completion blocks run after finish, outside the queue's slots"
    case .barrier: "barrier"
    case .blockSchedule: platform == .apple ? "blocks run side by side (Darwin)" : "blocks run one after another (corelibs)"
    case .allFinished: "every operation finished"
    case .stalled: "nothing can make progress"
    case .tapped: "the user tapped: the tap needs the main thread"
    case .frameDue: "the display asked for a frame: it needs the main thread"
    case .frameDropped: "the main thread was still busy when the next frame was due"
    case .frameLimit: "the lab draws at most \(World.maxFrames) frames for one `frames` setting"
    case .waitReturned: "everything it waited for finished; the main thread is free again"
    case .unfinishedCountBelowZero:
      "removeDependency of a finished dependency from a cancelled operation: corelibs counts it off the unfinished count that cancel() zeroed, which is now −1, so isReady is false until cancel() is called again (rule 9)"
    case .cancelledAgain: "cancel() sets corelibs' unfinished count back to 0, so isReady is true again"
    case .step(let i): stepPhrase(Int(i), of: op)
    case .completionStep(let i): stepPhrase(Int(i), of: op, inCompletion: true)
    case .addedByStep(let adder, let inCompletion):
      inCompletion
        ? "\(World.possessive(name(adder))) completion block called addOperation"
        : "a step of \(World.possessive(name(adder))) work called addOperation"
    case .addedByMainThreadCall(let call):
      "\(name(call)), addOperations(_:waitUntilFinished: true) called on the main thread, added it when the main thread got to the call"
    case .lockHeldBy(let holder):
      holder == op ? "it holds that lock itself, and an NSLock is not reentrant: it waits forever" : "\(name(holder)) holds it"
    case .lockReleasedBy(let other): "\(name(other)) unlocked it; it had waited longest (NSLock promises no order)"
    case .lockChosenAfter(let other):
      "\(name(other)) unlocked it, and the chosen order gave it to this waiter (NSLock documents no order among waiters)"
    case .ignoredOnMainQueue(.linux): "corelibs does nothing on the main queue (`if !__mainQ`)"
    case .ignoredOnMainQueue(.apple): "the main queue is serial, with a fixed quality of service (Darwin)"
    case .startedByHand(let call):
      switch operations[op?.slot ?? 0].spec.kind {
      case .async where op != nil: "start() called by hand on the main thread (\(name(call))): its own start() begins the work and returns"
      default: "start() called by hand on the main thread (\(name(call))): main() runs there, blocking it until it returns"
      }
    case .asyncStartReturned: "an asynchronous operation's start() returns once its work has begun"
    case .dependencyDidNotSucceed(let dep):
      "returned at once: dependency \(name(dep)) did not succeed ("
        + (operations[dep.slot].outcome == .succeeded && operations[dep.slot].isCancelled
          ? "its work ran to the end, but it was cancelled"
          : operations[dep.slot].outcome.map { "\($0)" } ?? "unfinished") + ")"
    case .gateOpened(let g): "gate \(gateName(g)) opened: its isReady override now reads true, and KVO told the queue"
    case .startNoLongerPossible(let target):
      "by the time the main thread got to it, \(name(target)) could not be started any more (the real call raises there); nothing started"
    case .dispatchQueueBusy(let d, let running):
      "its underlying queue \(dispatchQueueName(d)) is serial and runs \(World.possessive(name(running))) work item: it holds its slot and waits there, one at a time"
    case .dispatchQueueFreed(let d, let after):
      "\(World.possessive(name(after))) work item returned, so its serial underlying queue \(dispatchQueueName(d)) ran the next"
    case .cpuShared(let units, let cores):
      if let cores {
        "\(units) running \(units == 1 ? "job" : "jobs") on \(cores) \(cores == 1 ? "core" : "cores")"
      } else {
        "unlimited cores"
      }
    }
  }

  /// "step 2 of 3 (compute 1)", or "step 1 of 1 of its completion block (touch ui)".
  private func stepPhrase(_ i: Int, of op: OpID?, inCompletion: Bool = false) -> String {
    let steps: [Step]
    if let op, inCompletion {
      steps = completionSteps(of: op) ?? []
    } else if let op, case .steps(let s) = operations[op.slot].spec.kind {
      steps = s
    } else {
      steps = []
    }
    let whose = inCompletion ? " of its completion block" : ""
    guard i >= 0, i < steps.count else { return "step \(i + 1)\(whose)" }
    return "step \(i + 1) of \(steps.count)\(whose) (\(steps[i]))"
  }

  /// Why an `add` step could not add `target`, after "NAME": it was in a queue already, or
  /// it never was and is finished or running all the same (cancelled in no queue, which
  /// Apple platforms finish at once, or started by hand).
  public func whyAddRefused(_ target: OpID) -> String {
    let r = operations[target.slot]
    if r.queue != nil { return "was added before, and an operation can be added only once" }
    if r.isCancelled, r.outcome == .cancelled, r.startedAt == nil || r.startedAt == r.finishedAt {
      return "was finished by cancel() (in no queue, Apple platforms finish it at once), and a finished operation cannot be added"
    }
    return "was started by hand (start()), and an operation that has started cannot be added"
  }

  /// Whether the event's work ran on the main thread: an operation of `main`'s own work, or
  /// one in no queue, which runs only when `start()` is called on it by hand, from the main
  /// thread (a step is synchronous work: it runs inside that call). A completion block never
  /// does: corelibs submits it to `DispatchQueue.global`, and Darwin documents its context
  /// as "not guaranteed but … typically a secondary thread".
  public static func isOnMainThread(_ e: Event) -> Bool {
    !e.reason.isCompletionStep && (e.queue == .main || e.queue == nil)
  }

  /// The Swift of a request the main queue ignores: `isSuspended = true`.
  public static func code(of request: MainQueueRequest) -> String {
    switch request {
    case .suspend: "isSuspended = true"
    case .resume: "isSuspended = false"
    case .maxConcurrent(let n): "maxConcurrentOperationCount = \(n.map(String.init) ?? "default")"
    case .qualityOfService(let q): "qualityOfService = .\(q)"
    case .cancelAll: "cancelAllOperations()"
    case .underlyingQueue(let d): "underlyingQueue = " + (d == nil ? "nil" : "a dispatch queue")
    }
  }

  /// The Swift of a request the main queue ignores, naming the dispatch queue it was given.
  public func code(of request: MainQueueRequest) -> String {
    if case .underlyingQueue(let d?) = request { return "underlyingQueue = \(dispatchQueueName(d))" }
    return Self.code(of: request)
  }

  /// Why the main queue ignores a request on a platform (rules 26, 31, 33, 41).
  static func mainQueueIgnores(_ request: MainQueueRequest, on platform: Platform) -> String {
    switch (platform, request) {
    case (.linux, _):
      "corelibs wraps it in `if !__mainQ`, so it does nothing on the main queue"
    case (.apple, .maxConcurrent):
      "the main queue runs one operation at a time (Darwin's documentation of OperationQueue.main)"
    case (.apple, .qualityOfService):
      "the main queue's quality of service is userInteractive and cannot be changed (Darwin's documentation)"
    case (.apple, .suspend), (.apple, .resume):
      "Darwin's documentation does not say what suspending the main queue does; the lab keeps it running, as corelibs does"
    case (.apple, .underlyingQueue):
      "the main queue's underlying queue is the main thread's dispatch queue and cannot be set to another (Darwin's documentation of OperationQueue.main)"
    case (.apple, .cancelAll):
      "the lab ignored it"  // not recorded: Darwin's cancelAllOperations() cancels on the main queue too
    }
  }

  /// A gate's name.
  public func gateName(_ g: Int32) -> String { g >= 0 && Int(g) < gates.count ? gates[Int(g)].name : "?" }

  /// The wait an event of a wait is about: on queues, or on operations.
  private func waitCall(_ e: Event) -> String {
    guard let op = e.op else { return "waitUntilAllOperationsAreFinished()" }
    switch operations[op.slot].mainThreadWork {
    case .wait?: return "waitUntilAllOperationsAreFinished()"
    case .waitForOperations?:
      let targets = callTargets(of: op).map { name($0) }.joined(separator: ", ")
      return addCalls[op] != nil ? "addOperations([\(targets)], waitUntilFinished: true)" : "waitUntilFinished() on " + targets
    default: return "waitUntilFinished()"
    }
  }

  private func explain(_ trigger: StartTrigger) -> String {
    switch trigger {
    case .enqueued: "a slot was free when it was enqueued"
    case .becameReady: "became ready with a slot free"
    // A tap, a frame or a call on the main thread holds no slot of OperationQueue.main:
    // what its end frees is the main thread (rule 42).
    case .slotFreed(let op) where operations[op.slot].mainThreadWork != nil: "the main thread was freed by \(name(op))"
    case .slotFreed(let op): "slot freed by \(name(op))"
    case .resumed: "queue resumed"
    case .maxRaised: "maxConcurrentOperationCount raised"
    case .cancelled: "cancelled, so it is started only to be skipped"
    }
  }

  private func beatRule(_ winner: OpID?, over other: OpID) -> String {
    guard let winner else { return "ahead of \(name(other))" }
    // On the main thread, an operation of OperationQueue.main and a tap or a frame go in the
    // order they became runnable there, whatever the priority (rule 42).
    let w0 = operations[winner.slot], o0 = operations[other.slot]
    if w0.queue == .main, o0.queue == .main, (w0.mainThreadWork == nil) != (o0.mainThreadWork == nil),
      w0.level != 12, o0.level != 12
    {
      return "it became runnable on the main thread before \(name(other)), whatever their priorities"
    }
    if w0.mainThreadWork != nil, o0.mainThreadWork != nil {
      return "it reached the main thread before \(name(other))"
    }
    let w = operations[winner.slot].level, o = operations[other.slot].level
    if w != o { return "\(levelName(w, of: winner)) beats \(levelName(o, of: other)) \(name(other))" }
    // Earlier in the level's line: usually added earlier, but a priority change sends an
    // operation to the tail (rule 23).
    return "the same priority (\(levelName(w, of: winner))) as \(name(other)), but ahead in the line (FIFO)"
  }

  /// The level an operation is filed under, as a learner reads it: a priority, or what
  /// files above every priority (a barrier).
  func levelName(_ level: Int8, of op: OpID) -> String {
    guard level == 12 else { return QueuePriority(rawValue: level)?.description ?? "\(level)" }
    return "barrier"
  }
}

extension [UInt8] {
  /// Appends a string's UTF-8 (contiguous for a native string: one copy, no iteration).
  @inlinable public mutating func appendUTF8(_ s: String) {
    var s = s
    s.withUTF8 { append(contentsOf: $0) }
  }

  /// Appends a literal's UTF-8.
  @inlinable public mutating func appendUTF8(_ s: StaticString) {
    s.withUTF8Buffer { append(contentsOf: $0) }
  }

  /// Appends `n` in decimal, as `String(n)` writes it.
  @inlinable public mutating func appendDecimal(_ n: Int) {
    if n < 0 { append(0x2D) }
    var m = n.magnitude
    let start = count
    repeat {
      append(0x30 + UInt8(truncatingIfNeeded: m % 10))
      m /= 10
    } while m > 0
    self[start...].reverse()
  }
}
