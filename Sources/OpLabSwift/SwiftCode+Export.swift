import OpLabCore

extension SwiftCode {
  /// `export swift FILE`: the world's program as one self-contained `main.swift` that runs
  /// on the real OperationQueue in scaled real time (`tickSeconds` a tick) and prints each
  /// operation's start and finish as event lines, `t=N  NAME started`, for a side-by-side
  /// look with the lab's. The code is the `swift` view's, with the stand-ins defined, each
  /// operation watched, and an end that waits for the work (or says what never finished).
  /// - Parameters:
  ///   - source: the lines that made the world, with their actions.
  ///   - tickSeconds: the real seconds a tick of the lab's clock takes.
  /// - Returns: the program's text.
  public static func export(_ source: SwiftSource, tickSeconds: Double = 0.05) -> String {
    var code = Program(world: source.world)
    code.forExport = true
    var lastTick: Tick = 0
    for entry in source.entries {
      code.add(entry)
      lastTick = Swift.max(lastTick, entry.end)
      for case .createOperation(let spec, _, _) in entry.actions {
        code.pieces[code.pieces.count - 1].lines.append("watch(\(variable(spec.name)))  // prints its states as event lines")
      }
    }
    var out = """
      // Exported by OpLab: this world on Foundation's real OperationQueue.
      // Build and run:
      //   swiftc -swift-version 6 -O main.swift -o world && ./world
      // One tick of the lab's clock is \(tickSeconds) s here. Each operation's start
      // and finish is printed as an event line (t=N  NAME started), to read
      // beside the lab's `events`. Where the real queue leaves an order open
      // (starts in the same tick), and within a fraction of a tick, the real
      // run may differ.
      import Foundation

      // MARK: - Stand-ins for the lab's clock and work

      let tickSeconds = \(tickSeconds)
      let origin = Date()
      let printing = NSLock()

      /// The lab's clock: ticks since the program began.
      func tickNow() -> Int {
        Int((Date().timeIntervalSince(origin) / tickSeconds).rounded())
      }

      /// Prints an event line at the present tick.
      func say(_ text: String) {
        printing.lock()
        print("t=\\(tickNow())  \\(text)")
        printing.unlock()
      }

      /// An operation's real work: here, it takes its time.
      func work(ticks: Int) {
        Thread.sleep(forTimeInterval: Double(ticks) * tickSeconds)
      }

      /// The lab's clock moving on to the next command's tick, the main thread
      /// running main-queue work meanwhile. In the lab a command at tick T comes
      /// before the work's own steps at T (an isCancelled check at T sees a
      /// cancel at T), so it is made a quarter of a tick early.
      var labTick = 0
      @MainActor func sleep(ticks: Int) {
        labTick += ticks
        let next = (Double(labTick) - 0.25) * tickSeconds
        RunLoop.main.run(until: origin.addingTimeInterval(next))
      }

      /// Work that calls back when it is done (a network request, say).
      func startWork(ticks: Int, then done: @escaping @Sendable () -> Void) {
        let later = DispatchTime.now() + Double(ticks) * tickSeconds
        DispatchQueue.global().asyncAfter(deadline: later) { done() }
      }

      /// Work that calls back when it is done, with its error if it failed.
      func startWork(
        ticks: Int, failing: Bool, then done: @escaping @Sendable (Error?) -> Void
      ) {
        let later = DispatchTime.now() + Double(ticks) * tickSeconds
        DispatchQueue.global().asyncAfter(deadline: later) {
          done(failing ? WorkError.failed : nil)
        }
      }

      enum WorkError: Error { case failed }

      /// Watches operations and prints their starts and finishes (polling: no
      /// KVO needed).
      final class Watcher: @unchecked Sendable {
        private var operations:
          [(op: Operation, started: Bool, skipped: Bool, finished: Bool)] = []
        private let lock = NSLock()

        func add(_ op: Operation) {
          lock.lock()
          operations.append((op, false, false, false))
          lock.unlock()
        }

        /// Looks once; returns the names of the operations not finished yet.
        @discardableResult
        func look() -> [String] {
          lock.lock()
          defer { lock.unlock() }
          var unfinished: [String] = []
          for i in operations.indices {
            let op = operations[i].op
            let name = op.name ?? "?"
            if !operations[i].started, op.isExecuting || op.isFinished {
              operations[i].started = true
              if op.isExecuting || !op.isCancelled {
                say("\\(name) started")
              } else {
                // cancelled before it started: main() never ran
                operations[i].skipped = true
              }
            }
            if !operations[i].finished, op.isFinished {
              operations[i].finished = true
              let fields = Mirror(reflecting: op).children
              func field(_ label: String) -> String? {
                fields.first { $0.label == label }.map { "\\($0.value)" }
              }
              let failed = field("error").map { $0 != "nil" } ?? false
              let bailed = field("bailed") == "true"
              let stopped = field("stopped") == "true"
              // Cancelled work that did not stop ran to the end: that is
              // success, as in the lab.
              let how =
                failed ? "failed"
                : bailed ? "returned early"
                : stopped || operations[i].skipped ? "cancelled" : "succeeded"
              say("\\(name) finished (\\(how))")
            }
            if !operations[i].finished { unfinished.append(name) }
          }
          return unfinished
        }
      }

      let watcher = Watcher()
      let watching = Thread {
        while true {
          watcher.look()
          Thread.sleep(forTimeInterval: 0.001)
        }
      }
      watching.start()

      func watch(_ op: Operation) { watcher.add(op) }


      """
    out += "// MARK: - The world\n\n"
    out += code.declarations(mainLoop: false)
    out += code.pieces.map { fit($0.lines).joined(separator: "\n") }.joined(separator: "\n\n") + "\n\n"
    out += """
      // MARK: - The end: the work is waited for (the main thread kept running)

      let deadline = Date(timeIntervalSinceNow: Double(\(lastTick) + 20) * tickSeconds)
      while !watcher.look().isEmpty, Date() < deadline {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: tickSeconds / 10))
      }
      let unfinished = watcher.look()
      if !unfinished.isEmpty {
        say("stalled: \\(unfinished.joined(separator: ", ")) never finished")
      }

      """
    return out
  }
}
