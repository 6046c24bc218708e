// Fuzz target (a): the command parser.
//
// The input is split into lines (at most `maxLines`); each is parsed with
// `Parser.parse(_:context:)`. The context starts with a few names (`Fuzz.baseContext`) and
// grows as `op`/`queue` lines parse, so lesson scripts used as seeds resolve their names.
// Tab completion (`Parser.completions`) is asked for every line too.
//
// Properties checked besides "does not crash":
//  1. Re-parsing the canonical form of a line (its tokens joined by single spaces, which is
//     what `save` writes) gives the same command, or fails too.
//  2. A parse error points at a column inside the line or just after it (see
//     `Fuzz.plausible`).

import OpLabCore
import OpLabShell

private let maxLines = 64

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = Fuzz.text(data, size)
  let lines = Fuzz.lines(text)
  guard lines.count <= maxLines else { return -1 }
  var context = Fuzz.baseContext
  for line in lines {
    _ = Parser.completions(for: line, context: context)
    let result: Result<Command?, ParseError>
    do { result = .success(try Parser.parse(line, context: context)) } catch { result = .failure(error) }
    let canonical = Fuzz.canonical(line)
    let again: Result<Command?, ParseError>
    do { again = .success(try Parser.parse(canonical, context: context)) } catch { again = .failure(error) }
    switch (result, again) {
    case (.success(let a), .success(let b)):
      if a != b {
        Fuzz.fail("canonical form \(String(reflecting: canonical)) parses to \(String(describing: b)), not \(String(describing: a))", input: line)
      }
      if let a { Fuzz.update(&context, after: a) }
    case (.failure(let e), .failure):
      if !Fuzz.plausible(e, in: line) {
        Fuzz.fail("error column \(e.column) length \(e.length) outside a line of \(line.count) characters: \(e.message)", input: line)
      }
      Fuzz.show(e, line: line)
    case (.success(let a), .failure(let e)):
      Fuzz.fail(
        "the line parses to \(String(describing: a)) but its canonical form \(String(reflecting: canonical)) fails: \(e.message)", input: line)
    case (.failure(let e), .success(let b)):
      Fuzz.fail(
        "the line fails (\(e.message)) but its canonical form \(String(reflecting: canonical)) parses to \(String(describing: b))", input: line)
    }
  }
  return 0
}
