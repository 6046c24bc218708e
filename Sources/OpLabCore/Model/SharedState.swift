/// The world's shared memory: integer variables, `NSLock`s, and how far each operation
/// written as steps has got (see ``Step``).
///
/// A world without `var` or `lock` has none (``World/shared`` is `nil`), so the kernel's
/// usual paths never touch it.
public struct SharedState: Hashable, Sendable {
  /// Variable names, in creation order (a variable's index is its place here).
  public internal(set) var variableNames: [String] = []
  /// Each variable's value when it was created.
  public internal(set) var initialValues: [Int] = []
  /// Each variable's value now.
  public internal(set) var values: [Int] = []
  /// Lock names, in creation order.
  public internal(set) var lockNames: [String] = []
  /// The operation holding each lock now, if any.
  public internal(set) var holders: [OpID?] = []
  /// The operations waiting for each lock, in the order they began to wait.
  public internal(set) var waiters: [[OpID]] = []
  /// Each started step-by-step operation's progress.
  var runs: [OpID: StepRun] = [:]

  /// The index of the variable with this name.
  public func variable(named name: String) -> Int? { variableNames.firstIndex(of: name) }
  /// The index of the lock with this name.
  public func lock(named name: String) -> Int? { lockNames.firstIndex(of: name) }
  /// Whether a variable or a lock has this name.
  public func hasName(_ name: String) -> Bool { variableNames.contains(name) || lockNames.contains(name) }
}

/// A step-by-step operation's progress: the next step, its register, and the lock it waits for.
struct StepRun: Hashable, Sendable {
  /// The index of the next step to run.
  var next: Int32 = 0
  /// The operation's own register: what `read` loads, `compute` changes and `write` stores.
  var register = 0
  /// The lock it is waiting for, or -1.
  var waitingFor: Int32 = -1
}
