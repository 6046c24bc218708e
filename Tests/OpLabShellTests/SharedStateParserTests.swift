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
      ("op inc does read count,compute -2,write total takes 5 on main",
       Self.steps("inc", [.read("count"), .compute(-2), .write("total")], takes: 5, queue: "main")),
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
    for c in cases {
      do {
        _ = try Parser.parse(c.line, context: Self.context)
        Issue.record("\(c.line) parsed")
      } catch {
        #expect(error.column == c.column, "\(c.line): \(error)")
        #expect(error.message == c.message, "\(c.line)")
      }
    }
  }

  @Test("Tab completes the step words after `does` and after a comma")
  func completion() {
    #expect(Parser.completions(for: "op x does ", context: Self.context) == StepSyntax.verbs.sorted())
    #expect(Parser.completions(for: "op x does read count, un", context: Self.context).contains("count,unlock"))  // the lexer joins a comma list into one word
  }
}
