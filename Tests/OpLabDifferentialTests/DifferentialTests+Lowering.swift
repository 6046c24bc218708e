import OpLabCore
import OpLabSwift
import Testing

@testable import OpLabShell

/// One lowering (#28): the calls `real` plays (``OpLabSwift/SwiftSource/lowered(playingOn:)``)
/// are the calls the exported program prints (``OpLabSwift/SwiftCode/calls(_:)``). No swiftc and
/// no real queue here: the two lists alone, for every world the export sweep knows.
extension DifferentialTests {
  /// A call as both lists name it. What only the lowering knows is left out: the work a
  /// stand-in does (the program writes it as its class), a barrier's label in the real log,
  /// and when the lab cut a wait from main short (the program's wait returns when the work
  /// is done). `OperationQueue.main` is never made by the program.
  static func signature(_ call: TimedAction) -> String? {
    let t = "t=\(call.tick) "
    switch call.action {
    case .makeQueue("main"): return nil
    case .makeOperation(let work): return t + "make \(work.name)" + (work.gate.map { " gated by \($0)" } ?? "")
    case .barrier(let q, _, let ticks): return t + "barrier on \(q), \(ticks) ticks"
    case .onMainThread(let made, _): return t + "on main: \(made)"
    default: return t + "\(call.action)"
    }
  }

  @Test(
    "For every example, every lesson world and 30 seeded random worlds, the calls real plays are the calls the exported program makes: the same operations made and added together, the same dependencies, cancels, suspends and waits from main, at the same ticks"
  )
  func realPlaysThePrintedCalls() throws {
    let worlds = try Self.sweptWorlds(full: true)
    #expect(worlds.count >= 50)
    var compared = 0
    for world in worlds {
      let source = world.lab.swiftSource()
      let played = source.lowered(playingOn: RealComparison.hostPlatform).script.actions.compactMap(Self.signature)
      let printed = SwiftCode.calls(source).compactMap(Self.signature)
      compared += played.count
      guard played != printed else { continue }
      let k = zip(played, printed).prefix { $0 == $1 }.count
      Issue.record(
        """
        \(world.name): the calls differ at the \(k + 1)th
          real plays:      \(played.dropFirst(k).prefix(3).joined(separator: " | "))
          the export makes: \(printed.dropFirst(k).prefix(3).joined(separator: " | "))
        """)
    }
    #expect(compared > 500, "\(compared) calls compared")
  }
}
