import Foundation
import OpLabCore
import OpLabRender
import OpLabShell
import TestSupport
import Testing

/// `underlyingQueue` through `real`: each script's world played on Foundation's queues, with
/// `DispatchQueue`s made and set as the lab's `dispatch` and `underlying` lines say (corelibs'
/// `_schedule()` submits to `__dispatch_queue ?? backing queue`). A failure prints the whole
/// side-by-side drawing.
extension DifferentialTests {
  /// The lab's rows, each the same on the real queue, and no difference reported.
  private static func expectAgreement(_ text: String, names: [String], lab: [String]) {
    let rows = Self.rows(text)
    #expect(rows.map(\.name) == names, "\(text)")
    #expect(rows.map(\.lab) == lab, "\(text)")
    for row in rows { #expect(row.real == row.lab, "\(row.name): \(text)") }
    #expect(text.contains("\nNo differences: "), "\(text)")
  }

  @Test("underlyingQueue serial with max 2: one at a time, and the veryHigh d, handed over when a's slot frees, runs before c")
  func underlyingSerialWithMaxTwo() throws {
    let text = try Self.oplab(
      """
      platform linux
      dispatch x
      queue q max 2
      underlying q x
      op a on q takes 2
      op b on q takes 2
      step 1
      op c on q takes 2
      op d on q takes 2 priority veryHigh
      run
      real 60
      """)
    Self.expectAgreement(text, names: ["a", "b", "c", "d"], lab: ["██✓", "  ██✓", "      ██✓", "    ██✓"])
  }

  @Test("underlyingQueue serial with the default count: every operation handed over at once, run in the order added, priority or not")
  func underlyingSerialDefaultMax() throws {
    let text = try Self.oplab(
      """
      platform linux
      dispatch x
      queue q
      underlying q x
      op a on q takes 1
      op b on q takes 1
      op c on q takes 1 priority veryHigh
      run
      real 60
      """)
    Self.expectAgreement(text, names: ["a", "b", "c"], lab: ["█✓", " █✓", "  █✓"])
  }

  @Test("underlyingQueue concurrent: the count alone limits, as without one")
  func underlyingConcurrent() throws {
    let text = try Self.oplab(
      """
      platform linux
      dispatch x concurrent qos utility
      queue q max 2
      underlying q x
      op a on q takes 3
      op b on q takes 2
      step 1
      op c on q takes 2
      op d on q takes 2 priority veryHigh
      run
      real 60
      """)
    Self.expectAgreement(text, names: ["a", "b", "c", "d"], lab: ["███✓", "██✓", "   ██✓", "  ██✓"])
  }

  @Test("Two queues on one serial dispatch queue take turns in the order their work was submitted")
  func underlyingShared() throws {
    let text = try Self.oplab(
      """
      platform linux
      dispatch x
      queue q1
      queue q2
      underlying q1 x
      underlying q2 x
      op a on q1 takes 1
      op b on q2 takes 1
      op c on q1 takes 1
      run
      real 60
      """)
    Self.expectAgreement(text, names: ["a", "c", "b"], lab: ["█✓", "  █✓", " █✓"])
  }

  @Test("underlyingQueue set back to nil once the queue is empty: the queue runs its operations side by side again")
  func underlyingResetToNil() throws {
    let text = try Self.oplab(
      """
      platform linux
      dispatch x
      queue q
      underlying q x
      op a on q takes 1
      op b on q takes 1
      run
      step 1
      underlying q nil
      op c on q takes 1
      op d on q takes 1
      run
      real 60
      """)
    Self.expectAgreement(text, names: ["a", "b", "c", "d"], lab: ["█✓", " █✓", "   █✓", "   █✓"])
  }

  @Test("OperationQueue.current?.underlyingQueue inside an operation is the dispatch queue status names, and nil after the reset")
  func currentUnderlyingQueue() throws {
    // The lab: what status says the running operation's code reads, before and after the reset.
    let lab = Interpreter()
    for line in ["dispatch x", "queue q", "underlying q x", "op a on q takes 2", "step 1"] { _ = lab.execute(line) }
    let a0 = try #require(lab.world.operationID(named: "a"))
    let before = try #require(Status.current(of: a0, in: lab.world))
    for line in ["run", "underlying q nil", "op b on q takes 2", "step 1"] { _ = lab.execute(line) }
    let b0 = try #require(lab.world.operationID(named: "b"))
    let after = try #require(Status.current(of: b0, in: lab.world))
    #expect(before.hasSuffix("OperationQueue.current is q (its underlyingQueue is x)"), "\(before)")
    #expect(after.hasSuffix("OperationQueue.current is q"), "\(after)")
    // The real queue: what an operation's main() reads there.
    final class Reader: Operation, @unchecked Sendable {
      private let lock = NSLock()
      private var seen: (queue: String?, label: String?)
      var read: (queue: String?, label: String?) { lock.withLock { seen } }
      override func main() {
        let current = OperationQueue.current
        lock.withLock { seen = (current?.name, current?.underlyingQueue?.label) }
      }
    }
    let q = OperationQueue()
    q.name = "q"
    // corelibs keeps underlyingQueue unowned(unsafe): the test holds the queue itself.
    let x = DispatchQueue(label: "x")
    q.underlyingQueue = x
    let a = Reader()
    q.addOperation(a)
    q.waitUntilAllOperationsAreFinished()
    q.underlyingQueue = nil
    withExtendedLifetime(x) {}
    let b = Reader()
    q.addOperation(b)
    q.waitUntilAllOperationsAreFinished()
    #expect(a.read.queue == "q" && a.read.label == "x")
    #expect(b.read.queue == "q" && b.read.label == nil)
  }
}
