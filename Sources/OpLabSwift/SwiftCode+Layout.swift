/// Laying code out within the columns, as a person (or swift-format) would.
extension SwiftCode {
  /// `lines` fitted to `width` columns, as a person would lay them out: a trailing comment
  /// that makes its line too wide goes on a line of its own above it; a comment too wide
  /// goes on as more comment lines, broken between words (or after a comma, in a list
  /// typed without spaces); a statement too wide is broken
  /// after its ` = `, the rest indented by two (as swift-format does). A line with none of
  /// these is left as it is.
  public static func fit(_ lines: [String], width: Int = columns) -> [String] {
    var out: [String] = []
    for line in lines {
      guard line.count > width else {
        out.append(line)
        continue
      }
      let indent = String(line.prefix { $0 == " " })
      let body = line.dropFirst(indent.count)
      if body.hasPrefix("//") {
        let marker = body.hasPrefix("///") ? "/// " : "// "
        var text = Substring(body.dropFirst(marker.count - 1)).drop { $0 == " " }
        while text.last == " " { text = text.dropLast() }
        let room = Swift.max(20, width - indent.count - marker.count)
        while text.count > room {
          // The last space that leaves a line within the room, unless it leaves less than a
          // third of it and a comma comes later (a list typed without spaces, `op a,b,c`:
          // broken after its last comma within the room), else the first space.
          let head = text.prefix(room + 1)
          let space = head.lastIndex(of: " ")
          if let space, text.distance(from: text.startIndex, to: space) >= room / 3 || !head.dropLast().contains(",") {
            out.append(indent + marker + text[..<space])
            text = text[space...].drop { $0 == " " }
          } else if let comma = text.prefix(room).lastIndex(of: ",") {
            out.append(indent + marker + text[...comma])
            text = text[text.index(after: comma)...]
          } else if let space = text.firstIndex(of: " ") {
            out.append(indent + marker + text[..<space])
            text = text[space...].drop { $0 == " " }
          } else {
            break
          }
        }
        out.append(indent + marker + text)
      } else if let comment = outsideStrings(" // ", in: line) {
        var code = line[..<comment.lowerBound]
        while code.last == " " { code = code.dropLast() }
        out += fit([indent + "// " + line[comment.upperBound...]], width: width) + fit([String(code)], width: width)
      } else if let equals = outsideStrings(" = ", in: line), line[equals.upperBound...].count + indent.count + 2 <= width {
        out += [line[..<equals.lowerBound] + " =", indent + "  " + line[equals.upperBound...]]
      } else {
        out.append(line)
      }
    }
    return out
  }

  /// The first `text` in `line` that is not inside a string literal.
  static func outsideStrings(_ text: String, in line: String) -> Range<String.Index>? {
    var inString = false
    var escaped = false
    var i = line.startIndex
    while i < line.endIndex {
      let c = line[i]
      if escaped {
        escaped = false
      } else if c == "\\" {
        escaped = inString
      } else if c == "\"" {
        inString.toggle()
      } else if !inString, line[i...].hasPrefix(text) {
        return i..<line.index(i, offsetBy: text.count)
      }
      i = line.index(after: i)
    }
    return nil
  }

  /// A call with a list argument, `head` items `tail`: on one line when it fits, else
  /// the items on lines of their own, indented by two (as swift-format lays it out).
  static func call(_ head: String, _ items: [String], _ tail: String, width: Int = columns) -> [String] {
    let one = head + items.joined(separator: ", ") + tail
    if one.count <= width { return [one] }
    var lines = [head]
    var line = " "
    for item in items {
      if line.count + 1 + item.count + 1 > width {
        lines.append(line)
        line = " "
      }
      line += " " + item + ","
    }
    return lines + [line, tail]
  }
}
