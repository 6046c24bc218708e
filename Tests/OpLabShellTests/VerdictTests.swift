import OpLabCore
import Testing

@testable import OpLabShell

/// `run`, `wait … from main` and `status` count unfinished operations the same way (#18).
/// The words and counts are what is tested, so the lines are not wrapped (the width goldens
/// test the layout).
@Suite struct VerdictTests {
  /// An interpreter drawing at the widest width, so no line is wrapped.
  func wide() -> Interpreter {
    var options = ShellOptions()
    options.width = 1000
    return Interpreter(options: options)
  }

  func run(_ lines: [String], _ interpreter: Interpreter) -> String {
    lines.map { interpreter.execute($0).output }.joined()
  }

  @Test("A stalled wait from main counts every unfinished operation, as the run after it and status do")
  func waitFromMainAndRunAgree() {
    let i = wide()
    _ = run(["queue work max 1", "suspend work", "op a on work takes 2", "op h hold", "op c on work after h"], i)
    #expect(
      run(["wait from main"], i) == """
          t=0  main.wait1 enqueued on main
          t=0  main.wait1 ready: no unfinished dependencies
          t=0  main.wait1 started on main: a slot was free when it was enqueued
          t=0  main.wait1 waitUntilAllOperationsAreFinished() began
          t=0  main.wait1 waitUntilAllOperationsAreFinished() would block forever: nothing can make progress
          stalled at t=0: nothing more can happen, yet 4 operations are unfinished and would wait forever (anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):
          main.wait1 blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for a, which has not finished: nothing else can run on the main thread meanwhile.
          a is ready, but work is suspended: resume it.
          c waits on h, which is in no queue and so never runs.
          h is in no queue.
          the main thread stays blocked, so the app is frozen for good: `undo` takes the wait back

        """)
    #expect(
      run(["run"], i) == """
          stalled at t=0: nothing more can happen, yet 4 operations are unfinished and would wait forever (anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):
          a is ready, but work is suspended: resume it.
          c waits on h, which is in no queue and so never runs.
          main.wait1 blocks the main thread in waitUntilAllOperationsAreFinished(), waiting for a, which has not finished: nothing else can run on the main thread meanwhile.
          h is in no queue.

        """)
    #expect(
      run(["status"], i) == """
        t=0  platform apple
        main: max 1 (main), qos userInteractive
          operations: executing 0, ready 0, pending 0, finished 0
          operationCount 0, operations []
          main thread, besides operations: 1 wait (running)
          main.wait1  blocking the main thread since t=0, waiting for every queue
        queue: max default, qos default; no operations yet
        work: max 1, SUSPENDED, qos default
          operations: executing 0, ready 1, pending 1, finished 0
          operationCount 2, operations [a, c]
          a  ready, but its queue is suspended
            isReady true, isExecuting false, isFinished false, isCancelled false; no dependencies
          c  pending (waiting on dependencies)
            isReady false, isExecuting false, isFinished false, isCancelled false; dependencies [h]
        in no queue:
          h  not in a queue
            isReady true, isExecuting false, isFinished false, isCancelled false; no dependencies
        stalled: nothing more can happen on its own, yet 4 operations are unfinished (`run` says what holds each, `why OP` follows one to its cause)

        """)
  }

  @Test("A stalled wait on one queue counts the other queues' unfinished operations too")
  func queueWaitCountsEverything() {
    let i = wide()
    _ = run(["queue a", "queue b", "suspend a", "suspend b", "op x on a", "op y on b"], i)
    #expect(
      run(["wait a"], i) == """
          t=0  a waitUntilAllOperationsAreFinished() began
          t=0  a waitUntilAllOperationsAreFinished() would block forever: nothing can make progress
          stalled at t=0: nothing more can happen, yet 2 operations are unfinished and would wait forever (anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):
          x is ready, but a is suspended: resume it.
          y is ready, but b is suspended: resume it.

        """)
  }

  @Test("Idle names the operations never added to a queue: they have not finished")
  func idleNamesOperationsInNoQueue() {
    let i = wide()
    #expect(run(["op a", "run"], i).hasSuffix("  idle at t=1: every operation has finished\n"))
    _ = run(["op later hold"], i)
    #expect(
      run(["run"], i) == "  idle at t=1: every operation in a queue has finished; later is in no queue, never started (`add later` enqueues it)\n")
    #expect(!run(["status"], i).contains("stalled"))
  }
}
