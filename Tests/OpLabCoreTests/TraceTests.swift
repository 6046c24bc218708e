import Testing

@testable import OpLabCore

/// The packed trace: every event kind and reason survives the round trip, random access
/// agrees with iteration across chunks, and copies are independent.
@Suite struct TraceTests {
  static let op = OpID(123_456)
  static let other = OpID(7)

  /// One of every `EventKind` case, with payloads at their extremes where they have any.
  static let kinds: [EventKind] = [
    .queueCreated(maxConcurrent: nil), .queueCreated(maxConcurrent: 1), .queueCreated(maxConcurrent: Int.max),
    .created, .enqueued, .ready, .unready, .dispatched, .started, .skipped, .cancelRequested, .cancelObserved,
    .finished(.succeeded), .finished(.failed), .finished(.cancelled), .finished(.bailed), .finished(.dropped),
    .completionStarted, .completionFinished, .workEnded,
    .blockStarted(0), .blockStarted(Int32.max), .blockFinished(3),
    .kvoWillChange(.isReady), .kvoWillChange(.isExecuting), .kvoDidChange(.isFinished),
    .suspended, .resumed, .maxChanged(nil), .maxChanged(0), .maxChanged(Int.min), .maxChanged(Int.max),
    .priorityChanged(.veryLow), .priorityChanged(.veryHigh), .qualityOfServiceChanged(.background),
    .qualityOfServiceChanged(.userInteractive),
    .dependencyAdded(other), .dependencyRemoved(op), .cycleClosed(OpID(0)), .barrierAdded,
    .waitStarted, .waitEnded, .waitStalled, .platformChanged(.apple), .platformChanged(.linux),
    .machineChanged(cores: nil), .machineChanged(cores: 1024), .cpuLoad(used: 0), .cpuLoad(used: Int64.max),
    .cpuShare(240_240), .tapScheduled(World.maxTick), .framesChanged(every: nil), .framesChanged(every: 16),
    .ignoredOnMainQueue(.suspend), .ignoredOnMainQueue(.resume), .ignoredOnMainQueue(.maxConcurrent(nil)),
    .ignoredOnMainQueue(.maxConcurrent(Int.max)), .ignoredOnMainQueue(.qualityOfService(.background)),
    .ignoredOnMainQueue(.cancelAll),
    .startCalled, .executionBlockAdded(0), .executionBlockAdded(1 << 40), .gated(0), .gateOpened(Int32.max),
    .variableCreated(0, value: Int.min), .lockCreated(Int32.max), .variableRead(2, value: -5),
    .computed(-1, result: Int.max), .variableWritten(1, value: 0), .lockAcquired(0), .lockWaiting(3), .lockReleased(1),
    .touchedUI, .dispatchQueueCreated(0), .dispatchQueueCreated(Int32.max), .underlyingQueueSet(nil), .underlyingQueueSet(3),
    .ignoredOnMainQueue(.underlyingQueue(nil)), .ignoredOnMainQueue(.underlyingQueue(Int32.max)),
  ]

  /// One of every `Reason` case, and every start trigger with and without a beaten op.
  static let reasons: [Reason] = {
    var all: [Reason] = [
      .command, .cancelAll(QueueID(3)), .waitingOnDependencies(2), .waitingOnDependencies(Int32.max),
      .noUnfinishedDependencies, .dependencyFinished(op), .dependencyRemoved(other), .dependencyAdded(op),
      .cancelledWhilePending, .emptyQueueBarrier, .dispatchBarrierEnded(other), .alreadyFinished,
      .alreadyCancelled, .alreadyStarted, .checkedIsCancelled(elapsed: 1 << 40), .workDone, .failedAt(0),
      .sawCancellation, .skippedBecauseCancelled, .dependencyWasCancelled(op), .cancelledOutsideQueue,
      .finishCalled, .forgotFinish, .asyncStartSawCancellation, .asyncStartForgotFinish, .afterFinish, .barrier, .blockSchedule, .allFinished,
      .stalled, .tapped,
      .frameDue, .frameDropped, .frameLimit, .waitReturned, .cpuShared(units: 3, cores: nil),
      .cpuShared(units: 1000, cores: 2), .ignoredOnMainQueue(.apple), .ignoredOnMainQueue(.linux),
      .unfinishedCountBelowZero, .cancelledAgain,
      .startedByHand(op), .asyncStartReturned, .dependencyDidNotSucceed(other),
      .startNoLongerPossible(op), .gateOpened(2),
      .step(0), .step(Int32.max), .lockHeldBy(op), .lockReleasedBy(other),
      .dispatchQueueBusy(0, running: op), .dispatchQueueBusy(Int32.max, running: other), .dispatchQueueFreed(2, after: op),
    ]
    let triggers: [StartTrigger] = [.enqueued, .becameReady, .slotFreed(op), .resumed, .maxRaised, .cancelled]
    for t in triggers { all += [.picked(t, beat: nil), .picked(t, beat: other)] }
    return all
  }()

  /// Events with every kind, every reason, and every shape of optional field.
  static func sample() -> [Event] {
    var events: [Event] = []
    var tick: Tick = 0
    let phases: [OpPhase?] = [nil, .created, .pending, .ready, .executing, .finished]
    for (i, kind) in kinds.enumerated() {
      for (j, reason) in reasons.enumerated() where (i + j) % 7 == 0 || j == i % reasons.count {
        tick += (i * j) % 3 == 0 ? 0 : Tick(1 << ((i + j) % 40))
        events.append(
          Event(
            tick: tick, kind: kind, op: j % 3 == 0 ? nil : OpID(i * 1000 + j), queue: i % 2 == 0 ? nil : QueueID(j),
            from: phases[i % phases.count], to: phases[j % phases.count], reason: reason))
      }
    }
    return events
  }

  @Test("Every event kind, reason and optional field reads back as written")
  func roundTrip() {
    let events = Self.sample()
    var trace = Trace()
    for e in events { trace.append(e) }
    #expect(trace.count == events.count)
    #expect(Array(trace) == events)
    for i in events.indices { #expect(trace[i] == events[i], "event \(i)") }
    #expect(Self.kinds.allSatisfy { k in events.contains { $0.kind == k } })
    #expect(Self.reasons.allSatisfy { r in events.contains { $0.reason == r } })
  }

  @Test("A long trace crosses chunks; random access, iteration, reading from a position and search by tick agree")
  func chunksAndMarks() {
    var trace = Trace()
    var events: [Event] = []
    for i in 0..<40_000 {
      let e = Event(
        tick: i / 3, kind: i % 5 == 0 ? .started : .dependencyAdded(OpID(i * 31)), op: OpID(i),
        queue: QueueID(1), from: .ready, to: .executing,
        reason: .picked(.slotFreed(OpID(i - 1)), beat: i % 2 == 0 ? OpID(i + 1) : nil))
      events.append(e)
      trace.append(e)
    }
    #expect(trace.chunks.count > 1)
    #expect(Array(trace) == events)
    for i in stride(from: 0, to: events.count, by: 997) { #expect(trace[i] == events[i]) }
    #expect(trace[events.count - 1] == events[events.count - 1])
    // Reading from a position: on a mark, between marks, across a chunk's end, at and past the end.
    let chunkEnd = trace.marks.firstIndex { $0.chunk == 1 }.map { $0 * Trace.markEvery } ?? 0
    #expect(chunkEnd > 0)
    for start in [0, 1, 31, 32, 33, 997, chunkEnd - 1, chunkEnd, chunkEnd + 1, events.count - 1] {
      #expect(Array(trace.events(from: start)) == Array(events[start...]), "from \(start)")
    }
    #expect(Array(trace.events(from: events.count)).isEmpty)
    #expect(Array(trace.events(from: events.count + 5)).isEmpty)
    #expect(Array(trace.events(from: -3)) == events)
    for tick in [0, 1, 5000, 13_333, 13_334] {
      #expect(trace.firstIndex(atOrAfter: tick) == (events.firstIndex { $0.tick >= tick } ?? events.count), "tick \(tick)")
    }
    #expect(trace.storedBytes < events.count * 16)
  }

  @Test("The end taken as the trace grows reads on from there as reading from its index does, across chunks and marks")
  func readingFromTheEnd() {
    var trace = Trace()
    #expect(trace.end.index == 0)
    var ends: [Trace.Position] = [trace.end]
    var events: [Event] = []
    // Events of uneven sizes (long steps of the clock among short ones), so that chunks end
    // at every offset near their ends.
    var tick = 0
    for i in 0..<12_000 {
      tick += i % 7 == 0 ? 1 << (i % 40) : i % 2
      let e = Event(
        tick: tick, kind: i % 3 == 0 ? .started : .dependencyAdded(OpID(i * 977)), op: OpID(i),
        queue: QueueID(i % 5), from: .ready, to: .executing, reason: .picked(.slotFreed(OpID(i - 1)), beat: i % 2 == 0 ? OpID(i + 1) : nil))
      events.append(e)
      trace.append(e)
      ends.append(trace.end)
    }
    #expect(trace.chunks.count > 3)
    // From every end its next few events; from every 250th, all the rest.
    for (k, end) in ends.enumerated() {
      #expect(end.index == k)
      let read = k % 250 == 0 ? Array(trace.events(from: end)) : Array(trace.events(from: end).prefix(3))
      if read != Array(events[k..<(k % 250 == 0 ? events.count : min(k + 3, events.count))]) {
        Issue.record("from the end taken at \(k)")
        return
      }
    }
    #expect(Array(trace.events(from: trace.end)).isEmpty)
    // An end of a longer trace reads nothing from a shorter one.
    #expect(Array(Trace().events(from: trace.end)).isEmpty)
  }

  @Test("A copy of a trace is independent of the original; equal traces compare equal")
  func valueSemantics() {
    var a = Trace()
    let events = Self.sample()
    for e in events.prefix(100) { a.append(e) }
    var b = a
    #expect(a == b)
    b.append(events[100])
    #expect(a.count == 100)
    #expect(b.count == 101)
    #expect(a != b)
    #expect(Array(b.prefix(100)) == Array(a))
    a.append(events[100])
    #expect(a == b)
    var c = Trace()
    for e in events.prefix(101) { c.append(e) }
    #expect(c == a)
    #expect(Trace().firstIndex(atOrAfter: 0) == 0)
  }
}
