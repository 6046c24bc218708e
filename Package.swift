// swift-tools-version:6.0
//
// OpLab: a terminal lab for learning Operation and OperationQueue.
// The targets mirror the architecture (see README.md, "Architecture").

import PackageDescription

let package = Package(
  name: "OpLab",
  products: [
    .executable(name: "oplab", targets: ["oplab"]),
    .library(name: "OpLabCore", targets: ["OpLabCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    // Core: the simulator. Pure, deterministic, no I/O and no Foundation.
    .target(
      name: "OpLabCore",
      dependencies: [
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "OrderedCollections", package: "swift-collections"),
        "CPrefetch",
      ],
      // Debug builds check the world's invariants as every action returns (World+Invariants.swift).
      swiftSettings: [.define("OPLAB_INVARIANTS", .when(configuration: .debug))]
    ),
    // Cache prefetch hints for the core: one header, nothing to link, no effect on results.
    .systemLibrary(name: "CPrefetch"),

    // Render: pure functions from a trace (and a width) to text.
    .target(name: "OpLabRender", dependencies: ["OpLabCore"]),

    // Swift: the Swift behind a world (the `swift` view, `export swift`) and its lowering to
    // timed calls that `real` plays, pure functions of the core's journal cut into the lines
    // that performed it. No Foundation, like Render.
    .target(name: "OpLabSwift", dependencies: ["OpLabCore"]),

    // libedit, wrapped as a system library. Exactly one Swift file imports it.
    .systemLibrary(
      name: "CEditLine",
      pkgConfig: "libedit",
      providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
    ),

    // Real: Foundation's OperationQueue driven by a timed script (OpLabSwift's lowering of a
    // world, or a differential test's). The shell's `real` and the differential tests share
    // it, so the core and the generator stay free of Foundation.
    .target(name: "OpLabReal", dependencies: ["OpLabCore", "OpLabSwift"]),

    // Shell: the command language, interpreter, scripts, lessons.
    .target(name: "OpLabShell", dependencies: ["OpLabCore", "OpLabRender", "OpLabSwift", "OpLabReal", "CEditLine"]),

    // The executable: argument parsing and wiring only.
    .executableTarget(
      name: "oplab",
      dependencies: [
        "OpLabShell",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // The benchmark harness: `swift run -c release oplab-bench --help` (see BENCHMARKS.md).
    .executableTarget(
      name: "oplab-bench",
      dependencies: [
        "OpLabCore", "OpLabRender", "OpLabShell", "OpLabSwift",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "HeapModule", package: "swift-collections"),
      ]
    ),

    // Tests
    // Golden-file assertions shared by the test targets.
    .target(name: "TestSupport", dependencies: ["OpLabRender"], path: "Tests/TestSupport"),
    .testTarget(name: "OpLabCoreTests", dependencies: ["OpLabCore"]),
    .testTarget(name: "OpLabSwiftTests", dependencies: ["OpLabSwift"]),
    // Golden files and the pty driver are read by path (#filePath), not bundled.
    .testTarget(name: "OpLabRenderTests", dependencies: ["OpLabRender", "TestSupport"], exclude: ["Snapshots"]),
    .testTarget(
      name: "OpLabShellTests", dependencies: ["OpLabShell", "OpLabSwift", "TestSupport"], exclude: ["Fixtures", "Snapshots"]),
    // Checks the simulator against the real Foundation OperationQueue, in scaled real time.
    .testTarget(name: "OpLabDifferentialTests", dependencies: ["OpLabCore", "OpLabReal", "OpLabShell", "OpLabSwift", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
