import OpLabCore

/// `timeline`: one lane per operation, grouped under its queue, over a tick axis.
///
/// A pure function of the trace (through ``Lanes``) and a width. When the ticks do not fit,
/// the view is compressed — several ticks per column, the scale stated — and a window can
/// be chosen with `from`/`to`. Long names are shortened the same way everywhere.
public enum Timeline {
  /// The characters a timeline is drawn with.
  public struct Glyphs: Sendable {
    public var pending, ready, executing, cancelledExecuting, sharedExecuting, finished, cancelled, failed, bailed,
      dropped, completion, suspended, empty: Character
    /// Holding a slot of its queue, waiting behind a running barrier block.
    public var behindBarrier: Character
    /// Shared state: waiting for a lock, a read, a write, a call into the user interface, a data race.
    public var waitingForLock, read, write, touchedUI, race: Character
    /// The CPU line's levels, from idle to every core busy.
    public var load: [Character]
    public static let unicode = Glyphs(
      pending: "·", ready: "░", executing: "█", cancelledExecuting: "▓", sharedExecuting: "▄", finished: "✓",
      cancelled: "✗", failed: "!", bailed: "↩", dropped: "✗", completion: "c", suspended: "‖", empty: " ", behindBarrier: "▒",
      waitingForLock: "≈", read: "r", write: "w", touchedUI: "u", race: "↯",
      load: [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"])
    public static let ascii = Glyphs(
      pending: ".", ready: "-", executing: "#", cancelledExecuting: "=", sharedExecuting: "+", finished: "v",
      cancelled: "x", failed: "!", bailed: "r", dropped: "x", completion: "c", suspended: "|", empty: " ", behindBarrier: "%",
      waitingForLock: "~", read: "R", write: "W", touchedUI: "U", race: "*",
      load: [" ", "_", ".", ":", "-", "=", "+", "*", "#"])
  }

  /// The widths drawn at: narrower cannot hold the labels and a lane; wider is no terminal.
  public static let widths: ClosedRange<Int> = 40...1000

  /// Renders the timeline.
  ///
  /// The title says what is shown: every queue over everything so far (`t=0-8, now t=8`),
  /// a window chosen with `from`/`to`, or named queues (`timeline of downloads, filters:
  /// t=3-8, now t=8 (from their first activity)`), drawn from the first tick anything
  /// happened in them — an operation added, a suspension, a limit changed — unless `from`
  /// says otherwise.
  /// - Parameters:
  ///   - queues: only these queues (all queues with operations when empty).
  ///   - from, to: the tick window (default: everything so far; for named queues, from
  ///     their first activity).
  ///   - width: the columns available, bounded to ``widths`` (a wider line costs memory
  ///     and arithmetic for no terminal that exists).
  ///   - ascii: use only ASCII.
  /// - Returns: the text, every line at most `width` columns, ending in a newline.
  public static func render(
    _ world: World, queues: [QueueID] = [], from: Tick? = nil, to: Tick? = nil, width: Int = 80, ascii: Bool = false
  ) -> String {
    let g = ascii ? Glyphs.ascii : Glyphs.unicode
    // Named queues start at their first activity, not at t=0 (unless that is after the window).
    var firstActivity: Tick?
    if from == nil, let first = queues.compactMap({ world.queue($0).firstActivity }).min(), first > 0, first <= (to ?? world.now) {
      firstActivity = first
    }
    let start = max(0, from ?? firstActivity ?? 0)
    let end = max(start, to ?? world.now)
    let chosenWindow = from != nil || to != nil
    let windowed = chosenWindow || firstActivity != nil
    // A window keeps only what it shows, so a window on a huge world stays small.
    let lanes = Lanes(world, window: windowed ? start...end : nil)
    let width = min(max(Self.widths.lowerBound, width), Self.widths.upperBound)
    let byQueue = world.operationsByQueue().queued
    let shownQueues = queues.isEmpty ? world.queueIDs.filter { !byQueue[Int($0.index)].isEmpty } : queues
    // Operations started by hand (in no queue) run on the main thread: drawn under main.
    let handStarted = world.operations.indices.filter { world.operations[$0].queue == nil && world.operations[$0].startedAt != nil }
      .map { OpID($0) }
    let ops = Array(Set(shownQueues)).sorted().flatMap { byQueue[Int($0.index)] + ($0 == .main ? handStarted : []) }
    guard !shownQueues.isEmpty else { return "no operations in a queue yet\n" }

    // Labels are as wide as the longest name shown (in a window, of what did something there).
    let labelled = windowed ? ops.filter { lanes.hasAnything(of: $0, in: start...end) } : ops
    let completionSteps = labelled.contains { world.shared?.completionSteps[$0] != nil }
    let longest =
      (labelled.map { Names.width(world.name($0)) + 2 } + shownQueues.map { Names.width(world.name($0)) }
      + (completionSteps ? [Names.width(Self.completionLabel(ascii: ascii))] : [])).max() ?? 8
    let labelWidth = min(max(9, longest + 1), max(16, width / 3))
    let ticks = end - start + 1
    // Room for the lane, and a little for notes after it.
    let laneRoom = max(10, width - labelWidth - 1)
    let scale = max(1, (ticks + laneRoom - 1) / laneRoom)
    let columns = (ticks + scale - 1) / scale
    func column(_ t: Tick) -> Int? { t < start || t > end ? nil : (t - start) / scale }
    /// The columns covering ticks `[from, to)` within the window, without visiting each tick.
    func span(from a: Tick, to b: Tick) -> Range<Int> {
      let lo = max(a, start), hi = min(b - 1, end)
      guard lo <= hi else { return 0..<0 }
      return ((lo - start) / scale)..<((hi - start) / scale + 1)
    }

    var out = ""
    // The marks drawn, so the legend names only those: on the taps and frames rows apart, as
    // a dropped frame's ✗ is no cancelled operation's.
    var drawn = Set<Character>()
    var drawnUI = Set<Character>()
    func line(_ label: String, _ cells: [Character], note: String = "", ui: Bool = false) {
      if ui { drawnUI.formUnion(cells) } else if label != "tick" { drawn.formUnion(cells) }
      var text = Names.pad(label, to: labelWidth, ascii: ascii) + String(cells)
      while text.last == " " { text.removeLast() }
      if !note.isEmpty {
        let room = width - Names.width(text) - 2
        if room >= 8 { text += "  " + (note.count > room ? String(note.prefix(room - 1)) + (ascii ? "~" : "…") : note) }
      }
      out += text + "\n"
    }

    // Axis: labels every 5 columns (or more when labels are wide), and where `now` is.
    var axis = Array(repeating: Character(" "), count: columns)
    let step = max(5, ((String(end).count + 2 + 4) / 5) * 5)
    var c = 0
    while c < columns {
      let label = Array(String(start + c * scale))
      if c + label.count <= columns { for (i, ch) in label.enumerated() { axis[c + i] = ch } }
      c += step
    }
    // Named queues are a filter, not a window: the title names them.
    let filter = queues.isEmpty ? "" : "timeline of " + Chains.list(count: queues.count, limit: 4) { world.name(queues[$0]) } + ": "
    let range = "t=\(start)-\(end)"
    var title = filter + range + ", now t=\(world.now)"
    if scale > 1 { title += ", 1 column = \(scale) ticks" }
    if chosenWindow {
      title += queues.isEmpty ? " (a window: `timeline` alone shows everything)" : " (a window: without from and to, all of it)"
    } else if firstActivity != nil {
      title += queues.count == 1 ? " (from its first activity)" : " (from their first activity)"
    }
    // Narrow and far along the clock, even the bare range may not fit: then one tick a line.
    let fitting = [title, filter + range, range].first { Names.width($0) <= width }
    out += (fitting ?? "from t=\(start)\nto t=\(end)") + "\n"
    line("tick", axis)

    for q in shownQueues {
      var cells = Array(repeating: g.empty, count: columns)
      var notes: [String] = []
      for s in lanes.suspensions[q] ?? [] {
        for c in span(from: s.from, to: s.to) { cells[c] = g.suspended }
        notes.append("suspended \(s.from)-\(s.to > world.now ? "now" : String(s.to))")
      }
      // The limit over time: changes at one tick collapse to the last; the first needs no "from".
      var limits: [(tick: Tick, max: Int?)] = []
      for l in lanes.limits[q] ?? [] {
        if let last = limits.last, last.tick == l.tick { limits[limits.count - 1] = l } else { limits.append(l) }
      }
      let maxText = limits.enumerated().map { i, l in (l.max.map(String.init) ?? "default") + (i > 0 ? " from t=\(l.tick)" : "") }
      let queue = world.queue(q)
      let head = "max " + (queue.isMain ? "1 (main)" : maxText.joined(separator: ", "))
      line(world.name(q), cells, note: ([head] + notes).joined(separator: "; "))
      // Taps and frames share a row each; a wait on the main thread gets its own row.
      var uiRows: [(label: String, ops: [OpID])] = []
      if queue.isMain {
        let taps = byQueue[Int(q.index)].filter { world.operations[Int($0.index)].mainThreadWork == .tap }
        let frames = byQueue[Int(q.index)].filter { world.operations[Int($0.index)].mainThreadWork == .frame }
        if !taps.isEmpty { uiRows.append(("taps", taps)) }
        if !frames.isEmpty { uiRows.append(("frames", frames)) }
      }
      for op in byQueue[Int(q.index)] + (queue.isMain ? handStarted : []) {
        let kind = world.operation(op).mainThreadWork
        if kind == .tap || kind == .frame { continue }
        // In a window, an operation that did nothing there gets no row.
        if windowed, !lanes.hasAnything(of: op, in: start...end) { continue }
        var cells = Array(repeating: g.empty, count: columns)
        var weight = Array(repeating: 0, count: columns)
        // The columns of finish marks, which are drawn over everything.
        let markColumns = Set(
          (lanes.marks[op] ?? []).compactMap { m -> Int? in
            if case .finished = m.kind { column(m.tick) } else { nil }
          })
        let opMarks = lanes.marks[op] ?? []
        var completionRow: [Character]? =
          world.shared?.completionSteps[op] != nil ? Array(repeating: g.empty, count: columns) : nil
        for s in lanes.segments[op] ?? [] {
          let (glyph, w): (Character, Int) =
            switch s.state {
            case .pending: (g.pending, 1)
            case .ready: (g.ready, 2)
            case .completion: (g.completion, 3)
            case .executingCancelled: (g.cancelledExecuting, 4)
            case .executingShared: (g.sharedExecuting, 5)
            case .executing: (g.executing, 6)
            case .waitingForLock: (g.waitingForLock, 4)
            case .heldBehindBarrier, .heldOnDispatchQueue: (g.behindBarrier, 3)
            }
          // A completion block starts at its operation's finish, whose mark takes that
          // column: a block of steps gets a row of its own (below), each step in the column
          // of its tick as the events stamp it; a plain one is drawn just after the mark.
          if s.state == .completion, completionRow != nil {
            for c in span(from: s.from, to: s.to) { completionRow?[c] = g.completion }
            continue
          }
          var covered = span(from: s.from, to: s.to)
          if s.state == .completion, let first = covered.first, markColumns.contains(first) { covered = span(from: s.from + 1, to: s.to + 1) }
          for c in covered where w > weight[c] {
            cells[c] = glyph
            weight[c] = w
          }
        }
        var completionNotes: [String] = []
        var notes: [String] = []
        for m in opMarks {
          if m.inCompletion, completionRow != nil, let c = column(m.tick) {
            switch m.kind {
            case .read: if completionRow?[c] != g.write { completionRow?[c] = g.read }
            case .wrote: completionRow?[c] = g.write
            case .touchedUI: completionRow?[c] = g.touchedUI
            case .race:
              completionRow?[c] = g.race
              completionNotes.append("race at t=\(m.tick)")
            case .uiOffMain:
              completionRow?[c] = g.race
              completionNotes.append("ui off main at t=\(m.tick)")
            default: break
            }
            continue
          }
          let glyph: Character?
          switch m.kind {
          case .finished(.succeeded): glyph = g.finished
          case .finished(.failed): glyph = g.failed
          case .finished(.cancelled): glyph = g.cancelled
          case .finished(.bailed): glyph = g.bailed
          case .finished(.dropped): glyph = g.dropped
          case .skipped, .cancelObserved: glyph = nil
          case .cancelRequested:
            glyph = nil
            notes.append("cancel requested at \(m.tick)")
          case .race:
            glyph = g.race
            notes.append("race at t=\(m.tick)")
          case .uiOffMain:
            glyph = g.race
            notes.append("ui off main at t=\(m.tick)")
          case .read, .wrote, .touchedUI:
            // Drawn over the work, under a finish: a write over a read in one column.
            let (accessGlyph, w) = m.kind == .read ? (g.read, 7) : m.kind == .wrote ? (g.write, 8) : (g.touchedUI, 8)
            if let c = column(m.tick + (m.inCompletion ? 1 : 0)), w > weight[c] { cells[c] = accessGlyph; weight[c] = w }
            continue
          }
          if let glyph, let c = column(m.tick + (m.inCompletion ? 1 : 0)) { cells[c] = glyph; weight[c] = 9 }
        }
        let r = world.operation(op)
        if r.jammed { notes.append("never calls finish()") }
        if r.phase == .created { notes.append("in no queue") }
        if case .wait(let scope) = r.mainThreadWork {
          notes.insert("the main thread waits for \(scope.map { world.name($0) } ?? "every queue")", at: 0)
        } else if r.mainThreadWork == .waitForOperations {
          notes.insert("the main thread waits for " + world.callTargets(of: op).map { world.name($0) }.joined(separator: ", "), at: 0)
        } else if r.mainThreadWork == .start {
          notes.insert("start() of " + world.callTargets(of: op).map { world.name($0) }.joined(separator: ", "), at: 0)
        } else if r.queue == nil, r.startedAt != nil {
          notes.insert("started by hand, in no queue", at: 0)
        }
        line("  " + world.name(op), cells, note: notes.joined(separator: "; "))
        if let completionRow {
          line(Self.completionLabel(ascii: ascii), completionRow, note: completionNotes.joined(separator: "; "))
        }
      }
      for row in uiRows {
        let (cells, note) = userInterfaceRow(
          row.ops, isTaps: row.label == "taps", lanes: lanes, world: world, g: g,
          columns: columns, span: span, column: column)
        line("  " + row.label, cells, note: note, ui: true)
      }
    }
    if !lanes.cpuLoad.isEmpty {
      let (cells, note) = cpuRow(lanes: lanes, g: g, start: start, end: end, scale: scale, columns: columns)
      line("cpu", cells, note: note)
    }
    out += legend(
      g, ascii: ascii, width: width, shared: !lanes.cpuLoad.isEmpty,
      ui: ops.contains { world.operations[Int($0.index)].mainThreadWork == .tap || world.operations[Int($0.index)].mainThreadWork == .frame },
      sharedState: world.shared != nil,
      held: heldKinds(ops, lanes: lanes), drawn: (drawn, drawnUI))
    return out
  }

  /// The label of the row under an operation for its completion block's steps.
  static func completionLabel(ascii: Bool) -> String { ascii ? "   > completion" : "   ↳ completion" }

  /// Whether the drawn operations held a slot without running, behind a barrier block, or
  /// on a busy serial dispatch queue (their queue's underlyingQueue): the legend names each.
  static func heldKinds(_ ops: [OpID], lanes: Lanes) -> (barrier: Bool, dispatchQueue: Bool) {
    let states = Set(ops.flatMap { (lanes.segments[$0] ?? []).map(\.state) })
    return (states.contains(.heldBehindBarrier), states.contains(.heldOnDispatchQueue))
  }

  /// One row for all taps (or all frames): waiting, running, answered or dropped; the note
  /// is the core's ``ResponsivenessReport``.
  static func userInterfaceRow(
    _ ops: [OpID], isTaps: Bool, lanes: Lanes, world: World, g: Glyphs, columns: Int,
    span: (Tick, Tick) -> Range<Int>, column: (Tick) -> Int?
  ) -> ([Character], String) {
    var cells = Array(repeating: g.empty, count: columns)
    var weight = Array(repeating: 0, count: columns)
    for op in ops {
      for s in lanes.segments[op] ?? [] {
        let (glyph, w): (Character, Int) =
          switch s.state {
          case .pending, .ready: (g.ready, 2)
          case .executingShared: (g.sharedExecuting, 3)
          case .waitingForLock: (g.waitingForLock, 3)
          default: (g.executing, 4)
          }
        for c in span(s.from, s.to) where w > weight[c] {
          cells[c] = glyph
          weight[c] = w
        }
      }
      for m in lanes.marks[op] ?? [] {
        guard let c = column(m.tick) else { continue }
        if case .finished(.dropped) = m.kind {
          cells[c] = g.dropped
          weight[c] = 9
        } else if isTaps, case .finished = m.kind, weight[c] == 0 {
          // An answer mark never hides another tap waiting or running in the same column.
          cells[c] = g.finished
          weight[c] = 1
        }
      }
    }
    let r = world.responsiveness()
    var note: String
    if isTaps {
      note = r.taps == 1 ? "1 tap" : "\(r.taps) taps"
      if r.tapsDelayed == 0 && r.tapsWaiting == 0 { note += ", answered at once" }
      if r.tapsDelayed > 0 {
        note += ", \(r.tapsDelayed) delayed, longest wait \(r.longestTapWait) \(r.longestTapWait == 1 ? "tick" : "ticks")"
      }
      if r.tapsWaiting > 0 { note += ", \(r.tapsWaiting) still waiting" }
    } else {
      note = (r.frames == 1 ? "1 frame" : "\(r.frames) frames") + (r.framesDropped == 0 ? ", none dropped" : ", \(r.framesDropped) dropped")
    }
    return (cells, note)
  }

  /// The CPU line: how busy the cores were in each column, from idle to all busy.
  static func cpuRow(
    lanes: Lanes, g: Glyphs, start: Tick, end: Tick, scale: Tick, columns: Int
  ) -> ([Character], String) {
    let now = lanes.now
    // Work done and work possible per column, summed over the ticks it covers.
    var used = Array(repeating: 0.0, count: columns)
    var possible = Array(repeating: 0.0, count: columns)
    // Stretches of constant load and cores, in time order.
    var changes: [(tick: Tick, used: Int64?, cores: Int??)] = []
    for l in lanes.cpuLoad { changes.append((l.tick, l.used, nil)) }
    for c in lanes.cores { changes.append((c.tick, nil, .some(c.cores))) }
    changes.sort { $0.tick < $1.tick }
    var currentUsed: Int64 = 0
    var currentCores: Int? = nil
    var i = 0
    var t = start
    while t <= end {
      while i < changes.count, changes[i].tick <= t {
        if let u = changes[i].used { currentUsed = u }
        if let c = changes[i].cores { currentCores = c }
        i += 1
      }
      let next = i < changes.count ? min(changes[i].tick, end + 1) : end + 1
      if let cores = currentCores {
        var a = t
        while a < next {
          let c = Int((a - start) / scale)
          let b = min(next, start + Tick(c + 1) * scale)
          used[c] += Double(currentUsed) * Double(b - a)
          possible[c] += Double(Int64(cores) * Machine.subTicks) * Double(b - a)
          a = b
        }
      }
      t = next
    }
    var cells = Array(repeating: g.empty, count: columns)
    var total = 0.0, capacity = 0.0
    for c in 0..<columns where possible[c] > 0 {
      let level = Int((used[c] / possible[c] * Double(g.load.count - 1)).rounded(.up))
      cells[c] = g.load[min(g.load.count - 1, max(0, level))]
      total += used[c]
      // The current tick has not run yet: it does not count against the busy share.
      let lastTick = min(end, start + Tick(c + 1) * scale - 1)
      let pending = lastTick >= now ? Double(lastTick - max(now, start + Tick(c) * scale) + 1) : 0
      capacity += possible[c] * (1 - pending / Double(min(scale, end - (start + Tick(c) * scale) + 1)))
    }
    let coresText = lanes.cores.last?.cores.map { "\($0) \($0 == 1 ? "core" : "cores")" } ?? "unlimited cores"
    let busy = capacity > 0 ? Int((total / capacity * 100).rounded()) : 0
    return (cells, "\(coresText), \(busy)% busy")
  }

  static func legend(
    _ g: Glyphs, ascii: Bool, width: Int, shared: Bool = false, ui: Bool = false, sharedState: Bool = false,
    held: (barrier: Bool, dispatchQueue: Bool) = (false, false),
    drawn: (lanes: Set<Character>, userInterface: Set<Character>)? = nil
  ) -> String {
    // Each item with the marks it explains; with `drawn`, only the items whose marks were
    // drawn (a legend of every mark took four lines under every timeline).
    var entries: [(marks: [Character], text: String, ui: Bool)] = [
      ([g.executing], "\(g.executing) executing", false),
      ([g.cancelledExecuting], "\(g.cancelledExecuting) executing, cancel requested", false),
      ([g.ready], "\(g.ready) ready, waiting for a slot", false),
      ([g.pending], "\(g.pending) waiting on dependencies", false), ([g.finished], "\(g.finished) finished", false),
      ([g.cancelled], "\(g.cancelled) cancelled (skipped, or stopped)", false), ([g.failed], "\(g.failed) failed", false),
      ([g.bailed], "\(g.bailed) returned early (its dependency check)", false), ([g.completion], "\(g.completion) completion block", false),
      ([g.suspended], "\(g.suspended) suspended", false),
    ]
    if shared {
      entries.insert(([g.sharedExecuting], "\(g.sharedExecuting) executing on a shared core", false), at: 1)
      entries.append((g.load, "cpu \(g.load[1])\(ascii ? "..." : "…")\(g.load[g.load.count - 1]) cores busy", false))
    }
    // Every item fits the narrowest timeline (40 columns), so no legend line is wider than `width`.
    if ui { entries += [([g.ready], "taps/frames: \(g.ready) waiting (UI frozen)", true), ([g.dropped], "\(g.dropped) frame dropped", true)] }
    switch held {
    case (true, false): entries.append(([g.behindBarrier], "\(g.behindBarrier) holds a slot, behind a barrier", false))
    case (false, true): entries.append(([g.behindBarrier], "\(g.behindBarrier) slot held, waiting on dispatch queue", false))
    case (true, true): entries.append(([g.behindBarrier], "\(g.behindBarrier) slot held: barrier or dispatch queue", false))
    case (false, false): break
    }
    if sharedState {
      entries += [
        ([g.read], "\(g.read) read", false), ([g.write], "\(g.write) write", false),
        ([g.touchedUI], "\(g.touchedUI) touched ui", false),
        ([g.waitingForLock], "\(g.waitingForLock) waiting for a lock (slot kept)", false),
        ([g.race], "\(g.race) race or ui off main (see `races`)", false),
      ]
    }
    let items = entries.filter { e in
      drawn.map { d in e.marks.contains { (e.ui ? d.userInterface : d.lanes).contains($0) } } ?? true
    }.map(\.text)
    guard !items.isEmpty else { return "" }
    var lines: [String] = []
    var current = ""
    for item in items {
      if !current.isEmpty, Names.width(current) + 2 + Names.width(item) > width {
        lines.append(current)
        current = ""
      }
      current += (current.isEmpty ? "" : "  ") + item
    }
    lines.append(current)
    return lines.joined(separator: "\n") + "\n"
  }
}

/// Shortening names the same way in every view.
public enum Names {
  /// `name` fitted to `width` columns: a long name keeps its start and end, joined by "…",
  /// so `download-image-17` and `download-image-18` stay distinguishable.
  public static func shorten(_ name: String, to width: Int, ascii: Bool = false) -> String {
    guard Self.width(name) > width, width >= 3 else { return name }
    let room = width - 1
    var head = "", tail = ""
    var headWidth = 0, tailWidth = 0
    var front = name.startIndex, back = name.endIndex
    // Take characters alternately from the start and the end, by display width.
    while front < back {
      let takeFront = headWidth <= tailWidth
      let ch = takeFront ? name[front] : name[name.index(before: back)]
      let w = Self.width(ch)
      if headWidth + tailWidth + w > room { break }
      if takeFront {
        head.append(ch); headWidth += w; front = name.index(after: front)
      } else {
        tail.insert(ch, at: tail.startIndex); tailWidth += w; back = name.index(before: back)
      }
    }
    return head + (ascii ? "~" : "…") + tail
  }

  /// `name` shortened to leave one space, then padded to `width` display columns.
  public static func pad(_ name: String, to width: Int, ascii: Bool = false) -> String {
    let short = shorten(name, to: width - 1, ascii: ascii)
    return short + String(repeating: " ", count: max(0, width - Self.width(short)))
  }

  /// Display columns a string takes in a terminal: East Asian wide characters and emoji take two.
  public static func width(_ s: String) -> Int { s.reduce(0) { $0 + width($1) } }

  static func width(_ ch: Character) -> Int {
    guard let v = ch.unicodeScalars.first?.value else { return 0 }
    switch v {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
      0x1F900...0x1F9FF, 0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
  }
}
