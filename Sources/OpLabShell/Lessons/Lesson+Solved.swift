extension Lesson {
  /// A lab that has run the whole lesson as its author solved it: the commands it runs,
  /// each prediction's reveal and each task's solution, in order. The world the lesson
  /// ends in (its last `reset` onwards), e.g. to export it as Swift.
  public func solved(options: ShellOptions = ShellOptions()) -> Interpreter {
    let interpreter = Interpreter(options: options)
    for item in items {
      switch item {
      case .run(let commands), .quiet(let commands): for c in commands { _ = interpreter.execute(c.text) }
      case .predict(let p): for c in p.reveal { _ = interpreter.execute(c.text) }
      case .task(let t): for c in t.solution { _ = interpreter.execute(c.text) }
      default: break
      }
    }
    return interpreter
  }
}
