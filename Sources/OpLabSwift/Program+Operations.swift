import OpLabCore

extension SwiftCode.Program {
  /// The code of the operations `definition` makes: each declared with its dependencies,
  /// then added to its queue (one `addOperations` for operations defined alike).
  mutating func define(_ definition: SwiftSource.Definition, into draft: inout Draft) {
    let all = definition.operations.map(\.spec.name)
    draft.names.formUnion(all + definition.operations.flatMap(\.dependencies))
    draft.shown = true
    // Operations defined alike are watched with one call, after the last is made.
    let alike = all.count > 1
    for (spec, dependencies) in definition.operations {
      let gate = definition.gates[spec.name]
      let code = operation(spec, queue: definition.queue, gate: gate, completionSteps: definition.completionSteps[spec.name])
      // Alike, the first says what its completion block does; the others do the same.
      let said = spec.name != all[0]
      draft.lines +=
        gateDeclaration(gate)
        + (alike ? code.filter { !$0.hasPrefix("Lab.watch(") && !(said && $0 == Self.completionComment) } : code)
      var made = RealWork(spec.name, ticks: spec.duration)
      made.gate = gate
      call(.makeOperation(made))
      for d in dependencies {
        draft.lines.append("\(names.variable(spec.name)).addDependency(\(names.variable(d)))")
        call(.addDependency(spec.name, on: d))
      }
    }
    let variables = all.map(names.variable)
    if alike {
      let blocks = definition.operations.contains { $0.spec.completion != nil } || !definition.completionSteps.isEmpty
      var watch = SwiftCode.call("Lab.watch(", variables, ")", width: SwiftCode.statementColumns)
      let comment = "// the harness prints starts and finishes" + (blocks ? ", then waits for their blocks" : "")
      if watch.count == 1 {
        draft.lines.append(watch[0] + "  " + comment)
      } else {
        // An argument list, unlike an array, takes no trailing comma before Swift 6.1.
        watch[watch.count - 2].removeLast()
        draft.lines += [comment] + watch
      }
    }
    guard let queueName = definition.queue else {
      draft.lines.append("// held: in no queue until `add`")
      return
    }
    draft.names.insert(queueName)
    draft.lines.insert(contentsOf: declare(queueName), at: 1)
    if all.count == 1 {
      draft.lines.append("\(queue(queueName)).addOperation(\(variables[0]))")
      call(.add(all[0], to: queueName))
    } else {
      let add = SwiftCode.call(
        "\(queue(queueName)).addOperations([", variables, "], waitUntilFinished: false)", width: SwiftCode.statementColumns)
      let comment = "// inserts all, then schedules once"
      draft.lines += add.count == 1 ? [add[0] + "  " + comment] : [comment] + add
      call(.addBatch(all, to: queueName))
    }
    if !busy.contains(queueName) { busy.append(queueName) }
  }

  /// `let G = Gate()` the first time a gate is named.
  mutating func gateDeclaration(_ gate: String?) -> [String] {
    guard let gate, !gatesDeclared.contains(gate) else { return [] }
    gatesDeclared.insert(gate)
    needsGate = true
    return ["let \(names.gate(gate)) = Gate()  // a condition besides the dependencies, closed for now"]
  }

  /// The operation's declaration: a BlockOperation when its work is one plain call, else
  /// an Operation subclass whose `main()` (or `start()`, when asynchronous) shows how it
  /// polls isCancelled, bails or fails.
  /// - Parameter queueName: the queue it is added to; `nil` when it is held.
  mutating func operation(
    _ spec: OperationSpec, queue queueName: String?, gate: String? = nil, completionSteps: [OpLabCore.Step]? = nil
  ) -> [String] {
    let v = names.variable(spec.name)
    var lines: [String] = []
    // A queue a step adds to is declared before the closure that names it.
    var bodySteps: [OpLabCore.Step] = []
    if case .steps(let steps) = spec.kind { bodySteps = steps }
    for case .add(_, let q) in bodySteps + (completionSteps ?? []) { lines += declare(q) }
    // A gated operation keeps its gate, and its isReady asks it (a cancel lets it through).
    let gated =
      gate.map { g in
        [
          "  let gate: Gate",
          "  init(gate: Gate) { self.gate = gate; super.init() }",
          "  override var isReady: Bool {",
          "    super.isReady && (gate.isOpen || isCancelled)",
          "  }",
        ]
      } ?? []
    let made = gate.map { "(gate: \(names.gate($0)))" } ?? "()"
    switch spec.kind {
    case .blocks(let blocks):
      if gate != nil {
        lines += gatedBlockOperation(spec.name, gated: gated, made: made)
        for b in blocks { lines.append("\(v).addExecutionBlock { work(ticks: \(b)) }") }
      } else {
        lines.append("let \(v) = BlockOperation { work(ticks: \(blocks.first ?? 0)) }")
        for b in blocks.dropFirst() { lines.append("\(v).addExecutionBlock { work(ticks: \(b)) }") }
      }
    case .async(let forgets):
      needsAsyncBase = true
      asyncOperations.insert(spec.name)
      let type = names.typeName(spec.name)
      lines += ["final class \(type): AsyncOperation, @unchecked Sendable {"]
      let stoppable = !forgets && { if case .every = spec.cancellation { true } else { false } }()
      if stoppable { self.stoppable.insert(spec.name) }
      if spec.failsAt != nil || stoppable {
        lines += Self.resultDeclaration
      }
      lines +=
        gated + [
          "  override func start() {",
          "    guard !isCancelled else { finish(); return }",
          "    begin()",
        ]
      if case .every(let n) = spec.cancellation, !forgets {
        // Work that can be stopped: cancel() stops it where it next checks, and it calls back.
        let ticks = spec.failsAt ?? spec.duration
        let failing = spec.failsAt != nil ? ", failing: true" : ""
        lines += [
          "    let work = startWork(ticks: \(ticks), checkingEvery: \(n)\(failing)) { [self] error in",
          "      self.error = error  // WorkError.cancelled: cancel() stopped it",
          "      finish()",
          "    }",
          "    onCancel { work.cancel() }  // cancel() stops it at its next check",
          "  }",
          "}",
          "let \(v) = \(type)\(made)",
        ]
        reporting.append(
          (
            type,
            [
              "if error as? WorkError == .cancelled { return .cancelled }",
              "if error != nil { return .failed }", "return .succeeded",
            ]
          ))
        didItsWork.append((type, "error == nil"))
        return finish(lines, spec: spec, gate: gate, completionSteps: completionSteps)
      }
      if let ticks = spec.failsAt {
        // Work that fails calls back with its error: the error path is where a finish() goes missing.
        lines.append("    startWork(ticks: \(ticks), failing: true) { [self] error in")
        lines +=
          forgets
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
      if spec.failsAt != nil {
        reporting.append((type, ["if error != nil { return .failed }", "return .succeeded"]))
        didItsWork.append((type, "error == nil"))
      }
    case .steps(let steps):
      if gate != nil {
        lines += gatedBlockOperation(spec.name, gated: gated, made: made)
        lines.append("\(v).addExecutionBlock {")
      } else {
        lines.append("let \(v) = BlockOperation {")
      }
      lines += stepLines(steps, rest: spec.duration - Tick(steps.count), onMain: runsOn(spec, addedTo: queueName) == "main")
      lines.append("}")
    case .plain:
      let simple =
        spec.cancellation == .never && !spec.bailsIfDependencyCancelled && spec.failsAt == nil
        && !spec.bailsUnlessDependenciesSucceeded && gate == nil
      if simple {
        lines.append("let \(v) = BlockOperation { work(ticks: \(spec.duration)) }")
      } else {
        // One class for each kind of operation, its ticks a parameter: operations alike
        // but for their length share it (one DownloadOperation(ticks:), not one per row).
        let ticks = spec.failsAt ?? spec.duration
        // Named for its operations (download1, download2 → DownloadOperation); for names of a
        // letter or two (d1), for what it does (CancellableOperation). Operations of one name
        // and kind share it; their ticks, and how often they check isCancelled, are arguments.
        let stem = SwiftCode.stem(spec.name)
        let named = stem.count > 2 ? stem : nil
        var interval: Tick?
        let checks: String
        switch spec.cancellation {
        case .never: checks = "never"
        case .atStart: checks = "atStart"
        case .every(let n):
          checks = "every"
          interval = n
        }
        let key =
          "\(checks)|\(spec.bailsIfDependencyCancelled)|\(spec.bailsUnlessDependenciesSucceeded)|\(spec.failsAt != nil)|\(gate != nil)|\(named ?? "")"
        let argument =
          "(ticks: \(ticks)" + (interval.map { ", checkingEvery: \($0)" } ?? "") + (gate.map { ", gate: \(names.gate($0))" } ?? "")
          + ")"
        if let type = kinds[key] {
          lines.append("let \(v) = \(type)\(argument)")
          return finish(lines, spec: spec, gate: gate, completionSteps: completionSteps)
        }
        let type = names.kindType(named ?? Self.kindStem(spec, gated: gate != nil), name: spec.name)
        kinds[key] = type
        lines.append("final class \(type): Operation, @unchecked Sendable {")
        lines.append(
          spec.failsAt != nil ? "  let ticks: Int  // how long its work runs before it fails" : "  let ticks: Int  // how long its work takes")
        if interval != nil { lines.append("  let checkingEvery: Int  // ticks of work between looks at isCancelled") }
        if gate != nil { lines.append("  let gate: Gate") }
        let parameters = ["ticks: Int", interval != nil ? "checkingEvery: Int" : nil, gate != nil ? "gate: Gate" : nil].compactMap { $0 }
        lines.append("  init(\(parameters.joined(separator: ", "))) {")
        lines.append("    self.ticks = ticks")
        if interval != nil { lines.append("    self.checkingEvery = checkingEvery") }
        if gate != nil { lines.append("    self.gate = gate") }
        lines += ["    super.init()", "  }"]
        if gate != nil {
          lines += [
            "  override var isReady: Bool {",
            "    super.isReady && (gate.isOpen || isCancelled)",
            "  }",
          ]
        }
        if spec.failsAt != nil { lines += Self.resultDeclaration }
        if spec.bailsIfDependencyCancelled || spec.bailsUnlessDependenciesSucceeded {
          lines.append(
            "  private(set) var bailed = false  // "
              + (spec.bailsUnlessDependenciesSucceeded
                ? "a dependency did not succeed" : "a dependency was cancelled"))
        }
        // The harness's watcher tells a stop from work done: isCancelled alone cannot.
        let stop = "stopped = true; return"
        if spec.cancellation != .never { lines.append("  private(set) var stopped = false  // saw isCancelled and returned") }
        lines.append("  override func main() {")
        if spec.bailsIfDependencyCancelled {
          lines.append("    if dependencies.contains(where: \\.isCancelled) { bailed = true; return }")
        }
        if spec.bailsUnlessDependenciesSucceeded {
          needsSucceeded = true
          lines.append("    if !dependencies.allSatisfy(succeeded) { bailed = true; return }  // e.g. no image to filter")
        }
        switch spec.cancellation {
        case .never:
          lines.append("    work(ticks: ticks)")
        case .atStart:
          lines += ["    guard !isCancelled else { \(stop) }", "    work(ticks: ticks)"]
        case .every:
          lines += [
            "    for done in stride(from: 0, to: ticks, by: checkingEvery) {",
            "      if isCancelled { \(stop) }",
            "      work(ticks: min(checkingEvery, ticks - done))",
            "    }",
          ]
        }
        if spec.failsAt != nil { lines.append("    error = WorkError.failed  // its work failed") }
        lines += ["  }", "}", "let \(v) = \(type)\(argument)"]
        let bails = spec.bailsIfDependencyCancelled || spec.bailsUnlessDependenciesSucceeded
        if spec.failsAt != nil || bails {
          didItsWork.append(
            (type, [spec.failsAt != nil ? "error == nil" : nil, bails ? "!bailed" : nil].compactMap { $0 }.joined(separator: " && ")))
        }
        reporting.append(
          (
            type,
            (spec.failsAt != nil ? ["if error != nil { return .failed }"] : [])
              + (spec.bailsIfDependencyCancelled || spec.bailsUnlessDependenciesSucceeded
                ? ["if bailed { return .returnedEarly }"] : [])
              + (spec.cancellation != .never ? ["if stopped { return .cancelled }"] : []) + ["return .succeeded"]
          ))
      }
    }
    return finish(lines, spec: spec, gate: gate, completionSteps: completionSteps)
  }

  /// The stem of a kind of plain operation's class, from what it does, two words at most
  /// (a name that fits its line): `Cancellable` (checks isCancelled as it works),
  /// `StartChecking` (once, at its start), `Bailing` (returns if a dependency was
  /// cancelled), `Consuming` (needs its dependencies' results), `Failing`, `Gated`, as in
  /// `FailingGated`; `Plain` when nothing sets it apart.
  static func kindStem(_ spec: OperationSpec, gated: Bool) -> String {
    var words: [String] = []
    switch spec.cancellation {
    case .never: break
    case .atStart: words.append("StartChecking")
    case .every: words.append("Cancellable")
    }
    if spec.bailsIfDependencyCancelled { words.append("Bailing") }
    if spec.bailsUnlessDependenciesSucceeded { words.append("Consuming") }
    if spec.failsAt != nil { words.append("Failing") }
    if gated { words.append("Gated") }
    return words.isEmpty ? "Plain" : words.prefix(2).joined()
  }

  /// An operation's error, which its work sets before it finishes (on its own thread):
  /// a reader after isFinished sees it, the lock behind isFinished ordering the two; no one else
  /// writes it.
  static let resultDeclaration = ["  private(set) var error: Error?  // isFinished does not say if it failed"]

  /// The comment above a completion block.
  static let completionComment = "// its completion block runs after it, on a thread Foundation picks"

  /// The lines after an operation is made: its name, gate, priority, QoS and completion block.
  mutating func finish(
    _ made: [String], spec: OperationSpec, gate: String?, completionSteps: [OpLabCore.Step]?
  ) -> [String] {
    var lines = made
    let v = names.variable(spec.name)
    lines.append("\(v).name = \(SwiftCode.literal(spec.name))")
    if let gate { lines.append("\(names.gate(gate)).add(\(v))") }
    if let p = spec.priority { lines.append("\(v).queuePriority = .\(p)") }
    if let q = spec.qualityOfService { lines.append("\(v).qualityOfService = .\(q)") }
    if let steps = completionSteps {
      lines.append(Self.completionComment)
      lines.append("\(v).completionBlock = {")
      lines += stepLines(steps, rest: (spec.completion ?? 0) - Tick(steps.count))
      lines.append("}")
    } else if let c = spec.completion {
      lines.append(Self.completionComment)
      lines.append("\(v).completionBlock = { work(ticks: \(c)) }")
    }
    lines.append(
      "Lab.watch(\(v))  // the harness prints its start and finish"
        + (spec.completion != nil || completionSteps != nil ? ", then waits for its block" : ""))
    return lines
  }

  /// The queue whose thread runs `spec`'s work: `queueName`, the one it is added to as it is
  /// defined; for an operation held in no queue, the one the world later added it to (the
  /// view and the export know the whole script), or main when it was started by hand there
  /// (`start()`, which the program calls on the main thread), else the one it was defined
  /// for (an echo, as it is typed).
  func runsOn(_ spec: OperationSpec, addedTo queueName: String?) -> String? {
    if let queueName { return queueName }
    if let id = world.operationID(named: spec.name) {
      let record = world.operation(id)
      if let q = record.queue { return world.name(q) }
      if record.startedAt != nil { return "main" }
    }
    return spec.heldFor
  }

  /// A BlockOperation whose isReady also waits for its gate, made without blocks yet.
  func gatedBlockOperation(_ name: String, gated: [String], made: String) -> [String] {
    let type = names.typeName(name)
    return ["final class \(type): BlockOperation, @unchecked Sendable {"] + gated + ["}", "let \(names.variable(name)) = \(type)\(made)"]
  }

  /// The body of a closure written as steps: the thread's register, then each step as
  /// the lab plays it, a tick of the thread's time whose access comes as the tick ends.
  /// - Parameter onMain: the closure runs on the main thread (an operation of the main
  ///   queue), where a call into the user interface is allowed.
  mutating func stepLines(_ steps: [OpLabCore.Step], rest: Tick, onMain: Bool = false) -> [String] {
    var lines: [String] = []
    // The register, declared so the compiler warns about nothing: `let` when nothing
    // changes it, and read at the end when nothing writes it back.
    let changes = steps.contains { if case .read = $0 { true } else if case .compute = $0 { true } else { false } }
    let stores = steps.contains { if case .write = $0 { true } else { false } }
    if changes || stores {
      lines.append("  \(changes ? "var" : "let") register = 0  // a local variable of this thread")
    }
    for step in steps {
      lines.append("  work(ticks: 1)  // a step takes a tick")
      switch step {
      case .read(let name) where racy.contains(name):
        lines.append("  register = \(names.shared(name)).value  // read: no lock, so it races")
      case .write(let name) where racy.contains(name):
        lines.append("  \(names.shared(name)).value = register  // write: no lock, so it races")
      case .read(let name): lines.append("  register = \(names.shared(name)).withLock { $0 }  // read")
      case .compute(let n): lines.append("  register \(n < 0 ? "-=" : "+=") \(n.magnitude)  // compute")
      case .write(let name): lines.append("  \(names.shared(name)).withLock { $0 = register }  // write")
      case .lock(let name): lines.append("  \(names.shared(name)).lock()")
      case .unlock(let name): lines.append("  \(names.shared(name)).unlock()")
      case .touchUI:
        needsUserInterface = true
        if onMain {
          lines.append("  MainActor.assumeIsolated { updateUserInterface() }  // on main: allowed")
        } else {
          needsOffMainTouch = true
          lines += [
            // One comment, laid out at the depth it ends up at (``SwiftCode/fit(_:width:)``).
            "  // Swift refuses to call @MainActor updateUserInterface() here, off the main thread; the lab calls it anyway, to show what happens:",
            "  userInterfaceTouchedOffMain()",
          ]
        }
      case .add(let name, let queueName):
        lines.append("  \(queue(queueName)).addOperation(\(names.variable(name)))")
      }
    }
    if changes, !stores { lines.append("  _ = register  // computed, never written back") }
    if rest > 0 { lines.append("  work(ticks: \(rest))") }
    return lines
  }
}
