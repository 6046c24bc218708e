import Foundation
import OpLabRender
import Testing

/// Golden-file assertions for rendered text, shared by the test targets.
///
/// Each snapshot lives in a `Snapshots` folder beside the test file that asserts it
/// (`Tests/OpLabRenderTests/Snapshots/<name>.txt`, `Tests/OpLabShellTests/Snapshots/…`).
/// To re-record after an intended change, run `RECORD_SNAPSHOTS=1 swift test` (or
/// `make snapshots`): every snapshot is rewritten and each test fails once, so a recording
/// run can never pass by accident. Review the diff with `git diff`, then run the tests again.
public func assertSnapshot(
  _ text: String, named name: String, filePath: StaticString = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) {
  let url = URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent()
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
public func lineDiff(expected: String, actual: String) -> String {
  let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
  var out: [String] = []
  for i in 0..<max(e.count, a.count) where (i < e.count ? e[i] : nil) != (i < a.count ? a[i] : nil) {
    out.append("line \(i + 1):\n  - \(i < e.count ? String(e[i]) : "<none>")\n  + \(i < a.count ? String(a[i]) : "<none>")")
    if out.count == 8 { break }
  }
  return out.joined(separator: "\n")
}

/// `text` as it was before the lab wrapped it to `width` columns, for tests about what a
/// message says rather than how it is laid out (layout has its own golden tests). A line
/// is joined to the one before it when it is indented deeper than the line that began the
/// paragraph and its first word could not have fitted on the line before: exactly the
/// lines the wrapper breaks. A terminal's CRLF line ends are read as LF.
public func unwrapped(_ text: String, width: Int = 80) -> String {
  let text = text.replacingOccurrences(of: "\r\n", with: "\n")
  var out: [String] = []
  var headIndent = 0
  var previous = 0  // the width of the line before, as printed
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    defer { previous = Names.width(String(line)) }
    let indent = line.prefix { $0 == " " }.count
    let body = line.dropFirst(indent)
    let firstWord = body.prefix { $0 != " " }
    if let last = out.last, !body.isEmpty, indent > headIndent,
      previous + 1 + Names.width(String(firstWord)) > width
    {
      out[out.count - 1] = last + " " + body
    } else {
      out.append(String(line))
      headIndent = indent
    }
  }
  return out.joined(separator: "\n")
}
