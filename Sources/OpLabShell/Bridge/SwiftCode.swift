import Foundation
import OpLabCore

/// `swift [OP|QUEUE]`: the Swift, on Foundation's `OperationQueue`, behind what was typed.
///
/// A pure function of the commands that made the present world, each with the tick it ran
/// at: every command becomes the API calls it stands for, under a `// command` line that
/// names it, and the clock's passing becomes `sleep(ticks:)`. `work(ticks:)` stands for the
/// operation's real work. What has no code (taps, frames, cores: the lab plays the user and
/// the machine) is said in a comment. The code is laid out to be read and copied, so it is
/// not wrapped like prose.
enum SwiftCode {
  /// One command of the script, with the tick it ran at.
  struct Step {
    var tick: Tick
    var command: Command
    var text: String
    /// The tick when it returned: later than `tick` for a run or a wait.
    var end: Tick
    /// For a `run`: it stopped stalled, with work that can never finish.
    var stalled = false

    /// Whether it is a `run` that ended idle: its program waits for the work.
    var waitsForTheWork: Bool {
      if case .run(.idle) = command { !stalled } else { false }
    }
  }

  /// The widest line of generated code. Code is laid out, never wrapped like prose, so
  /// it is made to fit an 80-column terminal even where a lesson indents it by four.
  static let columns = 76

  /// `lines` fitted to `width` columns, as a person would lay them out: a trailing comment
  /// that makes its line too wide goes on a line of its own above it; a comment too wide
  /// goes on as more comment lines, broken between words; a statement too wide is broken
  /// after its ` = `, the rest indented by two (as swift-format does). A line with none of
  /// these is left as it is.
  static func fit(_ lines: [String], width: Int = columns) -> [String] {
    var out: [String] = []
    for line in lines {
      guard line.count > width else {
        out.append(line)
        continue
      }
      let indent = String(line.prefix { $0 == " " })
      let body = line.dropFirst(indent.count)
      if body.hasPrefix("//") {
        let marker = body.hasPrefix("///") ? "/// " : "// "
        var text = Substring(body.dropFirst(marker.count - 1)).drop { $0 == " " }
        while text.last == " " { text = text.dropLast() }
        let room = Swift.max(20, width - indent.count - marker.count)
        while text.count > room {
          // The last space that leaves a line within the room, else the first one.
          let head = text.prefix(room + 1)
          guard let space = head.lastIndex(of: " ") ?? text.firstIndex(of: " ") else { break }
          out.append(indent + marker + text[..<space])
          text = text[space...].drop { $0 == " " }
        }
        out.append(indent + marker + text)
      } else if let comment = outsideStrings(" // ", in: line) {
        var code = line[..<comment.lowerBound]
        while code.last == " " { code = code.dropLast() }
        out += fit([indent + "// " + line[comment.upperBound...]], width: width) + fit([String(code)], width: width)
      } else if let equals = outsideStrings(" = ", in: line), line[equals.upperBound...].count + indent.count + 2 <= width {
        out += [line[..<equals.lowerBound] + " =", indent + "  " + line[equals.upperBound...]]
      } else {
        out.append(line)
      }
    }
    return out
  }

  /// The first `text` in `line` that is not inside a string literal.
  static func outsideStrings(_ text: String, in line: String) -> Range<String.Index>? {
    var inString = false
    var escaped = false
    var i = line.startIndex
    while i < line.endIndex {
      let c = line[i]
      if escaped {
        escaped = false
      } else if c == "\\" {
        escaped = inString
      } else if c == "\"" {
        inString.toggle()
      } else if !inString, line[i...].hasPrefix(text) {
        return i..<line.index(i, offsetBy: text.count)
      }
      i = line.index(after: i)
    }
    return nil
  }

  /// A call with a list argument, `head` items `tail`: on one line when it fits, else
  /// the items on lines of their own, indented by two (as swift-format lays it out).
  static func call(_ head: String, _ items: [String], _ tail: String, width: Int = columns) -> [String] {
    let one = head + items.joined(separator: ", ") + tail
    if one.count <= width { return [one] }
    var lines = [head]
    var line = " "
    for item in items {
      if line.count + 1 + item.count + 1 > width {
        lines.append(line)
        line = " "
      }
      line += " " + item + ","
    }
    return lines + [line, tail]
  }

  /// A piece of the program: its lines, and the names of the operations and queues it is about.
  struct Piece {
    var lines: [String]
    var names: Set<String>
  }

  /// The program for `steps`; with `focus`, only the pieces about that operation or queue.
  static func render(_ steps: [Step], focus: String? = nil) -> String {
    var code = Program()
    // Only the whole program counts completion blocks: a view of one operation or queue
    // (or an echo) shows the lines about it, and the count is about them all.
    code.tracksCompletionBlocks = focus == nil && steps.contains(where: \.waitsForTheWork)
    for step in steps { code.add(step) }
    let pieces = focus.map { name in code.pieces.filter { $0.names.contains(name) } } ?? code.pieces
    if pieces.isEmpty {
      return focus == nil
        ? "// nothing typed yet: `queue`, `op` and the other commands that change the\n// world become Swift here\n"
        : "// nothing typed is about \(focus ?? "") yet\n"
    }
    var out = ""
    if focus == nil {
      out += "// The Swift behind this world, on Foundation's OperationQueue. Stand-ins:\n"
      out += "// work(ticks:) is an operation's real work, startWork(ticks:then:) work\n"
      out += "// that calls back when done (with failing: true, back with its error),\n"
      out += "// sleep(ticks:) the lab's clock moving on, and WorkError.failed the\n"
      out += "// error of work that fails.\n"
      out += "import Foundation\n\n"
      if code.needsAsyncBase { out += asyncBase.joined(separator: "\n") + "\n\n" }
      if code.needsSucceeded { out += succeededHelper.joined(separator: "\n") + "\n\n" }
      if code.needsGate { out += gateBase.joined(separator: "\n") + "\n\n" }
      if code.needsUserInterface { out += userInterfaceStandIn.joined(separator: "\n") + "\n\n" }
      if code.needsCompletionGroup { out += completionGroup.joined(separator: "\n") + "\n\n" }
      if code.needsMainLoop { out += mainLoop(countingCompletionBlocks: code.needsCompletionGroup).joined(separator: "\n") + "\n\n" }
    }
    out += pieces.map { fit($0.lines).joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    return out
  }

  /// The program as it is built, command by command.
  struct Program {
    var pieces: [Piece] = []
    var declared: Set<String> = ["main"]
    /// Each operation's queue, as defined (`op … on Q`, else `queue`).
    var queueOf: [String: String] = [:]
    /// The queues that have been given work, for a final `run`.
    var busy: [String] = []
    var now: Tick = 0
    var needsAsyncBase = false
    /// Whether an operation needs `succeeded(_:)` (`only-if-deps-succeeded`).
    var needsSucceeded = false
    /// The asynchronous operations, whose start() returns at once.
    var asyncOperations: Set<String> = []
    /// The operations cancelled by name: start() by hand skips their main().
    var cancelled: Set<String> = []
    /// Whether an operation waits for a gate (the `Gate` stand-in is shown then).
    var needsGate = false
    /// The gates declared so far.
    var gatesDeclared: Set<String> = []
    /// Whether a step touches the user interface: the stand-in for that call is declared.
    var needsUserInterface = false
    /// For `export swift`: the lab's own waits (`run`, `wait Q`) let the clock run on, so
    /// the main thread stays free for main-queue work, as in the lab.
    var forExport = false
    /// Whether a `run` ends idle in the steps of the whole program: it must wait for
    /// completion blocks, so each one is counted in `completionBlocks` (not in a view of
    /// one name, nor an echo, nor the export, whose end watches every operation).
    var tracksCompletionBlocks = false
    /// Whether `completionBlocks` is declared (a completion block is counted).
    var needsCompletionGroup = false
    /// Whether `runMainLoop(untilFinished:)` is declared (a run waits with it).
    var needsMainLoop = false
    /// The operations with a completion block.
    var withCompletion: Set<String> = []
    /// The operations given to a queue or started, in order: what a `run` waits for.
    var submitted: [String] = []
    /// The operations each operation's steps add to a queue (body and completion block).
    var addsOf: [String: [String]] = [:]
    /// Whether work is given to the main queue, so a wait on the main thread would
    /// keep it from running.
    var mainWork = false
    /// Whether an operation's work adds work to another queue than its own.
    var crossQueueAdds = false

    /// What `cancelAllOperations()` does on the main queue, as a comment.
    static let mainCancelAllNote = "  // Linux's Foundation ignores this on the main queue"

    mutating func add(_ step: Step) {
      var lines: [String] = []
      var names: Set<String> = []
      if step.tick > now {
        pieces.append(Piece(lines: ["sleep(ticks: \(step.tick - now))  // the clock is at t=\(step.tick) now"], names: []))
        now = step.tick
      }
      lines.append("// \(step.text)")
      switch step.command {
      case .queue(let name, let max, let qos):
        names.insert(name)
        if !declared.contains(name) {
          declared.insert(name)
          lines += ["let \(SwiftCode.variable(name)) = OperationQueue()", "\(SwiftCode.variable(name)).name = \(SwiftCode.literal(name))"]
        }
        if let max { lines.append("\(queue(name)).maxConcurrentOperationCount = \(SwiftCode.max(max))") }
        if let qos { lines.append("\(queue(name)).qualityOfService = .\(qos)") }
      case .op(let definition) where !definition.alike.isEmpty:
        // Each operation alike, then one addOperations.
        let all = [definition.spec.name] + definition.alike
        let queueName = definition.queue ?? "queue"
        names.formUnion(all + definition.dependencies)
        for name in all {
          queueOf[name] = queueName
          var spec = definition.spec
          spec.name = name
          lines += gateDeclaration(definition.gate) + operation(spec, gate: definition.gate, completionSteps: definition.completionSteps)
          for dependency in definition.dependencies { lines.append("\(SwiftCode.variable(name)).addDependency(\(SwiftCode.variable(dependency)))") }
        }
        if definition.hold {
          lines.append("// held: in no queue until `add`")
        } else {
          names.insert(queueName)
          lines.insert(contentsOf: declare(queueName), at: 1)
          let list = "[" + all.map(SwiftCode.variable).joined(separator: ", ") + "]"
          lines += submitting(all, to: queueName)
          lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: false)  // inserts all, then schedules once")
          if !busy.contains(queueName) { busy.append(queueName) }
        }
      case .op(let definition):
        let name = definition.spec.name
        let queueName = definition.queue ?? "queue"
        queueOf[name] = queueName
        names.formUnion([name] + definition.dependencies)
        lines += gateDeclaration(definition.gate) + operation(definition.spec, gate: definition.gate, completionSteps: definition.completionSteps)
        let v = SwiftCode.variable(name)
        for dependency in definition.dependencies { lines.append("\(v).addDependency(\(SwiftCode.variable(dependency)))") }
        if definition.hold {
          lines.append("// held: in no queue until `add`")
        } else {
          names.insert(queueName)
          lines.insert(contentsOf: declare(queueName), at: 1)
          lines += submitting([name], to: queueName)
          lines.append("\(queue(queueName)).addOperation(\(v))")
          if !busy.contains(queueName) { busy.append(queueName) }
        }
      case .add(let ops, let target, let wait):
        let queueName = target ?? ops.first.flatMap { queueOf[$0] } ?? "queue"
        names.formUnion(ops + [queueName])
        if wait?.fromMain == true { names.insert("main") }
        lines.insert(contentsOf: declare(queueName), at: 1)
        lines += submitting(ops, to: queueName)
        if ops.count == 1, wait == nil {
          lines.append("\(queue(queueName)).addOperation(\(SwiftCode.variable(ops[0])))")
        } else {
          let list = "[" + ops.map(SwiftCode.variable).joined(separator: ", ") + "]"
          if let wait {
            now = step.end  // the call returns when the work is done
            if forExport, !wait.fromMain || wait.until != nil {
              lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: false)")
              lines.append("sleep(ticks: \(step.end - step.tick))  // " + SwiftCode.waitedNote(fromMain: wait.fromMain))
            } else {
              if wait.fromMain { lines.append("// called on the main thread: nothing else runs there until it returns") }
              if wait.until != nil { lines.append("// (the lab stopped its clock before this wait returned)") }
              lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: true)  // inserts all, then schedules once")
            }
          } else {
            lines.append("\(queue(queueName)).addOperations(\(list), waitUntilFinished: false)  // inserts all, then schedules once")
          }
        }
        if !busy.contains(queueName) { busy.append(queueName) }
      case .start(let op):
        names.formUnion([op, "main"])  // a call on the main thread
        lines.append("// called on the main thread, for an operation in no queue")
        lines += submitting([op], to: nil)
        if forExport {
          // The lab's own commands go on meanwhile: the call runs when the main thread gets to it.
          lines.append("DispatchQueue.main.async { \(SwiftCode.variable(op)).start() }  // runs when the main thread is free")
          break
        }
        lines.append("\(SwiftCode.variable(op)).start()  " + (cancelled.contains(op)
          ? "// isCancelled is true: its work never runs"
          : asyncOperations.contains(op)
          ? "// begins the work and returns at once"
          : "// main() runs here, on the main thread, until it returns"))
      case .open(let gate):
        lines.append("\(SwiftCode.variable(gate)).open()  // KVO on isReady tells each waiting operation's queue")
      case .blocks(let op, let ticks):
        names.insert(op)
        lines.append("\(SwiftCode.variable(op)).addExecutionBlock { work(ticks: \(ticks)) }  // only before it starts: after, it raises")
      case .depend(let op, let dependencies):
        names.formUnion([op] + dependencies)
        for d in dependencies { lines.append("\(SwiftCode.variable(op)).addDependency(\(SwiftCode.variable(d)))") }
      case .undepend(let op, let dependency):
        names.formUnion([op, dependency])
        lines.append("\(SwiftCode.variable(op)).removeDependency(\(SwiftCode.variable(dependency)))")
      case .priority(let op, let priority):
        names.insert(op)
        lines.append("\(SwiftCode.variable(op)).queuePriority = .\(priority)")
      case .qos(let target, let qos):
        names.insert(target)
        let isQueue = declared.contains(target) && queueOf[target] == nil
        lines.append("\(isQueue ? queue(target) : SwiftCode.variable(target)).qualityOfService = .\(qos)"
          + (isQueue && target == "main" ? "  // ignored: the main queue's stays userInteractive" : ""))
      case .max(let name, let max):
        names.insert(name)
        lines.append("\(queue(name)).maxConcurrentOperationCount = \(SwiftCode.max(max))"
          + (name == "main" ? "  // ignored: the main queue is always serial" : ""))
      case .cancel(let op):
        names.insert(op)
        cancelled.insert(op)
        lines.append("\(SwiftCode.variable(op)).cancel()  // only sets isCancelled: code stops where it checks it")
      case .cancelAll(let target):
        if let target {
          names.insert(target)
          lines.append("\(queue(target)).cancelAllOperations()" + (target == "main" ? Self.mainCancelAllNote : ""))
        } else {
          for q in declared.sorted() {
            names.insert(q)
            lines.append("\(queue(q)).cancelAllOperations()" + (q == "main" ? Self.mainCancelAllNote : ""))
          }
        }
      case .suspend(let name):
        names.insert(name)
        lines.append("\(queue(name)).isSuspended = true  // "
          + (name == "main" ? "ignored on the main queue" : "running work goes on; nothing new starts"))
      case .resume(let name):
        names.insert(name)
        lines.append("\(queue(name)).isSuspended = false" + (name == "main" ? "  // ignored on the main queue" : ""))
      case .barrier(let name, let ticks):
        names.insert(name)
        lines.append("\(queue(name)).addBarrierBlock { work(ticks: \(ticks)) }")
      case .wait(let target?, let fromMain, let until) where queueOf[target] != nil:
        now = step.end  // the call returns when the operation is done: that is where the time went
        names.insert(target)
        if fromMain { names.insert("main") }
        if forExport, !fromMain || until != nil {
          lines.append("sleep(ticks: \(step.end - step.tick))  // " + SwiftCode.waitedNote(fromMain: fromMain))
        } else {
          if fromMain { lines.append("// called on the main thread: nothing else runs there until it returns") }
          if until != nil { lines.append("// (the lab stopped its clock before this wait returned)") }
          lines.append("\(SwiftCode.variable(target)).waitUntilFinished()")
        }
      case .wait(let target, let fromMain, let until):
        now = step.end  // the call returns when the work is done: that is where the time went
        let queues = target.map { [$0] } ?? busy
        names.formUnion(queues)
        if fromMain { names.insert("main") }
        if forExport, !fromMain || until != nil {
          lines.append("sleep(ticks: \(step.end - step.tick))  // " + SwiftCode.waitedNote(fromMain: fromMain))
        } else {
          if fromMain { lines.append("// called on the main thread: nothing else runs there until it returns") }
          if until != nil { lines.append("// (the lab stopped its clock before this wait returned)") }
          for q in queues { lines.append("\(queue(q)).waitUntilAllOperationsAreFinished()") }
        }
      case .run(.idle):
        now = step.end
        if forExport {
          lines.append("sleep(ticks: \(step.end - step.tick))  // the work goes on until nothing is left")
        } else {
          if step.stalled {
            lines.append("// stalled: some work never finishes, so a wait for it would hang")
          } else {
            lines += waitForTheWork()
          }
        }
        names.formUnion(busy)
      case .run, .step:
        // The clock moving on: the next command's `sleep(ticks:)` says by how much.
        return
      case .machine(let cores):
        lines.append("// no code: the lab's machine has \(cores.map { $0.map { "\($0) cores" } ?? "a core for every piece of work" } ?? "its cores")")
      case .tap:
        names.insert("main")
        lines.append("// no code: the user taps; UIKit handles it on the main thread (1 tick)")
      case .variable(let name, let initial):
        lines.append("nonisolated(unsafe) var \(SwiftCode.variable(name)) = \(initial)  // shared by every operation")
      case .lock(let name):
        lines.append("let \(SwiftCode.variable(name)) = NSLock()")
      case .order:
        lines.append("// no code: the threads' speeds decide this order in a real program")
      case .frames:
        names.insert("main")
        lines.append("// no code: the display asks the main thread for frames")
      case .platform(let p):
        lines.append("// no code: the lab imitates \(p == .linux ? "swift-corelibs-foundation on Linux" : "Apple platforms")")
      default:
        return  // looking, time travel and files change no program
      }
      pieces.append(Piece(lines: lines, names: names))
    }

    /// `let NAME = OperationQueue()` the first time a queue is used (the lab's `queue` has
    /// no command of its own).
    mutating func declare(_ name: String) -> [String] {
      guard !declared.contains(name) else { return [] }
      declared.insert(name)
      return ["let \(SwiftCode.variable(name)) = OperationQueue()  // the lab's default queue"]
    }

    func queue(_ name: String) -> String { name == "main" ? "OperationQueue.main" : SwiftCode.variable(name) }

    /// Records that `names` are given to `queueName` (or, with none, started by hand): a
    /// `run` waits for them. Each completion block among them is counted in first, so the
    /// count cannot reach zero before it has run.
    /// - Parameter indent: for a step of a closure, which the operation that runs it
    ///   accounts for (`addsOf`).
    mutating func submitting(_ names: [String], to queueName: String?, indent: String = "") -> [String] {
      for name in names where indent.isEmpty && !submitted.contains(name) { submitted.append(name) }
      if queueName == "main" { mainWork = true }
      guard tracksCompletionBlocks else { return [] }
      return names.filter(withCompletion.contains).map { name in
        needsCompletionGroup = true
        return "\(indent)completionBlocks.enter()  // \(World.possessive(SwiftCode.variable(name))) completion block is to run"
      }
    }

    /// The end of a `run` that ended idle: the program waits for the work. Waiting on each
    /// queue is enough unless main-queue work, completion blocks or work added to another
    /// queue are involved: then the main thread must run the main run loop (the main
    /// queue's work runs nowhere else), no queue waits for completion blocks, and a
    /// queue's wait may be over before other work adds to it.
    mutating func waitForTheWork() -> [String] {
      var waitedFor: [String] = []
      var next = submitted
      while let name = next.first {
        next.removeFirst()
        guard !waitedFor.contains(name) else { continue }
        waitedFor.append(name)
        next += addsOf[name] ?? []
      }
      let adds = crossQueueAdds
      let completions = waitedFor.contains(where: withCompletion.contains)
      guard mainWork || adds || completions else {
        return ["// a program's work just goes on; a command-line tool waits for it:"]
          + busy.filter { $0 != "main" }.map { "\(queue($0)).waitUntilAllOperationsAreFinished()" }
      }
      needsMainLoop = true
      let why = [
        mainWork
          ? "The main thread runs the main run loop, not a queue's wait: the main queue's"
            + " work runs only there (or under dispatchMain())." : nil,
        completions
          ? "No queue waits for completion blocks"
            + (tracksCompletionBlocks ? ": completionBlocks counts them." : ".") : nil,
        adds && !mainWork
          ? "A queue's wait can return before work that another queue's work adds is in it,"
            + " so the main thread waits for the operations themselves." : nil,
      ].compactMap { $0 }
      let list = waitedFor.map(SwiftCode.variable)
      return ["// a command-line tool waits for the work itself. " + why.joined(separator: " ")]
        + SwiftCode.call("runMainLoop(untilFinished: [", list, "])")
    }

    /// The operation's declaration: a BlockOperation when its work is one plain call, else
    /// an Operation subclass whose `main()` (or `start()`, when asynchronous) shows how it
    /// polls isCancelled, bails or fails.
    /// `let G = Gate()` the first time a gate is named.
    mutating func gateDeclaration(_ gate: String?) -> [String] {
      guard let gate, !gatesDeclared.contains(gate) else { return [] }
      gatesDeclared.insert(gate)
      needsGate = true
      return ["let \(SwiftCode.variable(gate)) = Gate()  // a condition besides the dependencies, closed for now"]
    }

    mutating func operation(_ spec: OperationSpec, gate: String? = nil, completionSteps: [OpLabCore.Step]? = nil) -> [String] {
      let v = SwiftCode.variable(spec.name)
      var lines: [String] = []
      // A queue a step adds to is declared before the closure that names it.
      var bodySteps: [OpLabCore.Step] = []
      if case .steps(let steps) = spec.kind { bodySteps = steps }
      for case .add(_, let q) in bodySteps + (completionSteps ?? []) { lines += declare(q) }
      for case .add(let added, _) in bodySteps + (completionSteps ?? []) { addsOf[spec.name, default: []].append(added) }
      if completionSteps != nil || spec.completion != nil { withCompletion.insert(spec.name) }
      for case .add(_, let q) in bodySteps where q != queueOf[spec.name] { crossQueueAdds = true }
      // With a run to wait for it, a completion block says when it has run.
      let counted = tracksCompletionBlocks ? ["  completionBlocks.leave()  // it has run"] : []
      // A gated operation keeps its gate, and its isReady asks it (a cancel lets it through).
      let gated = gate.map { g in [
        "  let gate: Gate",
        "  init(gate: Gate) { self.gate = gate; super.init() }",
        "  override var isReady: Bool {",
        "    super.isReady && (gate.isOpen || isCancelled)",
        "  }",
      ] } ?? []
      let made = gate.map { "(gate: \(SwiftCode.variable($0)))" } ?? "()"
      switch spec.kind {
      case .blocks(let blocks):
        lines.append("let \(v) = BlockOperation { work(ticks: \(blocks.first ?? 0)) }")
        for b in blocks.dropFirst() { lines.append("\(v).addExecutionBlock { work(ticks: \(b)) }") }
      case .async(let forgets):
        needsAsyncBase = true
        asyncOperations.insert(spec.name)
        let type = SwiftCode.typeName(spec.name)
        lines += ["final class \(type): AsyncOperation, @unchecked Sendable {"]
        if spec.failsAt != nil { lines.append("  var error: Error?  // isFinished does not say whether it succeeded") }
        lines += gated + [
          "  override func start() {",
          "    guard !isCancelled else { finish(); return }",
          "    state = .executing",
        ]
        if let ticks = spec.failsAt {
          // Work that fails calls back with its error: the error path is where a finish() goes missing.
          lines.append("    startWork(ticks: \(ticks), failing: true) { [self] error in")
          lines += forgets
            ? [
              "      if let error {",
              "        self.error = error",
              "        return  // ← forgets-finish: this error path never calls finish()",
              "      }",
              "      finish()",
            ]
            : ["      self.error = error", "      finish()"]
        } else {
          lines += [
            forgets ? "    startWork(ticks: \(spec.duration)) {" : "    startWork(ticks: \(spec.duration)) { [self] in",
            forgets
              ? "      // finish()  ← forgets-finish: never called, isFinished stays false"
              : "      finish()",
          ]
        }
        lines += ["    }", "  }", "}", "let \(v) = \(type)\(made)"]
      case .steps(let steps):
        lines.append("let \(v) = BlockOperation {")
        lines += stepLines(steps, rest: spec.duration - Tick(steps.count))
        lines.append("}")
      case .plain:
        let simple = spec.cancellation == .never && !spec.bailsIfDependencyCancelled && spec.failsAt == nil
          && !spec.bailsUnlessDependenciesSucceeded && gate == nil
        if simple {
          lines.append("let \(v) = BlockOperation { work(ticks: \(spec.duration)) }")
        } else {
          let type = SwiftCode.typeName(spec.name)
          lines.append("final class \(type): Operation, @unchecked Sendable {")
          lines += gated
          if spec.failsAt != nil { lines.append("  var error: Error?  // isFinished does not say whether it succeeded") }
          if spec.bailsIfDependencyCancelled || spec.bailsUnlessDependenciesSucceeded {
            lines.append("  var bailed = false  // returned early: " + (spec.bailsUnlessDependenciesSucceeded
              ? "a dependency did not succeed" : "a dependency was cancelled"))
          }
          // The export's watcher tells a stop from work done: isCancelled alone cannot.
          let stop = forExport ? "stopped = true; return" : "return"
          if forExport, spec.cancellation != .never { lines.append("  var stopped = false  // saw isCancelled and returned") }
          lines.append("  override func main() {")
          if spec.bailsIfDependencyCancelled {
            lines.append("    if dependencies.contains(where: \\.isCancelled) { bailed = true; return }")
          }
          if spec.bailsUnlessDependenciesSucceeded {
            needsSucceeded = true
            lines.append("    if !dependencies.allSatisfy(succeeded) { bailed = true; return }  // e.g. no image to filter")
          }
          let ticks = spec.failsAt ?? spec.duration
          switch spec.cancellation {
          case .never:
            lines.append("    work(ticks: \(ticks))")
          case .atStart:
            lines += ["    guard !isCancelled else { \(stop) }", "    work(ticks: \(ticks))"]
          case .every(let n):
            lines += [
              "    var done = 0",
              "    while done < \(ticks) {",
              "      if isCancelled { \(stop) }  // checked every \(n) \(n == 1 ? "tick" : "ticks")",
              "      work(ticks: min(\(n), \(ticks) - done))",
              "      done += \(n)",
              "    }",
            ]
          }
          if spec.failsAt != nil { lines.append("    error = WorkError.failed  // fails at \(ticks)") }
          lines += ["  }", "}", "let \(v) = \(type)\(made)"]
        }
      }
      lines.append("\(v).name = \(SwiftCode.literal(spec.name))")
      if let gate { lines.append("\(SwiftCode.variable(gate)).add(\(v))") }
      if let p = spec.priority { lines.append("\(v).queuePriority = .\(p)") }
      if let q = spec.qualityOfService { lines.append("\(v).qualityOfService = .\(q)") }
      if let steps = completionSteps {
        lines.append("// its completion block runs after it: off main (Linux), any thread (Apple)")
        lines.append("\(v).completionBlock = {")
        lines += stepLines(steps, rest: (spec.completion ?? 0) - Tick(steps.count)) + counted
        lines.append("}")
      } else if let c = spec.completion {
        lines.append("// its completion block runs after it, on a thread you cannot count on")
        lines += counted.isEmpty
          ? ["\(v).completionBlock = { work(ticks: \(c)) }"]
          : ["\(v).completionBlock = {", "  work(ticks: \(c))"] + counted + ["}"]
      }
      return lines
    }

    /// The body of a closure written as steps: the thread's register, then a line a step.
    mutating func stepLines(_ steps: [OpLabCore.Step], rest: Tick) -> [String] {
      var lines: [String] = []
      // The register, declared so the compiler warns about nothing: `let` when nothing
      // changes it, and read at the end when nothing writes it back.
      let changes = steps.contains { if case .read = $0 { true } else if case .compute = $0 { true } else { false } }
      let stores = steps.contains { if case .write = $0 { true } else { false } }
      if changes || stores {
        lines.append("  \(changes ? "var" : "let") register = 0  // a local variable of this thread")
      }
      for step in steps {
        switch step {
        case .read(let name): lines.append("  register = \(SwiftCode.variable(name))  // read")
        case .compute(let n): lines.append("  register \(n < 0 ? "-=" : "+=") \(n.magnitude)  // compute")
        case .write(let name): lines.append("  \(SwiftCode.variable(name)) = register  // write")
        case .lock(let name): lines.append("  \(SwiftCode.variable(name)).lock()")
        case .unlock(let name): lines.append("  \(SwiftCode.variable(name)).unlock()")
        case .touchUI:
          needsUserInterface = true
          lines.append("  updateUserInterface()  // e.g. tableView.reloadData(): main thread only")
        case .add(let name, let queueName):
          lines += submitting([name], to: queueName, indent: "  ")
          lines.append("  \(queue(queueName)).addOperation(\(SwiftCode.variable(name)))")
        }
      }
      if changes, !stores { lines.append("  _ = register  // computed, never written back") }
      if rest > 0 { lines.append("  work(ticks: \(rest))") }
      return lines
    }
  }

  /// The comment on a wait the export plays as the clock running on.
  static func waitedNote(fromMain: Bool) -> String {
    fromMain ? "the lab stopped its clock during this wait from main; here the clock runs on"
      : "the lab waited on its own thread; here the clock runs on"
  }

  /// The stand-in for a call into UIKit or AppKit (`touch ui`): it says when it is made
  /// off the main thread.
  static let userInterfaceStandIn = [
    "/// A call into UIKit or AppKit (tableView.reloadData()): allowed only on",
    "/// the main thread.",
    "func updateUserInterface() {",
    "  if !Thread.isMainThread {",
    "    print(\"warning: the user interface was touched off the main thread\")",
    "  }",
    "}",
  ]

  /// The asynchronous operation's state machine, with the KVO the queue watches; shown once.
  static let asyncBase = [
    "/// An asynchronous operation: start() begins the work and returns;",
    "/// finish() ends it.",
    "class AsyncOperation: Operation, @unchecked Sendable {",
    "  enum State: String {",
    "    case ready = \"isReady\"",
    "    case executing = \"isExecuting\"",
    "    case finished = \"isFinished\"",
    "  }",
    "  var state = State.ready {",
    "    willSet {",
    "      willChangeValue(forKey: newValue.rawValue)",
    "      willChangeValue(forKey: state.rawValue)",
    "    }",
    "    didSet {",
    "      didChangeValue(forKey: oldValue.rawValue)",
    "      didChangeValue(forKey: state.rawValue)",
    "    }",
    "  }",
    "  override var isAsynchronous: Bool { true }",
    "  override var isExecuting: Bool { state == .executing }",
    "  override var isFinished: Bool { state == .finished }",
    "  func finish() { state = .finished }",
    "}",
  ]

  /// Whether an operation did its work, for `only-if-deps-succeeded`: finished, not
  /// cancelled, and neither failed (`error`) nor returned early (`bailed`). A stand-in: a real
  /// app would pass the result itself (the downloaded image) from one operation to the next.
  static let succeededHelper = [
    "/// Whether an operation did its work: finished, not cancelled, no error,",
    "/// not returned early.",
    "func succeeded(_ op: Operation) -> Bool {",
    "  guard op.isFinished, !op.isCancelled else { return false }",
    "  return !Mirror(reflecting: op).children.contains {",
    "    ($0.label == \"error\" && \"\\($0.value)\" != \"nil\")",
    "      || ($0.label == \"bailed\" && \"\\($0.value)\" == \"true\")",
    "  }",
    "}",
  ]

  /// A condition operations wait on besides their dependencies, for `gate`: opening it
  /// posts KVO for `isReady` on each operation waiting, so their queues look again.
  static let gateBase = [
    "/// A condition operations wait on besides their dependencies (the network",
    "/// is reachable). Opening it posts KVO for isReady on each waiting",
    "/// operation: else its queue never looks again.",
    "final class Gate: @unchecked Sendable {",
    "  private let lock = NSLock()",
    "  private var opened = false",
    "  private var waiting: [Operation] = []",
    "  var isOpen: Bool { lock.lock(); defer { lock.unlock() }; return opened }",
    "  func add(_ op: Operation) {",
    "    lock.lock(); waiting.append(op); lock.unlock()",
    "  }",
    "  func open() {",
    "    lock.lock(); let ops = waiting; lock.unlock()",
    "    for op in ops { op.willChangeValue(forKey: \"isReady\") }",
    "    lock.lock(); opened = true; lock.unlock()",
    "    for op in ops { op.didChangeValue(forKey: \"isReady\") }",
    "  }",
    "}",
  ]

  /// The count of completion blocks still to run, for a `run`'s wait: waiting on a
  /// queue does not wait for them (semantics rule 36).
  static let completionGroup = [
    "/// The completion blocks still to run: no queue waits for them, so each",
    "/// one is counted in before its operation is added, and out when it ends.",
    "let completionBlocks = DispatchGroup()",
  ]

  /// The wait a command-line tool needs when main-queue work or completion blocks are
  /// involved: the main thread runs the main run loop (the main queue's work runs only
  /// there, or under dispatchMain()) until the operations are finished and, with them,
  /// every completion block counted has run.
  static func mainLoop(countingCompletionBlocks: Bool) -> [String] {
    [
      "/// Runs the main run loop, on the main thread, until the operations have",
      countingCompletionBlocks
        ? "/// finished and every completion block has run: main-queue work runs here."
        : "/// finished: main-queue work runs here.",
      "@MainActor func runMainLoop(untilFinished operations: [Operation]) {",
      countingCompletionBlocks
        ? "  while !operations.allSatisfy(\\.isFinished)\n    || completionBlocks.wait(timeout: .now()) == .timedOut\n  {"
        : "  while !operations.allSatisfy(\\.isFinished) {",
      "    RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))",
      "  }",
      "}",
    ]
  }

  /// `maxConcurrentOperationCount`'s value in Swift.
  static func max(_ setting: MaxSetting) -> String {
    switch setting {
    case .default: "OperationQueue.defaultMaxConcurrentOperationCount"
    case .count(let n): "\(n)"
    }
  }

  /// A Swift variable for a lab name: `fetch-image` → `fetchImage`, `2x` → `op2x`, a
  /// keyword in backquotes.
  static func variable(_ name: String) -> String {
    let words = name.split { !($0.isLetter || $0.isNumber || $0 == "_") }
    var text = words.enumerated().map { i, w in i == 0 ? String(w) : w.prefix(1).uppercased() + w.dropFirst() }.joined()
    if text.isEmpty || text.first?.isNumber == true { text = "op" + text }
    return keywords.contains(text) ? "`\(text)`" : text
  }

  /// A Swift type for an operation: `fetch-image` → `FetchImageOperation`.
  static func typeName(_ name: String) -> String {
    let v = variable(name).filter { $0 != "`" }
    return v.prefix(1).uppercased() + v.dropFirst() + "Operation"
  }

  /// A string literal for `text`.
  static func literal(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  static let keywords: Set<String> = [
    "as", "break", "case", "catch", "class", "continue", "default", "defer", "do", "else", "enum", "extension",
    "fallthrough", "false", "for", "func", "guard", "if", "import", "in", "init", "inout", "internal", "is", "let",
    "nil", "operator", "private", "protocol", "public", "repeat", "return", "self", "static", "struct", "super",
    "switch", "throw", "throws", "true", "try", "typealias", "var", "where", "while",
  ]
}

extension SwiftCode {
  /// `export swift FILE`: the world's program as one self-contained `main.swift` that runs
  /// on the real OperationQueue in scaled real time (`tickSeconds` a tick) and prints each
  /// operation's start and finish as event lines, `t=N  NAME started`, for a side-by-side
  /// look with the lab's. The code is the `swift` view's, with the stand-ins defined, each
  /// operation watched, and an end that waits for the work (or says what never finished).
  static func export(_ steps: [Step], tickSeconds: Double = 0.05) -> String {
    var code = Program()
    code.forExport = true
    var lastTick: Tick = 0
    for step in steps {
      code.add(step)
      lastTick = Swift.max(lastTick, step.end)
      if case .op(let definition) = step.command {
        for name in [definition.spec.name] + definition.alike {
          code.pieces[code.pieces.count - 1].lines.append("watch(\(variable(name)))  // prints its states as event lines")
        }
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
    if code.needsAsyncBase { out += asyncBase.joined(separator: "\n") + "\n\n" }
    if code.needsSucceeded { out += succeededHelper.joined(separator: "\n") + "\n\n" }
    if code.needsGate { out += gateBase.joined(separator: "\n") + "\n\n" }
    if code.needsUserInterface { out += userInterfaceStandIn.joined(separator: "\n") + "\n\n" }
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

extension SwiftCode {
  /// `set swift-echo on`: the Swift of the last step alone, as a line or two after the
  /// command's own output. An `Operation` subclass is named, not written out (`swift OP`
  /// shows it); the clock moving on has no echo.
  static func echo(_ steps: [Step]) -> String {
    guard let last = steps.last else { return "" }
    var code = Program()
    for step in steps.dropLast() { code.add(step) }
    let before = code.pieces.count
    code.add(last)
    // Fitted to the width less the echo's indent.
    let lines = code.pieces[before...].filter { !($0.lines.first?.hasPrefix("sleep(") ?? false) }
      .flatMap { fit(Array($0.lines.dropFirst()), width: columns + 4 - echoIndent.count) }
    var shown: [String] = []
    var inClass: String?
    for line in lines {
      if let type = inClass {
        if line == "}" {
          shown.append("// \(type): an Operation subclass (`swift \(last.command.subject ?? "")` shows it)")
          inClass = nil
        }
        continue
      }
      if line.hasPrefix("final class ") {
        inClass = String(line.dropFirst("final class ".count).prefix { $0 != ":" })
        continue
      }
      shown.append(line)
    }
    guard !shown.isEmpty else { return "" }
    return shown.enumerated().map { i, line in (i == 0 ? "  swift: " : echoIndent) + line + "\n" }.joined()
  }
}

extension SwiftCode {
  /// The indent of an echo's lines after the first, under its `  swift: `.
  static let echoIndent = "         "
}

extension Command {
  /// The operation or queue a command is about, for pointing at `swift NAME`.
  var subject: String? {
    switch self {
    case .op(let definition): definition.spec.name
    case .queue(let name, _, _): name
    default: nil
    }
  }
}
