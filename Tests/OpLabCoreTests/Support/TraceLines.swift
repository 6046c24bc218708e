@testable import OpLabCore

extension World {
  /// The trace from `mark` on, one compact line per event: "tick subject what".
  ///
  /// Compact enough to write a whole scenario's trace by hand, complete enough that
  /// every event — setup included — is asserted.
  func lines(from mark: Int = 0) -> [String] {
    trace.events(from: mark).map { e in
      let subject = e.op.map { name($0) } ?? e.queue.map { name($0) } ?? "world"
      return "\(e.tick) \(subject) \(Self.word(for: e.kind, in: self))"
    }
  }

  static func word(for kind: EventKind, in world: World) -> String {
    switch kind {
    case .queueCreated: "queue"
    case .created: "created"
    case .enqueued: "enqueued"
    case .ready: "ready"
    case .unready: "unready"
    case .dispatched: "dispatched"
    case .started: "started"
    case .skipped: "skipped"
    case .cancelRequested: "cancel"
    case .cancelObserved: "sawCancel"
    case .finished(.succeeded): "finished"
    case .finished(.failed): "failed"
    case .finished(.cancelled): "cancelled"
    case .finished(.bailed): "bailed"
    case .finished(.dropped): "dropped"
    case .completionStarted: "completion+"
    case .completionFinished: "completion-"
    case .workEnded: "jammed"
    case .blockStarted(let i): "block\(i + 1)+"
    case .blockFinished(let i): "block\(i + 1)-"
    case .kvoWillChange(let key): "will:\(key)"
    case .kvoDidChange(let key): "did:\(key)"
    case .suspended: "suspended"
    case .resumed: "resumed"
    case .maxChanged(let max): "max=\(max.map(String.init) ?? "default")"
    case .priorityChanged(let p): "priority=\(p)"
    case .qualityOfServiceChanged(let q): "qos=\(q)"
    case .dependencyAdded(let d): "dep+\(world.name(d))"
    case .dependencyRemoved(let d): "dep-\(world.name(d))"
    case .cycleClosed(let d): "cycle:\(world.name(d))"
    case .barrierAdded: "barrier"
    case .waitStarted: "wait"
    case .waitEnded: "waited"
    case .waitStalled: "waitStalled"
    case .platformChanged(let p): "platform=\(p.rawValue)"
    case .machineChanged(let n): "cores=\(n.map(String.init) ?? "unlimited")"
    case .cpuLoad(let used): "cpu=\(share(used))"
    case .cpuShare(let s): "share=\(share(s))"
    case .tapScheduled(let t): "tap@\(t)"
    case .framesChanged(let every): "frames=\(every.map(String.init) ?? "off")"
    case .ignoredOnMainQueue(.suspend): "ignored:suspend"
    case .ignoredOnMainQueue(.resume): "ignored:resume"
    case .ignoredOnMainQueue(.maxConcurrent(let max)): "ignored:max=\(max.map(String.init) ?? "default")"
    case .ignoredOnMainQueue(.qualityOfService(let q)): "ignored:qos=\(q)"
    case .ignoredOnMainQueue(.cancelAll): "ignored:cancelAll"
    case .startCalled: "startCalled"
    case .executionBlockAdded(let t): "addBlock=\(t)"
    case .gated(let g): "gate=\(world.gateName(g))"
    case .gateOpened(let g): "open:\(world.gateName(g))"
    case .variableCreated(let v, let value): "var:\(world.variableName(v))=\(value)"
    case .lockCreated(let l): "lock:\(world.lockName(l))"
    case .variableRead(let v, let value): "read:\(world.variableName(v))=\(value)"
    case .computed(let n, let result): "compute:\(n)=\(result)"
    case .variableWritten(let v, let value): "write:\(world.variableName(v))=\(value)"
    case .lockAcquired(let l): "locked:\(world.lockName(l))"
    case .lockWaiting(let l): "waitsFor:\(world.lockName(l))"
    case .lockReleased(let l): "unlocked:\(world.lockName(l))"
    case .touchedUI: "ui"
    case .addRefused(let op): "addRefused:\(world.name(op))"
    case .dispatchQueueCreated(let d): "dispatchQueue:\(world.dispatchQueueName(d))"
    case .underlyingQueueSet(let d): "underlying=\(d.map { world.dispatchQueueName($0) } ?? "nil")"
    case .ignoredOnMainQueue(.underlyingQueue(let d)): "ignored:underlying=\(d.map { world.dispatchQueueName($0) } ?? "nil")"
    }
  }

  /// Work per tick as cores, in the simplest form: "1", "2", "1/3", "2/3", "5/6", or units.
  static func share(_ units: Int64) -> String {
    let s = Machine.subTicks
    if units % s == 0 { return String(units / s) }
    for d: Int64 in 2...16 where (units * d) % s == 0 { return "\(units * d / s)/\(d)" }
    return "\(units)u"
  }

  /// Only the lines whose word is one of `words` (e.g. starts and finishes); a word with a
  /// value (`share=1/2`, `cpu=2`) is matched by its name (`share`, `cpu`).
  func lines(from mark: Int = 0, only words: Set<String>) -> [String] {
    lines(from: mark).filter {
      let word = $0.split(separator: " ")[2]
      return words.contains(String(word)) || words.contains(String(word.split(separator: "=")[0]))
    }
  }

  /// The explanation of the event at `index`, for asserting reasons.
  func reasonText(_ index: Int) -> String { describe(trace[index]) }

  /// Index of the first event of this kind about the named operation.
  func firstIndex(_ word: String, _ opName: String) -> Int? {
    trace.indices.first { i in
      let e = trace[i]
      return e.op.map { name($0) } == opName && Self.word(for: e.kind, in: self) == word
    }
  }
}

/// Shorthand for specs in tests.
func spec(
  _ name: String, _ duration: Tick = 1, priority: QueuePriority? = nil, qos: QualityOfService? = nil,
  check: CancellationCheck = .never, bails: Bool = false, failsAt: Tick? = nil, completion: Tick? = nil,
  kind: OperationKind = .plain
) -> OperationSpec {
  OperationSpec(
    name: name, duration: duration, priority: priority, qualityOfService: qos, cancellation: check,
    bailsIfDependencyCancelled: bails, failsAt: failsAt, completion: completion, kind: kind)
}
