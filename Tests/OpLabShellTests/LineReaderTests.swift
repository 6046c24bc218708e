import Foundation
import Testing

@testable import OpLabShell

// MARK: - StdinLineReader

@Suite struct StdinLineReaderTests {
  /// A reader fed from a fixed list of lines, as `Swift.readLine` would return them.
  private func reader(_ lines: [String]) -> StdinLineReader {
    var remaining = lines[...]
    return StdinLineReader(readLine: { remaining.popFirst() })
  }

  @Test func readsLinesThenEndOfInput() {
    let input = reader(["run", "", "quit"])
    #expect(input.readLine(prompt: "> ") == .line("run"))
    #expect(input.readLine(prompt: "> ") == .line(""))
    #expect(input.readLine(prompt: "> ") == .line("quit"))
    #expect(input.readLine(prompt: "> ") == .endOfInput)
    #expect(input.readLine(prompt: "> ") == .endOfInput)
  }

  struct LineEndCase: Sendable, CustomTestStringConvertible {
    let raw: String
    let expected: String
    var testDescription: String { raw.debugDescription }
  }

  @Test(arguments: [
    LineEndCase(raw: "add op1\r", expected: "add op1"),
    LineEndCase(raw: "add op1\r\n", expected: "add op1"),
    LineEndCase(raw: "add op1\n", expected: "add op1"),
    LineEndCase(raw: "add op1", expected: "add op1"),
    LineEndCase(raw: "\r", expected: ""),
    LineEndCase(raw: "a\rb", expected: "a\rb"),
    LineEndCase(raw: "café\r", expected: "café"),
  ])
  func stripsOneLineEnd(_ testCase: LineEndCase) {
    #expect(reader([testCase.raw]).readLine(prompt: "") == .line(testCase.expected))
  }

  @Test func hasNoHistory() {
    let input = reader([])
    input.addHistory("run")
    #expect(input.saveHistory() == nil)
  }

  @Test(
    arguments: [
      (true, true, "xterm-256color", true),
      (true, true, nil, true),
      (true, true, "dumb", false),
      (false, true, "xterm", false),
      (true, false, "xterm", false),
      (false, false, "xterm", false),
    ] as [(Bool, Bool, String?, Bool)])
  func choosesEditorOnlyOnATerminal(stdin: Bool, stdout: Bool, term: String?, expected: Bool) {
    #expect(
      LineReaders.isInteractive(stdinIsTerminal: stdin, stdoutIsTerminal: stdout, term: term) == expected)
  }
}

// MARK: - History path

@Suite struct HistoryPathTests {
  @Test(
    arguments: [
      (["XDG_STATE_HOME": "/state", "HOME": "/home/ada"], "/state/oplab/history"),
      (["XDG_STATE_HOME": "/state/", "HOME": "/home/ada"], "/state/oplab/history"),
      (["HOME": "/home/ada"], "/home/ada/.local/state/oplab/history"),
      (["HOME": "/home/ada/"], "/home/ada/.local/state/oplab/history"),
      (["XDG_STATE_HOME": "", "HOME": "/home/ada"], "/home/ada/.local/state/oplab/history"),
      (["XDG_STATE_HOME": "relative/state", "HOME": "/home/ada"], "/home/ada/.local/state/oplab/history"),
      (["XDG_STATE_HOME": "/state"], "/state/oplab/history"),
      ([:], nil),
      (["HOME": ""], nil),
    ] as [([String: String], String?)])
  func followsXDG(environment: [String: String], expected: String?) {
    #expect(EditLineReader.defaultHistoryPath(environment: environment) == expected)
  }

  @Test(arguments: [
    ("/a/b/history", "/a/b"),
    ("/history", "/"),
    ("history", ""),
    ("dir/history", "dir"),
  ])
  func parentDirectory(path: String, expected: String) {
    #expect(HistoryFile.parent(of: path) == expected)
  }
}

// MARK: - Tab completion

@Suite struct CompletionEditTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let prefix: String
    let candidates: [String]
    let insert: String
    let list: [String]?
    var testDescription: String { "\(prefix.debugDescription) \(candidates)" }
  }

  @Test(arguments: [
    // One match: the rest of the word and a space.
    Case(prefix: "qu", candidates: ["quit"], insert: "it ", list: nil),
    Case(prefix: "add op1 --pri", candidates: ["--priority"], insert: "ority ", list: nil),
    Case(prefix: "", candidates: ["help"], insert: "help ", list: nil),
    Case(prefix: "add ", candidates: ["op1"], insert: "op1 ", list: nil),
    // The word is already complete: just the space.
    Case(prefix: "quit", candidates: ["quit"], insert: " ", list: nil),
    // Several: their common prefix.
    Case(prefix: "ca", candidates: ["cancel", "cancelAll"], insert: "ncel", list: nil),
    Case(prefix: "", candidates: ["step", "stop"], insert: "st", list: nil),
    // Several, nothing more in common: the list.
    Case(prefix: "s", candidates: ["show", "step"], insert: "", list: ["show", "step"]),
    Case(prefix: "cancel", candidates: ["cancel", "cancelAll"], insert: "", list: ["cancel", "cancelAll"]),
    Case(prefix: "run ", candidates: ["a", "b", "c"], insert: "", list: ["a", "b", "c"]),
    // Duplicates count once.
    Case(prefix: "he", candidates: ["help", "help"], insert: "lp ", list: nil),
    // None, or none that start with the word: a beep.
    Case(prefix: "xyz", candidates: [], insert: "", list: nil),
    Case(prefix: "qu", candidates: ["Quit"], insert: "", list: nil),
    Case(prefix: "qu", candidates: ["help", "quit"], insert: "it ", list: nil),
    // Non-ASCII words are compared by Character.
    Case(prefix: "caf", candidates: ["café", "cafés"], insert: "é", list: nil),
    Case(prefix: "note ü", candidates: ["über"], insert: "ber ", list: nil),
    // Any whitespace ends the previous word.
    Case(prefix: "add\top", candidates: ["op1", "op2"], insert: "", list: ["op1", "op2"]),
  ])
  func computesTheEdit(_ testCase: Case) {
    let edit = CompletionEdit.compute(prefix: testCase.prefix, candidates: testCase.candidates)
    #expect(edit == CompletionEdit(insert: testCase.insert, list: testCase.list))
  }

  @Test func beepsOnlyWhenNothingToDo() {
    #expect(CompletionEdit.compute(prefix: "x", candidates: []).isBeep)
    #expect(!CompletionEdit.compute(prefix: "s", candidates: ["show", "step"]).isBeep)
    #expect(!CompletionEdit.compute(prefix: "quit", candidates: ["quit"]).isBeep)
  }

  @Test func laysOutColumnsTopToBottom() {
    let words = ["add", "cancel", "help", "quit", "run", "show", "step"]
    // Cells are 8 wide (longest word + 2); 30 columns fit 4 of them.
    #expect(
      CompletionEdit.columns(words, width: 30) == """
        add     help    run     step
        cancel  quit    show

        """)
    #expect(
      CompletionEdit.columns(words, width: 22) == """
        add     quit    step
        cancel  run
        help    show

        """)
    // 3 columns would need 8 + 8 + 6 = 22.
    #expect(
      CompletionEdit.columns(words, width: 21) == """
        add     run
        cancel  show
        help    step
        quit

        """)
    #expect(CompletionEdit.columns(["a", "b"], width: 1) == "a\nb\n")
    #expect(CompletionEdit.columns([], width: 80) == "")
  }
}

// MARK: - History file

/// These create libedit editors, which set the process locale: run them one at a time.
@Suite(.serialized) struct HistoryFileTests {
  /// A fresh directory under the system temporary directory, removed afterwards.
  private func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("oplab-history-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try body(directory)
  }

  private func makeReader(_ path: String?) throws -> EditLineReader {
    let reader = EditLineReader(completer: { _ in [] }, historyPath: path)
    return try #require(reader)
  }

  @Test func savesAndLoadsAgain() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/state/oplab/history"
      let first = try makeReader(path)
      #expect(first.loadWarning == nil)
      first.addHistory("add op1 duration 3")
      first.addHistory("run   ")
      first.addHistory("run")
      first.addHistory("   ")
      first.addHistory("note café ü")
      #expect(first.historyEntries() == ["add op1 duration 3", "run", "note café ü"])
      #expect(first.saveHistory() == nil)

      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(text.hasPrefix("_HiStOrY_V2_\n"))
      let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/state/oplab")
      #expect((attributes[.posixPermissions] as? Int) == 0o700)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/state/oplab")
      #expect(leftovers == ["history"])

      let second = try makeReader(path)
      #expect(second.loadWarning == nil)
      #expect(second.historyEntries() == ["add op1 duration 3", "run", "note café ü"])
    }
  }

  @Test func keepsAtMostAThousandLines() throws {
    try withTemporaryDirectory { directory in
      let reader = try makeReader(directory + "/history")
      for n in 1...1_005 { reader.addHistory("line \(n)") }
      let entries = reader.historyEntries()
      #expect(entries.count == 1_000)
      #expect(entries.first == "line 6")
      #expect(entries.last == "line 1005")
    }
  }

  @Test func missingOrEmptyFileIsFine() throws {
    try withTemporaryDirectory { directory in
      let missing = try makeReader(directory + "/none/history")
      #expect(missing.loadWarning == nil)
      #expect(missing.historyEntries() == [])

      let emptyPath = directory + "/empty"
      #expect(FileManager.default.createFile(atPath: emptyPath, contents: Data()))
      let empty = try makeReader(emptyPath)
      #expect(empty.loadWarning == nil)
      #expect(empty.historyEntries() == [])
    }
  }

  @Test func movesAForeignFileAside() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/history"
      let foreign = "ls -l\nmake\n"
      try foreign.write(toFile: path, atomically: false, encoding: .utf8)
      try "older copy".write(toFile: path + ".corrupt-1", atomically: false, encoding: .utf8)

      let reader = try makeReader(path)
      let warning = try #require(reader.loadWarning)
      #expect(warning.contains(path + ".corrupt-2"))
      #expect(reader.historyEntries() == [])
      #expect(try String(contentsOfFile: path + ".corrupt-2", encoding: .utf8) == foreign)
      #expect(try String(contentsOfFile: path + ".corrupt-1", encoding: .utf8) == "older copy")
      #expect(!FileManager.default.fileExists(atPath: path))

      reader.addHistory("help")
      #expect(reader.saveHistory() == nil)
      #expect(try makeReader(path).historyEntries() == ["help"])
    }
  }

  @Test func unwritablePathGivesAWarning() throws {
    try withTemporaryDirectory { directory in
      // The history path is a directory: loading and saving both fail, gently.
      let path = directory + "/history"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      let reader = try makeReader(path)
      reader.addHistory("help")
      let warning = try #require(reader.saveHistory())
      #expect(warning.contains("cannot save the history to \(path)"))
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["history"])

      // A parent that is a file.
      let file = directory + "/file"
      #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
      let blocked = try makeReader(file + "/oplab/history")
      blocked.addHistory("help")
      let blockedWarning = try #require(blocked.saveHistory())
      #expect(blockedWarning.contains("cannot create the history directory \(file):"))
    }
  }

  @Test func noPathKeepsHistoryInMemory() throws {
    let reader = try makeReader(nil)
    reader.addHistory("run")
    #expect(reader.historyEntries() == ["run"])
    #expect(reader.saveHistory() == nil)
  }
}

// MARK: - Writing long output

@Suite struct OutputChunkTests {
  @Test("Long output is written in chunks that end at a line end, so Ctrl-C never leaves half a line")
  func chunksEndAtLineEnds() {
    let line = Array("\u{1B}[32m████ é ok\u{1B}[0m\n".utf8)  // colour and multi-byte characters
    let bytes = Array(repeatElement(line, count: 3 * Shell.chunkSize / line.count).joined())
    var offset = 0
    var chunks = 0
    while offset < bytes.count {
      let end = Shell.chunkEnd(bytes, from: offset)
      #expect(end > offset)
      #expect(end - offset >= min(Shell.chunkSize, bytes.count - offset))
      #expect(end == bytes.count || bytes[end - 1] == UInt8(ascii: "\n"))
      offset = end
      chunks += 1
    }
    #expect(chunks == 3 || chunks == 4)
  }

  @Test("A line longer than a chunk is cut at a character boundary, never inside a character")
  func longLinesCutAtCharacters() {
    let bytes = Array(String(repeating: "é", count: 2 * Shell.chunkSize).utf8)  // 2 bytes each, no newline
    let end = Shell.chunkEnd(bytes, from: 1)  // from the middle of a character, as after a partial write
    #expect(end <= 1 + 2 * Shell.chunkSize && end > 1 + Shell.chunkSize)
    #expect(bytes[end] & 0b1100_0000 != 0b1000_0000)  // the next chunk starts a character
    #expect(Shell.chunkEnd(bytes, from: bytes.count - 10) == bytes.count)
  }
}
