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
  // Every operation of a big world carries its spec, so it keeps inline only what every
  // operation uses; what few set (a cancellation check, a failure, a completion block, a
  // kind other than plain) is kept behind one reference, `nil` when none is set.

  /// The operation's name: unique in its world.
  public var name: String
  /// Ticks of work `main()` does. Ignored for ``OperationKind/blocks(_:)``.
  public var duration: Tick
  /// The fields few operations set, or `nil` when all are at their defaults (``Extras``).
  private var extras: Extras?
  /// An explicit `queuePriority`, or `nil` when never set (the getter then reports `.normal`).
  public var priority: QueuePriority?
  /// An explicit `qualityOfService`, or `nil` when never set (`.default`).
  public var qualityOfService: QualityOfService?
  /// Whether `main()` returns at once when any dependency was cancelled.
  public var bailsIfDependencyCancelled: Bool
  /// Whether `main()` returns at once unless every dependency succeeded: finished, not
  /// cancelled, not failed, not returned early (the photo filter that needs its download).
  public var bailsUnlessDependenciesSucceeded = false

  /// The fields that a plain operation leaves at their defaults, stored as plain integers
  /// with a sentinel for "none". Immutable and shared by copies of the spec; a setter
  /// makes a new one (or none, when every field is back at its default).
  final class Extras: Sendable {
    let fields: ExtraFields
    init(_ fields: ExtraFields) { self.fields = fields }
  }
  struct ExtraFields: Hashable, Sendable {
    var cancellationCode = OperationSpec.never
    var failsAtTick = OperationSpec.none
    var completionTicks = OperationSpec.none
    var kind = OperationKind.plain
    var heldFor: String?
    var isDefault: Bool {
      cancellationCode == OperationSpec.never && failsAtTick == OperationSpec.none && completionTicks == OperationSpec.none && kind == .plain
        && heldFor == nil
    }
  }
  private var extraFields: ExtraFields {
    get { extras?.fields ?? ExtraFields() }
    set { extras = newValue.isDefault ? nil : Extras(newValue) }
  }

  var cancellationCode: Tick {
    get { extras?.fields.cancellationCode ?? Self.never }
    set { extraFields.cancellationCode = newValue }
  }
  var failsAtTick: Tick {
    get { extras?.fields.failsAtTick ?? Self.none }
    set { extraFields.failsAtTick = newValue }
  }
  var completionTicks: Tick {
    get { extras?.fields.completionTicks ?? Self.none }
    set { extraFields.completionTicks = newValue }
  }
  /// The kind of `Operation` modelled.
  public var kind: OperationKind {
    get { extras?.fields.kind ?? .plain }
    set { extraFields.kind = newValue }
  }
  /// The queue an operation defined in no queue (`op NAME on Q hold`) was defined for: the
  /// one a later `add NAME` puts it on, so its code can be written for that queue's thread
  /// before it is added (an update of the user interface for main). `nil` for an operation
  /// added when it is defined.
  public var heldFor: String? {
    get { extras?.fields.heldFor }
    set { extraFields.heldFor = newValue }
  }

  public static func == (a: OperationSpec, b: OperationSpec) -> Bool {
    a.name == b.name && a.duration == b.duration && a.priority == b.priority && a.qualityOfService == b.qualityOfService
      && a.bailsIfDependencyCancelled == b.bailsIfDependencyCancelled
      && a.bailsUnlessDependenciesSucceeded == b.bailsUnlessDependenciesSucceeded && a.extraFields == b.extraFields
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(duration)
    hasher.combine(priority)
    hasher.combine(qualityOfService)
    hasher.combine(bailsIfDependencyCancelled)
    hasher.combine(bailsUnlessDependenciesSucceeded)
    hasher.combine(extraFields)
  }

  /// How the operation's code polls `isCancelled`. Stored as one integer (an enum with a
  /// payload would take 16 bytes): `every(n)` is `n`, and the two cases without a payload
  /// are the two smallest integers, which no check interval can be.
  public var cancellation: CancellationCheck {
    get {
      switch cancellationCode {
      case Self.never: .never
      case Self.atStart: .atStart
      case let n: .every(n)
      }
    }
    set { cancellationCode = Self.code(of: newValue) }
  }
  static func code(of check: CancellationCheck) -> Tick {
    switch check {
    case .never: never
    case .atStart: atStart
    // An interval that would read back as a sentinel is below 1 anyway: keep it invalid.
    case .every(let n): Swift.max(n, atStart + 1)
    }
  }
  static let never = Tick.min
  static let atStart = Tick.min + 1

  /// When set, the work fails after this many ticks: the operation finishes, but failed.
  public var failsAt: Tick? {
    get { failsAtTick == Self.none ? nil : failsAtTick }
    set { failsAtTick = newValue.map { Swift.max($0, Self.none + 1) } ?? Self.none }
  }
  /// When set, a `completionBlock` that takes this many ticks runs after the operation finishes.
  public var completion: Tick? {
    get { completionTicks == Self.none ? nil : completionTicks }
    set { completionTicks = newValue.map { Swift.max($0, Self.none + 1) } ?? Self.none }
  }
  /// The stored value of an absent `failsAt` or `completion`.
  static let none = Tick.min

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
    self.bailsIfDependencyCancelled = bailsIfDependencyCancelled
    // A value that would read back as "none" is negative, so invalid anyway: keep it so.
    let extras = ExtraFields(
      cancellationCode: Self.code(of: cancellation), failsAtTick: failsAt.map { Swift.max($0, Self.none + 1) } ?? Self.none,
      completionTicks: completion.map { Swift.max($0, Self.none + 1) } ?? Self.none, kind: kind)
    self.extras = extras.isDefault ? nil : Extras(extras)
  }

  /// The ticks of work from start to finish when nothing interrupts it.
  public func workLength(on platform: Platform) -> Tick {
    switch kind {
    case .plain, .async, .steps:
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
    let limit = Self.maxDuration
    func check(_ value: Tick, _ part: SpecPart) throws(SimulationError) {
      if value < 0 || value > limit { throw .invalidSpec(.ticksOutOfRange(part, ticks: value)) }
    }
    try check(duration, .operation)
    if case .every(let n) = cancellation, n < 1 {
      throw .invalidSpec(.cancelCheckPeriod(n))
    }
    if let f = failsAt, f < 0 || f > duration {
      throw .invalidSpec(.failsOutsideWork(at: f, duration: duration))
    }
    if let c = completion { try check(c, .completionBlock) }
    if case .blocks(let blocks) = kind {
      if blocks.isEmpty { throw .invalidSpec(.noBlocks) }
      for b in blocks { try check(b, .block) }
      if blocks.reduce(0, +) > limit { throw .invalidSpec(.blocksTooLong) }
    }
    if case .steps(let steps) = kind { try Self.validate(steps, duration: duration) }
  }

  /// Checks a step-by-step operation's steps: at least one, no more than its ticks (a step
  /// takes a tick), and every `unlock` of a lock the operation took before it.
  static func validate(_ steps: [Step], duration: Tick) throws(SimulationError) {
    if steps.isEmpty { throw .invalidSpec(.noSteps(.operation)) }
    if Tick(steps.count) > duration {
      throw .invalidSpec(.moreStepsThanTicks(steps: steps.count, duration: duration))
    }
    var held: [String] = []
    for step in steps {
      switch step {
      case .lock(let l): held.append(l)
      case .unlock(let l):
        guard let i = held.lastIndex(of: l) else {
          throw .invalidSpec(.unlockBeforeLock(l))
        }
        held.remove(at: i)
      default: break
      }
    }
  }

  /// The longest any piece of work may take: 2^40 ticks (about 10^12). With the clock
  /// capped at ``World/maxTick``, no sum of ticks in the simulator can overflow.
  public static let maxDuration: Tick = 1 << 40
}
