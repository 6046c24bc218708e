/// A point on the simulator's virtual clock. One tick is the unit of every duration.
///
/// Ticks are plain integers: the simulator never reads a real clock, so the same
/// actions always give the same trace.
public typealias Tick = Int

/// The identity of an operation in a ``World``: its index in creation order.
///
/// Identifiers are dense (0, 1, 2, …), so per-operation state lives in arrays
/// rather than dictionaries, which keeps iteration order deterministic.
public struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The index of the operation in creation order.
  public let index: Int32

  /// Creates an identifier from a creation-order index.
  @inlinable public init(_ index: Int) { self.index = Int32(truncatingIfNeeded: index) }

  @inlinable var slot: Int { Int(index) }

  public static func < (a: OpID, b: OpID) -> Bool { a.index < b.index }
  public var description: String { "op#\(index)" }
}

/// The identity of a queue in a ``World``: its index in creation order.
///
/// Queue 0 is always the built-in `main` queue.
public struct QueueID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The index of the queue in creation order.
  public let index: Int32

  /// Creates an identifier from a creation-order index.
  @inlinable public init(_ index: Int) { self.index = Int32(truncatingIfNeeded: index) }

  @inlinable var slot: Int { Int(index) }

  /// The built-in serial main queue.
  public static let main = QueueID(0)

  public static func < (a: QueueID, b: QueueID) -> Bool { a.index < b.index }
  public var description: String { "queue#\(index)" }
}
