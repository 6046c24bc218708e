/// Optimal dynamic partial-order reduction (Abdulla, Aronis, Jonsson and Sagonas, "Optimal
/// Dynamic Partial Order Reduction", POPL 2014: source sets, sleep sets and wake-up trees) for
/// `explore`, on the worlds where the lab's ticks reduce to plain interleavings of threads.
///
/// **The model.** A thread is an operation written as steps; its events are its steps, in
/// order, a `lock` that waits counted when the lock is taken (a thread waiting for a lock held
/// cannot go on: it is not enabled). Two events are dependent when they are by different
/// threads and access one variable, one of them writing, or take or release one lock;
/// `compute` and `touch ui` depend on nothing (neither is in an order's fingerprint, and
/// `touch ui`'s verdict is where it runs, not when). Two runs are one order exactly when they
/// are one Mazurkiewicz trace of these events (``OrderFingerprint``: per variable the writes in
/// order and the reads between, per lock who took it in order — the releases fall between), so
/// a search that runs each trace once makes as many runs as there are distinct orders. Taking
/// a lock races with the last taking of it by another thread (through that thread's unlock).
///
/// **Where the model is the lab.** When every operation written as steps starts at one tick,
/// before any step, and adds nothing and has no completion block written as steps, and nothing
/// but clock actions follows the first one in the journal, then from the first step on every
/// unfinished thread that waits for no lock has a step due at every tick (a step schedules the
/// next a tick later; a thread put off a tick is due at the next). A tick is an open point
/// exactly when one due step conflicts with a step another due thread has left
/// (``World/conflict(_:_:)``), and choice k runs the k-th due thread's step alone. So any
/// sequence of events is run, up to the order of events that commute, by choosing at each open
/// point the thread of the first event not yet run (or 0, every due step, where those commute
/// with each other and with what comes before them); at a tick that is no open point every due
/// step commutes with everything the other threads have left, so running them all then
/// changes no order. A thread is never sent to a held lock before the run's events are all
/// run, so no lock is handed over to a waiter, except in the normal order (the first run), whose
/// hand-overs are its waiters' `lock` events. The explorer works out those choices itself
/// (``OptimalSearch/script()``), runs them from the saved world where they part from the run
/// before, and checks that the run met exactly the open points it expected (else it starts over
/// with ``ExploreSearch/races``).
///
/// Elsewhere (a dependency, a serial queue, the main queue or a limit that lets a thread start
/// after another's steps, `add` steps, completion blocks as steps, commands between runs) the
/// put-off tick moves finishes and so starts in time, which this model does not see, and
/// `explore` keeps the classic reduction (``ExploreSearch/races``): sound, not optimal.
struct OptimalSearch {
  /// A thread's steps, classified once: the variable index (-1 for none) and whether it writes.
  struct Access: Hashable {
    /// The variable read or written, or -1.
    var variable: Int32 = -1
    var writes = false
    /// The lock taken or released, or -1.
    var lock: Int32 = -1
    var takes = false
  }

  /// A node of a wake-up tree: the sequences still to explore from a point of the run, as a
  /// tree of threads in the order they were added (the leftmost first).
  final class WakeUp {
    var children: [(thread: Int, next: WakeUp)] = []
  }

  /// A point of the current run: the threads' progress before its event, the sleep set, the
  /// wake-up tree, and the thread whose event comes next along the run.
  struct Node {
    var pcs: [Int]
    var sleep: UInt64
    var wakeUp: WakeUp
    var current = -1
  }

  /// The threads (operations written as steps, in creation order) and their steps.
  let threads: [OpID]
  let steps: [[Step]]
  let accesses: [[Access]]
  /// Per thread and step index: the variables read and written from that step on (bit sets).
  let restReads: [[UInt64]]
  let restWrites: [[UInt64]]
  /// Per thread and step index: the locks its steps from there on take or release.
  let restLocks: [[UInt64]]
  /// Per thread and step count: the locks it holds after that many of its steps.
  let heldAfter: [[UInt64]]
  /// How many variables and locks the threads' steps name (their indices are below these).
  let variableCount: Int
  let lockCount: Int
  /// The run being explored: its points, and how far the run before it kept the same events.
  private(set) var stack: [Node] = []
  private var kept = 0
  /// The vector clocks of the run's events (see ``reverseRaces()``), by event and thread:
  /// those of the events before ``kept`` are the run before's, kept from call to call.
  private var clockBuffer: [Int32] = []
  /// Tables ``reverseRaces()`` and ``script()`` fill anew for each run, kept from run to run
  /// so that a run allocates none of them.
  private var scratch = Scratch()
  struct Scratch {
    var lastInThread: [Int] = [], lastWrite: [Int] = [], readsSince: [[Int]] = [], lastLockEvent: [Int] = [], lastTaken: [Int] = []
    var before: [Int] = [], races: [(Int, Int)] = []
    var thread: [Int] = [], index: [Int] = [], offset: [Int] = [], places: [Int] = [], pcs: [Int] = [], done: [Bool] = []

    /// Makes `a` `count` copies of `value`, in the storage it has.
    static func fill<T>(_ a: inout [T], _ value: T, _ count: Int) {
      a.removeAll(keepingCapacity: true)
      a.append(contentsOf: repeatElement(value, count: count))
    }
  }
  /// Runs whose every thread was asleep before its end (none, if the model is right).
  private(set) var blocked = 0

  /// The model of `world` after the first run of `actions` from `base` (the normal order), or
  /// `nil` where it is not the lab's (see the type's notes).
  init?(world: World, base: World, actions: [Action], verdict: RunVerdict?) {
    switch verdict {
    case .idle?, .stalled?: break
    default: return nil
    }
    guard let shared = world.shared, shared.completionSteps.isEmpty, base.shared?.runs.isEmpty ?? true,
      shared.variableNames.count <= 64
    else { return nil }
    // Nothing but clock actions after the first one.
    var clock = false
    for a in actions {
      if a.movesClock { clock = true } else if clock { return nil }
    }
    var threads: [OpID] = []
    var steps: [[Step]] = []
    var startTick: Tick?
    for slot in world.operations.indices {
      guard case .steps(let s) = world.operations[slot].spec.kind else { continue }
      guard let started = world.operations[slot].startedAt, started >= base.now, startTick == nil || startTick == started else { return nil }
      startTick = started
      for step in s {
        if case .add = step { return nil }
      }
      threads.append(OpID(slot))
      steps.append(s)
    }
    guard !threads.isEmpty, threads.count <= 64, shared.lockNames.count <= 64 else { return nil }
    self.threads = threads
    self.steps = steps
    accesses = steps.map { list in
      list.map { step in
        switch step {
        case .read(let v): Access(variable: Int32(shared.variable(named: v) ?? -1))
        case .write(let v): Access(variable: Int32(shared.variable(named: v) ?? -1), writes: true)
        case .lock(let l): Access(lock: Int32(shared.lock(named: l) ?? -1), takes: true)
        case .unlock(let l): Access(lock: Int32(shared.lock(named: l) ?? -1))
        default: Access()
        }
      }
    }
    for (list, classified) in zip(steps, accesses) {
      for (step, a) in zip(list, classified) {
        if step.variable != nil, a.variable < 0 { return nil }
        if step.lockName != nil, a.lock < 0 { return nil }
      }
    }
    // The locks each thread holds after its first k steps (an unlock of a lock it does not
    // hold frees another's: not modelled).
    var heldAfter: [[UInt64]] = []
    for list in accesses {
      var held: UInt64 = 0
      var after = [held]
      for a in list {
        if a.lock >= 0 {
          let bit = UInt64(1) << UInt64(a.lock)
          if a.takes {
            held |= bit
          } else {
            guard held & bit != 0 else { return nil }
            held &= ~bit
          }
        }
        after.append(held)
      }
      heldAfter.append(after)
    }
    self.heldAfter = heldAfter
    variableCount = Int(accesses.lazy.flatMap { $0 }.map(\.variable).max() ?? -1) + 1
    lockCount = Int(accesses.lazy.flatMap { $0 }.map(\.lock).max() ?? -1) + 1
    var reads: [[UInt64]] = [], writes: [[UInt64]] = [], locks: [[UInt64]] = []
    for list in accesses {
      var r = Array(repeating: UInt64(0), count: list.count + 1), w = r, l = r
      for i in list.indices.reversed() {
        (r[i], w[i], l[i]) = (r[i + 1], w[i + 1], l[i + 1])
        let a = list[i]
        if a.lock >= 0 { l[i] |= 1 << UInt64(a.lock) }
        guard a.variable >= 0 else { continue }
        if a.writes { w[i] |= 1 << UInt64(a.variable) } else { r[i] |= 1 << UInt64(a.variable) }
      }
      reads.append(r)
      writes.append(w)
      locks.append(l)
    }
    restReads = reads
    restWrites = writes
    restLocks = locks
    // The normal order's events, in the order they ran: the first run of the search. Every
    // thread starts before any step.
    // Each operation's thread, by slot (-1: none).
    var index = Array(repeating: -1, count: world.operations.count)
    for (i, t) in threads.enumerated() { index[t.slot] = i }
    var sequence: [Int] = []
    var started = 0
    for e in world.trace.events(from: base.trace.count) {
      guard let op = e.op, op.slot < index.count, case let t = index[op.slot], t >= 0 else { continue }
      if case .started = e.kind {
        guard sequence.isEmpty else { return nil }
        started += 1
        continue
      }
      switch (e.kind, e.reason) {
      case (.lockWaiting, _): continue  // not an event of the model: the thread cannot go on
      case (.lockAcquired, .lockReleasedBy), (.lockAcquired, .lockChosenAfter): sequence.append(t)  // handed over: its `lock` step
      case (.variableRead, .step), (.variableWritten, .step), (.computed, .step), (.touchedUI, .step), (.lockAcquired, .step),
        (.lockReleased, .step):
        sequence.append(t)
      case (_, .step): return nil
      default: continue
      }
    }
    guard started == threads.count else { return nil }
    var pcs = Array(repeating: 0, count: threads.count)
    for t in sequence { pcs[t] += 1 }
    guard pcs.indices.allSatisfy({ pcs[$0] <= steps[$0].count }) else { return nil }
    // It ends where no thread can go on (every one done, or waiting for a lock).
    guard !pcs.indices.contains(where: { enabled($0, pcs) }) else { return nil }
    // The first run: its events as the run met them, one point each.
    stack = [Node(pcs: Array(repeating: 0, count: threads.count), sleep: 0, wakeUp: WakeUp())]
    for t in sequence {
      var top = stack[stack.count - 1]
      top.wakeUp.children = [(t, WakeUp())]
      top.current = t
      stack[stack.count - 1] = top
      var pcs = top.pcs
      pcs[t] += 1
      stack.append(Node(pcs: pcs, sleep: 0, wakeUp: top.wakeUp.children[0].next))
    }
    kept = 0
  }

  /// Whether two threads' next events (at these points of theirs) are independent.
  private func independent(_ a: Int, _ i: Int, _ b: Int, _ j: Int) -> Bool {
    if a == b { return false }
    let x = accesses[a][i], y = accesses[b][j]
    if x.lock >= 0 { return x.lock != y.lock }
    return x.variable < 0 || x.variable != y.variable || !(x.writes || y.writes)
  }

  /// Whether the thread can take its next step at these points: it has one, and it is not a
  /// `lock` of a lock some thread holds.
  func enabled(_ t: Int, _ pcs: [Int]) -> Bool {
    guard pcs[t] < steps[t].count else { return false }
    let a = accesses[t][pcs[t]]
    guard a.takes, a.lock >= 0 else { return true }
    let bit = UInt64(1) << UInt64(a.lock)
    for u in pcs.indices where heldAfter[u][pcs[u]] & bit != 0 { return false }
    return true
  }

  /// Whether the threads at these points meet an open point: one's step due conflicts with
  /// a step another has left (``World/conflict(_:_:)``, for the steps this model has).
  /// `due`: the threads with a step due (unfinished, not waiting for a lock), as bits.
  /// - Complexity: O(threads): what the threads have left is summed once, as the bits one
  ///   thread has and those two or more have.
  func isOpen(_ pcs: [Int], due: UInt64) -> Bool {
    var (r1, r2, w1, w2, l1, l2): (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    var m = due
    while m != 0 {
      let j = m.trailingZeroBitCount
      m &= m - 1
      let r = restReads[j][pcs[j]], w = restWrites[j][pcs[j]], l = restLocks[j][pcs[j]]
      (r2, r1, w2, w1, l2, l1) = (r2 | (r1 & r), r1 | r, w2 | (w1 & w), w1 | w, l2 | (l1 & l), l1 | l)
    }
    // Whether a thread other than the one with `own` has the bit.
    func other(_ bit: UInt64, _ one: UInt64, _ two: UInt64, _ own: UInt64) -> Bool {
      two & bit != 0 || (one & bit != 0 && own & bit == 0)
    }
    m = due
    while m != 0 {
      let i = m.trailingZeroBitCount
      m &= m - 1
      let a = accesses[i][pcs[i]]
      if a.lock >= 0, other(1 << UInt64(a.lock), l1, l2, restLocks[i][pcs[i]]) { return true }
      guard a.variable >= 0 else { continue }
      let bit = UInt64(1) << UInt64(a.variable)
      if other(bit, w1, w2, restWrites[i][pcs[i]]) || (a.writes && other(bit, r1, r2, restReads[i][pcs[i]])) { return true }
    }
    return false
  }

  /// Races of the run on the stack, reversed: for each pair of dependent events with no
  /// event between them in happens-before (the later one at or after ``kept``), the sequence
  /// that runs the second first is added to the wake-up tree of the point before the first,
  /// unless a thread asleep there, or one already to be tried, starts an equivalent one.
  mutating func reverseRaces() {
    let n = stack.count - 1
    let count = threads.count
    // Vector clocks, by thread: the last step of each thread that happens before or is the
    // event. Those before `kept` are the run before's (the same events): only the rest are
    // worked out again.
    var clocks: [Int32] = []
    swap(&clocks, &clockBuffer)
    if clocks.count < n * count { clocks.append(contentsOf: repeatElement(-1, count: n * count - clocks.count)) }
    var work = Scratch()
    swap(&work, &scratch)
    Scratch.fill(&work.lastInThread, -1, count)
    Scratch.fill(&work.lastWrite, -1, variableCount)
    if work.readsSince.count != variableCount { work.readsSince = Array(repeating: [], count: variableCount) }
    for v in work.readsSince.indices { work.readsSince[v].removeAll(keepingCapacity: true) }
    Scratch.fill(&work.lastLockEvent, -1, lockCount)
    Scratch.fill(&work.lastTaken, -1, lockCount)
    work.races.removeAll(keepingCapacity: true)
    work.before.removeAll(keepingCapacity: true)
    defer { swap(&work, &scratch) }
    for i in 0..<n {
      let t = stack[i].current, k = stack[i].pcs[t]
      let a = accesses[t][k]
      if i < kept {
        // The run before's event: its clock is known; only where things stand after it.
        if a.lock >= 0 {
          work.lastLockEvent[Int(a.lock)] = i
          if a.takes { work.lastTaken[Int(a.lock)] = i }
        }
        work.lastInThread[t] = i
        if a.variable >= 0 {
          if a.writes {
            work.lastWrite[Int(a.variable)] = i
            work.readsSince[Int(a.variable)].removeAll(keepingCapacity: true)
          } else {
            work.readsSince[Int(a.variable)].append(i)
          }
        }
        continue
      }
      let base = i * count
      if work.lastInThread[t] >= 0 {
        let p = work.lastInThread[t] * count
        for c in 0..<count { clocks[base + c] = clocks[p + c] }
      } else {
        for c in 0..<count { clocks[base + c] = -1 }
      }
      work.before.removeAll(keepingCapacity: true)
      if a.variable >= 0 {
        let v = Int(a.variable)
        if work.lastWrite[v] >= 0 { work.before.append(work.lastWrite[v]) }
        if a.writes { work.before += work.readsSince[v] }
      } else if a.lock >= 0, work.lastLockEvent[Int(a.lock)] >= 0 {
        work.before.append(work.lastLockEvent[Int(a.lock)])
      }
      for j in work.before {
        let p = j * count
        for c in 0..<count where clocks[p + c] > clocks[base + c] { clocks[base + c] = clocks[p + c] }
      }
      clocks[base + t] = Int32(k)
      if a.lock >= 0 {
        let l = Int(a.lock)
        work.lastLockEvent[l] = i
        // Taking a lock races with the last taking of it by another thread, through that
        // thread's unlock: it could have come first when nothing else of this thread's
        // happens after that taking.
        if a.takes {
          let j = work.lastTaken[l]
          if i >= kept, j >= 0, stack[j].current != t {
            let u = stack[j].current, s = Int32(stack[j].pcs[u])
            if work.lastInThread[t] < 0 || clocks[work.lastInThread[t] * count + u] < s { work.races.append((j, i)) }
          }
          work.lastTaken[l] = i
        }
        work.before.removeAll(keepingCapacity: true)
      }
      if i >= kept {
        // Direct races: a dependent event before it, of another thread, that happens before
        // no other of its predecessors.
        for j in work.before where stack[j].current != t {
          let u = stack[j].current, s = Int32(stack[j].pcs[u])
          var direct = work.lastInThread[t] < 0 || clocks[work.lastInThread[t] * count + u] < s
          for x in work.before where direct && x != j && clocks[x * count + u] >= s { direct = false }
          if direct { work.races.append((j, i)) }
        }
      }
      work.lastInThread[t] = i
      if a.variable >= 0 {
        let v = Int(a.variable)
        if a.writes {
          work.lastWrite[v] = i
          work.readsSince[v].removeAll(keepingCapacity: true)
        } else {
          work.readsSince[v].append(i)
        }
      }
    }
    // A thread left waiting at the end for a lock another took: its `lock` races with that
    // taking, as if it came at the end.
    let end = stack[n].pcs
    for t in end.indices where end[t] < steps[t].count && !enabled(t, end) {
      let a = accesses[t][end[t]]
      guard a.takes, a.lock >= 0 else { continue }
      let j = work.lastTaken[Int(a.lock)]
      guard j >= 0, stack[j].current != t else { continue }
      let u = stack[j].current, s = Int32(stack[j].pcs[u])
      if work.lastInThread[t] < 0 || clocks[work.lastInThread[t] * count + u] < s { work.races.append((j, n + t)) }
    }
    for (j, i) in work.races {
      let u = stack[j].current, s = Int32(stack[j].pcs[u])
      // What does not happen after the first event, then the second (past the end: the
      // waiting thread `i - n`'s `lock`).
      var v: [(thread: Int, step: Int)] = []
      for x in j + 1..<Swift.min(i, n) where clocks[x * count + u] < s {
        v.append((stack[x].current, stack[x].pcs[stack[x].current]))
      }
      v.append(i < n ? (stack[i].current, stack[i].pcs[stack[i].current]) : (i - n, end[i - n]))
      let node = stack[j]
      var asleep = false
      var sleep = node.sleep
      while sleep != 0, !asleep {
        let q = sleep.trailingZeroBitCount
        sleep &= sleep - 1
        if weakInitial(q, of: v, at: node.pcs) { asleep = true }
      }
      if !asleep { insert(v, into: node.wakeUp, at: node.pcs) }
    }
    swap(&clocks, &clockBuffer)
  }

  /// Whether running thread `q` first from these points starts a sequence equivalent to `v`
  /// (q is a weak initial of v): q's first event in v depends on none before it, or q is not
  /// in v and its next event depends on none of v's.
  private func weakInitial(_ q: Int, of v: [(thread: Int, step: Int)], at pcs: [Int]) -> Bool {
    if let i = v.firstIndex(where: { $0.thread == q }) {
      for x in v[..<i] where !independent(x.thread, x.step, q, v[i].step) { return false }
      return true
    }
    guard enabled(q, pcs) else { return false }
    for x in v where !independent(x.thread, x.step, q, pcs[q]) { return false }
    return true
  }

  /// Adds `v` to a wake-up tree, unless a sequence already in it starts an equivalent one.
  private func insert(_ v: [(thread: Int, step: Int)], into root: WakeUp, at start: [Int]) {
    var w = v
    var node = root
    var pcs = start
    descend: while !w.isEmpty {
      for (p, next) in node.children where weakInitial(p, of: w, at: pcs) {
        if next.children.isEmpty { return }
        if let i = w.firstIndex(where: { $0.thread == p }) { w.remove(at: i) }
        pcs[p] += 1
        node = next
        continue descend
      }
      var tail = node
      for x in w {
        let n = WakeUp()
        tail.children.append((x.thread, n))
        tail = n
      }
      return
    }
  }

  /// Leaves the run just made and goes down to the next: the leftmost sequence left in the
  /// newest point's wake-up tree, then any thread not asleep. `false` when none is left.
  mutating func advance() -> Bool {
    stack.removeLast()
    while let j = stack.indices.last {
      stack[j].wakeUp.children.removeFirst()
      stack[j].sleep |= 1 << UInt64(stack[j].current)
      if !stack[j].wakeUp.children.isEmpty {
        kept = j
        descend()
        return true
      }
      stack.removeLast()
    }
    return false
  }

  private mutating func descend() {
    while true {
      let top = stack[stack.count - 1]
      let pcs = top.pcs
      var free = -1
      var any = false
      for t in pcs.indices where enabled(t, pcs) {
        any = true
        if free < 0, top.sleep & (1 << UInt64(t)) == 0 { free = t }
      }
      guard any else { return }
      if top.wakeUp.children.isEmpty {
        // Every thread asleep: this run meets an order met before (not with a right model).
        guard free >= 0 else {
          blocked += 1
          return
        }
        top.wakeUp.children.append((free, WakeUp()))
      }
      let (p, next) = top.wakeUp.children[0]
      stack[stack.count - 1].current = p
      var sleep: UInt64 = 0
      var s = top.sleep
      while s != 0 {
        let q = s.trailingZeroBitCount
        s &= s - 1
        if independent(q, pcs[q], p, pcs[p]) { sleep |= 1 << UInt64(q) }
      }
      var after = pcs
      after[p] += 1
      stack.append(Node(pcs: after, sleep: sleep, wakeUp: next))
    }
  }

  /// The choices that make the run on the stack (see the type's notes).
  /// - Complexity: O(ticks · threads + open points · threads · events): the threads with a
  ///   step due are a set of bits, and each thread's events along the run one flat table.
  mutating func script() -> [Int] {
    let n = stack.count - 1
    let count = threads.count
    var work = Scratch()
    swap(&work, &scratch)
    defer { swap(&work, &scratch) }
    // Per event of the run: its thread and its step's index in that thread.
    Scratch.fill(&work.thread, 0, n)
    Scratch.fill(&work.index, 0, n)
    // Per thread, its events' places along the run: `places[offset[u] + k]` is u's k-th.
    Scratch.fill(&work.offset, 0, count + 1)
    for i in 0..<n {
      let t = stack[i].current
      (work.thread[i], work.index[i]) = (t, stack[i].pcs[t])
      work.offset[t + 1] += 1
    }
    for u in 0..<count { work.offset[u + 1] += work.offset[u] }
    Scratch.fill(&work.places, 0, n)
    for i in 0..<n { work.places[work.offset[work.thread[i]] + work.index[i]] = i }
    Scratch.fill(&work.pcs, 0, count)
    Scratch.fill(&work.done, false, n)
    // Read through these names below (the tables do not change after this).
    let (thread, index, offset, places) = (work.thread, work.index, work.offset, work.places)
    var pcs = work.pcs, done = work.done
    work.pcs = []
    work.done = []
    defer { (work.pcs, work.done) = (pcs, done) }
    var first = 0
    var choices: [Int] = []
    // The threads with a step due: unfinished, and not waiting for a lock (threads wait only
    // once the run's events are all run: a deadlock's end).
    var due: UInt64 = 0
    for u in 0..<count where !steps[u].isEmpty { due |= 1 << UInt64(u) }
    // The thread steps: its next event of the run, or it waits for a lock held.
    func step(_ u: Int) -> Bool {
      guard enabled(u, pcs) else {
        due &= ~(1 << UInt64(u))
        return true
      }
      guard pcs[u] < offset[u + 1] - offset[u] else { return false }
      done[places[offset[u] + pcs[u]]] = true
      pcs[u] += 1
      if pcs[u] == steps[u].count { due &= ~(1 << UInt64(u)) }
      return true
    }
    while due != 0 {
      if isOpen(pcs, due: due) {
        // Choice 0, every due step in turn, where that runs the same order: every due thread
        // can take its next event of the run now, and none of them depends on another's or on
        // an event of the run still before it.
        var together = first < n
        var m = due
        while m != 0, together {
          let u = m.trailingZeroBitCount
          m &= m - 1
          guard enabled(u, pcs), pcs[u] < offset[u + 1] - offset[u] else {
            together = false
            break
          }
          let at = places[offset[u] + pcs[u]], k = pcs[u]
          for x in first..<at where !done[x] && thread[x] != u && !independent(thread[x], index[x], u, k) {
            together = false
            break
          }
          var others = due & ~(1 << UInt64(u))
          while others != 0, together {
            let v = others.trailingZeroBitCount
            others &= others - 1
            if !independent(v, pcs[v], u, k) { together = false }
          }
        }
        if together {
          choices.append(0)
          var m = due
          while m != 0 {
            let u = m.trailingZeroBitCount
            m &= m - 1
            _ = step(u)
          }
          while first < n, done[first] { first += 1 }
          continue
        }
        let t = first < n ? thread[first] : due.trailingZeroBitCount
        // Choice k names the k-th thread with a step due (candidates in creation order).
        choices.append(1 + (due & ((1 << UInt64(t)) - 1)).nonzeroBitCount)
        guard step(t) else { return choices }
      } else {
        var m = due
        while m != 0 {
          let u = m.trailingZeroBitCount
          m &= m - 1
          guard step(u) else { return choices }
        }
      }
      while first < n, done[first] { first += 1 }
    }
    return choices
  }
}
