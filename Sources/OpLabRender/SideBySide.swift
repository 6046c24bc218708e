import OpLabCore

/// `real`: the lab's timeline of each operation with the real `OperationQueue`'s drawn under
/// it in the same columns, and every difference named and sorted into real differences and
/// timing noise.
///
/// A pure function of plain values (the shell measures the real run), so it can be tested
/// with made-up runs.
public enum SideBySide {
  /// How one operation went, on one side. Times are in ticks; the real side's are fractional.
  public struct Run: Sendable, Equatable {
    /// When `main()` began; `nil` if it never did (skipped, or not yet).
    public var start: Double?
    /// When it finished; `nil` if it had not by the end.
    public var end: Double?
    /// How it ended, when it did.
    public var outcome: Outcome?
    /// Whether `start()` found it cancelled and skipped `main()`.
    public var skipped: Bool

    public init(start: Double? = nil, end: Double? = nil, outcome: Outcome? = nil, skipped: Bool = false) {
      self.start = start
      self.end = end
      self.outcome = outcome
      self.skipped = skipped
    }
  }

  /// One operation on both sides.
  public struct Lane: Sendable, Equatable {
    /// Both sides as they were at `tick`: what happened later is dropped.
    public func cut(at tick: Tick) -> Lane {
      func cut(_ r: Run) -> Run {
        let t = Double(tick) + noise
        var r = r
        if let s = r.start, s > t { r.start = nil }
        if let e = r.end, e > t {
          r.end = nil
          r.outcome = nil
          if r.start == nil { r.skipped = false }
        }
        return r
      }
      var lane = self
      lane.lab = cut(lab)
      lane.real = cut(real)
      return lane
    }

    public var name: String
    public var queue: String
    public var lab: Run
    public var real: Run
    /// Whether the lab chose this operation's place among orders the real queue leaves open:
    /// a difference in its start is not the lab's error.
    public var orderIsOpen: Bool

    public init(name: String, queue: String, lab: Run, real: Run, orderIsOpen: Bool = false) {
      self.name = name
      self.queue = queue
      self.lab = lab
      self.real = real
      self.orderIsOpen = orderIsOpen
    }
  }

  /// A difference between the sides.
  public struct Difference: Sendable, Equatable {
    /// The operation it is about (the first, for an order).
    public var name: String
    /// What differs, in a sentence.
    public var text: String
    /// Whether it is about an order the real queue leaves open (one of several possible).
    public var isOpenOrder = false
    /// The second operation of an order.
    public var other: String?
  }

  /// How far (in ticks) a real event may be from the lab's and still count as the same: the
  /// driver and the threads wake a little late, and work in the same tick races.
  public static let noise = 0.35

  /// The differences, in the lanes' order: outcomes, starts and finishes more than ``noise``
  /// apart, and pairs started in one order in the lab and the other on the real queue.
  /// - Returns: the differences, and how many events matched and the largest drift among them.
  public static func compare(_ lanes: [Lane]) -> (differences: [Difference], matched: Int, drift: Double) {
    var differences: [Difference] = []
    var matched = 0
    var drift = 0.0
    func tick(_ t: Double) -> String {
      let hundredths = Int((t * 100).rounded())
      return hundredths % 100 == 0 ? "t=\(hundredths / 100)" : "t≈\(Self.format(t))"
    }
    for lane in lanes {
      let n = lane.name
      let (lab, real) = (lane.lab, lane.real)
      if lab.skipped != real.skipped, lab.end != nil, real.end != nil {
        differences.append(
          Difference(
            name: n,
            text: lab.skipped
              ? "\(n) was skipped in the lab (cancelled before it started) but ran on the real queue"
              : "\(n) ran in the lab but the real queue skipped it (cancelled before it started)"))
        continue
      }
      var startMoved: (lab: Double, real: Double)?
      switch (lab.start, real.start) {
      case (let l?, let r?):
        if abs(l - r) > noise {
          startMoved = (l, r)
        } else {
          matched += 1
          drift = max(drift, abs(l - r))
        }
      case (let l?, nil) where !real.skipped:
        differences.append(Difference(name: n, text: "\(n) started at \(tick(l)) in the lab, never on the real queue"))
      case (nil, let r?) where !lab.skipped:
        differences.append(Difference(name: n, text: "\(n) started at \(tick(r)) on the real queue, never in the lab"))
      default: break
      }
      switch (lab.end, real.end) {
      case (let l?, let r?):
        if abs(l - r) > noise {
          if let s = startMoved {
            differences.append(
              Difference(name: n, text: "\(n) ran from \(tick(s.real)) to \(tick(r)) on the real queue, from \(tick(s.lab)) to \(tick(l)) in the lab")
            )
            startMoved = nil
          } else {
            differences.append(Difference(name: n, text: "\(n) finished at \(tick(r)) on the real queue, \(tick(l)) in the lab"))
          }
        } else {
          matched += 1
          drift = max(drift, abs(l - r))
        }
        if let lo = lab.outcome, let ro = real.outcome, lo != ro {
          differences.append(Difference(name: n, text: "\(n) ended \(describe(lo)) in the lab, \(describe(ro)) on the real queue"))
        }
      case (let l?, nil):
        differences.append(Difference(name: n, text: "\(n) finished at \(tick(l)) in the lab, not on the real queue by the end"))
      case (nil, let r?):
        differences.append(Difference(name: n, text: "\(n) finished at \(tick(r)) on the real queue, not in the lab"))
      case (nil, nil): break
      }
      if let s = startMoved {
        differences.append(Difference(name: n, text: "\(n) started at \(tick(s.real)) on the real queue, \(tick(s.lab)) in the lab"))
      }
    }
    // Orders: the lab started a before b in an earlier tick, the real queue b before a.
    let started = lanes.filter { $0.lab.start != nil && $0.real.start != nil }
    for a in started {
      for b in started where a.name != b.name {
        guard let la = a.lab.start, let lb = b.lab.start, let ra = a.real.start, let rb = b.real.start else { continue }
        if la < lb, ra - rb > noise {
          differences.append(
            Difference(
              name: a.name, text: "order: the lab started \(a.name) before \(b.name), the real queue \(b.name) first", other: b.name))
        }
      }
    }
    let open = Set(lanes.filter(\.orderIsOpen).map(\.name))
    for i in differences.indices where open.contains(differences[i].name) || differences[i].other.map(open.contains) == true {
      differences[i].isOpenOrder = true
    }
    return (differences, matched, drift)
  }

  static func describe(_ o: Outcome) -> String {
    switch o {
    case .bailed: "returning early"
    case .dropped: "dropped"
    default: o.description
    }
  }

  /// Hundredths, as `6.12`.
  public static func format(_ t: Double) -> String {
    let hundredths = Int((t * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }

  /// The two timelines, one pair of rows per operation under its queue, the differences marked
  /// `≠` at the row's end, then listed.
  /// - Parameters:
  ///   - lanes: the operations, in the order to draw them (grouped by queue).
  ///   - end: the last tick drawn (the lab's `now`).
  /// - Returns: the text, every row at most `width` columns (the list is prose, wrapped by the caller).
  public static func render(_ lanes: [Lane], end: Tick, width: Int = 80, ascii: Bool = false) -> String {
    let g = ascii ? Timeline.Glyphs.ascii : Timeline.Glyphs.unicode
    let width = min(max(Timeline.widths.lowerBound, width), Timeline.widths.upperBound)
    let (differences, _, _) = compare(lanes)
    let differing = Set(differences.filter { !$0.isOpenOrder }.map(\.name))
    let longest = lanes.map { Names.width($0.name) + 3 }.max() ?? 4
    let nameWidth = min(max(4, longest), max(8, width / 4))
    let labelWidth = nameWidth + 6  // "name  real "
    let ticks = end + 1
    let laneRoom = max(10, width - labelWidth - 3)
    let scale = max(1, (ticks + laneRoom - 1) / laneRoom)
    let columns = (ticks + scale - 1) / scale

    func cells(_ run: Run) -> [Character] {
      var row = Array(repeating: g.empty, count: columns)
      func column(_ t: Double) -> Int { min(columns - 1, max(0, Int(t.rounded()) / scale)) }
      if let s = run.start {
        let first = Int(s.rounded()), last = run.end.map { Int($0.rounded()) } ?? end + 1
        if first < last {
          for c in (first / scale)...min(columns - 1, max(first, last - 1) / scale) where c < columns { row[c] = g.executing }
        }
      }
      if let e = run.end, Int(e.rounded()) <= end {
        row[column(e)] =
          switch run.outcome {
          case .cancelled?: g.cancelled
          case .failed?: g.failed
          case .bailed?: g.bailed
          case .dropped?: g.dropped
          default: g.finished
          }
      }
      return row
    }

    var out = ""
    var axis = Array(repeating: Character(" "), count: columns)
    var c = 0
    while c < columns {
      let label = Array(String(c * scale))
      if c + label.count <= columns { for (i, ch) in label.enumerated() { axis[c + i] = ch } }
      c += max(5, ((String(end).count + 2 + 4) / 5) * 5)
    }
    func row(_ label: String, _ cells: [Character], mark: Bool = false) {
      var text = label + String(cells)
      while text.last == " " { text.removeLast() }
      if mark { text += String(repeating: " ", count: max(1, labelWidth + columns + 1 - Names.width(text))) + (ascii ? "<>" : "≠") }
      out += text + "\n"
    }
    let scaleNote = scale > 1 ? ", 1 column = \(scale) ticks" : ""
    out += "t=0-\(end)\(scaleNote): each operation in the lab, and under it on the real queue\n"
    row(Names.pad("tick", to: labelWidth, ascii: ascii), axis)
    var queue: String?
    for lane in lanes {
      if lane.queue != queue {
        queue = lane.queue
        out += Names.shorten(lane.queue, to: width, ascii: ascii) + "\n"
      }
      let name = Names.pad("  " + Names.shorten(lane.name, to: nameWidth - 3, ascii: ascii), to: nameWidth, ascii: ascii)
      row(name + "lab   ", cells(lane.lab))
      row(String(repeating: " ", count: nameWidth) + "real  ", cells(lane.real), mark: differing.contains(lane.name))
    }
    // The marks drawn, and what a blank means here: the real queue shows when an operation
    // runs, not why it waits, so waiting is drawn on neither side.
    let drawn = Set(lanes.flatMap { cells($0.lab) + cells($0.real) })
    let marks: [(Character, String)] = [
      (g.executing, "executing"), (g.finished, "finished"), (g.cancelled, "cancelled"), (g.failed, "failed"),
      (g.bailed, "returned early"), (g.dropped, "frame dropped"),
    ]
    // A dropped frame's mark may be a cancelled operation's: named only for a dropped frame.
    let dropped = lanes.contains { $0.lab.outcome == .dropped || $0.real.outcome == .dropped }
    var items = marks.filter { drawn.contains($0.0) && ($0.1 != "frame dropped" || dropped) }.map { "\($0.0) \($0.1)" }
    if !differing.isEmpty { items.append(ascii ? "<> differs" : "≠ differs") }
    items.append("blank: not executing")
    var line = ""
    for item in items {
      if !line.isEmpty, Names.width(line) + 2 + Names.width(item) > width {
        out += line + "\n"
        line = ""
      }
      line += (line.isEmpty ? "" : "  ") + item
    }
    return out + line + "\n"
  }
}
