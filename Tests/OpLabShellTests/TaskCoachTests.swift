import OpLabCore
import Testing

@testable import OpLabShell

/// ``TaskCoach`` on its own, with no runner and no I/O: what it says about a task after a
/// command, from the task and the lab alone (#33).
@Suite struct TaskCoachTests {
  /// A world made by `lines`, each of which must succeed.
  func lab(_ lines: [String]) -> Interpreter {
    let i = Interpreter()
    for line in lines { #expect(i.execute(line).error == nil, "\(line)") }
    return i
  }

  /// The task of a one-task lesson.
  func task(_ checks: String) throws -> LessonTask {
    let lesson = try LessonParser.parse("title: T\ntask: Make b start first.\n" + checks + "  solution: run\n", file: "t.lesson")
    let tasks = lesson.items.compactMap { item -> LessonTask? in if case .task(let t) = item { t } else { nil } }
    return try #require(tasks.first)
  }

  static let setup = ["queue q max 1", "op a on q takes 2", "op b on q takes 1"]

  @Test("A task whose check is already met is done, and judging it says nothing")
  func alreadyMet() throws {
    let i = lab(Self.setup + ["run"])
    let t = try task("  check: order started a b\n")
    #expect(TaskCoach.done(t, in: i.world))
    #expect(TaskCoach.failingChecks(t, in: i.world).isEmpty)
    #expect(TaskCoach.possible(t, in: i.world))
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(i))
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: true).isEmpty)
  }

  @Test("A task failed for good says so once, with `undo` as the way out; undone, it says the task can succeed again")
  func failedForGood() throws {
    let i = lab(["queue q max 1", "suspend q", "op a on q takes 2", "op b on q takes 1"])
    let t = try task("  check: order started b a\n  else: b must start before a.\n")
    i.undoFloor = i.script.count  // the learner takes over, as the runner hands over
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(i))
    #expect(coach.start.possible)
    #expect(coach.start.required == ["a", "b"])
    #expect(TaskCoach.failingChecks(t, in: i.world) == [0])

    #expect(i.execute("resume q").error == nil)  // a starts first
    #expect(!TaskCoach.possible(t, in: i.world))
    let said = coach.judge(in: TaskCoach.Lab(i), clockMoved: false)
    #expect(
      said == [
        .cannotSucceed(
          "✗ This can no longer succeed: b must start before a. `undo` takes back `resume q` and returns to t=0.")
      ])
    #expect(said.allSatisfy { $0.isProse })
    #expect(coach.feedback.impossible && coach.feedback.wayOutTick == 0)
    // The same world again: nothing new to say.
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: false).isEmpty)

    #expect(i.execute("undo").error == nil)
    let again = coach.judge(in: TaskCoach.Lab(i), clockMoved: false)
    #expect(again == [.possibleAgain(at: 0)])
    #expect(again.first?.text == "Back at t=0: nothing the task checks has failed for good yet.")
    #expect(again.first?.isProse == false)
  }

  @Test("Once the world is at rest short of the goal, what is missing is said, in the lesson's words")
  func notDoneYet() throws {
    let i = lab(["queue q max 1", "op a on q takes 1 hold"])
    let t = try task("  check: finished a\n  else: a has not finished.\n")
    i.undoFloor = i.script.count
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(i))
    #expect(i.execute("run").error == nil)  // nothing can happen: a is in no queue
    // Neither the clock nor what the checks read moved: nothing to say yet.
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: false).isEmpty)
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: true) == [.notDoneYet("Not done yet: a has not finished. (`hint` helps.)")])
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: true).isEmpty)  // said already
  }

  @Test("`restart` forgets what was said, so the same failure is said again")
  func restartForgets() throws {
    let i = lab(["queue q max 1", "suspend q", "op a on q takes 2", "op b on q takes 1"])
    let t = try task("  check: order started b a\n")
    i.undoFloor = i.script.count
    var coach = TaskCoach(task: t, lab: TaskCoach.Lab(i))
    #expect(i.execute("resume q").error == nil)
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: true).count == 1)
    coach.restarted(in: TaskCoach.Lab(i))
    #expect(coach.feedback.lastSaid == nil && !coach.feedback.impossible)
    #expect(coach.judge(in: TaskCoach.Lab(i), clockMoved: false).count == 1)
  }

  @Test("The ticks worth trying for `goto` are latest first, just before each event, down to the range's start")
  func candidates() {
    let i = lab(Self.setup + ["run"])  // a starts at 0, ends at 2; b starts at 2, ends at 3
    let ticks = TaskCoach.candidates(from: 0, below: 3, in: i.world)
    #expect(ticks.first == 2)
    #expect(ticks.last == 0)
    #expect(ticks == ticks.sorted(by: >))
    #expect(Set(ticks).count == ticks.count)
    #expect(TaskCoach.candidates(from: 3, below: 3, in: i.world).isEmpty)
  }

  @Test("What the checks name that the world has: operations by name, queues as `queue NAME`")
  func named() throws {
    let i = lab(["queue q max 1", "op a on q takes 1"])
    let t = try task("  check: order started b a\n")
    #expect(TaskCoach.named(by: t, in: i.world) == ["a"])
  }
}
