import Foundation
import OpLabCore
import OpLabSwift
import TestSupport
import Testing

@testable import OpLabShell

/// `export swift`, built and run: the program's event lines against the lab's trace (#21).
/// Part of the serialized differential suite, so no other real run competes for threads.
extension DifferentialTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Exports `lab`'s world at `tickSeconds` a tick, builds it with `swiftc -O` and runs it: what it printed.
  static func exportAndRun(_ lab: Interpreter, tickSeconds: Double = 0.1) throws -> String {
    let dir = try Swiftc.scratchFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    try SwiftCode.export(lab.swiftSource(), tickSeconds: tickSeconds)
      .write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    let built = try Swiftc.run(["-O", "main.swift", "-o", "world"], in: dir)
    try #require(built.status == 0, "\(built.said)")
    return try Programs.run(dir.appendingPathComponent("world").path, errors: .discarded).output
  }

  /// Checks the program against the lab: it names the operations the lab started or finished,
  /// it says "stalled" exactly when the lab's world has unfinished work, and, when `timing`,
  /// each operation started and finished within a tick of the lab's and ended the same way.
  static func expectSameRun(
    _ lab: Interpreter, _ text: String, timing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    typealias Life = (start: Int?, finish: Int?, how: String)
    var expected: [String: Life] = [:]
    let world = lab.world
    for e in world.trace {
      guard let op = e.op, world.operation(op).mainThreadWork == nil, !world.operation(op).isBarrier else { continue }
      let name = world.name(op)
      switch e.kind {
      case .started: expected[name, default: (nil, nil, "")].start = e.tick
      case .finished(let outcome):
        expected[name, default: (nil, nil, "")].finish = e.tick
        expected[name, default: (nil, nil, "")].how =
          switch outcome {
          case .succeeded: "succeeded"
          case .failed: "failed"
          case .bailed: "returned early"
          case .cancelled, .dropped: "cancelled"
          }
      default: break
      }
    }
    var real: [String: Life] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
      guard parts.count >= 3, let tick = Int(parts[0].dropFirst(2)) else { continue }
      let name = String(parts[1])
      if parts[2] == "started" { real[name, default: (nil, nil, "")].start = tick }
      if parts[2] == "finished" {
        real[name, default: (nil, nil, "")].finish = tick
        real[name, default: (nil, nil, "")].how = parts.count > 3 ? String(parts[3].dropFirst().dropLast()) : ""
      }
    }
    #expect(Set(real.keys) == Set(expected.keys), "\(text)", sourceLocation: sourceLocation)
    let unfinished = world.unfinishedOperations().filter { world.operation($0).mainThreadWork == nil }
    #expect(text.contains("stalled: ") == !unfinished.isEmpty, "\(text)", sourceLocation: sourceLocation)
    guard timing else { return }
    for (name, l) in expected {
      let r = real[name]
      #expect(r?.how == l.how, "\(name): \(text)", sourceLocation: sourceLocation)
      #expect(abs((r?.finish ?? -9) - (l.finish ?? -9)) <= 1, "\(name) finished: \(text)", sourceLocation: sourceLocation)
      if let s = l.start { #expect(abs((r?.start ?? -9) - s) <= 1, "\(name) started: \(text)", sourceLocation: sourceLocation) }
    }
  }

  @Test(
    "An exported asynchronous operation that forgets finish() on its error path holds the real serial queue's slot forever, as in the lab: the one before it fails and finishes, the one after never starts"
  )
  func exportedForgottenFinishOnErrorPathStalls() throws {
    let lab = Interpreter()
    for line in [
      "queue net max 1", "op flaky on net fails at 1 async", "op lost on net takes 3 fails at 2 async forgets-finish", "op save on net", "run",
    ] {
      try #require(lab.execute(line).error == nil, "\(line)")
    }
    let text = try Self.exportAndRun(lab)
    Self.expectSameRun(lab, text)
    #expect(text.contains("stalled: lost, save never finished"), "\(text)")
  }

  @Test(
    "A wait from main holds the program's next command until it returns, as the lab's next command waits for it: b is added at t=5, not at t=0 while main has yet to make the call; an async operation that checks isCancelled stops where it next checks"
  )
  func exportedWaitFromMainHoldsTheNextCommand() throws {
    let lab = Interpreter()
    for line in [
      "queue q", "op a on q takes 5", "wait a from main", "op b on q takes 1", "op c on q takes 6 async cancel-check every 2",
      "step 3", "cancel c", "run",
    ] {
      try #require(lab.execute(line).error == nil, "\(line)")
    }
    let text = try Self.exportAndRun(lab)
    Self.expectSameRun(lab, text)
    #expect(text.contains("t=5  b started"), "\(text)")
    #expect(text.contains("c finished (cancelled)"), "\(text)")
  }

  @Test(
    "start() by hand is queued to the main thread, not made in the program's line: the lab's next command does not wait for it, so b starts at t=0 while a runs on main (a direct a.start() would hold b back to t=3); a wait from main queued behind it returns at t=3, when d is added"
  )
  func exportedStartByHandLetsTheNextCommandGoOn() throws {
    let lab = Interpreter()
    for line in [
      "queue q", "op a takes 3 hold", "start a", "op b on q takes 1", "op c on q takes 1", "wait c from main", "op d on q takes 1", "run",
    ] {
      try #require(lab.execute(line).error == nil, "\(line)")
    }
    let code = lab.execute("swift").output
    #expect(code.contains("DispatchQueue.main.async { a.start() }\n"), "\(code)")
    let text = try Self.exportAndRun(lab)
    Self.expectSameRun(lab, text)
    for event in ["t=0  a started", "t=0  b started", "t=3  a finished", "t=3  d started"] {
      #expect(text.contains(event), "\(event): \(text)")
    }
  }

  @Test(
    "Lesson 15's worlds, built and run: a completion block's call into the user interface is printed off main before the program ends (it waits for the block), and the fix, an update held for main that the block adds there, runs on main with no warning"
  )
  func exportedCompletionBlockIsWaitedFor() throws {
    let warning = "warning: the user interface was touched off the main thread"
    let offMain = Interpreter()
    for line in ["queue network", "op load on network takes 2 completion does touch ui", "run"] {
      try #require(offMain.execute(line).error == nil, "\(line)")
    }
    let off = try Self.exportAndRun(offMain)
    Self.expectSameRun(offMain, off)
    #expect(off.contains(warning), "\(off)")
    let fixed = Interpreter()
    for line in ["queue network", "op show on main touches ui hold", "op load on network takes 3 completion does add show", "run"] {
      try #require(fixed.execute(line).error == nil, "\(line)")
    }
    let code = fixed.execute("swift show").output
    #expect(code.contains("MainActor.assumeIsolated { updateUserInterface() }"), "\(code)")
    let on = try Self.exportAndRun(fixed)
    Self.expectSameRun(fixed, on)
    #expect(!on.contains(warning) && on.contains("t=4  show started"), "\(on)")
  }

  /// The examples whose world the real queue on this machine plays one way only. For the
  /// other two only the names and the stall are compared: cancel-all.oplab shows the
  /// cancelAllOperations loop racing a dependent it released (the order is open), and
  /// two-cores.oplab is about the lab's 2-core machine, which a program cannot set.
  static let deterministicExamples: Set<String> = [
    "pipeline.oplab", "priorities.oplab", "frozen-ui.oplab", "linux-differences.oplab", "underlying-queue.oplab",
  ]

  @Test(
    "Every example's export builds and runs on the real OperationQueue to its end; the deterministic ones start and finish every operation as the lab did, within a tick",
    arguments: [
      "pipeline.oplab", "cancel-all.oplab", "priorities.oplab", "frozen-ui.oplab", "two-cores.oplab", "linux-differences.oplab",
      "underlying-queue.oplab",
    ])
  func exportedExampleRuns(file: String) throws {
    let lab = Interpreter()
    let script = try String(contentsOf: Self.repository.appendingPathComponent("Examples/\(file)"), encoding: .utf8)
    for line in script.split(separator: "\n") where !line.hasPrefix("#") { _ = lab.execute(String(line)) }
    Self.expectSameRun(lab, try Self.exportAndRun(lab), timing: Self.deterministicExamples.contains(file))
  }

  /// The lessons whose final world the real queue on this machine plays one way only. For the
  /// others only the names and the stall are compared, each for a reason the lab shows: 01
  /// has taps, which a program cannot play, and they move the main queue's work; 03 and 11
  /// end under `platform apple` in Darwin behaviours (a BlockOperation's blocks side by side;
  /// QoS not filed as priority) that corelibs does not have; 04 and 09 sleep more operations
  /// at once than libdispatch's cold pool has threads (rule 29); 07 and 08 end in same-tick
  /// races the real queue leaves open (the cancelAllOperations loop against a dependent its
  /// skip released; a skipped operation's slot, freed on a worker thread, against an add and
  /// a suspend in the same tick).
  static let deterministicLessons: Set<String> = [
    "02-operation-life.lesson", "05-priorities.lesson", "06-dependencies.lesson", "10-async-operations.lesson",
    "12-pitfalls.lesson",
  ]

  @Test(
    "Every lesson's final world, exported, builds and runs on the real OperationQueue to its end; the deterministic ones start and finish every operation as the lab did, within a tick",
    arguments: [
      "01-frozen-ui.lesson", "02-operation-life.lesson", "03-blocks-and-completion.lesson", "04-max-concurrent.lesson",
      "05-priorities.lesson", "06-dependencies.lesson", "07-cancellation.lesson", "08-suspend-resume.lesson",
      "09-visible-rows.lesson", "10-async-operations.lesson", "11-qos-and-too-many.lesson", "12-pitfalls.lesson",
      "16-handing-results.lesson", "17-conditions-exclusion.lesson", "18-swift-concurrency.lesson",
    ])
  func exportedLessonRuns(file: String) throws {
    let path = Self.repository.appendingPathComponent("Lessons/\(file)").path
    let lesson = try LessonParser.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    let lab = lesson.solved()
    Self.expectSameRun(lab, try Self.exportAndRun(lab), timing: Self.deterministicLessons.contains(file))
  }
}
