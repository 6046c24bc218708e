/// An append-mostly list whose copies share what they have in common: a simulation's
/// journal and a shell's script, which every `fork` copies.
///
/// Elements are kept in immutable blocks of ``blockSize``, linked newest to oldest, and an
/// open tail of fewer than ``blockSize``. A copy shares every block; appending to it copies
/// at most its tail. So `n` forks, each followed by a command, store the history once plus
/// at most one tail per fork — linear, where copying an `Array` per fork is quadratic.
///
/// ```swift
/// var log = SharedLog<Int>()
/// for i in 0..<100 { log.append(i) }
/// var fork = log          // shares all 100
/// fork.append(100)        // copies at most the tail (fewer than 32 elements)
/// log.truncate(to: 10)    // the fork keeps its 101
/// ```
public struct SharedLog<Element: Sendable>: Sequence, Sendable {
  /// Elements per sealed block.
  public static var blockSize: Int { 32 }

  /// A full block: its elements, where they start, and the block before it.
  final class Block: Sendable {
    let items: [Element]
    let start: Int
    let previous: Block?
    init(items: [Element], start: Int, previous: Block?) {
      self.items = items
      self.start = start
      self.previous = previous
    }
    var end: Int { start + items.count }
  }

  private var sealed: Block?
  private var tail: [Element] = []

  /// An empty log.
  public init() {}

  /// A log of the given elements, in order.
  public init(_ elements: some Sequence<Element>) {
    for e in elements { append(e) }
  }

  /// The number of elements. O(1).
  public var count: Int { (sealed?.end ?? 0) + tail.count }
  /// Whether the log is empty. O(1).
  public var isEmpty: Bool { count == 0 }
  /// The last element. O(1).
  public var last: Element? { tail.last ?? sealed?.items.last }

  /// Appends an element: O(1), plus a copy of the tail (fewer than ``blockSize``
  /// elements) when a copy of the log shares it.
  public mutating func append(_ element: Element) {
    tail.append(element)
    if tail.count == Self.blockSize {
      sealed = Block(items: tail, start: sealed?.end ?? 0, previous: sealed)
      tail = []
    }
  }

  /// Removes and returns the last element.
  /// - Complexity: O(``blockSize``).
  @discardableResult
  public mutating func popLast() -> Element? {
    guard let last else { return nil }
    truncate(to: count - 1)
    return last
  }

  /// Keeps the first `n` elements (all when `n ≥ count`, none when `n ≤ 0`).
  /// - Complexity: O(blocks dropped + ``blockSize``); copies share the blocks kept.
  public mutating func truncate(to n: Int) {
    let n = Swift.max(0, n)
    let sealedEnd = sealed?.end ?? 0
    if n >= sealedEnd {
      if n < count { tail.removeSubrange((n - sealedEnd)...) }
      return
    }
    var block = sealed
    var containing: Block?
    while let b = block, b.end > n {
      containing = b
      block = b.previous
    }
    sealed = block
    tail = containing.map { Array($0.items[..<(n - $0.start)]) } ?? []
  }

  /// The element at `index` (`0 ..< count`).
  /// - Complexity: O(1) in the tail, else O(blocks after the one holding it).
  public subscript(index: Int) -> Element {
    let sealedEnd = sealed?.end ?? 0
    if index >= sealedEnd { return tail[index - sealedEnd] }
    var block = sealed
    while let b = block, b.start > index { block = b.previous }
    guard let b = block else { preconditionFailure("SharedLog index \(index) out of range") }
    return b.items[index - b.start]
  }

  /// The elements from `start` up to `end` (the count by default), in order.
  /// - Complexity: O(end − start + blocks after `end`).
  public func elements(from start: Int, to end: Int? = nil) -> [Element] {
    let end = Swift.min(end ?? count, count)
    guard start < end else { return [] }
    var out: [Element] = []
    out.reserveCapacity(end - start)
    for block in blocks(from: start) {
      let lo = Swift.max(start, block.start) - block.start
      let hi = Swift.min(end, block.end) - block.start
      if lo < hi { out += block.items[lo..<hi] }
    }
    let sealedEnd = sealed?.end ?? 0
    if end > sealedEnd { out += tail[(Swift.max(start, sealedEnd) - sealedEnd)..<(end - sealedEnd)] }
    return out
  }

  /// The sealed blocks holding elements at or after `start`, oldest first.
  private func blocks(from start: Int) -> [Block] {
    var out: [Block] = []
    var block = sealed
    while let b = block, b.end > start {
      out.append(b)
      block = b.previous
    }
    return out.reversed()
  }

  /// Iterates in order over a copy of the elements (O(count) to make).
  public func makeIterator() -> IndexingIterator<[Element]> { elements(from: 0).makeIterator() }

  /// Elements stored, counting blocks already in `seen` as nothing (and adding the rest),
  /// so that logs that share blocks can be measured together.
  public func storedElements(seen: inout Set<ObjectIdentifier>) -> Int {
    var total = tail.count
    var block = sealed
    while let b = block, seen.insert(ObjectIdentifier(b)).inserted {
      total += b.items.count
      block = b.previous
    }
    return total
  }
}
