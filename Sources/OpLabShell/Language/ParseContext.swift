import OpLabCore

/// A command line that could not be parsed: where, what was wrong, and a hint.
public struct ParseError: Error, Hashable, Sendable {
  /// 1-based column of the bad token.
  public var column: Int
  /// How many characters to underline.
  public var length: Int
  /// What is wrong.
  public var message: String
  /// A suggestion ("did you mean …"), if any.
  public var hint: String?

  /// Creates an error.
  public init(column: Int, length: Int, message: String, hint: String? = nil) {
    self.column = column
    self.length = length
    self.message = message
    self.hint = hint
  }
}

/// The names a line may refer to: the parser checks references and suggests corrections.
///
/// Made from a world, it asks the world's name indexes, so checking a name costs O(1)
/// however big the world (a script of n lines parses in O(n)); only completion and "did
/// you mean" list every name. Made from lists (tests, the fuzz targets), it searches them.
public struct ParseContext: Sendable {
  private enum Source: Sendable {
    case lists(operations: [String], queues: [String])
    case world(WorldBox)
    case lent(LentWorld)
  }
  /// The world, held by one reference: a parse copies its context into the matcher and
  /// the matches, and reads it at every name, and a `World` copied by value retains every
  /// array it holds each time (a sixth of a script line's time, #34).
  private final class WorldBox: Sendable {
    let world: World
    let declared: DeclaredQueues
    init(_ world: World, declared: DeclaredQueues) {
      self.world = world
      self.declared = declared
    }
  }
  /// A world lent where it is stored (``Simulation/withWorldInPlace(_:)``), for the parse
  /// of the line an interpreter runs (``Interpreter/execute(_:interrupt:)``): even one
  /// copy of a `World` a line, made and freed, retained and released each of its arrays
  /// (#34). Valid only while it is lent: the interpreter makes one for each parse.
  final class LentWorld: @unchecked Sendable {
    let world: UnsafePointer<World>
    let declared: DeclaredQueues
    init(_ world: UnsafePointer<World>, declared: DeclaredQueues) {
      self.world = world
      self.declared = declared
    }
  }
  private var source: Source
  /// Shared variables and locks of a context made from lists (a world's come from the world).
  private var listedVariables: [String] = []
  private var listedLocks: [String] = []

  /// Operation names, in creation order: O(operations) to list. Setting them turns a
  /// world's context into one made from lists.
  public var operations: [String] {
    get {
      switch source {
      case .lists(let operations, _): operations
      case .world(let box): box.world.operationNames
      case .lent(let lent): lent.world.pointee.operationNames
      }
    }
    set { source = .lists(operations: newValue, queues: queues) }
  }
  /// Queue names, in creation order.
  public var queues: [String] {
    get {
      switch source {
      case .lists(_, let queues): queues
      case .world(let box): box.world.allQueueNames
      case .lent(let lent): lent.world.pointee.allQueueNames
      }
    }
    set { source = .lists(operations: operations, queues: newValue) }
  }

  /// Creates a context from lists of names.
  public init(operations: [String] = [], queues: [String] = []) {
    source = .lists(operations: operations, queues: queues)
  }

  /// The names of `world`. Make one for each parse: kept while the world changes, the
  /// copy it holds would make the world copy its storage on the next change.
  public init(world: World) {
    source = .world(WorldBox(world, declared: DeclaredQueues()))
  }

  /// The names of `world`, with the queues its operations were declared for.
  init(world: World, declared: DeclaredQueues) {
    source = .world(WorldBox(world, declared: declared))
  }

  /// The names of a world lent for the parse (see ``LentWorld``).
  init(lent world: UnsafePointer<World>, declared: DeclaredQueues) {
    source = .lent(LentWorld(world, declared: declared))
  }

  /// Shared variable names (`var`), in creation order.
  public var variables: [String] {
    get {
      switch source {
      case .lists: listedVariables
      case .world(let box): box.world.shared?.variableNames ?? []
      case .lent(let lent): lent.world.pointee.shared?.variableNames ?? []
      }
    }
    set { listedVariables = newValue }
  }
  /// Lock names (`lock`), in creation order.
  public var locks: [String] {
    get {
      switch source {
      case .lists: listedLocks
      case .world(let box): box.world.shared?.lockNames ?? []
      case .lent(let lent): lent.world.pointee.shared?.lockNames ?? []
      }
    }
    set { listedLocks = newValue }
  }
  /// Dispatch queue names (`dispatch`), in creation order.
  public var dispatchQueues: [String] {
    switch source {
    case .lists: []
    case .world(let box): box.world.dispatchQueues.map(\.name)
    case .lent(let lent): lent.world.pointee.dispatchQueues.map(\.name)
    }
  }
  /// Whether a shared variable or a lock has this name.
  public func isShared(_ name: String) -> Bool { variables.contains(name) || locks.contains(name) }

  /// The queue each operation was defined for with `on`, where that is not `queue`: the
  /// queue a step `add OP` adds it to. An interpreter's context also finds those declared
  /// in its session (``declaredQueue(of:)``).
  public var declaredQueues: [String: String] = [:]

  /// The queue the operation `name` was defined for with `on`, if any.
  public func declaredQueue(of name: String) -> String? {
    if let listed = declaredQueues[name] { return listed }
    switch source {
    case .lists: return nil
    case .world(let box): return box.world.operationID(named: name).flatMap { box.declared[$0] }
    case .lent(let lent): return lent.world.pointee.operationID(named: name).flatMap { lent.declared[$0] }
    }
  }

  /// Whether the operation with this name is in no queue yet (defined with `hold`); a
  /// context made from lists takes every operation it names for one.
  public func isHeld(_ name: String) -> Bool {
    switch source {
    case .lists(let operations, _): operations.contains(name)
    case .world(let box): box.world.operationID(named: name).map { box.world.operation($0).phase == .created } ?? false
    case .lent(let lent): lent.world.pointee.operationID(named: name).map { lent.world.pointee.operation($0).phase == .created } ?? false
    }
  }

  /// Why the operation with this name can no longer be added to a queue (``OpLabCore/World/whyAddRefused(_:)``),
  /// when the context has a world; `nil` for one made from lists.
  public func whyNotAddable(_ name: String) -> String? {
    switch source {
    case .lists: nil
    case .world(let box): box.world.operationID(named: name).map { box.world.whyAddRefused($0) }
    case .lent(let lent): lent.world.pointee.operationID(named: name).map { lent.world.pointee.whyAddRefused($0) }
    }
  }

  /// Whether an operation has this name.
  public func isOperation(_ name: String) -> Bool {
    switch source {
    case .lists(let operations, _): operations.contains(name)
    case .world(let box): box.world.operationID(named: name) != nil
    case .lent(let lent): lent.world.pointee.operationID(named: name) != nil
    }
  }

  /// Gate names, in creation order (none for a context made from lists).
  public var gates: [String] {
    switch source {
    case .lists: []
    case .world(let box): box.world.gates.map(\.name)
    case .lent(let lent): lent.world.pointee.gates.map(\.name)
    }
  }

  /// Whether a queue has this name.
  public func isQueue(_ name: String) -> Bool {
    switch source {
    case .lists(_, let queues): queues.contains(name)
    case .world(let box): box.world.queueID(named: name) != nil
    case .lent(let lent): lent.world.pointee.queueID(named: name) != nil
    }
  }
}
