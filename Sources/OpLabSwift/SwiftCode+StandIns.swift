/// The stand-ins and helpers a program declares once, before its pieces.
extension SwiftCode {
  /// The stand-in for a call into UIKit or AppKit (`touch ui`): main-actor isolated, as
  /// UIKit's views are, so a call off the main thread does not compile.
  static let userInterfaceStandIn = [
    "/// A call into UIKit or AppKit (tableView.reloadData()): @MainActor, as",
    "/// UIKit's views are, so Swift refuses a call to it off the main thread.",
    "@MainActor func updateUserInterface() {}",
  ]

  /// What a call into the user interface off the main thread does, for the lab's
  /// `touch ui` on a worker thread (Swift refuses the call itself).
  static let offMainTouchStandIn = [
    "/// Stands for updateUserInterface() called off the main thread, which Swift",
    "/// refuses to compile: in an app, a corrupted view or a crash, at random.",
    "func userInterfaceTouchedOffMain() {",
    "  print(\"warning: the user interface was touched off the main thread\")",
    "}",
  ]

  /// A shared integer with no lock, for a variable the lab finds racing: what a learner
  /// writes to get racy code past Swift 6's checks.
  static let racyBox = [
    "/// An integer shared by threads with no lock: @unchecked Sendable tells",
    "/// Swift to trust it, and nothing makes that true. Its reads and writes",
    "/// race (Thread Sanitizer: swiftc -sanitize=thread reports them).",
    "final class RacyInt: @unchecked Sendable {",
    "  var value: Int",
    "  init(_ value: Int) { self.value = value }",
    "}",
  ]

  /// The asynchronous operation's state machine, with the KVO the queue watches; shown
  /// once. Its state is under a lock (other threads read isExecuting and isFinished),
  /// the KVO is sent outside it, only for the properties it overrides and only when they
  /// change (the first `finish()` claims the change under the lock; isCancelled
  /// is Operation's own: `cancel()` sends no KVO of its own). `cancel()` also stops the
  /// work begun (`onCancel`), whose callback then calls `finish()`: on Linux's Foundation
  /// `Operation.cancel()` of an executing operation only sets isCancelled (corelibs'
  /// Operation.swift), so an asynchronous operation that does not stop its work runs on.
  public static let asyncBase = [
    "/// An asynchronous operation: start() begins the work and returns;",
    "/// finish() ends it. Other threads read isExecuting and isFinished, so the",
    "/// state is under a lock, and the KVO the queue watches is sent outside it.",
    "/// cancel() also stops the work begun, whose callback then calls finish().",
    "class AsyncOperation: Operation, @unchecked Sendable {",
    "  private enum State { case ready, executing, finished }",
    "  private let lock = NSLock()",
    "  private var state = State.ready",
    "  private var finishing = false  // claimed by the first finish()",
    "  private var stopWork: (@Sendable () -> Void)?",
    "  override var isAsynchronous: Bool { true }",
    "  override var isExecuting: Bool { lock.withLock { state == .executing } }",
    "  override var isFinished: Bool { lock.withLock { state == .finished } }",
    "",
    "  /// Marks it executing: call it in start(), before the work begins.",
    "  func begin() {",
    "    willChangeValue(forKey: \"isExecuting\")",
    "    lock.withLock { state = .executing }",
    "    didChangeValue(forKey: \"isExecuting\")",
    "  }",
    "",
    "  /// Marks it finished: its queue moves on, its dependents may start. The",
    "  /// first call, from any thread, does it; later ones return at once.",
    "  func finish() {",
    "    let (first, wasExecuting) = lock.withLock {",
    "      defer { finishing = true; stopWork = nil }",
    "      return (!finishing, state == .executing)",
    "    }",
    "    guard first else { return }",
    "    // KVO for each property that changes, sent outside the lock.",
    "    willChangeValue(forKey: \"isFinished\")",
    "    if wasExecuting { willChangeValue(forKey: \"isExecuting\") }",
    "    lock.withLock { state = .finished }",
    "    if wasExecuting { didChangeValue(forKey: \"isExecuting\") }",
    "    didChangeValue(forKey: \"isFinished\")",
    "  }",
    "",
    "  /// How to stop the work begun, for cancel(): at once if cancelled.",
    "  func onCancel(_ stop: @escaping @Sendable () -> Void) {",
    "    let now = lock.withLock {",
    "      guard !finishing else { return false }",
    "      if isCancelled { return true }",
    "      stopWork = stop",
    "      return false",
    "    }",
    "    if now { stop() }",
    "  }",
    "",
    "  /// Sets isCancelled, and stops the work begun: its callback comes early",
    "  /// and calls finish(). (Operation's cancel() alone lets the work run on.)",
    "  override func cancel() {",
    "    super.cancel()",
    "    let stop = lock.withLock {",
    "      defer { stopWork = nil }",
    "      return stopWork",
    "    }",
    "    stop?()",
    "  }",
    "}",
  ]

  /// Whether an operation did its work, for `only-if-deps-succeeded`: finished, not
  /// cancelled, and, for an operation that can fail or return early, neither (its
  /// `DidItsWork` conformance says, typed, with no reflection). A stand-in: a real app would
  /// pass the result itself (the downloaded image) from one operation to the next.
  static let succeededHelper = [
    "/// An operation that can fail or return early says whether it did its work.",
    "protocol DidItsWork: AnyObject {",
    "  var didItsWork: Bool { get }",
    "}",
    "",
    "/// Whether an operation did its work: finished, not cancelled, no error,",
    "/// not returned early.",
    "func succeeded(_ op: Operation) -> Bool {",
    "  guard op.isFinished, !op.isCancelled else { return false }",
    "  return (op as? any DidItsWork)?.didItsWork ?? true",
    "}",
  ]

  /// A condition operations wait on besides their dependencies, for `gate`: opening it
  /// posts KVO for `isReady` on each operation waiting, so their queues look again.
  static let gateBase = [
    "/// A condition operations wait on besides their dependencies (the network",
    "/// is reachable). Opening it posts KVO for isReady on each waiting",
    "/// operation: else its queue never looks again.",
    "final class Gate: @unchecked Sendable {",
    "  private let lock = NSLock()",
    "  private var opened = false",
    "  private var waiting: [Operation] = []",
    "  var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return opened }",
    "  func add(_ op: Operation) {",
    "    lock.lock(); waiting.append(op); lock.unlock()",
    "  }",
    "  func open() {",
    "    lock.lock(); let ops = waiting; lock.unlock()",
    "    for op in ops { op.willChangeValue(forKey: \"isReady\") }",
    "    lock.lock(); opened = true; lock.unlock()",
    "    for op in ops { op.didChangeValue(forKey: \"isReady\") }",
    "  }",
    "}",
  ]
}
