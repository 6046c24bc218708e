import ArgumentParser
import OpLabCore
import OpLabShell

/// Options shared by every way of running the lab.
struct DisplayOptions: ParsableArguments {
  @Flag(help: "Never use colour (NO_COLOR in the environment does the same).")
  var noColor = false

  @Flag(help: "Draw with ASCII characters only.")
  var ascii = false

  @Option(help: "Columns for timelines (default: 80).")
  var width: Int?

  @Option(help: "Imitate Foundation on 'apple' platforms (default) or on 'linux'.")
  var platform: String = "apple"

  func validate() throws {
    if Platform(rawValue: platform.lowercased()) == nil {
      throw ValidationError("--platform takes 'apple' or 'linux', not '\(platform)'")
    }
    if let width, width < 20 { throw ValidationError("--width must be 20 or more") }
  }

  var shellOptions: ShellOptions {
    var o = ShellOptions()
    o.ascii = ascii
    o.width = width ?? 80
    o.color = false
    o.platform = Platform(rawValue: platform.lowercased()) ?? .apple
    return o
  }
}

/// `oplab`: the terminal lab for learning Operation and OperationQueue.
@main
struct OpLab: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oplab",
    abstract: "A terminal lab for learning Operation and OperationQueue.",
    discussion: """
      With no subcommand, opens the interactive lab on a terminal, or reads commands from
      standard input when it is a pipe or a file.
      """,
    version: Shell.version,
    subcommands: [Interactive.self, RunScripts.self],
    defaultSubcommand: Interactive.self
  )
}

/// The interactive lab (or batch from a pipe).
struct Interactive: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "shell", abstract: "Open the lab (the default).")

  @OptionGroup var display: DisplayOptions

  @Flag(help: "With piped input, go on after an error (the exit status is still 1).")
  var keepGoing = false

  func run() throws {
    let status = Shell.main(options: display.shellOptions, keepGoing: keepGoing)
    if status != 0 { throw ExitCode(status) }
  }
}

/// `oplab run FILE...`.
struct RunScripts: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Run script files non-interactively, in one session.")

  @OptionGroup var display: DisplayOptions

  @Flag(help: "Go on after an error (the exit status is still 1).")
  var keepGoing = false

  @Argument(help: "Script files of lab commands.")
  var files: [String]

  func validate() throws {
    if files.isEmpty { throw ValidationError("name at least one script file") }
  }

  func run() throws {
    let status = Shell.run(files: files, options: display.shellOptions, keepGoing: keepGoing)
    if status != 0 { throw ExitCode(status) }
  }
}
