import ArgumentParser
import OpLabShell

/// `oplab`: the terminal lab for learning Operation and OperationQueue.
@main
struct OpLabCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oplab",
    abstract: "A terminal lab for learning Operation and OperationQueue.",
    version: Shell.version
  )

  @Argument(help: "A script of lab commands to run instead of the interactive shell.")
  var script: String?

  func run() throws {
    let status = Shell.main(script: script)
    if status != 0 { throw ExitCode(status) }
  }
}
