/// A `DispatchQueue` the learner made, for an `OperationQueue`'s `underlyingQueue`.
///
/// The lab models only what an operation queue does with it: a queue whose
/// ``QueueRecord/underlyingQueue`` names one submits each operation it dispatches to this
/// queue instead of its own backing queue (corelibs `_schedule()`: `__dispatch_queue ??
/// _synthesizeBackingQueue()`). A serial one runs one work item at a time, in the order the
/// items were submitted, whichever operation queue submitted them; a concurrent one runs
/// each at once. Its quality of service, when it has one, is what the work runs at.
public struct DispatchQueueRecord: Hashable, Sendable {
  /// The queue's label, which the lab also uses as its name.
  public let name: String
  /// `attributes: .concurrent`; a plain `DispatchQueue(label:)` is serial.
  public let isConcurrent: Bool
  /// `DispatchQueue(label:qos:)`, or `nil` for none given.
  public let qualityOfService: QualityOfService?
  /// Serial only: the operation whose work item runs on it now. The item is `start()`:
  /// a synchronous operation's returns when it finishes, an asynchronous one's at once.
  public internal(set) var running: OpID?
  /// Serial only: operations dispatched to it that wait for `running`, oldest first. Each
  /// holds a slot of its operation queue (rule 27) and is not executing yet.
  public internal(set) var waiting: [OpID] = []

  init(name: String, isConcurrent: Bool, qualityOfService: QualityOfService?) {
    self.name = name
    self.isConcurrent = isConcurrent
    self.qualityOfService = qualityOfService
  }

  /// `serial` or `concurrent`, with the quality of service when it has one.
  public var summary: String {
    (isConcurrent ? "concurrent" : "serial") + (qualityOfService.map { ", qos \($0)" } ?? "")
  }
}
