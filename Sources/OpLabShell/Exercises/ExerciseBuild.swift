import Foundation
import OpLabCore

/// Building an exercise with `swiftc` and running it, in a scratch folder, each with a time
/// limit and stopped by Ctrl-C: the lab never waits on them for ever.
public enum ExerciseBuild {
  /// How a child process ended.
  struct Ended: Sendable {
    var status: Int32
    /// It was killed by a signal it did not catch (a crash): its number.
    var signal: Int32?
    var output: String
    var errors: String
    var timedOut = false
    var interrupted = false
  }

  /// `swiftc` on the `PATH` of `environment`, if there is one.
  public static func swiftc(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/swiftc"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Runs `executable` with `arguments` in `folder` until it ends, `seconds` pass (it is
  /// killed: `timedOut`), or `interrupt` says so (Ctrl-C: `interrupted`).
  static func run(
    _ executable: String, _ arguments: [String], in folder: URL, environment: [String: String]? = nil,
    seconds: Double, interrupt: Interrupt?
  ) -> Ended {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    if let environment { process.environment = environment }
    // Into files, not pipes: a chatty compiler cannot fill a pipe nobody reads yet.
    let scratch = FileManager.default.temporaryDirectory
    let out = scratch.appendingPathComponent("oplab-\(UUID().uuidString).out")
    let err = scratch.appendingPathComponent("oplab-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    guard let outHandle = try? FileHandle(forWritingTo: out), let errHandle = try? FileHandle(forWritingTo: err) else {
      return Ended(status: -1, output: "", errors: "could not write in \(folder.path)")
    }
    defer {
      try? outHandle.close()
      try? errHandle.close()
      try? FileManager.default.removeItem(at: out)
      try? FileManager.default.removeItem(at: err)
    }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = outHandle
    process.standardError = errHandle
    do {
      try process.run()
    } catch {
      return Ended(status: -1, output: "", errors: "could not start \(executable): \(error.localizedDescription)")
    }
    let deadline = Date(timeIntervalSinceNow: seconds)
    var timedOut = false
    var interrupted = false
    while process.isRunning {
      if interrupt?() == true { interrupted = true }
      if Date() > deadline { timedOut = true }
      if timedOut || interrupted {
        process.terminate()
        let grace = Date(timeIntervalSinceNow: 1)
        while process.isRunning, Date() < grace { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        break
      }
      Thread.sleep(forTimeInterval: 0.01)
    }
    process.waitUntilExit()
    let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
    let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
    return Ended(
      status: process.terminationStatus, signal: signal, output: read(out), errors: read(err), timedOut: timedOut,
      interrupted: interrupted)
  }

  /// A compiler diagnostic, placed in the learner's file (or in the harness).
  public struct Diagnostic: Sendable, Equatable {
    public var line: Int
    public var column: Int
    public var kind: String
    public var message: String
    /// In the lab's harness rather than in the learner's file.
    public var inHarness: Bool
  }

  /// The errors (and their notes) of `swiftc -diagnostic-style llvm`'s output, for
  /// `main.swift` (the learner's file) and `harness.swift`.
  static func diagnostics(_ said: String) -> [Diagnostic] {
    var found: [Diagnostic] = []
    for line in said.split(separator: "\n") {
      for (file, inHarness) in [("main.swift:", false), ("harness.swift:", true)] {
        guard let at = line.range(of: file), at.lowerBound == line.startIndex || line[line.index(before: at.lowerBound)] == "/" else {
          continue
        }
        let parts = line[at.upperBound...].split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let l = Int(parts[0]), let c = Int(parts[1]) else { continue }
        let kind = parts[2].trimmingCharacters(in: .whitespaces)
        guard kind == "error" || kind == "note" else { continue }
        // Without the diagnostic's group ("[#ActorIsolatedCall]"), a link the lab does not show.
        var message = parts[3].trimmingCharacters(in: .whitespaces)
        if message.hasSuffix("]"), let group = message.range(of: " [#", options: .backwards) {
          message = String(message[..<group.lowerBound])
        }
        found.append(
          Diagnostic(
            line: l, column: c, kind: kind, message: message, inHarness: inHarness))
      }
    }
    return found
  }

  /// What a built program is: where, and the compiler's complaints if it did not build.
  struct Built: Sendable {
    var folder: URL
    var program: URL?
    var diagnostics: [Diagnostic]
    /// What the compiler said when it said no diagnostic the lab could read (or why it did not run).
    var said: String
    var timedOut = false
    var interrupted = false
  }

  /// The build's flags: Swift 6 with complete checking, so what the compiler refuses (a UI
  /// call off main, shared state without a lock) is refused at once.
  static let flags = ["-swift-version", "6", "-strict-concurrency=complete", "-diagnostic-style", "llvm"]

  /// Builds `source` (the learner's program) as `main.swift` beside the harness, in a fresh
  /// scratch folder; under Thread Sanitizer when `sanitize`.
  static func build(
    _ source: String, swiftc: String, sanitize: Bool, seconds: Double = 300, interrupt: Interrupt?
  ) -> Built {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-exercise-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try source.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
      let tick = sanitize ? ExerciseHarness.sanitizedTickSeconds : ExerciseHarness.tickSeconds
      try ExerciseHarness.text(tickSeconds: tick).write(
        to: folder.appendingPathComponent("harness.swift"), atomically: true, encoding: .utf8)
    } catch {
      return Built(folder: folder, program: nil, diagnostics: [], said: "could not write the scratch folder: \(error)")
    }
    let arguments = flags + (sanitize ? ["-sanitize=thread"] : []) + ["main.swift", "harness.swift", "-o", "program"]
    let ended = run(swiftc, arguments, in: folder, seconds: seconds, interrupt: interrupt)
    let said = ended.errors + ended.output
    let program = folder.appendingPathComponent("program")
    let ok = ended.status == 0 && !ended.timedOut && !ended.interrupted && FileManager.default.fileExists(atPath: program.path)
    return Built(
      folder: folder, program: ok ? program : nil, diagnostics: ok ? [] : diagnostics(said), said: said,
      timedOut: ended.timedOut, interrupted: ended.interrupted)
  }

  /// Runs a built program, its events printed with exact ticks.
  static func runProgram(_ built: Built, seconds: Double, interrupt: Interrupt?) -> Ended? {
    guard let program = built.program else { return nil }
    var environment = ProcessInfo.processInfo.environment
    environment["OPLAB_EXACT_TICKS"] = "1"
    // Line-buffered where coreutils' stdbuf is there: a program that crashes has printed
    // its events so far, instead of losing them in a full buffer.
    let stdbuf = "/usr/bin/stdbuf"
    if FileManager.default.isExecutableFile(atPath: stdbuf) {
      return run(stdbuf, ["-oL", program.path], in: built.folder, environment: environment, seconds: seconds, interrupt: interrupt)
    }
    return run(program.path, [], in: built.folder, environment: environment, seconds: seconds, interrupt: interrupt)
  }

  /// Removes a build's scratch folder.
  static func clean(_ built: Built) {
    try? FileManager.default.removeItem(at: built.folder)
  }
}
