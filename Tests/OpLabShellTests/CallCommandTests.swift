import OpLabCore
import Testing

@testable import OpLabShell

/// `add A,B,C [wait]`, `wait OP`, `start OP`, `blocks OP +D` and `only-if-deps-succeeded`
/// through the interpreter: what a learner types and reads (#20). Lines are not wrapped (the
/// width goldens test the layout).
@Suite struct CallCommandTests {
  func wide(_ platform: Platform = .apple) -> Interpreter {
    var options = ShellOptions()
    options.width = 1000
    options.platform = platform
    return Interpreter(options: options)
  }

  func run(_ lines: [String], _ interpreter: Interpreter) -> String {
    lines.map { interpreter.execute($0).output }.joined()
  }

  @Test(
    "add A,B,C is addOperations: all are inserted, then the serial queue picks once, so the later high priority starts first",
    arguments: Platform.allCases)
  func batchedAdd(platform: Platform) {
    let i = wide(platform)
    _ = run(["queue serial max 1", "op a on serial hold", "op b on serial hold", "op c on serial priority high hold"], i)
    #expect(
      run(["add a,b,c"], i) == """
          t=0  a enqueued on serial
          t=0  a ready: no unfinished dependencies
          t=0  b enqueued on serial
          t=0  b ready: no unfinished dependencies
          t=0  c enqueued on serial
          t=0  c ready: no unfinished dependencies
          t=0  c started on serial: a slot was free when it was enqueued; high beats normal a

        """)
    #expect(i.script.map(\.text).last == "add a,b,c")
  }

  @Test("A batch that cannot be added is refused whole, at the list, and changes nothing")
  func batchedAddRefused() throws {
    let i = wide(.linux)
    _ = run(["queue other", "op a hold", "op b", "op c on other hold"], i)
    let trace = i.world.trace.count
    let twice = try #require(i.execute("add a,a").error)
    #expect(twice.column == 5)
    #expect(twice.message.hasPrefix("'a' is listed twice: addOperations(_:waitUntilFinished:) would find it already in the queue"))
    let started = try #require(i.execute("add a,b").error)
    #expect(
      started.message
        == "'b' is executing and cannot be added to a queue again: the real addOperation(_:) crashes the process (fatalError: \"operations finished, executing or already in a queue cannot be enqueued\")"
    )
    let mixed = try #require(i.execute("add a,c").error)
    #expect(mixed.message == "these operations were defined for different queues (other, queue), and one addOperations call adds them all to one")
    #expect(mixed.hint == "say which: add a,c to other")
    #expect(i.world.trace.count == trace)
    #expect(i.world.operation(try #require(i.world.operationID(named: "a"))).phase == .created)
  }

  @Test("add … wait from main with an operation that needs the main thread deadlocks it, and says so: the call takes the main thread, then adds")
  func batchedAddWaitDeadlocks() {
    let i = wide()
    _ = run(["queue q", "op x on q takes 2", "op m on main after x hold"], i)
    #expect(
      run(["add m to main wait from main"], i) == """
          t=0  main.wait1 enqueued on main
          t=0  main.wait1 ready: no unfinished dependencies
          t=0  main.wait1 started on main: a slot was free when it was enqueued
          t=0  m enqueued on main: main.wait1, addOperations(_:waitUntilFinished: true) called on the main thread, added it when the main thread got to the call
          t=0  main.wait1 addOperations([m], waitUntilFinished: true) began
          t=2  x finished (succeeded): work done
          t=2  m ready: dependency x finished
          t=2  main.wait1 addOperations([m], waitUntilFinished: true) would block forever: nothing can make progress
          stalled at t=2: nothing more can happen, yet 2 operations are unfinished and would wait forever (anything waiting for them, like waitUntilAllOperationsAreFinished, would hang):
          main.wait1 blocks the main thread in addOperations(_:waitUntilFinished: true), waiting for m, which has not finished: nothing else can run on the main thread meanwhile.
          m is ready, but every slot of main is held by main.wait1.
          the main thread stays blocked, so the app is frozen for good: `undo` takes the wait back

        """)
    #expect(
      run(["why m"], i).hasSuffix(
        "Now: m is ready, but every slot of main is held by main.wait1, which blocks the main thread in addOperations(_:waitUntilFinished: true), waiting for m: a deadlock, so none of them can ever finish.\n"
      ))
    // With nothing before it on main, the call still comes first: an operation it adds to
    // main can never run (the real addOperations([m], waitUntilFinished: true) on main hangs).
    let j = wide()
    _ = run(["op h on main takes 1 hold"], j)
    #expect(run(["add h wait from main"], j).contains("h is ready, but every slot of main is held by main.wait1."))
    #expect(j.world.unfinishedOperations().count == 2)
  }

  @Test("wait OP waits for one operation, from the lab's thread or the main thread; a tap waits behind the main thread's wait")
  func waitForOperation() {
    let i = wide()
    _ = run(["queue q max 1", "op a on q takes 3", "op b on q takes 2"], i)
    #expect(
      run(["wait a"], i) == """
          t=0  a waitUntilFinished() began
          t=3  a finished (succeeded): work done
          t=3  b started on q: slot freed by a
          t=3  a waitUntilFinished() returned: it finished
          now t=3

        """)
    _ = run(["tap at 4"], i)
    #expect(
      run(["wait b from main"], i) == """
          t=3  main.wait1 enqueued on main
          t=3  main.wait1 ready: no unfinished dependencies
          t=3  main.wait1 started on main: a slot was free when it was enqueued
          t=3  main.wait1 waitUntilFinished() on b began
          t=4  main.tap1 created: the user tapped: the tap needs the main thread
          t=5  b finished (succeeded): work done
          t=5  main.wait1 finished (succeeded): everything it waited for finished; the main thread is free again
          t=5  main.wait1 waitUntilFinished() on b returned: b finished
          t=5  main.tap1 began on the main thread: the main thread was freed by main.wait1
          now t=5

        """)
  }

  @Test("A wait on an operation cut short by time travel is saved as its `until` form, which replays to the same world")
  func cutWaitsReplay() throws {
    let i = wide()
    _ = run(["op x takes 5", "wait x from main", "goto 2"], i)
    #expect(i.script.map(\.text) == ["op x takes 5", "wait x from main until 2"])
    _ = run(["op a takes 2 hold", "op b takes 3 hold", "add a,b wait", "goto 3"], i)
    #expect(i.script.map(\.text).last == "add a,b to queue wait until 3")
    let replay = wide()
    for line in i.script.map(\.text) { #expect(replay.execute(line).error == nil, "\(line)") }
    #expect(replay.world.trace == i.world.trace)
  }

  @Test(
    "start OP runs it on the main thread, blocking a tap; on an operation that is not ready, in a queue or running it is refused",
    arguments: Platform.allCases)
  func start(platform: Platform) throws {
    let i = wide(platform)
    _ = run(["op x takes 3 hold", "tap at 1"], i)
    #expect(
      run(["start x", "run"], i) == """
          t=0  main.start1 enqueued on main
          t=0  main.start1 ready: no unfinished dependencies
          t=0  main.start1 started on main: a slot was free when it was enqueued
          t=0  x started: start() called by hand on the main thread (main.start1): main() runs there, blocking it until it returns
          t=1  main.tap1 created: the user tapped: the tap needs the main thread
          t=3  x finished (succeeded): work done
          t=3  main.start1 finished (succeeded): everything it waited for finished; the main thread is free again
          t=3  main.tap1 began on the main thread: the main thread was freed by main.start1
          t=4  main.tap1 finished (succeeded): work done
          idle at t=4: every operation has finished

        """)
    _ = run(["op dep takes 2", "op w after dep hold", "op q1 hold", "max queue 0", "add q1"], i)
    let trace = i.world.trace.count
    let notReady = try #require(i.execute("start w").error)
    #expect(notReady.column == 7)
    #expect(
      notReady.message == "'w' is not ready (waiting on dep): calling start() "
        + (platform == .apple ? "raises NSInvalidArgumentException" : "crashes the process (fatalError: \"receiver is not yet ready to execute\")"))
    let queued = try #require(i.execute("start q1").error)
    #expect(queued.message.hasPrefix("'q1' is in queue, which starts it: calling start() yourself "))
    _ = run(["op long takes 9 hold", "start long"], i)
    let again = try #require(i.execute("start long").error)
    #expect(
      again.message == "'long' is executing: calling start() again "
        + (platform == .apple ? "raises NSInvalidArgumentException" : "crashes the process (fatalError: \"receiver is already executing\")"))
    #expect(i.world.trace.count > trace)  // `start long` itself ran
  }

  @Test("start on a cancelled operation: on Linux it finishes it and frees its dependents; on Apple platforms cancel() did already")
  func startCancelled() {
    let linux = wide(.linux)
    _ = run(["op a takes 5 hold", "op d after a", "cancel a"], linux)
    #expect(
      run(["start a"], linux) == """
          t=0  main.start1 enqueued on main
          t=0  main.start1 ready: no unfinished dependencies
          t=0  main.start1 started on main: a slot was free when it was enqueued
          t=0  a skipped (cancelled: main() never runs): start() called by hand on the main thread (main.start1) found it cancelled, so main() never runs
          t=0  a finished (cancelled): start() skipped main() because it was cancelled
          t=0  d ready: dependency a finished — it was cancelled, and cancellation does not propagate
          t=0  d started on queue: became ready with a slot free
          t=0  main.start1 finished (succeeded): everything it waited for finished; the main thread is free again

        """)
    let apple = wide()
    _ = run(["op a takes 5 hold", "cancel a"], apple)
    #expect(run(["start a"], apple) == "  t=0  a start() called by hand: no effect, already finished\n")
  }

  @Test("blocks OP +D adds a block before the start and is refused after it; status counts the blocks")
  func blocks() throws {
    let i = wide()
    _ = run(["op b blocks 2 hold"], i)
    #expect(run(["blocks b +3"], i) == "  t=0  b addExecutionBlock: a block of 3 ticks (2 blocks now)\n")
    #expect(
      run(["status"], i).contains(
        "  b  not in a queue\n    isReady true, isExecuting false, isFinished false, isCancelled false; no dependencies; 2 execution blocks\n"))
    _ = run(["add b"], i)
    let late = try #require(i.execute("blocks b +1").error)
    #expect(late.message == "'b' is executing: adding an execution block now raises NSInvalidArgumentException")
    let plus = try #require(i.execute("blocks b 1").error)
    #expect(plus.column == 10 && plus.message == "'1' does not start with +")
    let subclass = try #require(i.execute("op c takes 2 cancel-check every 1 hold").error == nil ? i.execute("blocks c +1").error : nil)
    #expect(subclass.message.hasPrefix("'c' is not a BlockOperation"))
  }

  @Test("only-if-deps-succeeded: the filter returns at once when its download failed")
  func onlyIfDependenciesSucceeded() {
    let i = wide()
    _ = run(["op download takes 2 fails at 1", "op filter takes 3 only-if-deps-succeeded after download"], i)
    #expect(run(["run"], i).contains("  t=1  filter finished (bailed): returned at once: dependency download did not succeed (failed)\n"))
    #expect(
      run(["swift filter"], i).contains(
        "    // e.g. no image to filter\n    if !dependencies.allSatisfy(succeeded) { bailed = true; return }\n"))
  }

  @Test("status and why name OperationQueue.current for running work, per platform")
  func current() {
    for platform in Platform.allCases {
      let i = wide(platform)
      _ = run(["queue q", "op a on q takes 5", "op m on main takes 5 hold", "start m"], i)
      let status = run(["status"], i)
      #expect(status.contains("  operationCount 1, operations [a]\n"))
      #expect(status.contains("runs on one of q's threads, not the main thread: OperationQueue.current is q\n"))
      let why = run(["why m"], i)
      #expect(
        why.contains(
          platform == .linux
            ? "Now it runs on the main thread (start() was called there), in no queue: OperationQueue.current is main (corelibs answers main on the main thread).\n"
            : "Now it runs on the main thread (start() was called there), in no queue: Apple documents OperationQueue.current only as typically nil outside an operation a queue started.\n"
        ))
    }
  }

  @Test("op a,b,c defines each alike and adds them with one addOperations; undo takes them all back")
  func operationList() throws {
    let i = wide()
    _ = run(["queue thumbs max 1"], i)
    #expect(
      run(["op t1,t2,t3 on thumbs takes 2"], i) == """
          t=0  t1 enqueued on thumbs
          t=0  t1 ready: no unfinished dependencies
          t=0  t2 enqueued on thumbs
          t=0  t2 ready: no unfinished dependencies
          t=0  t3 enqueued on thumbs
          t=0  t3 ready: no unfinished dependencies
          t=0  t1 started on thumbs: a slot was free when it was enqueued; the same priority (normal) as t2, but ahead in the line (FIFO)

        """)
    #expect(
      run(["swift t3"], i).contains(
        "// inserts all, then schedules once\nthumbs.addOperations([t1, t2, t3], waitUntilFinished: false)\n"))
    #expect(i.world.operation(try #require(i.world.operationID(named: "t3"))).spec.duration == 2)
    _ = run(["undo"], i)
    #expect(i.world.operationID(named: "t1") == nil && i.world.operationID(named: "t3") == nil)
    #expect(run(["op h1,h2 hold"], i) == "  h1,h2 defined, in no queue yet (`add h1,h2` to enqueue them)\n")
  }

  @Test("op … gate G waits for `open G`: why and status say so, and opening it posts KVO on isReady; the Swift overrides isReady")
  func gate() throws {
    let i = wide()
    _ = run(["queue net max 2", "op login on net", "op fetch on net takes 2 after login gate reachable", "step 2"], i)
    #expect(
      run(["why fetch"], i).hasSuffix(
        "Now: fetch's dependencies are done, but its isReady waits for gate reachable, which is closed: `open reachable` opens it.\n"))
    #expect(run(["status"], i).contains("  fetch  pending (isReady waits for gate reachable, closed)\n"))
    #expect(
      run(["open reachable"], i) == """
          t=2  gate reachable opens
          t=2  fetch willChangeValue(forKey: "isReady")
          t=2  fetch didChangeValue(forKey: "isReady")
          t=2  fetch ready: gate reachable opened: its isReady override now reads true, and KVO told the queue
          t=2  fetch started on net: became ready with a slot free

        """)
    let swift = run(["swift fetch"], i)
    #expect(swift.contains("  override var isReady: Bool {\n    super.isReady && (gate.isOpen || isCancelled)\n  }\n"))
    #expect(swift.contains("let fetch = FetchOperation(ticks: 2, gate: reachable)\n"))
    let unknown = try #require(i.execute("open nowhere").error)
    #expect(unknown.message == "there is no gate named 'nowhere'")
    let blocks = try #require(i.execute("op b blocks 1 gate reachable").error)
    #expect(blocks.message.hasPrefix("a gate goes in an Operation subclass's isReady"))
  }

  @Test("The timeline draws an operation started by hand under main, beside the call that runs it and a wait on it")
  func timeline() {
    let i = wide()
    _ = run(["op x takes 3 hold", "tap at 1", "start x", "op y takes 2", "wait y from main", "run"], i)
    let lines = run(["timeline"], i).split(separator: "\n").map(String.init)
    #expect(lines.contains("  main.start1 ███✓  start() of x"))
    #expect(lines.contains("  main.wait1  ░░░✓  the main thread waits for y"))
    #expect(lines.contains("  x           ███✓  started by hand, in no queue"))
    #expect(lines.contains("  taps         ░░█✓  1 tap, 1 delayed, longest wait 2 ticks"))
  }

  @Test("An asynchronous operation started by hand that never calls finish() is named as such when the queues are idle, and holds no slot")
  func startedByHandNeverFinishes() {
    let i = wide()
    _ = run(["op x async forgets-finish takes 2 hold", "op y hold", "start x"], i)
    let out = run(["run"], i)
    #expect(
      out.contains(
        "  t=2  x work ended without calling finish(): it never calls finish(), so it never finishes (started by hand, it holds no queue's slot)\n"))
    #expect(
      out.hasSuffix(
        "  idle at t=2: every operation in a queue has finished; y is in no queue, never started (`add y` enqueues it); x, started by hand, never calls finish()\n"
      ))
  }
}
