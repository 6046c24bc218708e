/// Dependency edges, both directions, as linked lists in one pool.
///
/// Each operation keeps two ``EdgeList``s — what it depends on, and what depends on it —
/// whose links live here, so a world of a million operations allocates two arrays for
/// its edges rather than two per operation. Lists keep the order edges were added
/// (rule 7); removed links are reused.
struct EdgePool: Sendable {
  struct Link: Sendable {
    var op: OpID
    /// The next link of the same list, or -1.
    var next: Int32
  }

  var links: [Link] = []
  var free: [Int32] = []

  /// Appends `op` to the end of `list`.
  mutating func append(_ op: OpID, to list: inout EdgeList) {
    let index = take(Link(op: op, next: -1))
    if list.tail >= 0 { links[Int(list.tail)].next = index } else { list.head = index }
    list.tail = index
  }

  /// Puts `op` at the front of `list`, which then reads newest first. Cheaper than
  /// ``append(_:to:)`` for a list that grows while its owner is long cold (an old
  /// operation's dependents): the list's last link is a random place in the pool.
  mutating func prepend(_ op: OpID, to list: inout EdgeList) {
    let index = take(Link(op: op, next: list.head))
    if list.head < 0 { list.tail = index }
    list.head = index
  }

  /// Puts `op` at the front of the list that starts at `head`, a list kept by its head
  /// alone (it is only ever prepended to, removed from and read).
  mutating func prepend(_ op: OpID, toHead head: inout Int32) {
    head = take(Link(op: op, next: head))
  }

  /// Removes the first `op` from the list that starts at `head`.
  /// - Returns: whether it was there.
  @discardableResult
  mutating func remove(_ op: OpID, fromHead head: inout Int32) -> Bool {
    var list = EdgeList(head: head, tail: -1)
    defer { head = list.head }
    return remove(op, from: &list)
  }

  /// The operations in the list that starts at `head`, in order.
  func operations(from head: Int32) -> [OpID] { operations(in: EdgeList(head: head, tail: -1)) }

  /// Appends the operations of the list that starts at `head` to `buffer`, in list order.
  func appendOperations(from head: Int32, to buffer: inout [OpID]) {
    var current = head
    while current >= 0 {
      buffer.append(links[Int(current)].op)
      current = links[Int(current)].next
    }
  }

  /// Asks for the cache line of the link at `index` (a hint, see
  /// ``Swift/Array/prefetch(_:)``; -1 and other indices out of range are ignored).
  func prefetchLink(_ index: Int32) { links.prefetch(Int(index)) }

  /// The operation of the link at `index`, asking for the link after it: a list is read
  /// ahead one link a call. `nil` for -1 (the end of a list).
  func operationReadingAhead(at index: Int32) -> OpID? {
    guard index >= 0, Int(index) < links.count else { return nil }
    links.prefetch(Int(links[Int(index)].next))
    return links[Int(index)].op
  }

  /// Stores a new link, in a freed place if there is one.
  private mutating func take(_ link: Link) -> Int32 {
    if let reused = free.popLast() {
      links[Int(reused)] = link
      return reused
    }
    links.append(link)
    return Int32(links.count - 1)
  }

  /// Removes the first `op` from `list`.
  /// - Returns: whether it was there.
  @discardableResult
  mutating func remove(_ op: OpID, from list: inout EdgeList) -> Bool {
    var previous: Int32 = -1
    var current = list.head
    while current >= 0 {
      let next = links[Int(current)].next
      if links[Int(current)].op == op {
        if previous >= 0 { links[Int(previous)].next = next } else { list.head = next }
        if list.tail == current { list.tail = previous }
        free.append(current)
        return true
      }
      previous = current
      current = next
    }
    return false
  }

  /// The operations in `list`, in order.
  func operations(in list: EdgeList) -> [OpID] {
    var out: [OpID] = []
    var current = list.head
    while current >= 0 {
      out.append(links[Int(current)].op)
      current = links[Int(current)].next
    }
    return out
  }

  /// The first operation in `list` that satisfies `predicate`.
  func first(in list: EdgeList, where predicate: (OpID) -> Bool) -> OpID? {
    var current = list.head
    while current >= 0 {
      let op = links[Int(current)].op
      if predicate(op) { return op }
      current = links[Int(current)].next
    }
    return nil
  }
}

/// One operation's list of edges in the ``EdgePool``: 8 bytes instead of an array (no
/// count: every record carries two lists, and only emptiness is ever asked).
struct EdgeList: Sendable {
  var head: Int32 = -1
  var tail: Int32 = -1
  var isEmpty: Bool { head < 0 }
}
