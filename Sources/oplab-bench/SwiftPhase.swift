import Foundation
import OpLabShell
import OpLabSwift

/// The `swift` phase (#28): the `swift` view and `export swift` at 1k, 4k and 16k
/// operations (linear?), swift-echo a command over a 1,000-line session (flat?), and
/// swiftc's type-check of a 1,000-operation chain's export (a time per operation).
enum SwiftPhase {
  /// A lab that has run a chain of `ops` operations on two queues (every fourth one
  /// checking isCancelled, so it has a class), then `run`.
  static func chain(_ ops: Int, echo: Bool = false) -> (lab: Interpreter, lines: [String]) {
    var options = ShellOptions()
    options.width = 200
    options.swiftEcho = echo
    let lab = Interpreter(options: options)
    var lines = ["queue a max 2", "queue b max 1"]
    for i in 0..<ops {
      let body = i % 4 == 3 ? "takes 2 cancel-check every 1" : "takes \(1 + i % 3)"
      lines.append("op o\(i) on \(i % 2 == 0 ? "a" : "b") \(body)" + (i == 0 ? "" : " after o\(i - 1)"))
    }
    return (lab, lines + ["run"])
  }

  /// What `swift` and `export swift` read: the script's lines with their journal slices.
  static func source(_ lab: Interpreter) -> SwiftSource {
    SwiftSource(origin: lab.sim.origin, script: lab.script, journal: lab.sim.journal)
  }

  static func seconds(_ body: () throws -> Void) rethrows -> Double {
    let t0 = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
  }

  static func run() {
    print("swift view and export             ops   view (s)   export (s)   view µs/op   export µs/op")
    for ops in [1_000, 4_000, 16_000] {
      let (lab, lines) = chain(ops)
      for line in lines { _ = lab.execute(line) }
      let view = seconds { _ = lab.execute("swift") }
      let export = seconds { _ = SwiftCode.export(source(lab)) }
      print(
        "  "
          + [
            String(ops), String(format: "%.3f", view), String(format: "%.3f", export),
            String(format: "%.1f", view / Double(ops) * 1e6), String(format: "%.1f", export / Double(ops) * 1e6),
          ]
          .enumerated().map { i, s in String(repeating: " ", count: Swift.max(0, [35, 11, 13, 13, 15][i] - s.count)) + s }.joined())
    }

    // swift-echo: a 1,000-line session, each command's time, by hundreds.
    let (lab, lines) = chain(997, echo: true)
    var times: [Double] = []
    for line in lines { times.append(seconds { _ = lab.execute(line) }) }
    print("swift-echo, a 1,000-line session: mean ms a command in each hundred lines")
    let hundreds = stride(from: 0, to: 1_000, by: 100).map { start in
      String(format: "%.2f", times[start..<Swift.min(start + 100, times.count - 1)].reduce(0, +) / 100 * 1e3)
    }
    print("  " + hundreds.joined(separator: " "))

    // swiftc -typecheck of the 1,000- and 4,000-op chains' exports: the wall time, and the
    // CPU time of the compiler's processes (what a busy machine does not stretch).
    for ops in [1_000, 4_000] {
      let (chainLab, chainLines) = chain(ops)
      for line in chainLines { _ = chainLab.execute(line) }
      let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oplab-bench-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: dir) }
      do {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try SwiftCode.export(source(chainLab)).write(to: dir.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        for flags in [[String](), ["-swift-version", "6", "-strict-concurrency=complete", "-warnings-as-errors"]] {
          let process = Process()
          process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
          process.arguments = ["swiftc", "-typecheck"] + flags + ["main.swift"]
          process.currentDirectoryURL = dir
          let cpuBefore = childrenCPU()
          let time = try seconds {
            try process.run()
            process.waitUntilExit()
          }
          let cpu = childrenCPU() - cpuBefore
          print(
            String(
              format: "swiftc -typecheck %@ of a %d-op chain's export: %.1f s wall, %.1f s CPU, %.1f ms CPU an op (status %d)",
              flags.isEmpty ? "(plain)" : flags.joined(separator: " "), ops, time, cpu, cpu / Double(ops) * 1e3,
              process.terminationStatus))
        }
      } catch {
        print("swiftc: \(error)")
      }
    }
  }

  /// The user and system CPU seconds of the child processes waited for so far.
  static func childrenCPU() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    #else
    getrusage(RUSAGE_CHILDREN, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }
}
