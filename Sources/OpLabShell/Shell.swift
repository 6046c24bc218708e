import OpLabCore
import OpLabRender

/// The lab shell: reads commands, drives the simulator, prints what it renders.
///
/// This is the foundation's minimal shell; the full command language, line editing
/// and scripts are built on it (see the README's roadmap).
public enum Shell {
  /// The lab's version, shown by `oplab --version`.
  public static let version = "0.1.0"

  /// Runs the shell on standard input, or on a script file.
  /// - Returns: the process exit status.
  public static func main(script: String?) -> Int32 {
    print("OpLab \(version): the simulator core is ready; the command language is being built.")
    print("Type 'quit' or press Ctrl-D to leave.")
    while let line = readLine() {
      if line.trimmingPrefix(while: \.isWhitespace).hasPrefix("quit") { break }
    }
    return 0
  }
}

extension Substring {
  fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
    self[(firstIndex(where: { !predicate($0) }) ?? endIndex)...]
  }
}

extension String {
  fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
    Substring(self).trimmingPrefix(while: predicate)
  }
}
