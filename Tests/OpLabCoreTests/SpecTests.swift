import Testing

@testable import OpLabCore

/// Specs store optional numbers as integers with sentinels; no value may read back as one.
@Suite struct SpecTests {
  @Test("Values at the sentinels stay invalid instead of reading back as 'none'")
  func sentinelsStayInvalid() {
    for check in [CancellationCheck.every(Int.min), .every(Int.min + 1), .every(0)] {
      let spec = OperationSpec(name: "a", cancellation: check)
      #expect(spec.cancellation != .never && spec.cancellation != .atStart)
      #expect(throws: SimulationError.self) { try spec.validate() }
    }
    let fails = OperationSpec(name: "a", duration: 3, failsAt: Int.min)
    #expect(fails.failsAt != nil)
    #expect(throws: SimulationError.self) { try fails.validate() }
    var completion = OperationSpec(name: "a", completion: 2)
    completion.completion = Int.min
    #expect(completion.completion != nil)
    #expect(throws: SimulationError.self) { try completion.validate() }
    var plain = OperationSpec(name: "a", cancellation: .every(3), failsAt: 1, completion: 0)
    #expect(plain.cancellation == .every(3) && plain.failsAt == 1 && plain.completion == 0)
    plain.cancellation = .atStart
    plain.failsAt = nil
    #expect(plain.cancellation == .atStart && plain.failsAt == nil)
  }
}
