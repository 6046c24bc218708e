import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// `redo` gives back what `undo` took, last first, and only while the world has not moved
/// on; `clear` clears the screen and nothing else.
@Suite struct RedoClearTests {
  func run(_ lines: [String]) -> (Interpreter, [Reply]) {
    let i = Interpreter()
    let replies = lines.map { i.execute($0) }
    return (i, replies)
  }

  @Test("Two undos then two redos give back the very same world, saved script and all")
  func undoRedo() {
    let before = Interpreter()
    for line in ["queue q max 1", "op a on q takes 3", "op b on q takes 2 after a", "step 4"] { _ = before.execute(line) }
    let (i, replies) = run(["queue q max 1", "op a on q takes 3", "op b on q takes 2 after a", "step 4", "undo", "undo", "redo", "redo"])
    #expect(replies.allSatisfy { $0.error == nil })
    #expect(replies[6].output.hasPrefix("  redid `op b on q takes 2 after a`\n"))
    #expect(replies[7].output.hasPrefix("  redid `step 4`\n"))
    #expect(i.world.trace == before.world.trace)
    #expect(i.script.map(\.text) == before.script.map(\.text))
  }

  @Test(
    "Nothing to redo: before any undo, after a new command, after time travel or a branch, and past the last undo",
    arguments: [
      ["op a takes 3"],
      ["op a takes 3", "undo", "op b takes 1"],
      ["op a takes 3", "step 2", "undo", "back 1"],
      ["op a takes 3", "step 2", "undo", "fork"],
      ["op a takes 3", "undo", "redo"],
      ["op a takes 3", "undo", "reset"],
    ])
  func nothingToRedo(_ lines: [String]) {
    let (i, _) = run(lines)
    let world = i.world.trace
    let reply = i.execute("redo")
    #expect(reply.error?.message == "there is nothing to redo")
    #expect(reply.error?.hint == "`redo` gives back what `undo` took back, or what `back` or `goto` dropped, until another command changes the world")
    #expect(i.world.trace == world)
  }

  @Test("A view between undo and redo does not forget what was undone")
  func viewsKeepRedo() {
    let (i, replies) = run(["op a takes 3", "step 1", "undo", "status", "timeline", "why a", "redo"])
    #expect(replies.last?.error == nil)
    #expect(i.world.now == 1)
  }

  @Test("redo is journalled once, as the command it ran again")
  func journalled() {
    let i = Interpreter()
    i.keepsJournal = true
    for line in ["op a takes 3", "step 2", "undo", "redo"] { _ = i.execute(line) }
    #expect(i.takeJournal() == ["op a takes 3", "step 2", "undo", "step 2"])
  }

  @Test("clear asks the terminal to clear and changes nothing; piped, it prints nothing")
  func clear() throws {
    let (i, replies) = run(["op a takes 3", "step 1"])
    let trace = i.world.trace
    let reply = i.execute("clear")
    #expect(reply.clearScreen && reply.output == "" && reply.error == nil)
    #expect(i.world.trace == trace && i.script.count == 2)
    #expect(replies.allSatisfy { !$0.clearScreen })
    #expect(try Parser.parse("cls", context: i.context) == .clear)
  }
}

/// Time travel says what it drops, and `redo` gives it back (#32).
@Suite struct TravelRedoTests {
  static let lines = [
    "queue downloads max 1", "queue filters max 1", "op d3 on downloads takes 3", "op f3 on filters takes 2 after d3",
    "suspend filters", "step 2", "cancel d3", "resume filters", "run",
  ]

  @Test("back names the commands it drops and the one it cuts short, and redo gives back the very same world and script")
  func backThenRedo() {
    let i = Interpreter()
    for line in Self.lines { _ = i.execute(line) }
    let (trace, script) = (i.world.trace, i.script.map(\.text))
    let back = i.execute("back 4")
    #expect(back.error == nil)
    #expect(
      unwrapped(back.output) == "  back at t=1; cut `step 2` short (kept as `run until 1`) and dropped `cancel d3`, "
        + "`resume filters` and `run`: `redo` brings them back\n")
    #expect(i.script.map(\.text).suffix(1) == ["run until 1"])
    #expect(i.world.now == 1)
    _ = i.execute("status")  // looking changes nothing
    let redo = i.execute("redo")
    #expect(redo.output == "  back at t=5, as before the time travel: every command it dropped is back\n")
    #expect(i.world.trace == trace)
    #expect(i.script.map(\.text) == script)
  }

  @Test("Several travels in a row are given back at once; a command that changes the world in between forgets them")
  func travelsThenChange() {
    let i = Interpreter()
    for line in Self.lines { _ = i.execute(line) }
    let trace = i.world.trace
    _ = i.execute("back 1")
    _ = i.execute("goto 2")
    #expect(i.execute("redo").error == nil)
    #expect(i.world.trace == trace)
    _ = i.execute("goto 2")
    _ = i.execute("op x takes 1")
    let refused = i.execute("redo")
    #expect(refused.error?.message == "there is nothing to redo")
    #expect(i.world.now == 2)
  }

  @Test("undo right after time travel takes the travel back, as redo does; the crash journal replays it")
  func undoTakesTheTravelBack() {
    let i = Interpreter()
    i.keepsJournal = true
    for line in Self.lines { _ = i.execute(line) }
    let trace = i.world.trace
    _ = i.execute("goto 1")
    _ = i.execute("timeline")
    #expect(i.execute("undo").output == "  undid the time travel: back at t=5, with every command it dropped\n")
    #expect(i.world.trace == trace)
    let replay = Interpreter()
    for line in i.takeJournal() { _ = replay.execute(line) }
    #expect(replay.world.trace == trace)
  }

  @Test("goto a tick where nothing is dropped says only where the clock is")
  func nothingDropped() {
    let i = Interpreter()
    _ = i.execute("op a takes 2")
    #expect(i.execute("goto 0").output == "  back at t=0\n")
    #expect(i.execute("redo").error?.message == "there is nothing to redo")
  }
}
