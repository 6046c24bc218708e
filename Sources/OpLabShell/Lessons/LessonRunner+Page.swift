import OpLabRender

/// The lesson's page and terminal: everything a lesson shows goes out through here, fitted
/// to the width, gathered into a page between prompts (shown through the pager when it is
/// taller than the screen), and every line the learner types comes in through here.
extension LessonRunner {
  /// Shows `text` fitted to the width: gathered into the page, if one is being gathered.
  /// - Parameter asIs: `text` is laid out already (code): it is shown as it is.
  func write(_ text: String, asIs: Bool = false) {
    let fitted = asIs ? text : Wrap.text(text, width: options.width, ascii: options.ascii)
    lastTimeline?.linesSince += fitted.filter { $0 == "\n" }.count
    if page != nil { page? += fitted } else { output(fitted) }
  }

  /// Starts gathering a page at item `index`, unless one is being gathered: on a screen (or
  /// measured by `lesson check`), what comes up to the next prompt is one page, a
  /// prediction's reveal and verdict as much as narrative, shown by one rule.
  func beginPage(at index: Int) {
    guard page == nil, screenRows != nil, showPage != nil || tallPage != nil else { return }
    page = ""
    pageStart = index
  }

  /// Shows the page gathered so far: through ``showPage`` when it is taller than the screen
  /// (printed after all, and why said below it, when the pager could not show it).
  func flushPage() {
    guard let text = page else { return }
    page = nil
    if text.isEmpty { return }
    if let rows = screenRows, let measure = tallPage {
      let height = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
      if Pager.isTaller(text, than: rows, width: options.width) { measure(pageStart, height) }
      output(text)
      return
    }
    if let rows = screenRows, let show = showPage, Pager.isTaller(text, than: rows, width: options.width) {
      guard let failure = show(text) else { return }  // shown by the pager
      output(text)
      write(failure + "\n")
      return
    }
    output(text)
  }

  /// Reads what the learner typed; a piped line too long to keep is said and skipped
  /// (a fresh prompt follows, as after Ctrl-C). A lab command goes into the history the lab
  /// shares (Up and Ctrl-R find it at any prompt, in the lab too); the lesson's own words and,
  /// with `remember` false, a prediction's answer do not.
  func readLine(prompt: String, remember: Bool = true) -> LineInput {
    flushPage()
    let input = reader.readLine(prompt: prompt)
    if remember, case .line(let line) = input, Self.isRemembered(line) { reader.addHistory(line) }
    guard case .tooLong(let start, let bytes) = input else { return input }
    write(indent("error: \(Visible.escape(LineInput.tooLongMessage(start: start, bytes: bytes)))\n"))
    return .interrupted
  }

  /// Whether a line typed at a lesson prompt belongs in the history: not a blank line, not
  /// one of the lesson's own words (`next`, `hint`…).
  static func isRemembered(_ line: String) -> Bool {
    let word = String(line.filter { $0 != " " && $0 != "\t" }).lowercased()
    return !word.isEmpty && PromptCommand.Word(rawValue: word) == nil
  }

  /// The learner takes over: `undo` takes back only what is typed from now on — or, just
  /// after a resume, also what they had typed before they left.
  func handOver() {
    if let floor = resumedFloor {
      interpreter.undoFloor = min(floor, interpreter.script.count)
      resumedFloor = nil
    } else {
      interpreter.undoFloor = interpreter.script.count
    }
  }

  /// How far the lesson's own commands and their replies are indented: 4 columns, fewer
  /// on a terminal too narrow to spare them.
  var indentWidth: Int { min(4, max(0, options.width - Wrap.narrowest)) }

  /// `text` with each line indented by ``indentWidth``, as the lesson's own commands and
  /// their replies are shown.
  func indent(_ text: String) -> String {
    let margin = String(repeating: " ", count: indentWidth)
    return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
      .map { margin + $0 + "\n" }.joined()
  }

  /// Prose at a reading measure: the terminal's width, at most 80 columns.
  func wrap(_ paragraph: String) -> String {
    Wrap.paragraph(paragraph, width: min(options.width, 80), ascii: options.ascii)
  }
}
