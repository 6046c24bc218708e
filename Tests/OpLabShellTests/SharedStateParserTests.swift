import OpLabCore
import Testing

@testable import OpLabShell

/// `var`, `lock`, `op … does …` and `touches ui` (#22): what parses, and where errors point.
@Suite struct SharedStateParserTests {
  static var context: ParseContext {
    var c = ParseContext(operations: ["d1"], queues: ["main", "queue"])
    c.variables = ["count", "total"]
    c.locks = ["L", "M"]
    return c
  }

  static func steps(_ name: String, _ steps: [Step], takes: Tick? = nil, queue: String? = nil) -> Command {
    .op(OperationDefinition(spec: OperationSpec(name: name, duration: takes ?? Tick(steps.count), kind: .steps(steps)), queue: queue))
  }

  @Test("Good lines parse to their commands")
  func good() throws {
    let cases: [(String, Command)] = [
      ("var n", .variable(name: "n", initial: 0)),
      ("var n = -3", .variable(name: "n", initial: -3)),
      ("lock K", .lock(name: "K")),
      ("op inc does read count, compute 1, write count", Self.steps("inc", [.read("count"), .compute(1), .write("count")])),
      (
        "op inc does read count,compute -2,write total takes 5 on main",
        Self.steps("inc", [.read("count"), .compute(-2), .write("total")], takes: 5, queue: "main")
      ),
      ("op s does lock L, unlock L", Self.steps("s", [.lock("L"), .unlock("L")])),
      ("op ui1 touches ui", Self.steps("ui1", [.touchUI])),
      ("op ui2 on main does touch ui touches ui takes 3", Self.steps("ui2", [.touchUI, .touchUI], takes: 3, queue: "main")),
    ]
    for (line, expected) in cases {
      #expect(try Parser.parse(line, context: Self.context) == expected, "\(line)")
    }
  }

  @Test("Bad lines are refused at the right column with a hint")
  func bad() {
    let cases: [(line: String, column: Int, message: String)] = [
      ("op x does read cont", 16, "there is no shared variable named 'cont'"),
      ("op x does raed count", 11, "'raed' is not a step"),
      ("op x does read count, lock N", 28, "there is no lock named 'N'"),
      ("op x does compute one", 19, "'one' is not a whole number"),
      ("op x does touch screen", 17, "'touch' takes 'ui', not 'screen'"),
      ("op x does read count, compute 1, write count takes 2", 52, "3 steps take 3 ticks (one a tick), more than takes 2"),
      ("op x does read count async", 11, "an operation written as steps is synchronous: drop `async`"),
      ("var count", 5, "the name 'count' is already taken"),
      ("lock d1", 6, "the name 'd1' is already taken"),
      ("op L", 4, "the name 'L' is already taken"),
      ("var ui", 5, "'ui' is the user interface (as in `touch ui`)"),
      ("var n = x", 9, "'x' is not a whole number"),
    ]
    Self.expectRefused(cases, whole: true)
  }

  @Test("`completion does` gives the completion block steps; `add OP` adds it to the queue it was defined for")
  func completionSteps() throws {
    var c = Self.context
    c.declaredQueues = ["d1": "main"]
    let line = "op load takes 2 completion does read count, compute 1, write count, add d1"
    var expected = OperationDefinition(spec: OperationSpec(name: "load", duration: 2))
    expected.completionSteps = [.read("count"), .compute(1), .write("count"), .add("d1", to: "main")]
    #expect(try Parser.parse(line, context: c) == .op(expected))
    // `completion N` stays a plain block; `does` after it is the operation's own work.
    var plain = OperationDefinition(spec: OperationSpec(name: "x", duration: 1, completion: 2, kind: .steps([.touchUI])))
    plain.completionSteps = nil
    #expect(try Parser.parse("op x completion 2 does touch ui", context: c) == .op(plain))
    // Without `on`, an operation belongs to `queue`.
    var other = OperationDefinition(spec: OperationSpec(name: "y", duration: 1))
    other.completionSteps = [.add("d1", to: "queue")]
    #expect(try Parser.parse("op y completion does add d1", context: Self.context) == .op(other))
    #expect(Parser.completions(for: "op y completion does ", context: c) == StepSyntax.verbs.sorted())
  }

  @Test("A completion block takes no locks, and `add` names an operation in no queue")
  func completionStepErrors() {
    let cases: [(line: String, column: Int, message: String)] = [
      ("op x completion does lock L, unlock L", 22, "a completion block in the lab takes no locks"),
      // Before the lock's name is looked at: with no lock N, the same message, not "create it".
      ("op x completion does lock N", 22, "a completion block in the lab takes no locks"),
      ("op x completion does read count does write count", 33, "the operation's own `does` comes after `completion does`"),
      ("op x completion does add d2", 26, "there is no operation named 'd2'"),
      ("op x completion does", 22, "'op' needs more: expected 'read', 'compute', 'write', 'lock', 'unlock', 'touch', 'add' or steps"),
    ]
    Self.expectRefused(cases, whole: false)
  }

  @Test(
    "An `add` step names why its operation can no longer be added: added before, or finished by cancel() in no queue (Apple platforms), and the lab's events say the same"
  )
  func addStepSaysWhyNot() {
    let lab = Interpreter()
    for line in ["queue network", "op show on main touches ui hold", "op a takes 1", "cancel show"] { _ = lab.execute(line) }
    let cancelled = lab.execute("op load on network takes 3 completion does add show")
    #expect(
      cancelled.error?.message
        == "show was finished by cancel() (in no queue, Apple platforms finish it at once), and a finished operation cannot be added",
      "\(cancelled.error?.message ?? "")")
    let added = lab.execute("op b takes 1 does add a")
    #expect(added.error?.message == "a was added before, and an operation can be added only once", "\(added.error?.message ?? "")")
  }

  /// Each line is refused at its column, with its message (whole, or beginning so).
  static func expectRefused(_ cases: [(line: String, column: Int, message: String)], whole: Bool) {
    for c in cases {
      do {
        _ = try Parser.parse(c.line, context: context)
        Issue.record("\(c.line) parsed")
      } catch {
        #expect(error.column == c.column, "\(c.line): \(error)")
        #expect(whole ? error.message == c.message : error.message.hasPrefix(c.message), "\(c.line): \(error.message)")
      }
    }
  }

  @Test("Tab completes the step words after `does` and after a comma")
  func completion() {
    #expect(Parser.completions(for: "op x does ", context: Self.context) == StepSyntax.verbs.sorted())
    #expect(Parser.completions(for: "op x does read count, un", context: Self.context).contains("count,unlock"))  // the lexer joins a comma list into one word
  }
}
