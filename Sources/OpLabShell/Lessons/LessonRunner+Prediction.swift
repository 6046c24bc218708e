import OpLabCore

/// Predictions: the question and its choices, the learner's answer (a letter, a choice's
/// words, or typed words) graded against what the simulation shows, the warnings held
/// back while it was set up, and a second case after a wrong answer.
extension LessonRunner {
  /// Asks the prediction `p`, takes the learner's answer, then runs its reveal and grades
  /// the answer against what happened. The reveal, the verdict and the explanation are a
  /// page of their own: through the pager when taller than the screen, as narrative is.
  /// - Parameter index: the prediction's item in the lesson (where its reveal's page begins).
  /// - Returns: where the lesson goes next.
  func predict(_ p: Prediction, at index: Int) -> Move {
    preview?.asked(p)
    write(wrap("? " + LessonText.fillProse(p.question, world: interpreter.world)) + "\n")
    let letters = Array("abcdefgh")
    for (i, choice) in p.choices.enumerated() where i < letters.count { write("   \(letters[i])) \(choice)\n") }
    let listed = letters.prefix(min(p.choices.count, letters.count)).map(String.init)
    let letterList = listed.count == 1 ? listed[0] : listed.dropLast().joined(separator: ", ") + " or " + (listed.last ?? "a")
    write(PromptCommand.predictionHelp(letters: p.choices.isEmpty ? nil : letterList) + "\n")
    var answer: String?
    while answer == nil {
      switch readLine(prompt: "your prediction> ", remember: false) {
      case .endOfInput: return .quit
      case .interrupted, .tooLong: continue  // a too-long line was said by readLine
      case .line(let raw):
        let line = raw.trimmingWhitespace()
        if line.isEmpty {
          write("Type your prediction (or `skip` to see the answer).\n")
        } else if let command = PromptCommand.recognised(line, at: .prediction) {
          switch command.meaning {
          case .goBack: return .back
          case .leave: return .quit
          case .say(let text): write(text + "\n")
          case .own: answer = ""  // `skip`: the answer is shown, as for a learner who gave none
          case .goOn: break
          }
        } else {
          answer = take(raw, as: p, letters: letters)
        }
      }
    }
    beginPage(at: index)
    for c in p.reveal { show(c.text) }
    if !heldWarnings.isEmpty {
      write("The lab's warning from setting this up, held until you answered:\n")
      for w in heldWarnings { write(w) }
      heldWarnings = []
    }
    var said = answer ?? ""
    var wrong = false
    // Echoed inside a sentence: without the learner's own end punctuation.
    while let last = said.last, ".!?;:,".contains(last) { said.removeLast() }
    if said.isEmpty, answer?.isEmpty == false { said = answer ?? "" }
    // The answer was written for the lesson's world; the learner's own (a task solved
    // another way) may show something else, and then it is not theirs to be judged by.
    let differs =
      p.verify.contains { !$0.condition.holds(in: interpreter.world) }
      || p.answerChoice.map { !$0.means.isEmpty && !LessonChecker.claimHolds($0, in: interpreter.world) } == true
    if differs {
      let yours = said.isEmpty ? "" : "You predicted \(said). "
      write(
        wrap("\(yours)In the lesson's world the answer is \(p.answer); your world went another way, so look at what it shows (`timeline`, `why`).")
          + "\n")
    } else if said.isEmpty {
      write("The answer: \(p.answer).\n")
    } else if Answers.matches(said, p.answer) {
      write(wrap("✓ You predicted \(said), and that is what happened.") + "\n")
    } else {
      write(wrap("✗ You predicted \(said); the simulation shows \(p.answer).") + "\n")
      wrong = true
    }
    // The diagnosis of the belief behind the choice the learner picked, in the lesson's words.
    if !differs, !said.isEmpty, let picked = p.options.first(where: { Answers.matches($0.text, said) }), !picked.feedback.isEmpty {
      write(wrap(LessonText.fillProse(picked.feedback, world: interpreter.world)) + "\n")
    }
    if !p.explain.isEmpty { write(wrap(LessonText.fillProse(p.explain, world: interpreter.world)) + "\n") }
    write("\n")
    // The answer is a page of its own: what follows it is the next page, measured as any.
    flushPage()
    if wrong, let again = p.again { return secondCase(again, at: index) }
    return .next
  }

  /// A line typed at a prediction that is none of the prompt's own words: the answer it
  /// gives, or `nil` when it gives none (a lab command that only looks is run; what is wrong
  /// with an answer that cannot be graded is said).
  func take(_ raw: String, as p: Prediction, letters: [Character]) -> String? {
    let line = raw.trimmingWhitespace()
    // A choice's letter, as typed or as listed: `b`, `b)`, `(b)`, `b.`; or its words.
    let letter = line.lowercased().filter { !"().:".contains($0) }
    if letter.count == 1, let k = letters.firstIndex(of: Character(letter)), k < p.choices.count {
      return p.choices[k]
    } else if let k = Answers.choice(named: line, among: p.choices) {
      return p.choices[k]
    } else if let command = spelledOutCommand(line) {
      // A lab command, not an answer: looking is fine; changing the world the question
      // is about waits until the answer is in.
      if (try? command.get())?.onlyLooks == true {
        free(raw, prompt: "your prediction> ")
      } else if case .failure = command, !p.choices.isEmpty {
        // It does not parse (and is no choice): its error says what is wrong; nothing changes.
        free(raw, prompt: "your prediction> ")
      } else if case .success = command {
        write(
          "That would change the world the question is about: it can wait until after your answer. `status`, `timeline`, `events`, `why OP` and `graph` work now.\n"
        )
      } else {
        return line  // a typed answer that happens to start with a command's name
      }
    } else if !p.choices.isEmpty {
      let listed = letters.prefix(p.choices.count).map(String.init)
      write("Pick one of \(listed.joined(separator: ", ")) (a letter, or words of one choice; `skip` shows the answer).\n")
    } else if let short = incomplete(line, for: p) {
      write(short)
    } else {
      return line
    }
    return nil
  }

  /// After a wrong prediction: a similar case to predict, in a what-if branch of the world,
  /// left afterwards so the lesson goes on from the world the first reveal made.
  /// - Parameter index: the prediction's item in the lesson.
  func secondCase(_ again: SecondCase, at index: Int) -> Move {
    write(wrap("Try a second case like it. It runs in a what-if branch: the lesson's world comes back after it.") + "\n")
    let fork = interpreter.execute("fork")
    guard fork.error == nil else { return .next }
    for c in again.setup { show(c.text, holdingWarnings: true) }
    let move = predict(again.prediction, at: index)
    _ = interpreter.execute("unfork")
    heldWarnings = []
    if move == .next { write("(Back in the lesson's world, at t=\(interpreter.world.now).)\n\n") }
    return move
  }

  /// Why a typed answer cannot be graded yet: it names fewer of the answer's items than the
  /// question asks for (`b d` for `b d c a`). `nil` when it is complete enough to grade.
  func incomplete(_ typed: String, for p: Prediction) -> String? {
    let want = Answers.normalize(p.answer).split(separator: " ")
    let got = Answers.normalize(typed).split(separator: " ")
    // A number asked for (`8`, `t=8`): an answer with no number in it is asked again.
    let digits: (Substring) -> Bool = { $0.contains(where: \.isNumber) }
    if want.count == 1, let w = want.first, digits(w), !got.contains(where: digits) {
      return wrap("The answer is a number (a tick such as 8, or t=8): type one (or `skip` to see the answer).") + "\n"
    }
    guard want.count > 1, !got.isEmpty, got.count < want.count else { return nil }
    // Only a list of names: each word one of the answer's, or an operation of the world.
    let world = interpreter.world
    let names = Set(world.operationNames.map { $0.lowercased() })
    guard got.allSatisfy({ want.contains($0) || names.contains(String($0)) }) else { return nil }
    return wrap("That names \(got.count) of the \(want.count) the question asks for: type all \(want.count), in order (or `skip` to see the answer).")
      + "\n"
  }

  /// The line as a lab command, when its first word is a command's full name (not an
  /// alias such as `b` or `s`, which typed answers start with): parsed, or why not.
  func spelledOutCommand(_ line: String) -> Result<Command, ParseError>? {
    guard let first = Lexer.tokens(line).first, CommandTable.all.contains(where: { $0.name == first.text.lowercased() }) else { return nil }
    do {
      guard let command = try Parser.parse(line, context: interpreter.context) else { return nil }
      return .success(command)
    } catch {
      return .failure(error)
    }
  }
}
