import Foundation
import OpLabCore
import Synchronization

/// One logged event of a real run: seconds since tick 0, the operation (or barrier) it is
/// about, and what happened.
public struct RealMark: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// `main()` began (for an asynchronous operation, `start()` began its work).
    case started
    /// `start()` found `isCancelled` and did not call `main()`.
    case skipped
    /// The operation became finished, ending this way.
    case finished(Outcome)
    /// The completion block began.
    case completion
    /// A `BlockOperation`'s execution block began (1-based).
    case blockStarted(Int)
    /// A `BlockOperation`'s execution block ended (1-based).
    case blockFinished(Int)
  }

  public var seconds: Double
  public var name: String
  public var kind: Kind

  public init(seconds: Double, name: String, kind: Kind) {
    self.seconds = seconds
    self.name = name
    self.kind = kind
  }

  /// The mark as one short label: `start A`, `finish A`, `skip A`, `complete A`, `start A#1`.
  public var label: String {
    switch kind {
    case .started: "start \(name)"
    case .skipped: "skip \(name)"
    case .finished: "finish \(name)"
    case .completion: "complete \(name)"
    case .blockStarted(let i): "start \(name)#\(i)"
    case .blockFinished(let i): "finish \(name)#\(i)"
    }
  }
}

/// The driver's own calls, made only on the main thread: the driver's thread, which also runs
/// main-queue work inside its run loop. Work sleeping there asks them as the driver would, so
/// it stops at Ctrl-C, and the progress goes on, instead of both waiting for its sleep to end.
final class MainThreadHooks: @unchecked Sendable {
  // Called on the main thread only (see `fired` and `report`): the thread that made them.
  private let interrupt: (() -> Bool)?
  private let progress: ((Double) -> Void)?

  init(interrupt: (() -> Bool)?, progress: ((Double) -> Void)?) {
    self.interrupt = interrupt
    self.progress = progress
  }

  /// Whether Ctrl-C came; always `false` off the main thread, which must not ask.
  var fired: Bool { Thread.isMainThread && interrupt?() == true }

  /// Tells the progress the driver's clock, in ticks; only on the main thread.
  func report(_ ticks: Double) {
    if Thread.isMainThread { progress?(ticks) }
  }
}

/// The lock-protected log every operation, block and completion block writes to.
public final class RealLog: Sendable {
  private let clock = ContinuousClock()
  private let state: Mutex<(origin: ContinuousClock.Instant, marks: [RealMark], abandoned: Bool)>
  private let hooks: MainThreadHooks?
  private let tickSeconds: Double

  public convenience init() { self.init(hooks: nil, tickSeconds: 1) }

  /// A log whose sleeping work on the main thread reports progress and stops, ending the
  /// run, at Ctrl-C (`hooks`), `tickSeconds` a tick.
  init(hooks: MainThreadHooks?, tickSeconds: Double) {
    state = Mutex((ContinuousClock.now, [], false))
    self.hooks = hooks
    self.tickSeconds = tickSeconds
  }

  /// Whether work should stop now: the run has ended, or, on the main thread, Ctrl-C came
  /// (which ends the run: nothing more is logged).
  var shouldStop: Bool {
    if isAbandoned { return true }
    guard let hooks, Thread.isMainThread else { return false }
    hooks.report(elapsed / tickSeconds)
    guard hooks.fired else { return false }
    abandon()
    return true
  }

  /// Ends the run: work still sleeping stops at its next slice, and nothing more is logged,
  /// so a run's leftovers neither take threads from the next one nor write into its log.
  public func abandon() { state.withLock { $0.abandoned = true } }

  /// Whether the run has ended.
  public var isAbandoned: Bool { state.withLock { $0.abandoned } }

  /// Work taking `seconds`, in slices of at most 5 ms; cut short when the run ends, or on the
  /// main thread at Ctrl-C (``shouldStop``).
  public func nap(_ seconds: Double) {
    let end = clock.now.advanced(by: .nanoseconds(Int64(seconds * 1e9)))
    while !shouldStop {
      let left = end - clock.now
      if left <= .zero { return }
      Thread.sleep(forTimeInterval: min(0.005, Self.seconds(left)))
    }
  }

  /// Sets the origin to now: tick 0.
  public func startClock() { state.withLock { $0.origin = clock.now } }

  /// Seconds since tick 0.
  public var elapsed: Double {
    let now = clock.now
    return state.withLock { Self.seconds(now - $0.origin) }
  }

  /// Records that `name` did `kind`, now.
  public func mark(_ name: String, _ kind: RealMark.Kind) {
    let now = clock.now
    state.withLock {
      guard !$0.abandoned else { return }
      $0.marks.append(RealMark(seconds: Self.seconds(now - $0.origin), name: name, kind: kind))
    }
  }

  /// How many events were logged.
  public var count: Int { state.withLock { $0.marks.count } }

  /// Everything logged so far, in the order it was logged.
  public var snapshot: [RealMark] { state.withLock { $0.marks } }

  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }
}
