@testable import OpLabCore

/// Random but valid actions against a world, for seeded sweeps.
struct RandomActions {
  var rng: SplitMix64
  /// Whether to use the machine model too: cores, taps, frames and waits from main.
  var machine: Bool

  /// Whether to use the calls on operations too: batched adds, waits on operations,
  /// start() by hand, addExecutionBlock (#20). Off, the sequences are as they always were.
  var calls = false

  init(seed: UInt64, machine: Bool = false, calls: Bool = false) {
    rng = SplitMix64(seed: seed)
    self.machine = machine
    self.calls = calls
  }

  /// A call on operations, or `nil` to fall through to the usual actions.
  mutating func call(for world: World) -> Action? {
    let ops = world.operationIDs.filter { world.operation($0).mainThreadWork == nil }
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<6:
      let some = (0..<Int.random(in: 1...3, using: &rng)).compactMap { _ in pick(ops) }
      guard let q = pick(world.queueIDs), !some.isEmpty else { return nil }
      let wait: World.Waiter? = chance(70) ? nil : World.Waiter(fromMain: chance(50))
      return .enqueueAll(some, on: q, wait: wait)
    case 6..<10:
      guard let op = pick(ops) else { return nil }
      return .waitForOperations([op], World.Waiter(fromMain: chance(50)))
    case 10..<16:
      return pick(ops).map { .start($0) }
    case 16..<20:
      return pick(ops).map { .addExecutionBlock($0, duration: Int.random(in: 0...3, using: &rng)) }
    case 20..<24:
      guard let op = pick(ops), let gate = pick(["g1", "g2"]) else { return nil }
      return .gate(op, gate)
    case 24..<26:
      return pick(["g1", "g2"]).map { .openGate($0) }
    default:
      return nil
    }
  }

  mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
  mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &rng)] }

  mutating func spec(named name: String) -> OperationSpec {
    var s = OperationSpec(name: name, duration: Int.random(in: 0...4, using: &rng))
    if chance(40) { s.priority = pick(QueuePriority.allCases) }
    if chance(40) { s.qualityOfService = pick(QualityOfService.allCases) }
    s.cancellation = pick([.never, .atStart, .every(1), .every(2)]) ?? .never
    s.bailsIfDependencyCancelled = chance(20)
    if calls, chance(15) { s.bailsUnlessDependenciesSucceeded = true }
    if chance(15) { s.failsAt = Int.random(in: 0...s.duration, using: &rng) }
    if chance(30) { s.completion = Int.random(in: 0...2, using: &rng) }
    switch Int.random(in: 0..<10, using: &rng) {
    case 0: s.kind = .blocks((0..<Int.random(in: 1...3, using: &rng)).map { _ in Int.random(in: 0...3, using: &rng) })
    case 1: s.kind = .async(forgetsFinish: chance(20))
    default: break
    }
    return s
  }

  /// The next action for this world. Every action it proposes is valid, except
  /// enqueueing an operation that is no longer new, which must be refused without change.
  mutating func next(for world: World, counter: inout Int) -> Action {
    if calls, let call = call(for: world) { return call }
    let ops = world.operationIDs
    let queues = world.queueIDs
    let userQueues = Array(queues.dropFirst())
    let roll = Int.random(in: 0..<100, using: &rng)
    switch roll {
    case 0..<6:
      counter += 1
      return .createQueue(name: "q\(counter)", maxConcurrent: pick([nil, 0, 1, 1, 2, 3]) ?? nil, qualityOfService: nil)
    case 6..<40:
      counter += 1
      let deps = (0..<Int.random(in: 0...2, using: &rng)).compactMap { _ in pick(ops) }
      let unique = deps.reduce(into: [OpID]()) { if !$0.contains($1) { $0.append($1) } }
      return .createOperation(spec(named: "o\(counter)"), dependencies: unique, queue: chance(85) ? pick(queues) : nil)
    case 40..<45:
      if let op = pick(ops), let q = pick(queues) { return .enqueue(op, on: q) }
    case 45..<52:
      if let op = pick(ops) { return .cancel(op) }
    case 52..<54:
      if let q = pick(queues) { return .cancelAll(q) }
    case 54..<58:
      if let q = pick(userQueues) { return world.queue(q).isSuspended || chance(30) ? .resume(q) : .suspend(q) }
    case 58..<62:
      if let q = pick(userQueues) { return .setMaxConcurrent(q, pick([nil, 0, 1, 2, 4]) ?? nil) }
    case 62..<66:
      if let op = pick(ops), let p = pick(QueuePriority.allCases) { return .setPriority(op, p) }
    case 66..<71:
      if let op = pick(ops), let dep = pick(ops) { return .addDependency(op, on: dep) }
    case 71..<74:
      if let op = pick(ops), let dep = pick(world.dependencies(of: op)) { return .removeDependency(op, on: dep) }
    case 74..<77:
      if let q = pick(queues) { return .addBarrier(q, duration: Int.random(in: 0...2, using: &rng)) }
    case 77..<80:
      return .wait(chance(50) ? pick(queues) : nil)
    case 80..<84 where machine:
      return .tap(at: world.now + Int.random(in: 0...3, using: &rng))
    case 84..<86 where machine:
      if chance(20) { return .frames(every: nil, from: nil, until: nil) }
      return .frames(every: Int.random(in: 1...4, using: &rng), from: nil, until: chance(50) ? world.now + Int.random(in: 0...20, using: &rng) : nil)
    case 86..<88 where machine:
      return .waitOnMainThread(chance(50) ? pick(queues) : nil)
    case 88..<90 where machine:
      return .setCores(chance(20) ? nil : Int.random(in: 1...3, using: &rng))
    default:
      break
    }
    return .step(Int.random(in: 0...3, using: &rng))
  }
}
