import Foundation
import Testing

/// Golden-file assertions for rendered text.
///
/// Each snapshot lives in `Tests/OpLabRenderTests/Snapshots/<name>.txt`. To re-record after
/// an intended change, run `RECORD_SNAPSHOTS=1 swift test --filter OpLabRenderTests`
/// (or `make snapshots`): every snapshot is rewritten and each test fails once, so a
/// recording run can never pass by accident. Review the diff with `git diff`, then run
/// the tests again.
func assertSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
  let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Snapshots/\(name).txt")
  if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil {
    try? text.write(to: url, atomically: true, encoding: .utf8)
    Issue.record("recorded snapshot \(name); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
    return
  }
  guard let data = FileManager.default.contents(atPath: url.path) else {
    Issue.record("no snapshot \(name).txt: record it with RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
    return
  }
  let expected = String(decoding: data, as: UTF8.self)
  if expected != text {
    Issue.record("snapshot \(name) differs:\n\(lineDiff(expected: expected, actual: text))", sourceLocation: sourceLocation)
  }
}

/// A minimal line diff: the first differing lines with their numbers.
func lineDiff(expected: String, actual: String) -> String {
  let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
  var out: [String] = []
  for i in 0..<max(e.count, a.count) where (i < e.count ? e[i] : nil) != (i < a.count ? a[i] : nil) {
    out.append("line \(i + 1):\n  - \(i < e.count ? String(e[i]) : "<none>")\n  + \(i < a.count ? String(a[i]) : "<none>")")
    if out.count == 8 { break }
  }
  return out.joined(separator: "\n")
}
