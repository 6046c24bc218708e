import OpLabCore
import Testing

@testable import OpLabRender

/// Renderers take any width a caller passes and draw within ``Timeline/widths``.
@Suite struct WidthBoundTests {
  @Test(
    "A timeline at an absurd width is drawn at most 1000 columns wide, and at a tiny one at least 40, without trapping",
    arguments: [Int.max, Int.max - 1, 100_000_000, 1001, Int.min, -1, 0, 39])
  func absurdWidths(width: Int) throws {
    var w = World()
    let q = try w.createQueue(name: "downloads", maxConcurrent: 1)
    let a = try w.addOperation(OperationSpec(name: "a", duration: 20), to: q)
    try w.addOperation(OperationSpec(name: "b", duration: 5), to: q, dependencies: [a])
    w.runUntilIdle()
    let text = Timeline.render(w, width: width)
    let widest = text.split(separator: "\n").map { Names.width(String($0)) }.max() ?? 0
    #expect(widest <= Timeline.widths.upperBound)
    let nearest = min(max(width, Timeline.widths.lowerBound), Timeline.widths.upperBound)
    #expect(text == Timeline.render(w, width: nearest))
  }
}
