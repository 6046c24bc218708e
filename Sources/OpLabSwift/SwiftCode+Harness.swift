/// The export's harness: the lab's clock and the stand-ins, apart from the program.
///
/// It plays the world as `real` does (OpLabReal's RealDriver): the program's commands come at
/// their ticks on the main thread, which runs the main run loop meanwhile, so main-queue work,
/// calls made "from main", taps and frames run there as they would in an app; the lab's own
/// waits are the real calls, made on a thread of their own; libdispatch's pool is woken before
/// tick 0. Nothing in it is main-actor isolated, so top-level code calls it under plain `swiftc`
/// (Swift 5 mode, where top-level code is nonisolated) and under Swift 6 alike.
extension SwiftCode {
  /// The line between the program and the harness in a one-file export, and the first line
  /// of a package's `Harness.swift`.
  public static let harnessMarker = "// MARK: - OpLab's harness: the lab's clock and stand-ins (not the program)"

  /// The harness alone, as the text of a `Harness.swift` (its imports included), a tick
  /// being `tickSeconds` real seconds: what a program that plays a world on the real
  /// OperationQueue is compiled with (`swiftc main.swift Harness.swift`).
  ///
  /// The names a program may call are stable (a lesson's Swift exercise compiles a
  /// learner's `main.swift` against this text):
  /// - `work(ticks:)`: an operation's real work, `ticks` of the lab's clock.
  /// - `startWork(ticks:then:)`, `startWork(ticks:failing:then:)`: work that calls back
  ///   when it is done (on a thread of libdispatch's), with `WorkError.failed` when failing.
  /// - `startWork(ticks:checkingEvery:failing:then:)`: work that a `cancel()` of the `Work`
  ///   it returns stops where it next checks, calling back then with `WorkError.cancelled`.
  /// - `sleep(untilTick:)`: the main thread idles in its run loop (main-queue work, taps and
  ///   frames run there) until the lab's clock reads that tick: how the program's next
  ///   command comes at its tick. The clock starts at the first call into the harness,
  ///   or at `Lab.start`.
  /// - `Lab.start(lastTick:mostAtOnce:notes:)`: warms libdispatch's pool, starts the clock
  ///   at t=0 and the watcher, which calls work unfinished `Lab.grace` ticks after `lastTick`
  ///   stalled, and prints each note, and one when the lab ran more operations at once than
  ///   this machine has cores.
  /// - `Lab.watch(_:)`: prints the operations' starts and finishes as event lines
  ///   (`t=3  d1 started`, `t=8  d1 finished (succeeded)`), to read beside the lab's
  ///   `events`; an operation conforming to `Reporting` says how it ended (`Ending`).
  ///   The program ends when every watched operation and its completion block (set
  ///   before the call) is done.
  /// - `Lab.printsAtTheEnd(_:_:)`: a shared variable's name and how to read it, printed
  ///   at the end (`at the end: count = 2`).
  /// - `Lab.waitOnTheLabsThread(givingUpAt:_:)`: a wait the lab makes from its own thread,
  ///   made on a thread of its own while the main thread turns its run loop.
  /// - `Lab.callOnMain(_:)`: a call the lab makes from main, queued to the main thread;
  ///   the program goes on when it returns.
  /// - `Lab.tap(atTick:)`, `Lab.frames(every:from:until:)`: the user and the display, as
  ///   main-thread work on the run loop.
  /// - `Lab.end()`: the main thread turns its run loop until the watcher ends the program
  ///   (the work done, or stalled).
  /// - `Lab.tickSeconds`, `Lab.now()` (the clock in ticks), `Lab.say(_:)` (an event line).
  /// - Parameter tickSeconds: the real seconds one tick of the lab's clock takes.
  /// - Returns: the harness's text, ending in a newline.
  public static func harness(tickSeconds: Double) -> String {
    harnessMarker + "\n" + "import Foundation\nimport Synchronization\n\n" + harnessBody(tickSeconds: tickSeconds)
  }

  /// The harness after its marker line and the imports: in a one-file export the imports
  /// are the file's own, at its top.
  static func harnessBody(tickSeconds: Double) -> String {
    """
    //
    // Everything here stands in for what the lab plays: the clock
    // (sleep(untilTick:)), an operation's real work (work, startWork), the user
    // and the display (taps, frames), and the printer of events, which watches
    // each operation and ends the program, saying what never finished, when the
    // work is done or the lab's time is long past.

    /// The lab's clock and what it plays, on the main thread unless said.
    enum Lab {
      /// The real seconds one tick of the lab's clock takes.
      static let tickSeconds = \(tickSeconds)
      /// Ticks past the lab's last command before unfinished work is called
      /// stalled.
      static let grace = 20
      private struct Watched {
        let op: Operation
        var started = false, skipped = false, finished = false
        /// Set when its completion block has returned; `nil` when it has none.
        var completed: Locked<Bool>?
      }
      private struct State {
        var lastTick = 0
        var watched: [Watched] = []
        var values: [(name: String, read: @Sendable () -> Int)] = []
        var notes: [String] = []
        var ended = false
      }
      private static let state = Locked(State())
      /// When t=0 was: set by `start`, else by the first read of the clock.
      private static let origin = Locked<Date?>(nil)

      /// t=0 on the real clock, taken now if the clock has not started.
      private static func zero() -> Date {
        origin.withLock { o in
          if let o { return o }
          let now = Date()
          o = now
          return now
        }
      }

      /// Wakes libdispatch's worker threads (a cold pool starts work late),
      /// starts the clock at t=0 and the watcher, which ends the program
      /// `grace` ticks after `lastTick` if the work is not done by then.
      /// `mostAtOnce` is the most operations the lab ran at once: more than
      /// this machine's cores, some may start late here (a note says so).
      static func start(
        lastTick: Int, mostAtOnce: Int = 1, notes: [String] = []
      ) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var notes = notes
        if mostAtOnce > cores {
          notes.append(
            "the lab ran \\(mostAtOnce) operations at once; this machine has "
              + "\\(cores) cores, and its thread pool may start some later")
        }
        let warm = OperationQueue()
        warm.maxConcurrentOperationCount = cores * 2
        for _ in 0..<cores * 2 {
          warm.addOperation { Thread.sleep(forTimeInterval: 0.002) }
        }
        warm.waitUntilAllOperationsAreFinished()
        origin.withLock { $0 = Date() }  // t=0
        state.withLock {
          $0.lastTick = lastTick
          $0.notes = notes
        }
        for note in notes { print("note: \\(note)") }
        fflush(nil)
        Thread { watching() }.start()
      }

      /// The lab's clock now, in ticks since t=0.
      static func now() -> Double {
        Date().timeIntervalSince(zero()) / tickSeconds
      }

      /// The date of `tick` (and a fraction) on the real clock.
      static func date(_ tick: Double) -> Date {
        zero().addingTimeInterval(tick * tickSeconds)
      }

      /// With OPLAB_EXACT_TICKS set, event lines end with the tick to 1/100.
      static let exact =
        ProcessInfo.processInfo.environment["OPLAB_EXACT_TICKS"] != nil

      /// Prints an event line at the present tick.
      static func say(_ text: String) {
        let t = now()
        let exactly = exact ? "  @\\((t * 100).rounded() / 100)" : ""
        print("t=\\(Int(t.rounded()))  \\(text)\\(exactly)")
        // Out now, even into a pipe (where stdout is buffered): beside
        // another program's output, or Thread Sanitizer's, a line keeps its
        // place in time. fflush(nil) flushes stdout without naming it (a
        // global var Swift 6 refuses to read from any thread).
        fflush(nil)
      }

      /// The main thread's run loop turns until `tick`, a tenth of a tick
      /// early: a command at T comes before the work's own steps at T in the
      /// lab. See `sleep(untilTick:)`.
      static func runMainLoop(untilTick tick: Int) {
        let until = date(Double(tick) - 0.1)
        repeat {
          let before = Date()
          let slice = min(until, before.addingTimeInterval(0.01))
          _ = RunLoop.main.run(mode: .default, before: slice)
          if Date().timeIntervalSince(before) < 0.001, Date() < until {
            // nothing to wait on in the run loop
            Thread.sleep(forTimeInterval: 0.001)
          }
        } while Date() < until
      }

      /// A wait the lab makes on its own thread (`wait q`, `add … wait`): the
      /// real call, made on a thread of its own while the main thread runs its
      /// run loop, and the program goes on when it returns.
      /// With `givingUpAt`, a wait the lab found could never return: the
      /// program goes on at that tick, saying so, and the call stays blocked.
      static func waitOnTheLabsThread(
        givingUpAt tick: Int? = nil, _ call: @escaping @Sendable () -> Void
      ) {
        let returned = Locked(false)
        Thread {
          call()
          returned.withLock { $0 = true }
        }.start()
        while !returned.withLock({ $0 }) {
          if let tick, now() >= Double(tick) - 0.1 {
            say("a wait never returned: the lab stops it here too")
            return
          }
          turnTheRunLoop(0.002)
        }
      }

      /// A call the lab makes from main (`wait a from main`, `add … wait from
      /// main`): queued to the main thread, behind the main-queue work already
      /// waiting there, and the program goes on when it has returned, as the
      /// lab's next command does.
      static func callOnMain(_ call: @escaping @Sendable () -> Void) {
        let returned = Locked(false)
        DispatchQueue.main.async {
          call()
          returned.withLock { $0 = true }
        }
        while !returned.withLock({ $0 }) { turnTheRunLoop(0.002) }
      }

      /// The user taps at `tick`: UIKit handles it on the main thread, a
      /// tick of work.
      static func tap(atTick tick: Int) {
        onMain(atTick: Double(tick)) { work(ticks: 1) }
      }

      /// Runs `event` on the main thread's run loop at `tick`.
      static func onMain(
        atTick tick: Double, _ event: @escaping @Sendable () -> Void
      ) {
        let timer = Timer(fire: date(tick), interval: 0, repeats: false) { _ in
          event()
        }
        RunLoop.main.add(timer, forMode: .default)
      }

      /// Turns the main run loop once, for at most `seconds`.
      static func turnTheRunLoop(_ seconds: Double) {
        let until = Date(timeIntervalSinceNow: seconds)
        _ = RunLoop.main.run(mode: .default, before: until)
      }

      /// The display asks the main thread for a frame every `every` ticks from
      /// `from` to `until`: a tick of drawing each, dropped when the main
      /// thread cannot start it before the next one is due.
      static func frames(every: Int, from: Int, until: Int) {
        for tick in stride(from: from, through: until, by: every) {
          onMain(atTick: Double(tick)) {
            if now() < Double(tick + every) - 0.5 { work(ticks: 1) }
          }
        }
      }

      /// Prints the value of a shared variable at the end, as the lab does.
      static func printsAtTheEnd(
        _ name: String, _ read: @escaping @Sendable () -> Int
      ) {
        state.withLock { $0.values.append((name, read)) }
      }

      /// Prints each operation's start and finish as event lines, and counts
      /// it done when its completion block (set before) has returned too.
      static func watch(_ ops: Operation...) {
        for op in ops { watchOne(op) }
      }

      private static func watchOne(_ op: Operation) {
        var watched = Watched(op: op)
        if let block = op.completionBlock {
          let completed = Locked(false)
          op.completionBlock = {
            block()
            completed.withLock { $0 = true }
          }
          watched.completed = completed
        }
        state.withLock { [watched] in $0.watched.append(watched) }
      }

      /// The end of the program: the main thread runs its run loop until the
      /// work is done; the watcher ends the program then, or says what never
      /// finished.
      static func end() -> Never {
        while true { turnTheRunLoop(0.005) }
      }

      /// The watcher, on a thread of its own: every millisecond, the
      /// operations' starts and finishes; at the end the variables, and a
      /// stall if any.
      private static func watching() {
        while true {
          let unfinished = look()
          let last = Double(state.withLock { $0.lastTick })
          if unfinished.isEmpty, now() > last { finish(stalled: []) }
          if now() > last + Double(grace) { finish(stalled: unfinished) }
          Thread.sleep(forTimeInterval: 0.001)
        }
      }

      private static func finish(stalled: [String]) -> Never {
        if !stalled.isEmpty {
          say("stalled: \\(stalled.joined(separator: ", ")) never finished")
        }
        let values = state.withLock { $0.values }
        if !values.isEmpty {
          let shown = values.map { "\\($0.name) = \\($0.read())" }
          print("at the end: " + shown.joined(separator: ", "))
        }
        for note in state.withLock({ $0.notes }) { print("note: \\(note)") }
        exit(0)
      }

      /// Looks once: prints what started or finished; returns the names of the
      /// operations not finished yet.
      private static func look() -> [String] {
        let (events, unfinished) = state.withLock { s in
          var events: [String] = []
          var unfinished: [String] = []
          for i in s.watched.indices {
            let op = s.watched[i].op
            let name = op.name ?? "?"
            if !s.watched[i].started, op.isExecuting || op.isFinished {
              s.watched[i].started = true
              if op.isExecuting || !op.isCancelled {
                events.append("\\(name) started")
              } else {
                s.watched[i].skipped = true  // cancelled before it started
              }
            }
            if !s.watched[i].finished, op.isFinished {
              s.watched[i].finished = true
              let ending = (op as? any Reporting)?.ending ?? .succeeded
              // Cancelled work that did not stop ran to the end: success.
              let how = s.watched[i].skipped ? .cancelled : ending
              events.append("\\(name) finished (\\(how.rawValue))")
            }
            if !s.watched[i].finished {
              unfinished.append(name)
            } else if let completed = s.watched[i].completed,
              !completed.withLock({ $0 })
            {
              unfinished.append("\\(name)'s completion block")
            }
          }
          return (events, unfinished)
        }
        for event in events { say(event) }
        return unfinished
      }
    }

    /// A value behind an NSLock, what the harness shares between threads. Not
    /// Synchronization's Mutex: on Linux that waits in futex calls Thread
    /// Sanitizer does not see, so under -sanitize=thread its accesses would be
    /// reported as races.
    final class Locked<Value>: @unchecked Sendable {
      private let lock = NSLock()
      private var value: Value
      init(_ value: Value) { self.value = value }
      func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
      }
    }

    /// How an operation ended, when isFinished alone does not say.
    enum Ending: String, Sendable {
      case succeeded, failed, cancelled
      case returnedEarly = "returned early"
    }

    /// An operation that says how it ended.
    protocol Reporting: AnyObject {
      var ending: Ending { get }
    }

    /// The main thread sleeps until the lab's clock reads `tick`, its run loop
    /// turning meanwhile (main-queue work, taps and frames run there, as in an
    /// app idle between events): the program's next command comes at its tick.
    func sleep(untilTick tick: Int) {
      Lab.runMainLoop(untilTick: tick)
    }

    /// An operation's real work: here, it takes its time.
    func work(ticks: Int) {
      Thread.sleep(forTimeInterval: Double(ticks) * Lab.tickSeconds)
    }

    /// Work that calls back when it is done (a network request, say).
    func startWork(ticks: Int, then done: @escaping @Sendable () -> Void) {
      let later = DispatchTime.now() + Double(ticks) * Lab.tickSeconds
      DispatchQueue.global().asyncAfter(deadline: later) { done() }
    }

    /// Work that calls back when it is done, with its error if it failed.
    func startWork(
      ticks: Int, failing: Bool, then done: @escaping @Sendable (Error?) -> Void
    ) {
      let later = DispatchTime.now() + Double(ticks) * Lab.tickSeconds
      DispatchQueue.global().asyncAfter(deadline: later) {
        done(failing ? WorkError.failed : nil)
      }
    }

    /// Work begun by startWork(ticks:checkingEvery:failing:then:), which a
    /// cancel() stops where it next checks (a network request's cancel(),
    /// say): it calls back then, early, with WorkError.cancelled.
    final class Work: Sendable {
      private let cancelled = Locked(false)
      /// Asks the work to stop: it does where it next checks.
      func cancel() { cancelled.withLock { $0 = true } }
      var isCancelled: Bool { cancelled.withLock { $0 } }
    }

    /// Work that can be stopped, checking every `every` ticks whether it was
    /// cancelled: it calls back once, when done (with its error if it failed)
    /// or where it saw the cancel (with WorkError.cancelled).
    func startWork(
      ticks: Int, checkingEvery every: Int, failing: Bool = false,
      then done: @escaping @Sendable (Error?) -> Void
    ) -> Work {
      let work = Work()
      let start = DispatchTime.now()
      /// Checks at `tick` ticks of work, then at the next check, or ends.
      @Sendable func check(at tick: Int) {
        let at = start + Double(tick) * Lab.tickSeconds
        DispatchQueue.global().asyncAfter(deadline: at) {
          if tick >= ticks {
            done(failing ? WorkError.failed : nil)
          } else if work.isCancelled {
            done(WorkError.cancelled)
          } else {
            check(at: min(tick + every, ticks))
          }
        }
      }
      check(at: min(every, ticks))
      return work
    }

    /// The error of work that fails, or that was cancelled.
    enum WorkError: Error { case failed, cancelled }

    """
  }
}
