/// `Operation.QueuePriority`: the five levels a queue sorts ready operations by.
///
/// A queue keeps one FIFO list per level and walks them from `veryHigh` down
/// (spec rules 19–22). Internal barrier operations sit above all five.
public enum QueuePriority: Int8, CaseIterable, Comparable, Sendable, CustomStringConvertible {
  case veryLow = -8
  case low = -4
  case normal = 0
  case high = 4
  case veryHigh = 8

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  /// The spelling used by Swift's API and by the lab's command language.
  public var description: String {
    switch self {
    case .veryLow: "veryLow"
    case .low: "low"
    case .normal: "normal"
    case .high: "high"
    case .veryHigh: "veryHigh"
    }
  }

  /// Parses a priority name, ignoring case.
  public init?(name: String) {
    // The name is lowered once, against the cases' names lowered once (a script's `op`
    // line reads a priority twice: a check and its value, #34).
    let lowered = name.lowercased()
    guard let k = Self.loweredNames.firstIndex(of: lowered) else { return nil }
    self = Self.allCases[k]
  }

  /// Each case's ``description`` in lower case, in `allCases` order.
  private static let loweredNames = allCases.map { $0.description.lowercased() }
}

/// `QualityOfService`: how important the work is to the user.
public enum QualityOfService: Int8, CaseIterable, Comparable, Sendable, CustomStringConvertible {
  case background = 0
  case utility = 1
  case `default` = 2
  case userInitiated = 3
  case userInteractive = 4

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  /// The spelling used by Swift's API and by the lab's command language.
  public var description: String {
    switch self {
    case .background: "background"
    case .utility: "utility"
    case .default: "default"
    case .userInitiated: "userInitiated"
    case .userInteractive: "userInteractive"
    }
  }

  /// Parses a quality-of-service name, ignoring case (as ``QueuePriority/init(name:)``).
  public init?(name: String) {
    let lowered = name.lowercased()
    guard let k = Self.loweredNames.firstIndex(of: lowered) else { return nil }
    self = Self.allCases[k]
  }

  /// Each case's ``description`` in lower case, in `allCases` order.
  private static let loweredNames = allCases.map { $0.description.lowercased() }

  /// The queue priority corelibs Foundation files an operation under when it has a
  /// quality of service but no explicit priority (spec rule 24, `linux` mode only).
  public var mappedPriority: QueuePriority {
    switch self {
    case .userInteractive: .veryHigh
    case .userInitiated: .high
    case .default: .normal
    case .utility: .low
    case .background: .veryLow
    }
  }
}

/// Which Foundation the simulator imitates where Darwin and Linux differ.
public enum Platform: String, CaseIterable, Sendable {
  /// Darwin's documented behaviour (iOS, macOS): the default.
  case apple
  /// swift-corelibs-foundation as shipped with Swift 6.3.1 on Linux.
  case linux
}

/// How an operation's `main()` polls `isCancelled`.
///
/// Cancellation is cooperative (spec rule 12): `cancel()` on an executing operation
/// only sets a flag, and the operation stops early only when its code checks it.
public enum CancellationCheck: Hashable, Sendable, CustomStringConvertible {
  /// Checks when `main()` begins and then after every `n` ticks of work.
  case every(Tick)
  /// Checks only when `main()` begins (the `guard !isCancelled` idiom).
  case atStart
  /// Never checks: the work always runs to the end (a plain `BlockOperation`).
  case never

  public var description: String {
    switch self {
    case .every(let n): "every \(n)"
    case .atStart: "start"
    case .never: "never"
    }
  }
}

/// What kind of `Operation` subclass an operation models.
public enum OperationKind: Hashable, Sendable {
  /// A synchronous operation whose `main()` does all the work.
  case plain
  /// A `BlockOperation` with several execution blocks, given by their durations.
  ///
  /// Darwin runs the blocks concurrently; corelibs runs them one after another
  /// (spec rule 38). Cancelling does not stop the remaining blocks (rule 17).
  case blocks([Tick])
  /// An asynchronous operation: its work calls `finish()` itself, with manual KVO.
  ///
  /// When `forgetsFinish` is set the work ends without calling `finish()`, so the
  /// operation never finishes and holds its queue slot forever.
  case async(forgetsFinish: Bool)
  /// A synchronous operation whose `main()` is written as steps on shared state, one step a
  /// tick from its start (see ``Step`` and ``World/createVariable(name:initial:)``). Its
  /// `duration` is at least the number of steps; the ticks after the last step are plain work.
  case steps([Step])
}

/// The public phase of an operation, as a learner reads it on a timeline.
public enum OpPhase: UInt8, Sendable, CustomStringConvertible {
  /// Created but not added to any queue (`hold`).
  case created
  /// In a queue, waiting on unfinished dependencies (`isReady == false`).
  case pending
  /// In a queue, ready, waiting for the queue to pick it.
  case ready
  /// Started: `isExecuting` (or, for a cancelled operation, being skipped).
  case executing
  /// `isFinished`: done, whatever the outcome.
  case finished

  public var description: String {
    switch self {
    case .created: "created"
    case .pending: "pending"
    case .ready: "ready"
    case .executing: "executing"
    case .finished: "finished"
    }
  }
}

/// How a finished operation ended. `isFinished` alone does not say it succeeded.
public enum Outcome: UInt8, Sendable, CustomStringConvertible {
  /// The work ran to the end.
  case succeeded
  /// The work reported a failure (finished, but failed).
  case failed
  /// Cancelled: either skipped before `main()` or stopped when it saw `isCancelled`.
  case cancelled
  /// Returned early because a dependency was cancelled (the `dependencies.contains(where: \.isCancelled)` idiom).
  case bailed
  /// A frame that could not start before the next one was due: it never ran.
  case dropped

  public var description: String {
    switch self {
    case .succeeded: "succeeded"
    case .failed: "failed"
    case .cancelled: "cancelled"
    case .bailed: "bailed"
    case .dropped: "dropped"
    }
  }
}

/// The `isExecuting`/`isFinished`/`isReady` keys an asynchronous operation posts KVO for.
public enum KVOKey: UInt8, Sendable, CustomStringConvertible {
  case isReady, isExecuting, isFinished
  public var description: String {
    switch self {
    case .isReady: "isReady"
    case .isExecuting: "isExecuting"
    case .isFinished: "isFinished"
    }
  }
}
