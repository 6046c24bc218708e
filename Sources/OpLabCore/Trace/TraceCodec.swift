/// How ``Trace`` writes one ``Event``: a kind byte, a reason byte, a byte saying which of
/// op, queue, from and to are there, then variable-length integers — the tick as a step
/// from the event before, the op, the queue, the kind's payload, the reason's payload.
///
/// Optional payloads and the start triggers get codes of their own, so nothing is written
/// for a `nil`. Every case of ``EventKind`` and ``Reason`` has a code; `read` undoes
/// `write` exactly (the trace tests round-trip every case).
enum Codec {
  @inline(__always) static func write(
    kind: EventKind, op: OpID?, queue: QueueID?, from: OpPhase?, to: OpPhase?, reason: Reason,
    step: UInt64, to w: inout Writer
  ) {
    let kindAt = w.cursor
    w.byte(0)
    w.byte(0)
    var flags: UInt8 = 0
    if op != nil { flags |= 1 }
    if queue != nil { flags |= 2 }
    if let from { flags |= (from.rawValue + 1) << 2 }
    if let to { flags |= (to.rawValue + 1) << 5 }
    w.byte(flags)
    w.varint(step)
    if let op { w.signed(Int64(op.index)) }
    if let queue { w.signed(Int64(queue.index)) }
    kindAt[0] = writeKind(kind, to: &w)
    kindAt[1] = writeReason(reason, to: &w)
  }

  static func read(from r: inout Reader, previousTick: Tick) -> Event {
    let kindCode = r.byte()
    let reasonCode = r.byte()
    let flags = r.byte()
    let tick = previousTick + Tick(r.varint())
    let op: OpID? = flags & 1 != 0 ? r.op() : nil
    let queue: QueueID? = flags & 2 != 0 ? QueueID(Int(r.int32())) : nil
    let fromBits = (flags >> 2) & 7, toBits = flags >> 5
    let from = fromBits == 0 ? nil : OpPhase(rawValue: fromBits - 1)
    let to = toBits == 0 ? nil : OpPhase(rawValue: toBits - 1)
    let kind = readKind(kindCode, from: &r)
    let reason = readReason(reasonCode, from: &r)
    return Event(tick: tick, kind: kind, op: op, queue: queue, from: from, to: to, reason: reason)
  }

  // MARK: - Kinds

  /// Writes the kind's payload and returns its code (never 0).
  @inline(__always) static func writeKind(_ kind: EventKind, to w: inout Writer) -> UInt8 {
    switch kind {
    case .queueCreated(nil): return 1
    case .queueCreated(let n?): w.signed(Int64(n)); return 2
    case .created: return 3
    case .enqueued: return 4
    case .ready: return 5
    case .unready: return 6
    case .dispatched: return 7
    case .started: return 8
    case .skipped: return 9
    case .cancelRequested: return 10
    case .cancelObserved: return 11
    case .finished(let o): w.byte(o.rawValue); return 12
    case .completionStarted: return 13
    case .completionFinished: return 14
    case .workEnded: return 15
    case .blockStarted(let b): w.signed(Int64(b)); return 16
    case .blockFinished(let b): w.signed(Int64(b)); return 17
    case .kvoWillChange(let k): w.byte(k.rawValue); return 18
    case .kvoDidChange(let k): w.byte(k.rawValue); return 19
    case .suspended: return 20
    case .resumed: return 21
    case .maxChanged(nil): return 22
    case .maxChanged(let n?): w.signed(Int64(n)); return 23
    case .priorityChanged(let p): w.signed(Int64(p.rawValue)); return 24
    case .qualityOfServiceChanged(let q): w.signed(Int64(q.rawValue)); return 25
    case .dependencyAdded(let op): w.signed(Int64(op.index)); return 26
    case .dependencyRemoved(let op): w.signed(Int64(op.index)); return 27
    case .cycleClosed(let op): w.signed(Int64(op.index)); return 28
    case .barrierAdded: return 29
    case .waitStarted: return 30
    case .waitEnded: return 31
    case .waitStalled: return 32
    case .platformChanged(.apple): return 33
    case .platformChanged(.linux): return 34
    case .machineChanged(nil): return 35
    case .machineChanged(let n?): w.signed(Int64(n)); return 36
    case .cpuLoad(let used): w.signed(used); return 37
    case .cpuShare(let share): w.signed(share); return 38
    case .tapScheduled(let t): w.signed(Int64(t)); return 39
    case .framesChanged(nil): return 40
    case .framesChanged(let n?): w.signed(Int64(n)); return 41
    case .ignoredOnMainQueue(.suspend): return 42
    case .ignoredOnMainQueue(.resume): return 43
    case .ignoredOnMainQueue(.maxConcurrent(nil)): return 44
    case .ignoredOnMainQueue(.maxConcurrent(let n?)): w.signed(Int64(n)); return 45
    case .ignoredOnMainQueue(.qualityOfService(let q)): w.signed(Int64(q.rawValue)); return 46
    case .ignoredOnMainQueue(.cancelAll): return 47
    case .startCalled: return 48
    case .executionBlockAdded(let t): w.signed(Int64(t)); return 49
    case .gated(let g): w.signed(Int64(g)); return 50
    case .gateOpened(let g): w.signed(Int64(g)); return 51
    case .variableCreated(let v, let value): w.signed(Int64(v)); w.signed(Int64(value)); return 52
    case .lockCreated(let l): w.signed(Int64(l)); return 53
    case .variableRead(let v, let value): w.signed(Int64(v)); w.signed(Int64(value)); return 54
    case .computed(let n, let result): w.signed(Int64(n)); w.signed(Int64(result)); return 55
    case .variableWritten(let v, let value): w.signed(Int64(v)); w.signed(Int64(value)); return 56
    case .lockAcquired(let l): w.signed(Int64(l)); return 57
    case .lockWaiting(let l): w.signed(Int64(l)); return 58
    case .lockReleased(let l): w.signed(Int64(l)); return 59
    case .touchedUI: return 60
    case .addRefused(let op): w.signed(Int64(op.index)); return 61
    case .dispatchQueueCreated(let d): w.signed(Int64(d)); return 62
    case .underlyingQueueSet(nil): return 63
    case .underlyingQueueSet(let d?): w.signed(Int64(d)); return 64
    case .ignoredOnMainQueue(.underlyingQueue(nil)): return 65
    case .ignoredOnMainQueue(.underlyingQueue(let d?)): w.signed(Int64(d)); return 66
    }
  }

  static func readKind(_ code: UInt8, from r: inout Reader) -> EventKind {
    switch code {
    case 1: .queueCreated(maxConcurrent: nil)
    case 2: .queueCreated(maxConcurrent: Int(r.signed()))
    case 3: .created
    case 4: .enqueued
    case 5: .ready
    case 6: .unready
    case 7: .dispatched
    case 8: .started
    case 9: .skipped
    case 10: .cancelRequested
    case 11: .cancelObserved
    case 12: .finished(outcome(r.byte()))
    case 13: .completionStarted
    case 14: .completionFinished
    case 15: .workEnded
    case 16: .blockStarted(r.int32())
    case 17: .blockFinished(r.int32())
    case 18: .kvoWillChange(key(r.byte()))
    case 19: .kvoDidChange(key(r.byte()))
    case 20: .suspended
    case 21: .resumed
    case 22: .maxChanged(nil)
    case 23: .maxChanged(Int(r.signed()))
    case 24: .priorityChanged(priority(r.signed()))
    case 25: .qualityOfServiceChanged(qualityOfService(r.signed()))
    case 26: .dependencyAdded(r.op())
    case 27: .dependencyRemoved(r.op())
    case 28: .cycleClosed(r.op())
    case 29: .barrierAdded
    case 30: .waitStarted
    case 31: .waitEnded
    case 32: .waitStalled
    case 33: .platformChanged(.apple)
    case 34: .platformChanged(.linux)
    case 35: .machineChanged(cores: nil)
    case 36: .machineChanged(cores: Int(r.signed()))
    case 37: .cpuLoad(used: r.signed())
    case 38: .cpuShare(r.signed())
    case 39: .tapScheduled(Tick(r.signed()))
    case 40: .framesChanged(every: nil)
    case 41: .framesChanged(every: Tick(r.signed()))
    case 42: .ignoredOnMainQueue(.suspend)
    case 43: .ignoredOnMainQueue(.resume)
    case 44: .ignoredOnMainQueue(.maxConcurrent(nil))
    case 45: .ignoredOnMainQueue(.maxConcurrent(Int(r.signed())))
    case 46: .ignoredOnMainQueue(.qualityOfService(qualityOfService(r.signed())))
    case 47: .ignoredOnMainQueue(.cancelAll)
    case 48: .startCalled
    case 49: .executionBlockAdded(Tick(r.signed()))
    case 50: .gated(r.int32())
    case 51: .gateOpened(r.int32())
    // Arguments are evaluated left to right, so the payload is read in the order written.
    case 52: .variableCreated(r.int32(), value: Int(r.signed()))
    case 53: .lockCreated(r.int32())
    case 54: .variableRead(r.int32(), value: Int(r.signed()))
    case 55: .computed(Int(r.signed()), result: Int(r.signed()))
    case 56: .variableWritten(r.int32(), value: Int(r.signed()))
    case 57: .lockAcquired(r.int32())
    case 58: .lockWaiting(r.int32())
    case 59: .lockReleased(r.int32())
    case 60: .touchedUI
    case 61: .addRefused(r.op())
    case 62: .dispatchQueueCreated(r.int32())
    case 63: .underlyingQueueSet(nil)
    case 64: .underlyingQueueSet(r.int32())
    case 65: .ignoredOnMainQueue(.underlyingQueue(nil))
    case 66: .ignoredOnMainQueue(.underlyingQueue(r.int32()))
    default: corrupt("event kind", code)
    }
  }

  // MARK: - Reasons

  /// Writes the reason's payload and returns its code.
  @inline(__always) static func writeReason(_ reason: Reason, to w: inout Writer) -> UInt8 {
    switch reason {
    case .command: return 1
    case .cancelAll(let q): w.signed(Int64(q.index)); return 2
    case .waitingOnDependencies(let n): w.signed(Int64(n)); return 3
    case .noUnfinishedDependencies: return 4
    case .dependencyFinished(let op): w.signed(Int64(op.index)); return 5
    case .dependencyRemoved(let op): w.signed(Int64(op.index)); return 6
    case .dependencyAdded(let op): w.signed(Int64(op.index)); return 7
    case .cancelledWhilePending: return 8
    case .picked(let trigger, let beat):
      // 9...20: the trigger, then whether a beaten op follows.
      let base: UInt8
      switch trigger {
      case .enqueued: base = 9
      case .becameReady: base = 11
      case .slotFreed(let op): w.signed(Int64(op.index)); base = 13
      case .resumed: base = 15
      case .maxRaised: base = 17
      case .cancelled: base = 19
      }
      guard let beat else { return base }
      w.signed(Int64(beat.index))
      return base + 1
    case .emptyQueueBarrier: return 21
    case .dispatchBarrierEnded(let op): w.signed(Int64(op.index)); return 22
    case .alreadyFinished: return 23
    case .alreadyCancelled: return 24
    case .alreadyStarted: return 25
    case .checkedIsCancelled(let elapsed): w.signed(Int64(elapsed)); return 26
    case .workDone: return 27
    case .failedAt(let t): w.signed(Int64(t)); return 28
    case .sawCancellation: return 29
    case .skippedBecauseCancelled: return 30
    case .dependencyWasCancelled(let op): w.signed(Int64(op.index)); return 31
    case .cancelledOutsideQueue: return 32
    case .finishCalled: return 33
    case .forgotFinish: return 34
    case .afterFinish: return 35
    case .barrier: return 36
    case .blockSchedule: return 37
    case .allFinished: return 38
    case .stalled: return 39
    case .tapped: return 40
    case .frameDue: return 41
    case .frameDropped: return 42
    case .frameLimit: return 43
    case .waitReturned: return 44
    case .cpuShared(let units, nil): w.signed(Int64(units)); return 45
    case .cpuShared(let units, let cores?): w.signed(Int64(units)); w.signed(Int64(cores)); return 46
    case .asyncStartSawCancellation: return 47
    case .asyncStartForgotFinish: return 48
    case .ignoredOnMainQueue(.apple): return 49
    case .ignoredOnMainQueue(.linux): return 50
    case .unfinishedCountBelowZero: return 51
    case .cancelledAgain: return 52
    case .startedByHand(let op): w.signed(Int64(op.index)); return 53
    case .asyncStartReturned: return 54
    case .dependencyDidNotSucceed(let op): w.signed(Int64(op.index)); return 55
    case .startNoLongerPossible(let op): w.signed(Int64(op.index)); return 56
    case .gateOpened(let g): w.signed(Int64(g)); return 57
    case .step(let i): w.signed(Int64(i)); return 58
    case .lockHeldBy(let op): w.signed(Int64(op.index)); return 59
    case .lockReleasedBy(let op): w.signed(Int64(op.index)); return 60
    case .completionStep(let i): w.signed(Int64(i)); return 61
    case .addedByStep(let op, false): w.signed(Int64(op.index)); return 62
    case .addedByStep(let op, true): w.signed(Int64(op.index)); return 63
    case .lockChosenAfter(let op): w.signed(Int64(op.index)); return 64
    case .addedByMainThreadCall(let op): w.signed(Int64(op.index)); return 65
    case .dispatchQueueBusy(let d, let op): w.signed(Int64(d)); w.signed(Int64(op.index)); return 66
    case .dispatchQueueFreed(let d, let op): w.signed(Int64(d)); w.signed(Int64(op.index)); return 67
    }
  }

  static func readReason(_ code: UInt8, from r: inout Reader) -> Reason {
    switch code {
    case 1: return .command
    case 2: return .cancelAll(QueueID(Int(r.int32())))
    case 3: return .waitingOnDependencies(r.int32())
    case 4: return .noUnfinishedDependencies
    case 5: return .dependencyFinished(r.op())
    case 6: return .dependencyRemoved(r.op())
    case 7: return .dependencyAdded(r.op())
    case 8: return .cancelledWhilePending
    case 9...20:
      let trigger: StartTrigger
      switch (code - 9) / 2 {
      case 0: trigger = .enqueued
      case 1: trigger = .becameReady
      case 2: trigger = .slotFreed(r.op())
      case 3: trigger = .resumed
      case 4: trigger = .maxRaised
      default: trigger = .cancelled
      }
      return .picked(trigger, beat: (code - 9) % 2 == 1 ? r.op() : nil)
    case 21: return .emptyQueueBarrier
    case 22: return .dispatchBarrierEnded(r.op())
    case 23: return .alreadyFinished
    case 24: return .alreadyCancelled
    case 25: return .alreadyStarted
    case 26: return .checkedIsCancelled(elapsed: Tick(r.signed()))
    case 27: return .workDone
    case 28: return .failedAt(Tick(r.signed()))
    case 29: return .sawCancellation
    case 30: return .skippedBecauseCancelled
    case 31: return .dependencyWasCancelled(r.op())
    case 32: return .cancelledOutsideQueue
    case 33: return .finishCalled
    case 34: return .forgotFinish
    case 35: return .afterFinish
    case 36: return .barrier
    case 37: return .blockSchedule
    case 38: return .allFinished
    case 39: return .stalled
    case 40: return .tapped
    case 41: return .frameDue
    case 42: return .frameDropped
    case 43: return .frameLimit
    case 44: return .waitReturned
    case 45: return .cpuShared(units: r.int32(), cores: nil)
    case 46:
      let units = r.int32()
      return .cpuShared(units: units, cores: r.int32())
    case 47: return .asyncStartSawCancellation
    case 48: return .asyncStartForgotFinish
    case 49: return .ignoredOnMainQueue(.apple)
    case 50: return .ignoredOnMainQueue(.linux)
    case 51: return .unfinishedCountBelowZero
    case 52: return .cancelledAgain
    case 53: return .startedByHand(r.op())
    case 54: return .asyncStartReturned
    case 55: return .dependencyDidNotSucceed(r.op())
    case 56: return .startNoLongerPossible(r.op())
    case 57: return .gateOpened(r.int32())
    case 58: return .step(r.int32())
    case 59: return .lockHeldBy(r.op())
    case 60: return .lockReleasedBy(r.op())
    case 61: return .completionStep(r.int32())
    case 62: return .addedByStep(r.op(), completion: false)
    case 63: return .addedByStep(r.op(), completion: true)
    case 64: return .lockChosenAfter(r.op())
    case 65: return .addedByMainThreadCall(r.op())
    case 66:
      let d = r.int32()
      return .dispatchQueueBusy(d, running: r.op())
    case 67:
      let d = r.int32()
      return .dispatchQueueFreed(d, after: r.op())
    default: corrupt("reason", code)
    }
  }

  // MARK: - Small enums

  static func outcome(_ raw: UInt8) -> Outcome {
    guard let o = Outcome(rawValue: raw) else { corrupt("outcome", raw) }
    return o
  }

  static func priority(_ raw: Int64) -> QueuePriority {
    guard let p = QueuePriority(rawValue: Int8(truncatingIfNeeded: raw)) else { corrupt("queue priority", UInt8(truncatingIfNeeded: raw)) }
    return p
  }

  static func qualityOfService(_ raw: Int64) -> QualityOfService {
    guard let q = QualityOfService(rawValue: Int8(truncatingIfNeeded: raw)) else { corrupt("quality of service", UInt8(truncatingIfNeeded: raw)) }
    return q
  }

  static func key(_ raw: UInt8) -> KVOKey {
    guard let k = KVOKey(rawValue: raw) else { corrupt("KVO key", raw) }
    return k
  }

  /// Only the codec writes the trace's bytes, so an unknown code is a bug in this file.
  static func corrupt(_ what: String, _ code: UInt8) -> Never {
    preconditionFailure("trace: no \(what) has code \(code)")
  }
}
