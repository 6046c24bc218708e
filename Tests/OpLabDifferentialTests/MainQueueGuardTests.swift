import Foundation
import OpLabCore
import Testing

/// Corelibs' `if !__mainQ` guards (rules 26, 31, 33, 41), read back from the real
/// `OperationQueue.main` and compared with the simulator's `linux` mode.
///
/// Nothing here needs the main thread to service the main queue: each guard is seen in
/// what the queue reports after the call, and the operation used for `cancelAllOperations()`
/// waits on a dependency that never runs, so it is still there, pending, whether or not the
/// main queue is serviced.
@Suite("Main queue guards vs the real OperationQueue.main")
struct MainQueueGuardTests {
  @Test("Linux: suspension, a limit, a quality of service and cancelAllOperations() do nothing on the main queue, as the simulator says")
  func guardsMatchTheRealMainQueue() throws {
    // The real queue.
    let main = OperationQueue.main
    main.isSuspended = true
    let suspended = main.isSuspended
    main.maxConcurrentOperationCount = 4
    let max = main.maxConcurrentOperationCount
    main.qualityOfService = .utility
    let qos = main.qualityOfService
    let never = BlockOperation {}
    let waiting = BlockOperation {}
    waiting.addDependency(never)
    main.addOperation(waiting)
    main.cancelAllOperations()
    let cancelled = waiting.isCancelled
    // Corelibs keeps unretained pointers to dependents (rule 18): keep both alive for good.
    _ = Unmanaged.passRetained([never, waiting] as NSArray)

    #expect(!suspended)
    #expect(max == 1)
    #expect(qos == .userInteractive)
    #expect(!cancelled)

    // The simulator, in linux mode.
    var w = World(platform: .linux)
    let n = try w.createOperation(OperationSpec(name: "never", duration: 1))
    let op = try w.addOperation(OperationSpec(name: "waiting", duration: 1), to: .main, dependencies: [n])
    let mark = w.trace.count
    try w.suspend(.main)
    try w.setMaxConcurrent(.main, to: 4)
    w.setQualityOfService(.main, to: .utility)
    w.cancelAll(.main)
    #expect(w.queue(.main).isSuspended == suspended)
    #expect(w.queue(.main).effectiveMax == max)
    #expect(w.queue(.main).reportedQualityOfService == .userInteractive)
    #expect(w.operation(op).isCancelled == cancelled)
    #expect(
      w.trace.events(from: mark).map(\.kind) == [
        .ignoredOnMainQueue(.suspend), .ignoredOnMainQueue(.maxConcurrent(4)),
        .ignoredOnMainQueue(.qualityOfService(.utility)), .ignoredOnMainQueue(.cancelAll),
      ])
  }
}
