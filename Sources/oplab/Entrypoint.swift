import ArgumentParser
import Foundation
import OpLabCore
import OpLabRender
import OpLabShell

/// Options shared by every way of running the lab.
struct DisplayOptions: ParsableArguments {
  @Flag(help: "Never use colour (NO_COLOR in the environment does the same).")
  var noColor = false

  @Flag(help: "Draw with ASCII characters only.")
  var ascii = false

  @Option(help: "Columns for timelines, 40 to 1000 (default: the terminal's, else 80).")
  var width: Int?

  @Option(help: "Imitate Foundation on 'apple' platforms or on 'linux'.")
  var platform: String = "apple"

  func validate() throws {
    if Platform(rawValue: platform.lowercased()) == nil {
      throw ValidationError("--platform takes 'apple' or 'linux', not '\(platform)'")
    }
    if let width, !Timeline.widths.contains(width) {
      throw ValidationError(
        "--width takes \(Timeline.widths.lowerBound) to \(Timeline.widths.upperBound) columns, not \(width)")
    }
  }

  var shellOptions: ShellOptions {
    var o = ShellOptions()
    o.ascii = ascii
    o.width = width ?? 80
    o.widthGiven = width != nil
    o.color = !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    o.platform = Platform(rawValue: platform.lowercased()) ?? .apple
    return o
  }
}

/// Options of batch runs, shared like ``DisplayOptions``: a group, so that `oplab run
/// --keep-going` reaches the subcommand (ArgumentParser gives a flag the parent and the
/// child each declare to the parent, and the child's stayed false).
struct BatchOptions: ParsableArguments {
  @Flag(help: "Go on after an error in a script or in piped input (the exit status is still 1).")
  var keepGoing = false
}

/// A usage line broken between its words to fit 80 columns after ArgumentParser's
/// `USAGE: ` (and its error messages' `Usage: `), which indent the lines after the first
/// to match: ArgumentParser prints its own usage on one line, and a terminal then breaks it
/// wherever column 80 falls, inside `[--keep-going]`.
func usage(_ words: [String]) -> String {
  var lines = [""]
  for word in words {
    if !lines[lines.count - 1].isEmpty, 7 + lines[lines.count - 1].count + 1 + word.count > 80 { lines.append("") }
    lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + word
  }
  return lines.joined(separator: "\n")
}

/// The options every command takes, as its usage line lists them.
let displayUsage = ["[--no-color]", "[--ascii]", "[--width <width>]", "[--platform <platform>]"]

/// `oplab`: the terminal lab for learning Operation and OperationQueue.
@main
struct OpLab: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oplab",
    abstract: "A terminal lab for learning Operation and OperationQueue.",
    usage: usage(["oplab"] + displayUsage + ["[--keep-going]", "[--recover]", "<subcommand>"]),
    discussion: "Opens the lab on a terminal, or runs commands piped to standard input.",
    version: Shell.version,
    subcommands: [RunScripts.self, Lessons.self]
  )

  @OptionGroup var display: DisplayOptions
  @OptionGroup var batch: BatchOptions

  @Flag(help: "Restore the last session that ended without quitting (a crash, kill -9, a closed terminal).")
  var recover = false

  @Flag(help: ArgumentHelp("Print the man page (mdoc) and exit: make install writes oplab.1 with it.", visibility: .hidden))
  var generateManPage = false

  @Flag(help: ArgumentHelp("Print the lab's command reference (Markdown) and exit: docs/commands.md is this.", visibility: .hidden))
  var generateCommandReference = false

  func run() throws {
    if generateManPage {
      let page = try ManPage.render(description: Self.commandLineDescription(), date: Date())
      // main prints it, with a newline of its own, and checks that it was written.
      throw CleanExit.message(String(page.dropLast()))
    }
    if generateCommandReference { throw CleanExit.message(String(CommandReference.markdown().dropLast())) }
    let status = Shell.checked(Shell.main(options: display.shellOptions, keepGoing: batch.keepGoing, recover: recover))
    if status != 0 { throw ExitCode(status) }
  }

  /// swift-argument-parser's description of this command line: the JSON that
  /// `--experimental-dump-help` prints, which its own man page generator reads.
  static func commandLineDescription() -> String {
    do {
      _ = try parseAsRoot(["--experimental-dump-help"])
      return ""  // not reached: the request ends parsing with the JSON as its message
    } catch {
      return fullMessage(for: error)
    }
  }

  /// Exit statuses: 0 success, 1 an error in a script, 2 bad usage (as the README says).
  static func main() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch {
      let code = exitCode(for: error)
      let message = fullMessage(for: error)
      if code == .success {
        if !message.isEmpty { print(message) }
        // `oplab --help > /dev/full`: the text was lost, so this is no success.
        if fflush(nil) != 0 {  // every stream: naming `stdout` is not concurrency-safe in Swift 6
          Shell.writeError("oplab: cannot write to standard output: \(String(cString: strerror(errno)))\n")
          Foundation.exit(1)
        }
        Foundation.exit(0)
      }
      // write(2), whose errors are ignored: FileHandle.write traps when standard error is
      // closed or full (`oplab --width=3 2>/dev/full` died with SIGILL).
      if !message.isEmpty { Shell.writeError(message + "\n") }
      Foundation.exit(code == .validationFailure ? Shell.Status.usage : code.rawValue)
    }
  }
}

/// `oplab run FILE...`.
struct RunScripts: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Run script files non-interactively, in one session.",
    usage: usage(["oplab run"] + displayUsage + ["[--keep-going]", "<files> ..."]))

  @OptionGroup var display: DisplayOptions
  @OptionGroup var batch: BatchOptions

  @Argument(help: "Script files of lab commands.")
  var files: [String] = []

  func validate() throws {
    if files.isEmpty { throw ValidationError("name at least one script file") }
  }

  func run() throws {
    let status = Shell.checked(Shell.run(files: files, options: display.shellOptions, keepGoing: batch.keepGoing))
    if status != 0 { throw ExitCode(status) }
  }
}

/// `oplab lesson [N | check [N...] [--all] | preview N]`.
struct Lessons: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lesson",
    abstract:
      "List the lessons, take one (`oplab lesson 1`), check them (`oplab lesson check --all`), or preview one as a student sees it (`oplab lesson preview FILE --width 80`).",
    usage: usage(
      ["oplab lesson"] + displayUsage + ["[--all]", "[--build]", "[--folder <folder>]", "[--add-folder <folder> ...]", "[<arguments> ...]"]))

  @OptionGroup var display: DisplayOptions

  @Flag(help: "With `check`: check every lesson.")
  var all = false

  @Flag(
    help:
      "With `check`: also build each Swift exercise's solution and starting file with swiftc and run them on the real OperationQueue (the solution must pass, the starting file fail as its `fails:` line says)."
  )
  var build = false

  @Option(
    help:
      "The folder of .lesson files (default: $OPLAB_LESSONS, else PREFIX/share/oplab/Lessons of a make install, else the Lessons folder of the source tree the lab was built in)."
  )
  var folder: String?

  @Option(
    name: .customLong("add-folder"),
    help:
      "A folder of .lesson files added to the course (repeatable): `oplab lesson` lists its lessons after the course's, `oplab lesson NAME/N` takes one (NAME: the folder's name), and each keeps its own progress. $OPLAB_LESSONS may list such folders too, after the course's, separated by ':'."
  )
  var addedFolders: [String] = []

  @Argument(
    help: "A lesson number, name or .lesson file; or `check` followed by lesson numbers, names or files; or `preview` and one of them.")
  var arguments: [String] = []

  func run() throws {
    let status = Shell.checked(Shell.lessons(arguments, all: all, options: display.shellOptions, folder: folder, added: addedFolders, build: build))
    if status != 0 { throw ExitCode(status) }
  }
}
