import Foundation
import TestSupport
import Testing

@testable import OpLabShell

/// The review of issue #19's file handling: each test here failed before its fix.
@Suite(.serialized) struct FileReviewTests {
  typealias Folder = FileHandlingTests.Folder

  /// Runs `command` with /bin/sh in `folder`, `$OPLAB` naming the lab; killed (and the test
  /// failed) after `timeout` seconds, so a hang cannot stall the suite.
  @discardableResult
  static func sh(_ command: String, in folder: Folder, timeout: TimeInterval = 30) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    environment["OPLAB"] = EndToEndTests.binary.path
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)  // commands `exec` the lab, so this is the lab
      Issue.record("`\(command)` did not end within \(timeout) s")
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<none>" }

  // MARK: - 1. The lab's own descriptors

  @Test("export to /dev/stdout, /dev/fd/N or /proc/self/fd/N writes to the descriptor: a redirected file keeps what came before")
  func exportToOwnDescriptors() throws {
    let folder = try Folder()
    try folder.write("out.txt", "earlier\n")
    try folder.write(
      "s.oplab",
      """
      op a takes 1
      run
      export timeline /dev/stdout
      export events /dev/fd/3
      export events /proc/self/fd/3
      save /dev/stderr
      status
      export events /dev/fd/9

      """)
    let status = try Self.sh("exec \"$OPLAB\" run s.oplab >> out.txt 3>> events.jsonl 2> err.txt", in: folder)
    #expect(status == 1)
    let out = Self.read(folder.at("out.txt"))
    #expect(out.hasPrefix("earlier\n"), "\(out)")
    #expect(out.contains("a enqueued") && out.contains("wrote timeline to standard output\n"), "\(out)")
    #expect(out.contains("wrote events to descriptor 3\n") && out.contains("saved 2 commands to standard error\n"), "\(out)")
    #expect(out.contains("finished 1"), "status ran after the exports: \(out)")
    let events = Self.read(folder.at("events.jsonl")).split(separator: "\n")
    #expect(events.count >= 2 && events.count % 2 == 0 && events.allSatisfy { $0.hasPrefix("{\"t\":") }, "\(events)")
    let err = Self.read(folder.at("err.txt"))
    #expect(err.contains("op a takes 1\nrun\n"), "\(err)")
    #expect(err.contains("cannot write '/dev/fd/9': the lab has no descriptor 9 open"), "\(err)")
    #expect(folder.names == ["err.txt", "events.jsonl", "out.txt", "s.oplab"])
  }

  @Test("The lab's own descriptor paths are recognised, and nothing else is")
  func ownDescriptorPaths() {
    #expect(FileIO.ownDescriptor("/dev/stdout") == 1 && FileIO.ownDescriptor("/dev/stderr") == 2)
    #expect(FileIO.ownDescriptor("/dev/fd/3") == 3 && FileIO.ownDescriptor("/proc/self/fd/12") == 12)
    #expect(FileIO.ownDescriptor("/dev/fd/") == nil && FileIO.ownDescriptor("/dev/fd/x") == nil)
    #expect(FileIO.ownDescriptor("/dev/fd/99999999999") == nil && FileIO.ownDescriptor("out.txt") == nil)
  }

  // MARK: - 2. Relative source lines in a stream script

  @Test("A relative source line in a script read from /dev/stdin, a pipe or a FIFO is found in the current folder")
  func relativeSourceInStream() throws {
    let folder = try Folder()
    try FileManager.default.createDirectory(atPath: folder.at("sub"), withIntermediateDirectories: false)
    try folder.write("sub/b2.oplab", "op b2 takes 1\n")
    #expect(mkfifo(folder.at("fifo"), 0o600) == 0)
    for (name, command) in [
      ("stdin", "printf 'source sub/b2.oplab\\n' | exec \"$OPLAB\" run /dev/stdin > NAME.out 2>&1"),
      ("pipe", "exec bash -c 'exec \"$OPLAB\" run <(printf \"source sub/b2.oplab\\n\")' > NAME.out 2>&1"),
      ("fifo", "(printf 'source sub/b2.oplab\\n' > fifo &) ; exec \"$OPLAB\" run fifo > NAME.out 2>&1"),
    ] {
      let status = try Self.sh(command.replacingOccurrences(of: "NAME", with: name), in: folder)
      let out = Self.read(folder.at("\(name).out"))
      #expect(status == 0 && out.contains("b2 enqueued"), "\(name): \(out)")
    }
  }

  // MARK: - 3. Lesson files are regular files

  static let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Lessons").path

  @Test("A FIFO or a link to /dev/zero among the lessons is reported, not waited on for ever; the others load")
  func lessonFolderWithFIFOAndDevice() throws {
    let folder = try Folder()
    let name = try #require(try FileManager.default.contentsOfDirectory(atPath: Self.lessons).sorted().first { $0.hasSuffix(".lesson") })
    try FileManager.default.copyItem(atPath: Self.lessons + "/" + name, toPath: folder.at(name))
    #expect(mkfifo(folder.at("50-fifo.lesson"), 0o600) == 0)
    #expect(symlink("/dev/zero", folder.at("51-zero.lesson")) == 0)
    _ = try Self.sh("exec \"$OPLAB\" lesson --folder . > out.txt 2> err.txt", in: folder, timeout: 20)
    let err = unwrapped(Self.read(folder.at("err.txt")))
    #expect(
      err.contains(
        "./50-fifo.lesson:1:1: error: cannot read './50-fifo.lesson': it is a named pipe (FIFO), not a file\n  hint: a lesson must be a regular file"),
      "\(err)")
    #expect(err.contains("./51-zero.lesson:1:1: error: cannot read './51-zero.lesson': it is a device, not a file"), "\(err)")
    let library = LessonLibrary(folder: folder.path)
    #expect(library.lessons.count == 1 && library.errors.count == 2, "\(library.errors)")
  }

  // MARK: - 4, 5. The folder that refused, and why a folder could not be made

  @Test("Through a symbolic link, a folder that takes no files is the target's, not the link's")
  func linkTargetFolderNamed() throws {
    let folder = try Folder()
    #expect(symlink("/proc/self/comm", folder.at("l")) == 0)
    let reply = FileHandlingTests.world().execute("export events \(folder.at("l"))")
    #expect(reply.error?.message == "cannot write '\(folder.at("l"))': the folder /proc/\(getpid()) does not let files be created in it")
    try Self.sh("printf 'op a takes 1\\nrun\\nexport events l\\n' | exec \"$OPLAB\" 2> err.txt", in: folder)
    let err = Self.read(folder.at("err.txt"))
    #expect(err.contains("cannot write 'l': the folder /proc/") && !err.contains("current folder"), "\(err)")
    #expect(
      FileError(path: "l", access: .write, reason: .creatingIn("/etc", EACCES)).message
        == "cannot write 'l': permission denied (the folder /etc is not writable by you)")
    #expect(FileError(path: "l", access: .write, reason: .creatingIn("/", EROFS)).hint != nil)
  }

  @Test("A folder that cannot be made says why (mkdir's errno), not that it does not exist")
  func makeFoldersReason() throws {
    #expect(throws: FileError(path: "/proc/oplab", access: .write, reason: .makingFolder(ENOENT))) {
      try FileIO.makeFolders("/proc/oplab")
    }
    #expect(
      FileError(path: "/proc/oplab", access: .write, reason: .makingFolder(ENOENT)).message
        == "cannot create the folder /proc/oplab: the system does not let files be created there")
    var store = ProgressStore(path: "/proc/oplab/progress")
    store.entries["x"] = (.started, 1)
    let warning = store.save() ?? ""
    #expect(warning.contains("cannot create the folder /proc/oplab: the system does not let files be created there"), "\(warning)")
    #expect(!warning.contains("does not exist"), "\(warning)")
  }

  // MARK: - 6. Smaller: `#` in a path, quoted words, plurals, the replay line

  @Test("A # glued to a file argument is refused with a hint to quote it; a comment after a space still is one")
  func hashInPath() throws {
    let folder = try Folder()
    for command in ["export events", "save", "source"] {
      let line = "\(command) \(folder.at("report"))#1.jsonl"
      let reply = FileHandlingTests.world().execute(line)
      #expect(reply.error?.message == "`#` starts a comment, so the file name would stop at '\(folder.at("report"))'", "\(line)")
      #expect(reply.error?.column == line.count - "#1.jsonl".count + 1)
      #expect(reply.error?.hint == "quote the name to keep the `#` in it: \"\(folder.at("report#1.jsonl"))\"")
    }
    #expect(folder.names.isEmpty)
    #expect(FileHandlingTests.world().execute("save \(folder.at("x.oplab")) # my run").error == nil)
    #expect(FileHandlingTests.world().execute("export events \"\(folder.at("r#1.jsonl"))\"").error == nil)
    #expect(folder.names == ["r#1.jsonl", "x.oplab"])
    #expect(Interpreter().execute("op a # comment").error == nil)
  }

  @Test("A quoted word never merges with the next; an unquoted comma list still does")
  func quotedWordNotMerged() {
    #expect(Lexer.tokens("export events \"a,\" b").map(\.text) == ["export", "events", "a,", "b"])
    #expect(Lexer.tokens("op x after a, b").map(\.text) == ["op", "x", "after", "a,b"])
    #expect(Lexer.tokens("op x after a ,b").map(\.text) == ["op", "x", "after", "a,b"])
    #expect(Interpreter().execute("export events \"a,\" b").error != nil)
  }

  @Test("save says '1 command', and its replay line quotes the path for a POSIX shell")
  func saveWording() throws {
    let folder = try Folder()
    let i = Interpreter()
    _ = i.execute("op a")
    let path = folder.at("it's $HOME.oplab")
    let reply = i.execute("save \"\(path)\"")
    #expect(reply.output.hasPrefix("  saved 1 command to "), "\(reply.output)")
    let header = Self.read(path).split(separator: "\n").first.map(String.init) ?? ""
    let quoted = "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    #expect(header.contains("replay with `oplab run \(quoted)` or `source "), "\(header)")
    // The shell reads the quoted path back as the path.
    let echo = try Self.sh("printf '%s' \(quoted) > echoed", in: folder)
    #expect(echo == 0 && Self.read(folder.at("echoed")) == path)
    #expect(Interpreter.shellQuoted("plain/run-1.oplab") == "plain/run-1.oplab")
  }
}
