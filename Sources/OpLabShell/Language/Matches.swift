import OpLabCore

/// A value of a command line, read once, when the matcher checked it: what a
/// ``CommandSpec/Build`` works with, never the token's text again.
public enum Value: Hashable, Sendable {
  /// A name (of something new or existing), a file path, or a command's name.
  case name(String)
  /// A whole number.
  case number(Int)
  /// Names separated by commas.
  case names([String])
  /// Whole numbers separated by commas.
  case numbers([Int])
  /// A queue priority.
  case priority(QueuePriority)
  /// A quality of service.
  case qos(QualityOfService)
  /// A platform.
  case platform(Platform)
  /// Steps on shared state (`does …`).
  case steps([Step])

  /// The name, if this is one.
  public var name: String? { if case .name(let v) = self { v } else { nil } }
  /// The number, if this is one.
  public var number: Int? { if case .number(let v) = self { v } else { nil } }
  /// The names, if this is a list of them.
  public var names: [String]? { if case .names(let v) = self { v } else { nil } }
  /// The numbers, if this is a list of them.
  public var numbers: [Int]? { if case .numbers(let v) = self { v } else { nil } }
  /// The priority, if this is one.
  public var priority: QueuePriority? { if case .priority(let v) = self { v } else { nil } }
  /// The quality of service, if this is one.
  public var qos: QualityOfService? { if case .qos(let v) = self { v } else { nil } }
  /// The platform, if this is one.
  public var platform: Platform? { if case .platform(let v) = self { v } else { nil } }
  /// The steps, if these are steps.
  public var steps: [Step]? { if case .steps(let v) = self { v } else { nil } }
}

/// What one command line matched: each value, typed, under its ``ArgumentKey`` with the
/// token it came from (for errors that point at it), and the literal words it used.
public struct Matches: Sendable {
  /// One matched value and where it stood.
  public struct Item: Sendable {
    /// The value's token (the first one, for steps that span several).
    public var token: Token
    /// The value, read once.
    public var value: Value
  }

  /// The line's tokens, the command's name first.
  public let tokens: [Token]
  /// The names the line may refer to.
  public let context: ParseContext
  /// The values, each under its key, in the order they came. A line has a handful: a list
  /// is searched faster than a dictionary is built, and a part of the grammar tried and
  /// not taken is undone by cutting the lists back (``mark``, ``rewind(to:)``) rather than
  /// by trying it on a copy.
  var items: [(key: ArgumentKey, item: Item)] = []
  /// The literal keywords matched (`all`, `wait`, `main`, …).
  var words: [String] = []

  /// How far the lists have grown: what ``rewind(to:)`` goes back to.
  var mark: (items: Int, words: Int) { (items.count, words.count) }
  /// Drops what was matched after `mark`.
  mutating func rewind(to mark: (items: Int, words: Int)) {
    if items.count > mark.items { items.removeSubrange(mark.items...) }
    if words.count > mark.words { words.removeSubrange(mark.words...) }
  }
  /// The values under `key`, in the order they came.
  private func items(_ key: ArgumentKey) -> some Sequence<Item> { items.lazy.filter { $0.key == key }.map(\.item) }

  init(tokens: [Token], context: ParseContext) {
    self.tokens = tokens
    self.context = context
    // At most a value or a keyword a token: room made once, where the lists grew by
    // doubling, reallocated about four times a line (#34).
    items.reserveCapacity(tokens.count)
    words.reserveCapacity(tokens.count)
  }

  /// Whether the line used this keyword.
  public func has(_ word: String) -> Bool { words.contains(word) }

  /// Where the (first) value under `key` is in ``items``: a loop over the indices compares
  /// keys alone, where `first(where:)` copied every item it passed (its token and value).
  private func index(_ key: ArgumentKey) -> Int? {
    for i in items.indices where items[i].key == key { return i }
    return nil
  }

  /// The token of the (first) value under `key`, if the line gave one.
  public func token(_ key: ArgumentKey) -> Token? { index(key).map { items[$0].item.token } }

  /// The value under `key`, if the line gave one, in the shape `shape` reads.
  /// - Throws: when the value has another shape: the command's pattern and its build
  ///   disagree, a mistake of the lab that the command table's tests catch.
  public func get<T>(_ key: ArgumentKey, _ shape: KeyPath<Value, T?>) throws(ParseError) -> T? {
    guard let i = index(key) else { return nil }
    let item = items[i].item
    guard let value = item.value[keyPath: shape] else { throw mismatch(key, item) }
    return value
  }

  /// The value under `key`, which the command's pattern requires.
  /// - Throws: when it is missing or has another shape (a mistake of the lab).
  public func need<T>(_ key: ArgumentKey, _ shape: KeyPath<Value, T?>) throws(ParseError) -> T {
    guard let value = try get(key, shape) else { throw missing(key) }
    return value
  }

  /// The value under `key` as ``get(_:_:)`` reads it, by a switch rather than a key path:
  /// `op`'s build reads a dozen values, on every line of a script (#34).
  public func number(_ key: ArgumentKey) throws(ParseError) -> Int? {
    guard let i = index(key) else { return nil }
    guard case .number(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }
  /// The name under `key` (``number(_:)``).
  public func name(_ key: ArgumentKey) throws(ParseError) -> String? {
    guard let i = index(key) else { return nil }
    guard case .name(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }
  /// The names under `key` (``number(_:)``).
  public func names(_ key: ArgumentKey) throws(ParseError) -> [String]? {
    guard let i = index(key) else { return nil }
    guard case .names(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }

  /// The priority under `key` (``number(_:)``).
  public func priority(_ key: ArgumentKey) throws(ParseError) -> QueuePriority? {
    guard let i = index(key) else { return nil }
    guard case .priority(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }

  /// The quality of service under `key` (``number(_:)``).
  public func qos(_ key: ArgumentKey) throws(ParseError) -> QualityOfService? {
    guard let i = index(key) else { return nil }
    guard case .qos(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }
  /// The numbers under `key` (``number(_:)``).
  public func numbers(_ key: ArgumentKey) throws(ParseError) -> [Int]? {
    guard let i = index(key) else { return nil }
    guard case .numbers(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }
  /// The steps under `key` (``number(_:)``).
  public func steps(_ key: ArgumentKey) throws(ParseError) -> [Step]? {
    guard let i = index(key) else { return nil }
    guard case .steps(let v) = items[i].item.value else { throw mismatch(key, items[i].item) }
    return v
  }

  /// Every value under `key` (a `many` pattern), in order.
  public func all<T>(_ key: ArgumentKey, _ shape: KeyPath<Value, T?>) throws(ParseError) -> [T] {
    var values: [T] = []
    for item in items(key) {
      guard let value = item.value[keyPath: shape] else { throw mismatch(key, item) }
      values.append(value)
    }
    return values
  }

  /// A `maxConcurrentOperationCount` setting: the word `default`, or a count under `key`
  /// (−1 is the default too); `nil` when the line gave neither.
  public func maxSetting(_ key: ArgumentKey) throws(ParseError) -> MaxSetting? {
    if has("default") { return .default }
    return try get(key, \.number).map { $0 == -1 ? .default : .count($0) }
  }

  /// The error for a value the pattern requires but the match lacks: a mistake of the lab.
  public func missing(_ key: ArgumentKey) -> ParseError {
    let end = tokens.last.map { $0.column + $0.length } ?? 1
    return ParseError(
      column: end, length: 1, message: "the lab's grammar for '\(tokens.first?.text ?? "")' lost its \(key.rawValue)",
      hint: "this is a mistake in OpLab, not in the line: please report it with the line")
  }

  private func mismatch(_ key: ArgumentKey, _ item: Item) -> ParseError {
    ParseError(
      column: item.token.column, length: item.token.length,
      message: "the lab's grammar for '\(tokens.first?.text ?? "")' read '\(item.token.text)' as the wrong kind of value",
      hint: "this is a mistake in OpLab, not in the line: please report it with the line")
  }

  mutating func append(_ value: Value, token: Token, under key: ArgumentKey) {
    items.append((key, Item(token: token, value: value)))
  }
}
