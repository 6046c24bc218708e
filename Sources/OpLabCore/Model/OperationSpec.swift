/// Everything a learner says about an operation when defining it.
///
/// A spec is plain data; the ``World`` turns it into a simulated operation.
///
/// ```swift
/// var download = OperationSpec(name: "d1", duration: 5)
/// download.cancellation = .every(1)
/// download.completion = 1
/// ```
public struct OperationSpec: Hashable, Sendable {
  /// The operation's name: unique in its world.
  public var name: String
  /// Ticks of work `main()` does. Ignored for ``OperationKind/blocks(_:)``.
  public var duration: Tick
  /// An explicit `queuePriority`, or `nil` when never set (the getter then reports `.normal`).
  public var priority: QueuePriority?
  /// An explicit `qualityOfService`, or `nil` when never set (`.default`).
  public var qualityOfService: QualityOfService?
  /// How the operation's code polls `isCancelled`.
  public var cancellation: CancellationCheck
  /// Whether `main()` returns at once when any dependency was cancelled.
  public var bailsIfDependencyCancelled: Bool
  /// When set, the work fails after this many ticks: the operation finishes, but failed.
  public var failsAt: Tick?
  /// When set, a `completionBlock` that takes this many ticks runs after the operation finishes.
  public var completion: Tick?
  /// The kind of `Operation` modelled.
  public var kind: OperationKind

  /// Creates a spec with the defaults of a plain `Operation`: one tick of work,
  /// no explicit priority or QoS, no cancellation checks, no completion block.
  public init(
    name: String,
    duration: Tick = 1,
    priority: QueuePriority? = nil,
    qualityOfService: QualityOfService? = nil,
    cancellation: CancellationCheck = .never,
    bailsIfDependencyCancelled: Bool = false,
    failsAt: Tick? = nil,
    completion: Tick? = nil,
    kind: OperationKind = .plain
  ) {
    self.name = name
    self.duration = duration
    self.priority = priority
    self.qualityOfService = qualityOfService
    self.cancellation = cancellation
    self.bailsIfDependencyCancelled = bailsIfDependencyCancelled
    self.failsAt = failsAt
    self.completion = completion
    self.kind = kind
  }

  /// The ticks of work from start to finish when nothing interrupts it.
  public func workLength(on platform: Platform) -> Tick {
    switch kind {
    case .plain, .async:
      return failsAt.map { min($0, duration) } ?? duration
    case .blocks(let blocks):
      switch platform {
      case .apple: return blocks.max() ?? 0
      case .linux: return blocks.reduce(0, +)
      }
    }
  }

  /// Checks that every number in the spec is one the simulator can run.
  /// - Throws: ``SimulationError/invalidSpec(_:)`` naming the bad field.
  public func validate() throws(SimulationError) {
    if duration < 0 { throw .invalidSpec("duration must be 0 or more ticks, not \(duration)") }
    if case .every(let n) = cancellation, n < 1 {
      throw .invalidSpec("cancel-check every N needs N of at least 1, not \(n)")
    }
    if let f = failsAt, f < 0 || f > duration {
      throw .invalidSpec("fails at \(f) is outside the operation's \(duration) ticks of work")
    }
    if let c = completion, c < 0 { throw .invalidSpec("a completion block takes 0 or more ticks, not \(c)") }
    if case .blocks(let blocks) = kind {
      if blocks.isEmpty { throw .invalidSpec("a BlockOperation needs at least one block") }
      if let bad = blocks.first(where: { $0 < 0 }) {
        throw .invalidSpec("a block takes 0 or more ticks, not \(bad)")
      }
    }
  }
}
