/// The learner's actions. Each happens at ``World/now`` and settles everything it
/// triggers at the same tick before returning.
extension World {
  // MARK: Queues

  /// Creates an `OperationQueue`.
  /// - Parameters:
  ///   - name: a unique identifier.
  ///   - maxConcurrent: `maxConcurrentOperationCount`; `nil` for the default (no limit).
  ///   - qualityOfService: the queue's `qualityOfService`, or `nil` for its default.
  /// - Returns: the new queue.
  /// - Throws: a ``SimulationError`` for a bad or taken name, or a negative limit.
  @discardableResult
  public mutating func createQueue(
    name: String, maxConcurrent: Int? = nil, qualityOfService: QualityOfService? = nil
  ) throws(SimulationError) -> QueueID {
    try checkNewName(name)
    if let n = maxConcurrent, n < 0 { throw .invalidMaxConcurrent(n) }
    let id = QueueID(queues.count)
    queues.append(QueueRecord(name: name, maxConcurrent: maxConcurrent, qualityOfService: qualityOfService, isMain: false))
    queueNames[name] = id
    queueNameHashes.append(NameIndex.hash(name))
    record(.queueCreated(maxConcurrent: maxConcurrent), queue: id, reason: .command)
    return id
  }

  /// Sets `maxConcurrentOperationCount`. Lowering never stops running operations;
  /// raising starts waiting ones at once (rule 28). `0` runs nothing. The main queue
  /// ignores it: it is always serial (rule 26).
  /// - Parameter max: the new limit, or `nil` for the default (−1, no limit).
  /// - Throws: for a limit below 0 (the real setter checks it first, on every queue).
  public mutating func setMaxConcurrent(_ q: QueueID, to max: Int?) throws(SimulationError) {
    if let n = max, n < 0 { throw .invalidMaxConcurrent(n) }
    if mainQueueIgnores(.maxConcurrent(max), on: q) { return }
    queues[q.slot].maxConcurrent = max
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    record(.maxChanged(max), queue: q, reason: .command)
    pick(on: q, trigger: .maxRaised)
    settle()
  }

  /// `isSuspended = true`: stops new starts only; running operations finish (rule 31).
  /// The main queue ignores it (``mainQueueIgnores(_:on:)``).
  /// - Throws: nothing at present; kept throwing like the other queue settings.
  public mutating func suspend(_ q: QueueID) throws(SimulationError) {
    if mainQueueIgnores(.suspend, on: q) { return }
    queues[q.slot].isSuspended = true
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    record(.suspended, queue: q, reason: .command)
  }

  /// `isSuspended = false`: the queue picks at once. The main queue ignores it.
  /// - Throws: nothing at present; kept throwing like the other queue settings.
  public mutating func resume(_ q: QueueID) throws(SimulationError) {
    if mainQueueIgnores(.resume, on: q) { return }
    queues[q.slot].isSuspended = false
    record(.resumed, queue: q, reason: .command)
    pick(on: q, trigger: .resumed)
    settle()
  }

  /// Sets the queue's `qualityOfService`. The main queue's stays `userInteractive` (rule 41).
  public mutating func setQualityOfService(_ q: QueueID, to qos: QualityOfService) {
    if mainQueueIgnores(.qualityOfService(qos), on: q) { return }
    queues[q.slot].qualityOfService = qos
    record(.qualityOfServiceChanged(qos), queue: q, reason: .command)
  }

  // MARK: Operations

  /// Defines an operation without adding it to a queue (`hold`).
  /// - Parameters:
  ///   - spec: what the operation does.
  ///   - dependencies: operations it depends on, added in order.
  /// - Returns: the new operation.
  /// - Throws: a ``SimulationError`` for a bad spec or a taken name.
  @discardableResult
  public mutating func createOperation(
    _ spec: OperationSpec, dependencies: [OpID] = []
  ) throws(SimulationError) -> OpID {
    // The name is hashed once, for the check and for filing it. The cache lines this add
    // will read at random (the name's place in the index, each dependency's readiness) are
    // asked for first, so that at a million operations their loads overlap the checks.
    let hash = NameIndex.hash(spec.name)
    opNames.prefetch(hash: hash)
    for dep in dependencies { readiness.prefetch(dep.slot) }
    try checkNewName(spec.name, hash: hash)
    try spec.validate()
    if case .steps(let steps) = spec.kind { try checkSteps(steps) }
    if let bad = dependencies.first(where: { $0.slot < 0 || $0.slot >= operations.count }) {
      throw .unknownOperation("\(bad)")
    }
    let id = newOperation(spec, nameHash: hash, reason: .command)
    if case .steps(let steps) = spec.kind { countCompute(steps) }
    // A new operation has no dependents, so no cycle can close; duplicates are ignored
    // (as addDependency does): by looking back over a short list, with a set for a long
    // one, so a wide fan-in stays linear and a narrow one allocates nothing.
    if dependencies.count <= 16 {
      for (i, dep) in dependencies.enumerated() where !dependencies[..<i].contains(dep) { link(id, on: dep, reason: .command) }
    } else {
      var seen = Set<OpID>()
      for dep in dependencies where seen.insert(dep).inserted { link(id, on: dep, reason: .command) }
    }
    return id
  }

  /// Defines an operation and adds it to a queue: `queue.addOperation(op)`.
  /// - Throws: as ``createOperation(_:dependencies:)``.
  @discardableResult
  public mutating func addOperation(
    _ spec: OperationSpec, to q: QueueID, dependencies: [OpID] = []
  ) throws(SimulationError) -> OpID {
    let id = try createOperation(spec, dependencies: dependencies)
    try enqueue(id, on: q)
    return id
  }

  /// `queue.addOperation(op)`: the queue files it under its priority level and picks at once (rule 21).
  /// - Throws: ``SimulationError/cannotEnqueue(operation:phase:platform:)`` unless the
  ///   operation is new (rule 39).
  public mutating func enqueue(_ op: OpID, on q: QueueID) throws(SimulationError) {
    guard operations[op.slot].phase == .created else {
      throw .cannotEnqueue(operation: operations[op.slot].name, phase: operations[op.slot].phase, platform: platform)
    }
    if !addCalls.isEmpty, let adding = pendingAdd(of: op) {
      throw .cannotEnqueueWhileAdding(operation: operations[op.slot].name, queue: queues[adding.slot].name)
    }
    file(op, on: q, reason: .command)
    pick(on: q, trigger: .enqueued)
    settle()
  }

  /// `cancel()`. Cooperative: an executing operation stops only if its code checks
  /// (rule 12); one that has not started becomes ready at once, its dependencies
  /// ignored, and is skipped when started (rule 13).
  public mutating func cancel(_ op: OpID) {
    cancel(op, because: .command)
    settle()
  }

  /// `cancelAllOperations()`: cancels the queue's unfinished operations (barriers included)
  /// one at a time, in insertion order. Not atomic: each cancel's consequences happen before
  /// the next one (rule 33), so a dependent can start during the loop. On Linux the main
  /// queue ignores it (``mainQueueIgnores(_:on:)``).
  public mutating func cancelAll(_ q: QueueID) {
    if mainQueueIgnores(.cancelAll, on: q) { return }
    for op in unfinishedMembers(of: q) where operations[op.slot].mainThreadWork == nil {
      cancel(op, because: .cancelAll(q))
      settle()
    }
  }

  /// Sets `queuePriority`. A waiting operation moves to the tail of its new level (rule 23);
  /// setting the level it already has changes nothing. On Linux, corelibs works out the old
  /// level from the QoS (rule 24's last bullet): when that guess is the new level nothing
  /// happens, and when it is not where the operation is filed, the operation stays put.
  public mutating func setPriority(_ op: OpID, to priority: QueuePriority) {
    let r = operations[op.slot]
    let waiting = r.phase == .pending || r.phase == .ready
    record(.priorityChanged(priority), op: op, reason: waiting || r.phase == .created ? .command : .alreadyStarted)
    guard waiting, !r.isBarrier, !r.dispatched, !isDispatchedToMainThread(op), let q = r.queue else {
      operations[op.slot].spec.priority = priority
      return
    }
    switch platform {
    case .apple:
      operations[op.slot].spec.priority = priority
      guard r.level != priority.rawValue else { return }
    case .linux:
      let assumed = r.spec.priority?.rawValue
        ?? (queues[q.slot].effectiveMax != 0 ? r.spec.qualityOfService?.mappedPriority.rawValue : nil)
        ?? QueuePriority.normal.rawValue
      guard assumed != priority.rawValue else { return }
      operations[op.slot].spec.priority = priority
      guard assumed == r.level else { return }  // not found in the list it searched: left in place
    }
    operations[op.slot].level = priority.rawValue
    operations[op.slot].place = takePlace()
    if r.phase == .ready {
      notePossiblyStaleReadyEntry(on: q)  // the entry under the old level and place
      pushReady(op, on: q)
    }
  }

  /// Sets the operation's `qualityOfService`. It decides nothing about order on Darwin;
  /// on Linux it files an operation with no explicit priority when it is enqueued (rule 24).
  public mutating func setQualityOfService(_ op: OpID, to qos: QualityOfService) {
    operations[op.slot].spec.qualityOfService = qos
    let started = operations[op.slot].phase == .executing || operations[op.slot].phase == .finished
    record(.qualityOfServiceChanged(qos), op: op, reason: started ? .alreadyStarted : .command)
  }

  /// `op.addDependency(dep)`. Works across queues and before or after enqueueing.
  /// A dependency on a finished operation is listed but does not block (rule 5).
  /// Closing a cycle is allowed, as in the real API, and recorded as a warning.
  /// - Returns: `false` when the dependency already existed (the real API ignores duplicates).
  @discardableResult
  public mutating func addDependency(_ op: OpID, on dep: OpID) throws(SimulationError) -> Bool {
    if edges.first(in: operations[op.slot].dependencyList, where: { $0 == dep }) != nil { return false }
    // A cycle holds only operations that wait for their dependencies: not one that has
    // started, finished, or was cancelled before starting (it ignores them, rule 13).
    let mayCloseCycle = waitsForDependencies(op.slot) && waitsForDependencies(dep.slot)
      && (op == dep || hasDependents(op))
    let started = operations[op.slot].phase == .executing || operations[op.slot].isFinished || operations[op.slot].dispatched
    link(op, on: dep, reason: started ? .alreadyStarted : .command)
    if mayCloseCycle, dependsTransitively(dep, on: op) {
      record(.cycleClosed(dep), op: op, reason: .command)
    }
    return true
  }

  /// `op.removeDependency(dep)`. On Darwin a pending operation whose last unfinished
  /// dependency is removed becomes ready. On Linux (corelibs) the count is decremented only
  /// when the removed dependency is finished and the operation cancelled (rule 9): an
  /// unfinished one strands the operation until it is cancelled; a finished one, removed
  /// from an operation cancelled before it started, takes the count that `cancel()` zeroed
  /// to −1, so the operation is not ready until it is cancelled again.
  /// - Throws: ``SimulationError/notADependency(operation:dependency:)``.
  public mutating func removeDependency(_ op: OpID, on dep: OpID) throws(SimulationError) {
    guard edges.remove(dep, from: &operations[op.slot].dependencyList) else {
      throw .notADependency(operation: operations[op.slot].name, dependency: operations[dep.slot].name)
    }
    removeDependent(op, from: dep)
    let r = operations[op.slot]
    let waitsToStart = (r.phase == .created || r.phase == .pending || r.phase == .ready) && !r.dispatched
      && !isDispatchedToMainThread(op)
    if operations[dep.slot].isFinished {
      guard platform == .linux, r.isCancelled, waitsToStart else {
        record(.dependencyRemoved(dep), op: op, reason: .command)
        return
      }
      readiness[op.slot].countBelowZero = true
      record(.dependencyRemoved(dep), op: op, queue: r.queue, reason: .unfinishedCountBelowZero)
      if r.phase == .ready, let q = r.queue {
        setPhase(op, .pending)
        record(.unready, op: op, queue: q, from: .ready, to: .pending, reason: .unfinishedCountBelowZero)
        notePossiblyStaleReadyEntry(on: q)
      }
      return
    }
    record(.dependencyRemoved(dep), op: op, reason: .command)
    guard platform == .apple else {
      operations[op.slot].stranded = true
      return
    }
    readiness[op.slot].unfinishedCount -= 1
    becomeReadyIfPossible(op, reason: .dependencyRemoved(dep))
    settle()
  }

  /// `addBarrierBlock`: an internal operation at the top priority that depends on
  /// everything unfinished in the queue; operations added while it waits depend on it
  /// (rule 40). On Linux a barrier on an empty queue bypasses suspension and the
  /// limit (rule 32).
  /// - Parameter duration: ticks the barrier block takes.
  /// - Returns: the barrier operation.
  @discardableResult
  public mutating func addBarrier(to q: QueueID, duration: Tick = 1) throws(SimulationError) -> OpID {
    if duration < 0 || duration > OperationSpec.maxDuration { throw .invalidDuration(duration) }
    queues[q.slot].barrierCount += 1
    var name = "\(queues[q.slot].name).barrier\(queues[q.slot].barrierCount)"
    while operationID(named: name) != nil { name += "'" }
    let id = newOperation(OperationSpec(name: name, duration: duration), reason: .barrier)
    operations[id.slot].isBarrier = true
    record(.barrierAdded, op: id, queue: q, reason: .barrier)
    let waitFor = unfinishedMembers(of: q)
    if waitFor.isEmpty, platform == .linux {
      // Submitted straight to the backing dispatch queue as a dispatch barrier: it runs at
      // once, outside the slots, and operations the queue dispatches meanwhile wait behind it.
      operations[id.slot].queue = q
      operations[id.slot].enqueuedAt = now
      setPhase(id, .ready)
      record(.enqueued, op: id, queue: q, from: .created, to: .pending, reason: .emptyQueueBarrier)
      record(.ready, op: id, queue: q, from: .pending, to: .ready, reason: .noUnfinishedDependencies)
      queues[q.slot].dispatchBarrier = id
      start(id, reason: .emptyQueueBarrier, holdsSlot: false)
    } else {
      for member in waitFor { link(id, on: member, reason: .barrier) }
      file(id, on: q, reason: .barrier)
      queues[q.slot].openBarrier = id
      pick(on: q, trigger: .enqueued)
    }
    settle()
    return id
  }

  /// Switches the platform mode. Decisions taken from now on follow it.
  public mutating func setPlatform(_ newPlatform: Platform) {
    platform = newPlatform
    record(.platformChanged(newPlatform), reason: .command)
  }

  // MARK: - Helpers

  /// Whether the main queue ignores `request` on the current platform; when it does, the
  /// request is recorded as ignored, with the reason, and nothing else changes.
  ///
  /// Linux: corelibs wraps `cancelAllOperations()` and the setters of `isSuspended`,
  /// `maxConcurrentOperationCount` and `qualityOfService` in `if !__mainQ`, so all four do
  /// nothing there. Apple: the main queue is documented to run one operation at a time and to
  /// keep the quality of service `userInteractive` ("cannot be changed");
  /// `cancelAllOperations()` is documented with no exception, so it cancels. What suspending
  /// the main queue does is not documented: the lab ignores it as corelibs does.
  mutating func mainQueueIgnores(_ request: MainQueueRequest, on q: QueueID) -> Bool {
    guard queues[q.slot].isMain else { return false }
    if platform == .apple, request == .cancelAll { return false }
    record(.ignoredOnMainQueue(request), queue: q, reason: .ignoredOnMainQueue(platform))
    return true
  }

  /// Throws unless `name` can name a new operation.
  /// - Parameter hash: the name's ``NameIndex/hash(_:)``, when the caller has it already.
  @inline(__always) func checkNewName(_ name: String, hash: Int? = nil) throws(SimulationError) {
    guard Self.isValidName(name) else { throw .invalidName(name) }
    let hash = hash ?? NameIndex.hash(name)
    if opNames.find(name, hash: hash, in: operations) != nil || isQueueName(name, hash: hash) || shared?.hasName(name) == true {
      throw .duplicateName(name)
    }
  }

  /// Whether a queue has this name, whose ``NameIndex/hash(_:)`` is `hash`: a look along
  /// the few queues a world usually has, comparing names only where the hashes agree, else
  /// the table (which hashes the name again).
  func isQueueName(_ name: String, hash: Int) -> Bool {
    guard queues.count <= 8 else { return queueNames[name] != nil }
    for (i, queueHash) in queueNameHashes.enumerated() where queueHash == hash && queues[i].name == name { return true }
    return false
  }

  /// Whether a name is an identifier: letters, digits, `-`, `_` and `.`, starting with a
  /// letter or `_` (so a name never reads as a number), and not a reserved word.
  public static func isValidName(_ name: String) -> Bool {
    // Most names are ASCII: check those byte by byte, without Unicode property tables.
    if let ascii = asciiNameVerdict(name) { return ascii }
    // A letter, not a combining mark (some marks count as alphabetic): a mark has no base to sit on.
    guard let first = name.unicodeScalars.first,
      first.properties.isAlphabetic && !Self.markCategories.contains(first.properties.generalCategory) || first == "_",
      !reservedNames.contains(name.lowercased())
    else { return false }
    return name.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        || $0.properties.generalCategory == .nonspacingMark || $0.properties.generalCategory == .spacingMark
    }
  }

  /// The verdict for a name of ASCII letters, digits, `-`, `_` and `.`; `nil` when it has
  /// other characters, which the Unicode rules decide.
  private static func asciiNameVerdict(_ name: String) -> Bool? {
    // Over the contiguous UTF-8 (a small string's is inline): a few instructions a byte,
    // where the UTF-8 view's iterator took about 100 (a million names in a benchmark).
    return NameIndex.withUTF8(of: name) { bytes -> Bool? in
      guard !bytes.isEmpty else { return false }
      // One bit per ASCII byte that may appear in a name (`-`, `.`, digits; letters, `_`).
      let allowedBelow64: UInt64 = 1 << 45 | 1 << 46 | 0x3FF << 48
      let allowedFrom64: UInt64 = 0x07FF_FFFE_87FF_FFFE
      // The first eight bytes with bit 5 set (lowercase for letters), packed, for the
      // reserved words.
      var packed: UInt64 = 0
      for (i, b) in bytes.enumerated() {
        let allowed = b < 64 ? (allowedBelow64 >> b) & 1 != 0 : b < 128 && (allowedFrom64 >> (b & 63)) & 1 != 0
        guard allowed else { return b < 0x80 ? false : nil }
        if i < 8 { packed |= UInt64(b | 0x20) << (8 * i) }
      }
      // The first is a letter or `_` (64 and up), never a digit or `-` or `.`.
      guard bytes[0] >= 64 else { return false }
      // Not a reserved word, in any case: one comparison of packed bytes a word.
      return bytes.count > 8 || !Self.reservedWordsPacked.contains { $0 == (bytes.count, packed) }
    }
  }

  /// Each reserved word's length and its bytes packed as `asciiNameVerdict` packs a name's
  /// (every reserved word is ASCII letters, at most eight: the tests check).
  static let reservedWordsPacked: [(Int, UInt64)] = reservedNames.map { word in
    (word.utf8.count, word.utf8.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element | 0x20) << (8 * $1.offset) })
  }

  private static let markCategories: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]

  /// Words the command language gives a meaning where a name could stand (`cancel all`, `max q default`).
  public static let reservedNames: Set<String> = ["all", "default"]

  /// - Parameter nameHash: the name's ``NameIndex/hash(_:)``, when the caller has it already.
  mutating func newOperation(_ spec: OperationSpec, nameHash: Int? = nil, reason: Reason) -> OpID {
    let id = OpID(operations.count)
    operations.append(OperationRecord(spec: spec))
    readiness.append(Readiness())
    opNames.insert(id, named: spec.name, hash: nameHash ?? NameIndex.hash(spec.name), in: operations)
    record(.created, op: id, to: .created, reason: reason)
    return id
  }

  /// The next place in FIFO order. Four billion filings (each recorded in the trace, so
  /// tens of gigabytes of it) would wrap it; the counter is kept small because every
  /// record and every ready-heap entry carries a place.
  mutating func takePlace() -> UInt32 {
    nextPlace &+= 1
    return nextPlace
  }

  /// Adds the edge op → dep and counts it when it blocks.
  mutating func link(_ op: OpID, on dep: OpID, reason: Reason) {
    edges.append(dep, to: &operations[op.slot].dependencyList)
    // Only `readiness` of the dependency is touched, not its (usually cold) record.
    addDependent(op, to: dep)
    record(.dependencyAdded(dep), op: op, queue: operations[op.slot].queue, reason: reason)
    // A finished dependency does not block. Any other is counted, whatever the operation's
    // state (rules 5 and 6: `isReady` is independent of it), since its finish will release
    // it: an operation already handed to the dispatch queue is past waiting, so it stays
    // where it is, but reads `isReady == false` until the dependency finishes. (Not
    // counting it here while the finish still released it took the count to −1.)
    // Stored fields, not computed ones: those were read through a copy of the whole record.
    guard readiness[dep.slot].phase != .finished else { return }
    readiness[op.slot].unfinishedCount += 1
    if readiness[op.slot].phase == .ready, !readiness[op.slot].ignoresDependencies, !operations[op.slot].dispatched,
      !isDispatchedToMainThread(op)
    {
      setPhase(op, .pending)
      record(.unready, op: op, queue: operations[op.slot].queue, from: .ready, to: .pending, reason: .dependencyAdded(dep))
      if let q = operations[op.slot].queue { notePossiblyStaleReadyEntry(on: q) }
    }
  }

  /// Puts a new operation into a queue's lists: the enqueue part of `addOperation`, without the pick.
  mutating func file(_ op: OpID, on q: QueueID, reason: Reason) {
    queues[q.slot].firstActivity = queues[q.slot].firstActivity ?? now
    operations[op.slot].queue = q
    operations[op.slot].enqueuedAt = now
    queues[q.slot].members.append(op)
    let spec = operations[op.slot].spec
    if operations[op.slot].isBarrier {
      operations[op.slot].level = 12
    } else if operations[op.slot].mainThreadWork != nil {
      // Work on the main thread — a tap, a frame, a call made there (a wait, a start()) —
      // arrives now and takes its turn after what already waits for the main thread: the
      // code that makes a call runs there only when the main thread gets to it.
      operations[op.slot].level = QueuePriority.normal.rawValue
    } else if let p = spec.priority {
      operations[op.slot].level = p.rawValue
    } else if platform == .linux, queues[q.slot].effectiveMax != 1, let qos = spec.qualityOfService {
      operations[op.slot].level = qos.mappedPriority.rawValue
    } else {
      operations[op.slot].level = QueuePriority.normal.rawValue
    }
    operations[op.slot].place = takePlace()
    setPhase(op, .pending)
    let unfinished = readiness[op.slot].ignoresDependencies ? 0 : readiness[op.slot].unfinishedCount
    record(.enqueued, op: op, queue: q, from: .created, to: .pending,
           reason: reason == .command && unfinished > 0 ? .waitingOnDependencies(unfinished) : reason)
    if let barrier = queues[q.slot].openBarrier, !operations[op.slot].isBarrier, operations[op.slot].mainThreadWork == nil,
      !operations[barrier.slot].isFinished
    {
      link(op, on: barrier, reason: .barrier)
    }
    becomeReadyIfPossible(op, reason: operations[op.slot].isCancelled ? .cancelledWhilePending : .noUnfinishedDependencies, pick: false)
  }

  /// Moves a pending operation to ready when nothing blocks it, and lets its queue pick.
  mutating func becomeReadyIfPossible(_ op: OpID, reason: Reason, pick shouldPick: Bool = true) {
    guard readiness[op.slot].phase == .pending, readiness[op.slot].isReady, let q = operations[op.slot].queue else { return }
    let isAsync: Bool
    if case .async = operations[op.slot].spec.kind { isAsync = true } else { isAsync = false }
    if isAsync { record(.kvoWillChange(.isReady), op: op, queue: q, reason: reason) }
    setPhase(op, .ready)
    record(.ready, op: op, queue: q, from: .pending, to: .ready, reason: reason)
    if isAsync { record(.kvoDidChange(.isReady), op: op, queue: q, reason: reason) }
    pushReady(op, on: q)
    if shouldPick {
      let trigger: StartTrigger = operations[op.slot].isCancelled ? .cancelled : .becameReady
      pick(on: q, trigger: trigger)
    }
  }

  mutating func pushReady(_ op: OpID, on q: QueueID) {
    let entry = ReadyEntry(level: operations[op.slot].level, place: operations[op.slot].place, op: op)
    if queues[q.slot].isMain, operations[op.slot].mainThreadWork == nil {
      queues[q.slot].operationsHeap.insert(entry)  // until OperationQueue.main dispatches it (rule 42)
    } else {
      queues[q.slot].readyHeap.insert(entry)
    }
  }

  mutating func cancel(_ op: OpID, because cause: Reason) {
    let r = operations[op.slot]
    if r.isFinished {
      record(.cancelRequested, op: op, queue: r.queue, reason: .alreadyFinished)
      return
    }
    if r.isCancelled {
      // Linux: cancel() sets the unfinished count to 0 again, whatever it was (rule 9).
      if readiness[op.slot].countBelowZero, r.phase != .executing {
        readiness[op.slot].countBelowZero = false
        record(.cancelRequested, op: op, queue: r.queue, reason: .cancelledAgain)
        becomeReadyIfPossible(op, reason: .cancelledAgain)
        return
      }
      record(.cancelRequested, op: op, queue: r.queue, reason: .alreadyCancelled)
      return
    }
    operations[op.slot].isCancelled = true
    operations[op.slot].cancelledAt = now
    record(.cancelRequested, op: op, queue: r.queue, reason: cause)
    switch r.phase {
    case .created:
      readiness[op.slot].ignoresDependencies = true
      if platform == .apple { finish(op, outcome: .cancelled, reason: .cancelledOutsideQueue) }
    case .pending, .ready:
      readiness[op.slot].ignoresDependencies = true
      if r.phase == .pending {
        becomeReadyIfPossible(op, reason: .cancelledWhilePending)
      } else if let q = r.queue {
        pick(on: q, trigger: .cancelled)
      }
    case .executing:
      scheduleCancellationCheck(op)
    case .finished:
      break
    }
  }

  /// Schedules the moment an executing operation's code next checks `isCancelled`, if it ever does.
  mutating func scheduleCancellationCheck(_ op: OpID) {
    let r = operations[op.slot]
    guard let started = r.startedAt, !r.jammed else { return }
    if case .blocks = r.spec.kind { return }  // rule 17: the blocks never check
    if scheduleCancellationCheckOnCPU(op) { return }
    let elapsed = now - started
    let end = r.spec.workLength(on: platform)
    let next: Tick
    switch r.spec.cancellation {
    case .never: return
    case .atStart:
      guard elapsed == 0 else { return }
      next = 0
    case .every(let k):
      next = (elapsed + k - 1) / k * k
    }
    guard next < end else { return }
    schedule(.cancelCheck(op, generation: r.generation), at: started.addingReportingOverflow(next).overflow ? Tick.max : started + next)
  }
}
