import OpLabCore
import Testing

@testable import OpLabRender

/// `real`'s drawing and its sorting of differences, on made-up runs (#21).
@Suite struct SideBySideTests {
  typealias Run = SideBySide.Run
  typealias Lane = SideBySide.Lane

  /// A serial queue: a then b, with c skipped; the real run a little late everywhere.
  static let agreeing = [
    Lane(name: "a", queue: "q", lab: Run(start: 0, end: 2, outcome: .succeeded), real: Run(start: 0.02, end: 2.05, outcome: .succeeded)),
    Lane(name: "b", queue: "q", lab: Run(start: 2, end: 5, outcome: .succeeded), real: Run(start: 2.06, end: 5.3, outcome: .succeeded)),
    Lane(name: "c", queue: "q", lab: Run(end: 5, outcome: .cancelled, skipped: true), real: Run(end: 5.31, outcome: .cancelled, skipped: true)),
  ]

  @Test("Runs within 0.35 of a tick agree: no difference, every start and finish matched, the largest drift kept")
  func noise() {
    let (differences, matched, drift) = SideBySide.compare(Self.agreeing)
    #expect(differences.isEmpty)
    #expect(matched == 5)  // a and b's starts and finishes, c's skip-finish
    #expect(abs(drift - 0.31) < 1e-9)
    #expect(
      SideBySide.render(Self.agreeing, end: 5, width: 40) == """
        t=0-5: each operation in the lab, and under it on the real queue
        tick      0    5
        q
          a lab   ██✓
            real  ██✓
          b lab     ███✓
            real    ███✓
          c lab        ✗
            real       ✗
        █ executing  ✓ finished  ✗ cancelled
        blank: not executing

        """)
  }

  @Test("Differences beyond noise: a moved run said once, a changed outcome, a skip against a run, an unfinished one, and a reversed order")
  func differences() {
    let lanes = [
      Lane(name: "a", queue: "q", lab: Run(start: 0, end: 1, outcome: .succeeded), real: Run(start: 1.02, end: 2.01, outcome: .succeeded)),
      Lane(name: "b", queue: "q", lab: Run(start: 1, end: 2, outcome: .succeeded), real: Run(start: 0.01, end: 1.0, outcome: .succeeded)),
      Lane(name: "c", queue: "q", lab: Run(start: 0, end: 3, outcome: .cancelled), real: Run(start: 0, end: 3.1, outcome: .succeeded)),
      Lane(name: "d", queue: "r", lab: Run(end: 2, outcome: .cancelled, skipped: true), real: Run(start: 2, end: 3, outcome: .succeeded)),
      Lane(name: "e", queue: "r", lab: Run(start: 0, end: 3, outcome: .succeeded), real: Run(start: 0.1)),
    ]
    let (differences, matched, _) = SideBySide.compare(lanes)
    #expect(
      differences.map(\.text) == [
        "a ran from t≈1.02 to t≈2.01 on the real queue, from t=0 to t=1 in the lab",
        "b ran from t≈0.01 to t=1 on the real queue, from t=1 to t=2 in the lab",
        "c ended cancelled in the lab, succeeded on the real queue",
        "d was skipped in the lab (cancelled before it started) but ran on the real queue",
        "e finished at t=3 in the lab, not on the real queue by the end",
        "order: the lab started a before b, the real queue b first",
      ])
    #expect(matched == 3)  // c's start and finish, e's start
    #expect(
      SideBySide.render(lanes, end: 3, width: 40, ascii: true) == """
        t=0-3: each operation in the lab, and under it on the real queue
        tick      0
        q
          a lab   #v
            real   #v  <>
          b lab    #v
            real  #v   <>
          c lab   ###x
            real  ###v <>
        r
          d lab     x
            real    #v <>
          e lab   ###v
            real  #### <>
        # executing  v finished  x cancelled
        <> differs  blank: not executing

        """)
  }

  @Test("Two starts within noise of each other on the real queue are a tie there, not a reversed order")
  func tieIsNoReversal() {
    let lanes = [
      Lane(name: "a", queue: "q", lab: Run(start: 0, end: 1, outcome: .succeeded), real: Run(start: 0.3, end: 1, outcome: .succeeded)),
      Lane(name: "b", queue: "q", lab: Run(start: 1, end: 2, outcome: .succeeded), real: Run(start: 0.9, end: 2, outcome: .succeeded)),
    ]
    #expect(SideBySide.compare(lanes).differences.isEmpty)
  }

  @Test("A long world is compressed, the scale stated; no row is wider than the width")
  func compressed() {
    let lanes = [
      Lane(
        name: "a-very-long-operation-name", queue: "downloads", lab: Run(start: 0, end: 300, outcome: .succeeded),
        real: Run(start: 0, end: 300, outcome: .succeeded))
    ]
    let text = SideBySide.render(lanes, end: 400, width: 40)
    #expect(text.hasPrefix("t=0-400, 1 column = 20 ticks:"))
    #expect(text.split(separator: "\n").dropFirst().allSatisfy { Names.width(String($0)) <= 40 })
    // 0-300 is columns 0-14, finished in column 15; the name keeps its two ends.
    #expect(text.contains("\n  a-v…ame lab   ███████████████✓\n          real  ███████████████✓\n"))
  }

  @Test("A difference about an operation whose order the real queue leaves open is marked so, and not drawn as the lab's error")
  func openOrder() {
    let lanes = [
      Lane(
        name: "b", queue: "s", lab: Run(start: 1, end: 2, outcome: .succeeded), real: Run(start: 2, end: 3, outcome: .succeeded), orderIsOpen: true),
      Lane(
        name: "c", queue: "s", lab: Run(start: 2, end: 3, outcome: .succeeded), real: Run(start: 1, end: 2, outcome: .succeeded), orderIsOpen: true),
    ]
    let differences = SideBySide.compare(lanes).differences
    #expect(differences.count == 3 && differences.allSatisfy(\.isOpenOrder))
    #expect(!SideBySide.render(lanes, end: 3, width: 40).contains("≠"))
  }

  @Test("Cut at a tick, both sides keep only what had happened by then (within noise)")
  func cut() {
    let lane = Lane(name: "a", queue: "q", lab: Run(start: 0, end: 300, outcome: .succeeded), real: Run(start: 0.1, end: 300.2, outcome: .succeeded))
    let cut = lane.cut(at: 30)
    #expect(cut.lab == Run(start: 0) && cut.real == Run(start: 0.1))
    let skipped = Lane(
      name: "s", queue: "q", lab: Run(end: 40, outcome: .cancelled, skipped: true), real: Run(end: 40.1, outcome: .cancelled, skipped: true))
    #expect(skipped.cut(at: 30).lab == Run() && skipped.cut(at: 40).real == Run(end: 40.1, outcome: .cancelled, skipped: true))
  }
}
