/// Reads `.lesson` files. The format is line based, so errors point at a line and column:
///
/// ```
/// title: An Operation's life
///
/// Narrative paragraphs: any lines that are not directives. A blank line ends a paragraph.
///
/// run:
///   queue work max 1
///   op download on work takes 3
///
/// predict: Which operation starts at t=3?
///   choice: download
///   choice: filter
///   answer: filter
///   reveal: step 3
///   verify: started filter at 3
///   explain: download held the only slot until t=3.
///
/// task: Make the filter run even though the download fails.
///   hint: A failed operation is still finished.
///   check: finished filter
///   solution: run
///
/// expect: finished download at 3
/// ---
/// ```
public enum LessonParser {
  static let blockKeys: [String: [String]] = [
    "run": [],
    "quiet": [],
    "predict": ["choice", "means", "feedback", "answer", "reveal", "verify", "explain"],
    "again": ["setup", "choice", "means", "feedback", "answer", "reveal", "verify", "explain"],
    "task": ["hint", "check", "else", "solution"],
    "exercise": ["file", "solution", "fails", "sanitize", "lab", "check", "else", "hint"],
    "expect": [],
    "code": [],
  ]

  /// Parses a lesson file's text.
  /// - Throws: ``LessonError`` pointing at the first problem.
  public static func parse(_ text: String, file: String) throws(LessonError) -> Lesson {
    let base = file.split(separator: "/").last.map(String.init) ?? file
    let stem = base.hasSuffix(".lesson") ? String(base.dropLast(7)) : base
    let digits = stem.prefix { $0.isNumber }
    var lesson = Lesson(
      id: String(stem.drop { $0.isNumber || $0 == "-" || $0 == "_" }),
      number: Int(digits) ?? 0, title: stem, file: file, items: [])
    if lesson.id.isEmpty { lesson.id = stem }

    func fail(_ line: Int, _ column: Int, _ message: String, hint: String? = nil) -> LessonError {
      LessonError(file: file, line: line, column: column, message: message, hint: hint)
    }

    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
    var paragraph: [String] = []
    var paragraphLine = 0
    var sawTitle = false
    func flush() {
      if !paragraph.isEmpty {
        lesson.paragraphLines[lesson.items.count] = paragraphLine
        lesson.items.append(.text(paragraph.joined(separator: " ")))
      }
      paragraph = []
    }

    var i = 0
    while i < lines.count {
      let raw = lines[i]
      let number = i + 1
      i += 1
      let trimmed = raw.trimmingWhitespace()
      if trimmed.isEmpty { flush(); continue }
      // A comment, for the lesson's writers: never shown (`# TODO …`).
      if raw.first == "#" { continue }
      if raw.first == " " || raw.first == "\t" {
        let previous = number >= 2 ? lines[number - 2] : ""
        // Most often the block's own line is misspelt (`predikt:`), and was read as narrative.
        if let (key, _, _) = directive(previous), blockKeys[key] == nil,
          let guess = Suggest.closest(to: key, in: Array(blockKeys.keys))
        {
          throw fail(number - 1, 1, "'\(key):' is not a kind of block", hint: "did you mean '\(guess):'?")
        }
        // Or its colon is missing (`predict Which…`).
        if let word = previous.split(separator: " ").first.map(String.init), blockKeys[word] != nil {
          throw fail(number - 1, word.count + 1, "'\(word)' needs a colon to start a block", hint: "write `\(word):`")
        }
        // Or a blank line ended the block above.
        if previous.trimmingWhitespace().isEmpty,
          let last = lines[..<(number - 1)].last(where: { !$0.trimmingWhitespace().isEmpty }), last.first == " " || last.first == "\t"
        {
          throw fail(
            number - 1, 1, "a blank line ends a block, so the indented line after it has no block",
            hint: "remove the blank line (a block's lines follow one another)")
        }
        throw fail(number, 1, "an indented line outside a block", hint: "indent only the lines under run:, predict:, task: or expect:")
      }
      if trimmed.count >= 3, trimmed.allSatisfy({ $0 == "-" }) { flush(); lesson.items.append(.pause); continue }
      // A line of a block at column 1 (`check: …` not indented under its `task:`).
      // (Only as the block's line is written, in lower case: "Hint: …" in a paragraph is narrative.)
      if let (key, _, _) = directive(raw), raw.hasPrefix(key + ":"),
        let owner = ["predict", "task", "again", "exercise"].first(where: { blockKeys[$0]?.contains(key) == true })
      {
        throw fail(number, 1, "'\(key):' belongs inside a \(owner): block", hint: "indent it under its \(owner): line")
      }
      guard let (key, value, valueColumn) = directive(raw), key == "title" || key == "id" || blockKeys[key] != nil else {
        if trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ") { flush() }  // a list item starts its own line
        if paragraph.isEmpty { paragraphLine = number }
        paragraph.append(trimmed)
        continue
      }
      flush()
      // The block's indented lines, as (key, value, line, column).
      var body: [(key: String, value: String, line: Int, column: Int)] = []
      while blockKeys[key] != nil, i < lines.count, let first = lines[i].first, first == " " || first == "\t" {
        let line = lines[i]
        let indent = line.prefix { $0 == " " || $0 == "\t" }.count
        let content = String(line.dropFirst(indent)).trimmingWhitespace()
        if !content.isEmpty {
          if key == "code" {
            body.append(("", line, i + 1, indent + 1))
          } else if key == "run" || key == "quiet" || key == "expect" {
            body.append(("", content, i + 1, indent + 1))
          } else if let (k, v, c) = directive(String(line.dropFirst(indent))) {
            body.append((k, v, i + 1, indent + c))
          } else {
            throw fail(i + 1, indent + 1, "expected 'key: value' under \(key):", hint: "one of: " + (blockKeys[key] ?? []).joined(separator: ", "))
          }
        }
        i += 1
      }
      for entry in body where key != "run" && key != "quiet" && key != "expect" && key != "code" {
        let allowed = blockKeys[key] ?? []
        if !allowed.contains(entry.key) {
          let guess = Suggest.closest(to: entry.key, in: allowed)
          throw fail(
            entry.line, entry.column - entry.key.count - 2 < 1 ? 1 : entry.column - entry.key.count - 2,
            "'\(entry.key)' does not belong under \(key):",
            hint: guess.map { "did you mean '\($0)'?" } ?? "use one of: " + allowed.joined(separator: ", "))
        }
      }
      func sources(_ k: String) -> [SourceLine] {
        body.filter { $0.key == k }.map { SourceLine(text: $0.value, line: $0.line, column: $0.column) }
      }
      func conditions(_ list: [SourceLine]) throws(LessonError) -> [CheckedCondition] {
        var out: [CheckedCondition] = []
        for s in list {
          do {
            out.append(CheckedCondition(condition: try Condition.parse(s.text), source: s))
          } catch {
            throw fail(s.line, s.column + error.column - 1, error.message, hint: error.hint)
          }
        }
        return out
      }
      // The choices, each with the means: and feedback: lines right under it.
      func choiceOptions(_ body: [(key: String, value: String, line: Int, column: Int)], under block: String) throws(LessonError) -> [Choice] {
        var options: [Choice] = []
        var previous = ""
        for entry in body {
          defer { previous = entry.key }
          let s = SourceLine(text: entry.value, line: entry.line, column: entry.column)
          switch entry.key {
          case "choice":
            options.append(Choice(text: entry.value, source: s))
          case "means", "feedback":
            guard let last = options.indices.last, ["choice", "means", "feedback"].contains(previous) else {
              throw fail(
                entry.line, max(1, entry.column - entry.key.count - 2),
                options.isEmpty
                  ? "\(entry.key): comes under the choice: it is about"
                  : "\(entry.key): must follow its choice: (a line between them ends the choice)",
                hint:
                  "write it right under its `choice:` line, e.g.\n    choice: 5\n      means: started f1 at 5\n      feedback: why a learner would pick 5, and what happens instead"
              )
            }
            if entry.key == "means" {
              options[last].means += try conditions([s])
            } else {
              do {
                _ = try LessonText.placeholders(in: s.text)
              } catch {
                throw fail(s.line, s.column + error.offset, error.message, hint: error.hint)
              }
              options[last].feedback += (options[last].feedback.isEmpty ? "" : " ") + s.text
            }
          default: break
          }
        }
        return options
      }
      // A block that lacks a line it needs most often has it just below, cut off by a
      // blank line or not indented: say that, where it is.
      func missing(_ what: String, hint: String) -> LessonError {
        var j = i
        while j < lines.count, lines[j].trimmingWhitespace().isEmpty { j += 1 }
        if j < lines.count {
          let next = lines[j]
          if next.first == " " || next.first == "\t" {
            return fail(
              j, 1, "a blank line ends a block, so the indented line after it has no block",
              hint: "remove the blank line (a block's lines follow one another)")
          }
          if let (k, _, _) = directive(next), next.hasPrefix(k + ":"), (blockKeys[key] ?? []).contains(k) {
            return fail(j + 1, 1, "'\(k):' belongs inside a \(key): block", hint: "indent it under its \(key): line")
          }
        }
        return fail(number, 1, what, hint: hint)
      }
      switch key {
      case "title":
        if sawTitle { throw fail(number, 1, "a second title: line", hint: "a lesson has one title; the first is on an earlier line") }
        lesson.title = value
        sawTitle = true
      case "id":
        lesson.id = value
      case "run", "quiet":
        var commands = sources("")
        if !value.isEmpty { commands.insert(SourceLine(text: value, line: number, column: valueColumn), at: 0) }
        guard !commands.isEmpty else { throw fail(number, 1, "\(key): has no commands", hint: "put them on the next lines, indented") }
        lesson.items.append(key == "run" ? .run(commands) : .quiet(commands))
      case "code":
        // Code shown as written (Swift the lab does not simulate): indented lines, the
        // block's common indent removed, never wrapped.
        guard value.isEmpty else {
          throw fail(number, valueColumn, "code: takes its lines on the next lines, indented", hint: "put the first line of code under `code:`")
        }
        let code = sources("")
        guard !code.isEmpty else { throw fail(number, 1, "code: has no lines", hint: "put them on the next lines, indented") }
        let margin = code.map { $0.text.prefix { $0 == " " }.count }.min() ?? 0
        // Shown with the lesson's 4-column indent, never wrapped: 76 columns fit 80.
        if let wide = code.first(where: { $0.text.count - margin > 76 }) {
          throw fail(
            wide.line, margin + 77,
            "this line of code is \(wide.text.count - margin) columns wide: code is never wrapped, and fits 80 columns only within 76",
            hint: "break the line, or shorten its comment")
        }
        lesson.items.append(.code(code.map { SourceLine(text: String($0.text.dropFirst(margin)), line: $0.line, column: margin + 1) }))
      case "expect":
        var list = sources("")
        if !value.isEmpty { list.insert(SourceLine(text: value, line: number, column: valueColumn), at: 0) }
        guard !list.isEmpty else { throw fail(number, 1, "expect: has no conditions") }
        lesson.items.append(.expect(try conditions(list)))
      case "predict", "again":
        guard !value.isEmpty else { throw fail(number, 1, "\(key): needs a question after the colon") }
        let options = try choiceOptions(body, under: key)
        let choices = options.map(\.text)
        if choices.count > 8, let ninth = sources("choice").dropFirst(8).first {
          throw fail(ninth.line, 1, "a prediction has at most 8 choices (a to h)", hint: "drop some, or ask for a typed answer")
        }
        guard let answer = sources("answer").first else {
          throw missing("\(key): needs an answer: line", hint: "the answer the learner's prediction is judged by")
        }
        if !choices.isEmpty, !choices.contains(where: { Answers.matches(answer.text, $0) }) {
          throw fail(answer.line, answer.column, "the answer '\(answer.text)' is not one of the choices")
        }
        // What one choice claims, all do: then exactly one can be proved true.
        if options.contains(where: { !$0.means.isEmpty }), let bare = options.first(where: { $0.means.isEmpty }) {
          throw fail(
            bare.source.line, max(1, bare.source.column - 8),
            "the choice '\(bare.text)' has no means: line, though other choices of this \(key): have one",
            hint: "give every choice a means: (so lesson check proves only the answer's holds), or none")
        }
        let verify = try conditions(sources("verify"))
        let explain = sources("explain").map(\.text).joined(separator: " ")
        if key == "predict" {
          lesson.items.append(
            .predict(
              Prediction(
                question: value, options: options, answer: answer.text, reveal: sources("reveal"),
                verify: verify, explain: explain, line: number, answerSource: answer)))
        } else {
          // A second case belongs to the prediction just above it.
          guard case .predict(var first)? = lesson.items.last else {
            throw fail(number, 1, "again: must follow its predict: block", hint: "put it right after the predict: block it is a second case of")
          }
          if first.again != nil { throw fail(number, 1, "a prediction has one again: block", hint: "the first one is above") }
          first.again = SecondCase(
            question: value, setup: sources("setup"), options: options, answer: answer.text, reveal: sources("reveal"),
            verify: verify, explain: explain, line: number, answerSource: answer)
          lesson.items[lesson.items.count - 1] = .predict(first)
        }
      case "task":
        guard !value.isEmpty else { throw fail(number, 1, "task: needs a goal after the colon") }
        // `else:` is the message for the `check:` just above it.
        var checks: [CheckedCondition] = []
        var previous = ""
        for entry in body {
          defer { previous = entry.key }
          guard entry.key == "check" || entry.key == "else" else { continue }
          let s = SourceLine(text: entry.value, line: entry.line, column: entry.column)
          if entry.key == "check" {
            checks += try conditions([s])
            continue
          }
          // Consecutive else: lines are one message.
          if previous == "else", let last = checks.indices.last, let message = checks[last].message {
            do {
              _ = try LessonText.placeholders(in: s.text)
            } catch {
              throw fail(s.line, s.column + error.offset, error.message, hint: error.hint)
            }
            checks[last].message?.text = message.text + " " + s.text
            continue
          }
          guard let last = checks.indices.last, checks[last].message == nil else {
            throw fail(
              entry.line, max(1, entry.column - 6), checks.isEmpty ? "else: comes after the check: it explains" : "this check: has an else: already",
              hint: "write one else: line right under each check: line")
          }
          do {
            _ = try LessonText.placeholders(in: s.text)
          } catch {
            throw fail(s.line, s.column + error.offset, error.message, hint: error.hint)
          }
          checks[last].message = s
        }
        guard !checks.isEmpty else { throw missing("task: needs at least one check: line", hint: "checks say when the task is done") }
        let solution = sources("solution")
        guard !solution.isEmpty else { throw missing("task: needs a solution: line", hint: "skip shows it; lesson check runs it") }
        lesson.items.append(.task(LessonTask(goal: value, hints: sources("hint").map(\.text), checks: checks, solution: solution, line: number)))
      case "exercise":
        lesson.items.append(.exercise(try exercise(goal: value, line: number, body: body, missing: missing, fail: fail)))
      default:
        break
      }
    }
    flush()
    if !sawTitle { throw fail(1, 1, "the lesson has no title: line", hint: "start the file with: title: What this lesson teaches") }
    return lesson
  }

  /// `key: value` at the start of a line, with the 1-based column where the value starts.
  static func directive(_ line: String) -> (String, String, Int)? {
    guard let colon = line.firstIndex(of: ":") else { return nil }
    let key = line[..<colon]
    guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0 == "-" }) else { return nil }
    let rest = line[line.index(after: colon)...]
    let spaces = rest.prefix { $0 == " " || $0 == "\t" }.count
    let value = String(rest.dropFirst(spaces)).trimmingWhitespace()
    return (key.lowercased(), value, key.count + 2 + spaces)
  }
}

/// Comparing a learner's answer with the lesson's.
public enum Answers {
  /// Case, spacing, commas, end punctuation and a tick's `t=` do not matter: "D2, d1."
  /// matches "d2 d1", and "t=7" matches "7" (the lab prints ticks as `t=7`).
  public static func normalize(_ s: String) -> String {
    s.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).compactMap { word -> String? in
      var w = Substring(word)
      while let first = w.first, "([".contains(first) { w.removeFirst() }
      while let last = w.last, ".;:!?)]".contains(last) { w.removeLast() }
      if w.hasPrefix("t="), w.count > 2, w.dropFirst(2).allSatisfy(\.isNumber) { w = w.dropFirst(2) }
      return w.isEmpty ? nil : String(w)
    }.joined(separator: " ")
  }

  /// Whether two answers say the same.
  public static func matches(_ a: String, _ b: String) -> Bool { normalize(a) == normalize(b) }

  /// The choice a typed answer names: the one it says in full, else the only one that
  /// holds its words in a row ("when w2 finishes" or "11" for "when w2 finishes (t=11)").
  /// `nil` when none does, or several do.
  public static func choice(named typed: String, among choices: [String]) -> Int? {
    if let exact = choices.firstIndex(where: { matches(typed, $0) }) { return exact }
    let words = normalize(typed).split(separator: " ")
    guard !words.isEmpty else { return nil }
    let holding = choices.indices.filter { i in
      let c = normalize(choices[i]).split(separator: " ")
      return c.count >= words.count && (0...(c.count - words.count)).contains { Array(c[$0..<($0 + words.count)]) == words }
    }
    return holding.count == 1 ? holding[0] : nil
  }
}

extension String {
  func trimmingWhitespace() -> String {
    var s = Substring(self)
    while let f = s.first, f.isWhitespace { s.removeFirst() }
    while let l = s.last, l.isWhitespace { s.removeLast() }
    return String(s)
  }
}
