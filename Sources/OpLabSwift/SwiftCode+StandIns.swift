/// The stand-ins and helpers a program declares once, before its pieces.
extension SwiftCode {
  /// The comment on a wait the export plays as the clock running on.
  static func waitedNote(fromMain: Bool) -> String {
    fromMain
      ? "the lab stopped its clock during this wait from main; here the clock runs on"
      : "the lab waited on its own thread; here the clock runs on"
  }

  /// The stand-in for a call into UIKit or AppKit (`touch ui`): it says when it is made
  /// off the main thread.
  static let userInterfaceStandIn = [
    "/// A call into UIKit or AppKit (tableView.reloadData()): allowed only on",
    "/// the main thread.",
    "func updateUserInterface() {",
    "  if !Thread.isMainThread {",
    "    print(\"warning: the user interface was touched off the main thread\")",
    "  }",
    "}",
  ]

  /// The asynchronous operation's state machine, with the KVO the queue watches; shown once.
  static let asyncBase = [
    "/// An asynchronous operation: start() begins the work and returns;",
    "/// finish() ends it.",
    "class AsyncOperation: Operation, @unchecked Sendable {",
    "  enum State: String {",
    "    case ready = \"isReady\"",
    "    case executing = \"isExecuting\"",
    "    case finished = \"isFinished\"",
    "  }",
    "  var state = State.ready {",
    "    willSet {",
    "      willChangeValue(forKey: newValue.rawValue)",
    "      willChangeValue(forKey: state.rawValue)",
    "    }",
    "    didSet {",
    "      didChangeValue(forKey: oldValue.rawValue)",
    "      didChangeValue(forKey: state.rawValue)",
    "    }",
    "  }",
    "  override var isAsynchronous: Bool { true }",
    "  override var isExecuting: Bool { state == .executing }",
    "  override var isFinished: Bool { state == .finished }",
    "  func finish() { state = .finished }",
    "}",
  ]

  /// Whether an operation did its work, for `only-if-deps-succeeded`: finished, not
  /// cancelled, and neither failed (`error`) nor returned early (`bailed`). A stand-in: a real
  /// app would pass the result itself (the downloaded image) from one operation to the next.
  static let succeededHelper = [
    "/// Whether an operation did its work: finished, not cancelled, no error,",
    "/// not returned early.",
    "func succeeded(_ op: Operation) -> Bool {",
    "  guard op.isFinished, !op.isCancelled else { return false }",
    "  return !Mirror(reflecting: op).children.contains {",
    "    ($0.label == \"error\" && \"\\($0.value)\" != \"nil\")",
    "      || ($0.label == \"bailed\" && \"\\($0.value)\" == \"true\")",
    "  }",
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

  /// The count of completion blocks still to run, for a `run`'s wait: waiting on a
  /// queue does not wait for them (semantics rule 36).
  static let completionGroup = [
    "/// The completion blocks still to run: no queue waits for them, so each",
    "/// one is counted in before its operation is added, and out when it ends.",
    "let completionBlocks = DispatchGroup()",
  ]

  /// The wait a command-line tool needs when main-queue work or completion blocks are
  /// involved: the main thread runs the main run loop (the main queue's work runs only
  /// there, or under dispatchMain()) until the operations are finished and, with them,
  /// every completion block counted has run.
  static func mainLoop(countingCompletionBlocks: Bool) -> [String] {
    [
      "/// Runs the main run loop, on the main thread, until the operations have",
      countingCompletionBlocks
        ? "/// finished and every completion block has run: main-queue work runs here."
        : "/// finished: main-queue work runs here.",
      "@MainActor func runMainLoop(untilFinished operations: [Operation]) {",
      countingCompletionBlocks
        ? "  while !operations.allSatisfy(\\.isFinished)\n    || completionBlocks.wait(timeout: .now()) == .timedOut\n  {"
        : "  while !operations.allSatisfy(\\.isFinished) {",
      "    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))",
      "  }",
      "}",
    ]
  }
}
