import Testing

@testable import OpLabShell

@Suite struct SuggestTests {
  @Test("Did-you-mean: the closest name, ties to the first unless a later one sorts before it")
  func closest() {
    #expect(Suggest.closest(to: "stpe", in: ["step", "status"]) == "step")
    #expect(Suggest.closest(to: "d9", in: ["d1", "c"]) == "d1")
    #expect(Suggest.closest(to: "c", in: ["a"]) == nil)
    // "cafe\u{301}" and "café4" are both one edit from the typo; neither sorts before the
    // other (Swift compares canonically), so the first listed wins, as it always did.
    #expect(Suggest.closest(to: "cafe\u{301}2", in: ["cafe\u{301}", "café4"]) == "cafe\u{301}")
    #expect(Suggest.closest(to: "dowload", in: ["upload", "download"]) == "download")
    #expect(Suggest.distance("Step", "stpe") == 1)
  }
}
