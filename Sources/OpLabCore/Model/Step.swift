/// One step of an operation's work on shared state (`op inc does read count, compute 1,
/// write count`).
///
/// Steps model what a thread does to memory one tick at a time. Each operation has its own
/// register (a local variable of its `main()`, starting at 0): `read` copies a shared
/// variable into it, `compute N` adds N to it (the "modify" of a read-modify-write; it
/// touches no shared state), and `write` stores it back. `lock`/`unlock` are an `NSLock`'s
/// `lock()`/`unlock()`: blocking and not reentrant. `touch ui` stands for a call into
/// UIKit/AppKit, which must be made on the main thread. `add OP` is
/// `queue.addOperation(op)` for an operation defined with `hold`, on the queue it was
/// defined for: how work hops to another queue (`OperationQueue.main.addOperation(show)`).
///
/// The kernel runs one step a tick: an operation that starts at tick t does its first step
/// at t, its second at t+1, and so on, unless a `lock` step waits. A waiting operation keeps
/// its queue slot; it takes the lock at the tick the holder's `unlock` runs, and its next
/// step comes a tick later.
public enum Step: Hashable, Sendable, CustomStringConvertible {
  /// `read VAR`: register = VAR.
  case read(String)
  /// `compute N`: register += N (no shared access).
  case compute(Int)
  /// `write VAR`: VAR = register.
  case write(String)
  /// `lock L`: `L.lock()`, waiting while another operation holds it.
  case lock(String)
  /// `unlock L`: `L.unlock()`.
  case unlock(String)
  /// `touch ui`: a call into the user-interface framework, allowed only on the main thread.
  case touchUI
  /// `add OP`: `queue.addOperation(op)` for an operation that is in no queue yet.
  case add(String, to: String)

  public var description: String {
    switch self {
    case .read(let v): "read \(v)"
    case .compute(let n): "compute \(n)"
    case .write(let v): "write \(v)"
    case .lock(let l): "lock \(l)"
    case .unlock(let l): "unlock \(l)"
    case .touchUI: "touch ui"
    case .add(let op, _): "add \(op)"
    }
  }

  /// The shared variable the step reads or writes, if any.
  public var variable: String? {
    switch self {
    case .read(let v), .write(let v): v
    default: nil
    }
  }

  /// The lock the step takes or releases, if any.
  public var lockName: String? {
    switch self {
    case .lock(let l), .unlock(let l): l
    default: nil
    }
  }
}
