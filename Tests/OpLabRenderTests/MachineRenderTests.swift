import OpLabCore
import TestSupport
import Testing

@testable import OpLabRender

/// The machine model's views: the taps and frames rows, the shared-core glyph, the cpu
/// line, the status report and `why`'s contention sentences, pinned by golden files.
@Suite struct MachineRenderTests {
  /// A download on main while the display wants frames and the user taps; beside it, two
  /// cores shared by a userInitiated preview and three utility backups.
  static func world() throws -> World {
    var w = World()
    try w.setCores(2)
    try w.setFrames(every: 2, until: 10)
    try w.addOperation(OperationSpec(name: "download", duration: 5), to: .main)
    try w.tap(at: 1)
    let previews = try w.createQueue(name: "previews", qualityOfService: .userInitiated)
    let backups = try w.createQueue(name: "backups", qualityOfService: .utility)
    try w.addOperation(OperationSpec(name: "preview", duration: 3), to: previews)
    for i in 1...3 { try w.addOperation(OperationSpec(name: "backup\(i)", duration: 3), to: backups) }
    w.runUntilIdle()
    return w
  }

  @Test("The legend names what was drawn: a dropped frame's ✗ is a frame dropped, not a cancelled operation; a cancelled one adds that")
  func legendOfDroppedFrames() throws {
    var w = World()
    try w.addOperation(OperationSpec(name: "busy", duration: 5), to: .main)
    try w.setFrames(every: 2, until: 6)
    w.runUntilIdle()
    let legend = { (w: World) in
      Timeline.render(w, width: 80).split(separator: "\n").drop { !$0.hasPrefix("█ executing") }.joined(separator: "\n")
    }
    #expect(legend(w) == "█ executing  ✓ finished  taps/frames: ░ waiting (UI frozen)  ✗ frame dropped")
    // Cancelled while its queue is suspended: skipped when the queue resumes.
    let q = try w.createQueue(name: "q")
    try w.suspend(q)
    let skipped = try w.addOperation(OperationSpec(name: "skipped", duration: 1), to: q)
    w.cancel(skipped)
    try w.resume(q)
    w.runUntilIdle()
    #expect(legend(w).contains("✗ cancelled (skipped, or stopped)"), "\(legend(w))")
  }

  @Test("Timeline: taps and frames rows under main, ▄ for work on a shared core, and the cpu line", arguments: [false, true])
  func timeline(ascii: Bool) throws {
    let text = Timeline.render(try Self.world(), width: 80, ascii: ascii)
    #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    assertSnapshot(text, named: "machine-timeline-\(ascii ? "ascii" : "unicode")")
  }

  @Test("At every width every line fits, the legends of taps, frames and the cpu too (two fuzz findings)", arguments: [false, true])
  func narrow(ascii: Bool) throws {
    for width in [40, 41, 57, 80] {
      // In ASCII the shell folds what is left of Unicode ("…" becomes "..."): measure that.
      let drawn = Timeline.render(try Self.world(), width: width, ascii: ascii)
      let text = ascii ? ASCIIFold.fold(drawn) : drawn
      for line in text.split(separator: "\n") { #expect(Names.width(String(line)) <= width, "\(width): \(line)") }
      #expect(text.contains("frame dropped"))
    }
  }

  @Test("Status reports the machine, each operation's effective QoS, taps, frames and the longest freeze")
  func status() throws {
    assertSnapshot(Status.render(try Self.world()), named: "machine-status")
  }

  @Test("why names the share an operation got and whose QoS outweighed whose; a tap says how long it waited")
  func why() throws {
    let w = try Self.world()
    let text = ["backup1", "preview", "main.tap1"].map { Why.render(w.operationID(named: $0)!, in: w) }.joined(separator: "\n")
    assertSnapshot(text, named: "machine-why")
  }
}
