import Foundation
import OpLabCore
import Synchronization

/// The real run's shared state: the lab's `var`s and `NSLock`s, and what step-by-step work
/// (OpLabSwift's `RealWork.steps`, `RealWork.completionSteps`) did with them.
///
/// Each read and each write is one word-sized load or store, made whole (as the hardware
/// makes them) by a lock of the memory's own, so nothing in Swift races undefinedly; a
/// read-modify-write spread over ticks still loses updates exactly as in the lab, because
/// nothing orders the steps of two operations but what the world itself does.
final class SharedMemory: Sendable {
  private struct State {
    var values: [String: Int] = [:]
    var order: [String] = []
    var touches: [RealUITouch] = []
    var operations: [String: Operation] = [:]
    var queues: [String: OperationQueue] = [:]
    var refusedAdds: [String] = []
    /// The operations added to a queue so far, by the driver or by a step.
    var added: Set<String> = []
    /// The work that stopped waiting for a lock when the run ended: still stuck, for the run.
    var gaveUp: [String] = []
  }
  private let state = Mutex(State())
  private let locks = Mutex([String: NSLock]())
  private let log: RealLog
  /// Seconds after tick 0 past which a `lock` step stops waiting: on the main thread, a wait
  /// that never ends (a deadlock) would hold the driver itself, which runs the main run loop.
  let deadline: Double

  init(log: RealLog, deadline: Double) {
    self.log = log
    self.deadline = deadline
  }

  func makeVariable(_ name: String, _ value: Int) {
    state.withLock {
      if $0.values[name] == nil { $0.order.append(name) }
      $0.values[name] = value
    }
  }

  func makeLock(_ name: String) { locks.withLock { $0[name] = NSLock() } }

  /// Makes an operation and a queue findable by the `add` steps, which run on worker threads.
  func register(operation: Operation, named name: String) { state.withLock { $0.operations[name] = operation } }
  func register(queue: OperationQueue, named name: String) { state.withLock { $0.queues[name] = queue } }

  /// Notes that the driver added the operation to a queue.
  func noteAdded(_ name: String) { _ = state.withLock { $0.added.insert(name) } }
  /// The operations added to a queue so far, by the driver or by a step.
  var added: Set<String> { state.withLock { $0.added } }
  /// The work (an operation's or its completion block's) that was still waiting for a lock
  /// when the run ended: it would wait for ever.
  var gaveUp: [String] { state.withLock { $0.gaveUp } }

  /// The variables' values now, in the order they were made.
  var values: [(name: String, value: Int)] { state.withLock { s in s.order.map { ($0, s.values[$0] ?? 0) } } }
  /// The calls into the user interface, in the order they were made.
  var touches: [RealUITouch] { state.withLock { $0.touches } }
  /// The operations an `add` step found already in a queue.
  var refusedAdds: [String] { state.withLock { $0.refusedAdds } }

  /// Plays steps one a tick, each step's access as its tick ends (as the lab does), then the
  /// rest of the work. A `lock` waits for the lock, giving up when the run ends.
  /// - Returns: `false` when the run ended before the steps did.
  @discardableResult
  func play(_ steps: [Step], by name: String, inCompletion: Bool, restTicks: Tick, tickSeconds: Double) -> Bool {
    var register = 0
    for step in steps {
      log.nap(tickSeconds)
      if log.isAbandoned { return false }
      switch step {
      case .read(let v): register = state.withLock { $0.values[v] ?? 0 }
      case .compute(let n): register &+= n
      case .write(let v): state.withLock { $0.values[v] = register }
      case .lock(let l):
        guard let lock = locks.withLock({ $0[l] }) else { break }
        // In slices, so a lock never given (a deadlock) lets go when the run ends.
        while !lock.lock(before: Date(timeIntervalSinceNow: 0.005)) {
          if log.shouldStop || log.elapsed > deadline {
            state.withLock { $0.gaveUp.append(name) }
            return false
          }
        }
      case .unlock(let l): locks.withLock { $0[l] }?.unlock()
      case .touchUI:
        let touch = RealUITouch(name: name, onMainThread: Thread.isMainThread, inCompletion: inCompletion)
        state.withLock { $0.touches.append(touch) }
      case .add(let op, let q):
        // addOperation raises on an operation already added: the lab refuses it, and so does this.
        let (operation, queue, fresh) = state.withLock { s in
          (s.operations[op], q == "main" ? OperationQueue.main : s.queues[q], s.added.insert(op).inserted)
        }
        guard let operation, let queue else { break }
        if fresh {
          queue.addOperation(operation)
        } else {
          state.withLock { $0.refusedAdds.append(op) }
        }
      }
    }
    if restTicks > 0 { log.nap(Double(restTicks) * tickSeconds) }
    return !log.isAbandoned
  }
}

/// A call into the user interface made by step-by-step work on the real queue.
public struct RealUITouch: Sendable, Equatable {
  /// The operation whose work (or completion block) made it.
  public var name: String
  /// `Thread.isMainThread` at the call.
  public var onMainThread: Bool
  /// Made by the operation's completion block.
  public var inCompletion: Bool
}
