import Foundation
import Synchronization
import TestSupport
import Testing

@testable import OpLabShell

/// Files as the learner meets them (issue #19, second round): what `export`, `save`,
/// `source` and `oplab run` do with devices, FIFOs, links, streams, quoted paths, byte-order
/// marks, CR line ends, nested and cyclic scripts, and every way a write can fail.
@Suite(.serialized) struct FileHandlingTests {
  /// A fresh folder, removed at the end of the test that made it.
  final class Folder {
    let path: String
    init() throws {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-files-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func at(_ name: String) -> String { path + "/" + name }
    func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: at(name))) }
    func write(_ name: String, bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: at(name))) }
    /// The names in the folder, hidden ones (a leftover temporary file) included.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    deinit { try? FileManager.default.removeItem(atPath: path) }
  }

  static func kind(_ path: String) -> mode_t {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
  }

  static func mode(_ path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
  }

  /// An interpreter with one finished operation, something to export.
  static func world() -> Interpreter {
    let i = Interpreter()
    _ = i.execute("op a takes 2")
    _ = i.execute("run")
    return i
  }

  // MARK: - 1. Only regular files are written

  /// A target that is not a regular file, how to make it, and the reason the write is refused.
  struct Refusal: CustomTestStringConvertible, Sendable {
    var name: String
    var make: @Sendable (Folder) throws -> Void
    var reason: String
    var kind: mode_t
    var testDescription: String { name }
  }

  static let refusals: [Refusal] = [
    Refusal(
      name: "a device node",
      make: { f in
        if mknod(f.at("target"), S_IFCHR | 0o666, dev_t(1 << 8 | 3)) != 0 { try f.write("skip", "") }
      }, reason: "it is a device, not a file", kind: S_IFCHR),
    Refusal(name: "a FIFO", make: { f in _ = mkfifo(f.at("target"), 0o644) }, reason: "it is a named pipe (FIFO), not a file", kind: S_IFIFO),
    Refusal(
      name: "a symbolic link to a folder",
      make: { f in
        try FileManager.default.createDirectory(atPath: f.at("dir"), withIntermediateDirectories: false)
        _ = symlink(f.at("dir"), f.at("target"))
      }, reason: "it is a folder: give the name of a file in it", kind: S_IFLNK),
    Refusal(
      name: "a symbolic link to nothing", make: { f in _ = symlink(f.at("gone"), f.at("target")) },
      reason: "it is a symbolic link to 'GONE', which does not exist", kind: S_IFLNK),
  ]

  @Test("export and save refuse a device, a FIFO or a link to a folder, and leave it as it was", arguments: refusals)
  func nonRegularTargetsRefused(_ r: Refusal) throws {
    let folder = try Folder()
    try r.make(folder)
    if folder.names.contains("skip") { return }  // mknod needs root
    let target = folder.at("target")
    for line in ["export events \(target)", "save \(target)"] {
      let reply = Self.world().execute(line)
      let reason = r.reason.replacingOccurrences(of: "GONE", with: folder.at("gone"))
      #expect(reply.error?.message == "cannot write '\(target)': \(reason)", "\(line)")
      #expect(reply.error?.column == line.count - target.count + 1)
      #expect(Self.kind(target) == r.kind, "\(line): the \(r.name) was replaced")
    }
    #expect(!folder.names.contains { $0.contains(".oplab-") })
  }

  @Test("A symbolic link to a regular file is written through: the file replaced, the link kept")
  func linkWrittenThrough() throws {
    let folder = try Folder()
    try folder.write("real.jsonl", "old\n")
    _ = symlink("real.jsonl", folder.at("link.jsonl"))
    let reply = Self.world().execute("export events \(folder.at("link.jsonl"))")
    #expect(reply.error == nil)
    #expect(unwrapped(reply.output).contains("through the link"))
    #expect(Self.kind(folder.at("link.jsonl")) == S_IFLNK)
    #expect(try String(contentsOfFile: folder.at("real.jsonl"), encoding: .utf8).hasPrefix("{\"t\":0"))
    #expect(folder.names == ["link.jsonl", "real.jsonl"])
  }

  @Test("A replaced file keeps its mode; a new file gets 0666 minus the umask")
  func modesKept() throws {
    let folder = try Folder()
    try folder.write("private.oplab", "")
    chmod(folder.at("private.oplab"), 0o600)
    #expect(Self.world().execute("save \(folder.at("private.oplab"))").error == nil)
    #expect(Self.mode(folder.at("private.oplab")) == 0o600)
    try folder.write("script.sh", "")
    chmod(folder.at("script.sh"), 0o750)
    #expect(Self.world().execute("export timeline \(folder.at("script.sh"))").error == nil)
    #expect(Self.mode(folder.at("script.sh")) == 0o750)
    let mask = umask(0)
    umask(mask)
    #expect(Self.world().execute("export events \(folder.at("new.jsonl"))").error == nil)
    #expect(Self.mode(folder.at("new.jsonl")) == 0o666 & ~mask)
  }

  @Test("Two quick SIGINTs during a large export in a batch run leave no temporary file behind")
  func secondSignalRemovesTemporaryFile() throws {
    let folder = try Folder()
    let lines =
      ["queue q max 4"] + (0..<20_000).map { "op o\($0) on q takes 3" } + ["run"]
      + (0..<50).map { "export events \(folder.at("out\($0).jsonl"))" }
    try folder.write("big.oplab", lines.joined(separator: "\n") + "\n")
    let process = Process()
    process.executableURL = EndToEndTests.binary
    process.arguments = ["run", folder.at("big.oplab")]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Wait for an export's temporary file to appear, then send two signals at once.
    let deadline = Date().addingTimeInterval(120)
    while !folder.names.contains(where: { $0.contains(".oplab-") }), process.isRunning, Date() < deadline { usleep(200) }
    kill(process.processIdentifier, SIGINT)
    usleep(2_000)  // caught and counted (two at once would merge into one), the export still going
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(!folder.names.contains { $0.contains(".oplab-") }, "left: \(folder.names)")
  }

  // MARK: - 2. NUL in a path

  @Test(
    "A NUL in a path is refused for every command taking one, shown as \\0, at the path",
    arguments: [
      "export events a<NUL>b.jsonl", "save a<NUL>b.oplab", "source a<NUL>b.oplab", "export trace \"x<NUL>\"",
    ])
  func nulInPath(_ template: String) {
    let line = template.replacingOccurrences(of: "<NUL>", with: "\u{0}")
    let reply = Interpreter().execute(line)
    let message = reply.error?.message ?? ""
    #expect(message.contains("holds a NUL byte (shown as \\0)"), "\(message.debugDescription)")
    #expect(!message.contains("\u{0}"))
    #expect(reply.error?.column == (line.lastIndex(of: " ").map { line.distance(from: line.startIndex, to: $0) + 2 }))
  }

  // MARK: - 3. Streams

  /// Writes `text` into the FIFO at `path` once a reader opens it, from another thread; a
  /// writer that never finds a reader gives up after `timeout` seconds (opening with
  /// O_NONBLOCK fails with ENXIO until then) instead of blocking the suite for ever.
  static func feedFIFO(_ path: String, _ text: String, timeout: TimeInterval = 20) -> DispatchGroup {
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      let deadline = Date().addingTimeInterval(timeout)
      var fd: Int32 = -1
      while fd < 0, Date() < deadline {
        fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { usleep(2_000) }
      }
      guard fd >= 0 else { return }  // no reader came: the test's own expectations fail
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
      let bytes = Array(text.utf8)
      _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
    return group
  }

  @Test("oplab run reads /dev/stdin, a pipe, a FIFO and /dev/null as streams; a folder is still an error")
  func runStreams() throws {
    let e2e = EndToEndTests()
    let stdin = try e2e.oplab(["run", "/dev/stdin"], stdin: "op a takes 1\nrun\n")
    #expect(stdin.status == 0 && stdin.out.hasSuffix("idle at t=1: every operation has finished\n"), "\(stdin.err)")
    let empty = try e2e.oplab(["run", "/dev/null"])
    #expect(empty.status == 0 && empty.err == "")
    let folder = try Folder()
    #expect(mkfifo(folder.at("fifo"), 0o600) == 0)
    let writer = Self.feedFIFO(folder.at("fifo"), "op f takes 2\nrun\n")
    let fifo = try e2e.oplab(["run", folder.at("fifo")])
    #expect(writer.wait(timeout: .now() + 30) == .success, "the FIFO's writer did not end")
    #expect(fifo.status == 0 && fifo.out.contains("t=2  f finished"), "\(fifo.err)")
    let dir = try e2e.oplab(["run", folder.path])
    #expect(dir.status == 2 && unwrapped(dir.err) == "oplab: cannot read '\(folder.path)': it is a folder, not a script\n")
  }

  @Test("source reads /dev/null and a FIFO; a folder is an error")
  func sourceStreams() throws {
    let folder = try Folder()
    #expect(Interpreter().execute("source /dev/null").error == nil)
    #expect(mkfifo(folder.at("fifo"), 0o600) == 0)
    let writer = Self.feedFIFO(folder.at("fifo"), "op f takes 2\n")
    let i = Interpreter()
    let reply = i.execute("source \(folder.at("fifo"))")
    #expect(writer.wait(timeout: .now() + 30) == .success, "the FIFO's writer did not end")
    #expect(reply.error == nil && i.world.operationID(named: "f") != nil)
    #expect(Interpreter().execute("source \(folder.path)").error?.message == "cannot read '\(folder.path)': it is a folder, not a script")
  }

  // MARK: - 4. Byte-order marks and line ends

  /// Script bytes in several encodings of the same two lines, the second one wrong at column 12.
  static let encodings: [(name: String, bytes: [UInt8])] = {
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    let lines = ["op a takes 1", "op b takes x"]
    func joined(_ end: String) -> [UInt8] { Array(lines.joined(separator: end).utf8) + Array(end.utf8) }
    return [
      ("BOM and LF", bom + joined("\n")), ("BOM and CRLF", bom + joined("\r\n")), ("BOM and CR", bom + joined("\r")),
      ("CR only", joined("\r")), ("CRLF", joined("\r\n")), ("CR, no final line end", Array(lines.joined(separator: "\r").utf8)),
    ]
  }()

  @Test(
    "A BOM and CR or CRLF line ends read correctly in oplab run, source and piped input, columns unshifted",
    arguments: encodings.indices)
  func encodingsRead(_ k: Int) throws {
    let (name, bytes) = Self.encodings[k]
    let folder = try Folder()
    try folder.write("s.oplab", bytes: bytes)
    let file = folder.at("s.oplab")
    let expected = ":2:12: error: 'x' is not a whole number\n"
    let run = try EndToEndTests().oplab(["run", file])
    #expect(run.status == 1 && run.err.hasPrefix(file + expected), "\(name): \(run.err)")
    #expect(run.out.contains("a enqueued"), "\(name)")
    let piped = try EndToEndTests().oplab([], stdin: String(decoding: bytes, as: UTF8.self))
    #expect(piped.err.hasPrefix("<stdin>" + expected), "\(name): \(piped.err)")
    let i = Interpreter()
    let reply = i.execute("source \(file)")
    #expect(reply.error?.line == 2 && reply.error?.column == 12, "\(name)")
    #expect(i.world.operationID(named: "a") != nil, "\(name)")
  }

  @Test("A lesson file with a BOM and CRLF line ends reads as the same lesson")
  func lessonWithBOMAndCRLF() throws {
    let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Lessons").path
    let original = try #require(LessonLibrary(folder: lessons).lessons.first, "the course's lessons did not load from \(lessons)")
    let folder = try Folder()
    let name = try #require(try FileManager.default.contentsOfDirectory(atPath: lessons).sorted().first { $0.hasSuffix(".lesson") })
    let text = try String(contentsOfFile: lessons + "/" + name, encoding: .utf8)
    try folder.write(name, bytes: [0xEF, 0xBB, 0xBF] + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    let library = LessonLibrary(folder: folder.path)
    #expect(library.errors.isEmpty, "\(library.errors)")
    let copy = try #require(library.lessons.first, "the BOM and CRLF copy did not load")
    #expect(copy.title == original.title && !copy.title.isEmpty)
    #expect(copy.id == original.id)
  }

  // MARK: - 5 and 8. Nested sources: relative paths, cycles, the depth cap

  @Test("A source line inside a script finds a relative path beside that script, in source and in oplab run")
  func nestedRelativeSource() throws {
    let folder = try Folder()
    try FileManager.default.createDirectory(atPath: folder.at("sub"), withIntermediateDirectories: false)
    try folder.write("sub/a.oplab", "op a\nsource b.oplab\n")
    try folder.write("sub/b.oplab", "op b\n")
    let i = Interpreter()
    let reply = i.execute("source \(folder.at("sub/a.oplab"))")
    #expect(reply.error == nil, "\(String(describing: reply.error))")
    #expect(i.world.operationID(named: "b") != nil)
    let run = try EndToEndTests().oplab(["run", folder.at("sub/a.oplab")])
    #expect(run.status == 0 && run.out.contains("b enqueued"), "\(run.err)")
  }

  @Test("Scripts sourcing each other name the cycle; a long chain of different scripts still stops at the cap")
  func sourceCycles() throws {
    let folder = try Folder()
    try folder.write("a.oplab", "op a\nsource b.oplab\n")
    try folder.write("b.oplab", "source a.oplab\n")
    let reply = Interpreter().execute("source \(folder.at("a.oplab"))")
    #expect(reply.error?.message == "these scripts source each other in a cycle: \(folder.at("a.oplab")) → b.oplab → a.oplab")
    #expect(reply.error?.file == folder.at("b.oplab") && reply.error?.line == 1 && reply.error?.column == 8)
    let run = try EndToEndTests().oplab(["run", folder.at("a.oplab")])
    #expect(
      run.err.hasPrefix(
        "\(folder.at("b.oplab")):1:8: error: these scripts source each other in a cycle: \(folder.at("a.oplab")) → b.oplab → a.oplab\n"))
    for k in 0..<20 { try folder.write("c\(k).oplab", "source c\(k + 1).oplab\n") }
    try folder.write("c20.oplab", "op end\n")
    let chain = Interpreter().execute("source \(folder.at("c0.oplab"))")
    #expect(chain.error?.message == "scripts nested more than 16 deep")
  }

  // MARK: - 6. Quoted paths

  @Test(
    "Paths with spaces: double quotes, single quotes and backslashes, for export, save and source",
    arguments: [
      ("export events \"DIR/my run.jsonl\"", "my run.jsonl"), ("export events 'DIR/my run.jsonl'", "my run.jsonl"),
      ("export events DIR/my\\ run.jsonl", "my run.jsonl"), ("save \"DIR/my session.oplab\"", "my session.oplab"),
      ("save 'DIR/my session.oplab'", "my session.oplab"), ("export timeline \"DIR/a \\\"b\\\" # c.txt\"", "a \"b\" # c.txt"),
    ])
  func quotedPaths(_ template: String, _ name: String) throws {
    let folder = try Folder()
    let reply = Self.world().execute(template.replacingOccurrences(of: "DIR", with: folder.path))
    #expect(reply.error == nil, "\(String(describing: reply.error))")
    #expect(folder.names == [name])
    if name.hasSuffix(".oplab") {
      let j = Interpreter()
      #expect(j.execute("source \"\(folder.at(name))\"").error == nil)
      #expect(j.world.operationID(named: "a") != nil)
    }
  }

  @Test(
    "An unclosed quote is an error at the quote; Tab completion inside quotes does not break",
    arguments: [
      ("export events \"my run.jsonl", 15), ("source 'a b", 8), ("save \"", 6),
    ])
  func unclosedQuote(_ line: String, _ column: Int) {
    let i = Interpreter()
    let reply = i.execute(line)
    #expect(reply.error?.message.hasSuffix("is not closed") == true, "\(String(describing: reply.error))")
    #expect(reply.error?.column == column)
    #expect(i.completions(for: line).isEmpty)
    #expect(i.completions(for: line + " ").isEmpty)
    #expect(i.completions(for: "export ev") == ["events"])
  }

  // MARK: - 7. The real reason a write fails

  /// How to make the path fail, and the reason said.
  static let writeFailures: [(name: String, make: @Sendable (Folder) throws -> String, reason: String)] = [
    (
      "ENOTDIR",
      { f in
        try f.write("file", ""); return f.at("file/x")
      }, "a part of the path is a file, not a folder"
    ),
    ("EISDIR", { f in f.path }, "it is a folder: give the name of a file in it"),
    ("ENOENT of the folder", { f in f.at("nope/x") }, "the folder FOLDER/nope does not exist"),
    (
      "ELOOP",
      { f in
        _ = symlink(f.at("l1"), f.at("l2"))
        _ = symlink(f.at("l2"), f.at("l1"))
        return f.at("l1")
      }, "too many symbolic links (a link that leads back to itself?)"
    ),
    ("ENAMETOOLONG", { f in f.at(String(repeating: "n", count: 300)) }, "the name is too long"),
    ("a folder that takes no files (/proc)", { _ in "/proc/oplab-x" }, "the folder /proc does not let files be created in it"),
  ]

  @Test(
    "A write that fails says the real reason from errno, never 'permission denied or not a file'",
    arguments: writeFailures.indices)
  func writeFailureReasons(_ k: Int) throws {
    let c = Self.writeFailures[k]
    let folder = try Folder()
    let path = try c.make(folder)
    let before = folder.names
    for line in ["export events \(path)", "save \(path)"] {
      let message = Self.world().execute(line).error?.message
      #expect(message == "cannot write '\(path)': \(c.reason.replacingOccurrences(of: "FOLDER", with: folder.path))", "\(c.name)")
    }
    #expect(folder.names == before)
  }

  /// Runs `body` with a fresh tmpfs mounted (with `options`), when this machine lets the
  /// tests mount one (root in a container may); otherwise does nothing.
  static func withTmpfs(_ options: String, _ body: (String) throws -> Void) throws {
    let folder = try Folder()
    let mount = Process()
    mount.executableURL = URL(fileURLWithPath: "/bin/mount")
    mount.arguments = ["-t", "tmpfs", "-o", options, "oplab-test", folder.path]
    mount.standardError = FileHandle.nullDevice
    guard (try? mount.run()) != nil else { return }
    mount.waitUntilExit()
    guard mount.terminationStatus == 0 else { return }
    defer {
      let umount = Process()
      umount.executableURL = URL(fileURLWithPath: "/bin/umount")
      umount.arguments = [folder.path]
      try? umount.run()
      umount.waitUntilExit()
    }
    try body(folder.path)
  }

  @Test("A read-only file system and a full one are named as such (tmpfs mounts, when allowed)")
  func readOnlyAndFull() throws {
    try Self.withTmpfs("ro,size=64k") { path in
      let reply = Self.world().execute("export events \(path)/x.jsonl")
      #expect(reply.error?.message == "cannot write '\(path)/x.jsonl': the file system there is read-only")
    }
    try Self.withTmpfs("size=16k") { path in
      let i = Interpreter()
      _ = i.execute("queue q max 4")
      for k in 0..<300 { _ = i.execute("op o\(k) on q takes 2") }
      _ = i.execute("run")
      let reply = i.execute("export events \(path)/x.jsonl")
      #expect(reply.error?.message == "cannot write '\(path)/x.jsonl': no space left on the device (or no free inodes)")
      #expect(((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["?"]).isEmpty)
    }
  }

  @Test("Progress that cannot be saved says why in words, not Foundation's error 512")
  func progressSaveReason() throws {
    let folder = try Folder()
    try folder.write("file", "")
    var store = ProgressStore(path: folder.at("file/oplab/progress"))
    store.entries["x"] = (.started, 1)
    let warning = store.save() ?? ""
    #expect(warning.contains("a part of the path is a file, not a folder"), "\(warning)")
    #expect(!warning.contains("512") && !warning.contains("NSCocoaErrorDomain") && !warning.contains("couldn’t be completed"))
  }

  @Test("A confirmation names the folder a relative path was written in, not only the path as typed")
  func relativeDestination() {
    let folder = FileManager.default.currentDirectoryPath
    #expect(FileIO.WriteOutcome.created.destination("run.txt") == "run.txt (in \(folder))")
    #expect(FileIO.WriteOutcome.replaced.destination("/tmp/run.txt") == "/tmp/run.txt")
    #expect(FileIO.WriteOutcome.descriptor(1).destination("/dev/stdout") == FileIO.descriptorName(1))
  }
}

/// Atomic writes from many threads at once (the tests run many labs in one process): each
/// file gets its own text, and no write fails or lands in another's file (#31: an export
/// once found its scratch folder's file missing).
@Suite struct ConcurrentWriteTests {
  @Test("Eight threads writing 40 files each, in folders of their own, each get exactly their own text")
  func concurrentWrites() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-concurrent-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    for t in 0..<8 { try FileManager.default.createDirectory(at: root.appendingPathComponent("t\(t)"), withIntermediateDirectories: true) }
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { t in
      for k in 0..<40 {
        let path = root.appendingPathComponent("t\(t)/f\(k).txt").path
        let text = String(repeating: "thread \(t) file \(k)\n", count: 200)
        do {
          try FileIO.writeAtomically(text, to: path, column: 1)
          let back = try String(contentsOfFile: path, encoding: .utf8)
          if back != text { failures.withLock { $0.append("\(path): another write's text") } }
        } catch {
          failures.withLock { $0.append("\(path): \(error)") }
        }
      }
    }
    #expect(failures.withLock { $0 } == [])
    for t in 0..<8 {
      let left = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("t\(t)").path)
      #expect(left.sorted() == (0..<40).map { "f\($0).txt" }.sorted(), "t\(t): \(left.filter { !$0.hasPrefix("f") })")
    }
  }
}
