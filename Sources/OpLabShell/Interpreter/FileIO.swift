import Foundation

/// The shell's file access: reading scripts, writing exports and saves atomically.
enum FileIO {
  /// Reads a UTF-8 text file.
  /// - Throws: a ``Diagnostic`` naming the file and why it could not be read.
  static func read(_ path: String, column: Int) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      let why = !exists ? "no such file" : isDirectory.boolValue ? "it is a directory" : "it cannot be read"
      throw Diagnostic(column: column, length: path.count, message: "cannot read '\(path)': \(why)")
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Writes text whole or not at all: to a temporary file beside the target, then renamed.
  /// - Throws: a ``Diagnostic`` naming the file; nothing is left behind.
  static func writeAtomically(_ text: String, to path: String, column: Int) throws {
    let url = URL(fileURLWithPath: path)
    do {
      try Data(text.utf8).write(to: url, options: .atomic)
    } catch {
      let directory = url.deletingLastPathComponent().path
      var isDirectory: ObjCBool = false
      let why = !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue
        ? "the folder \(directory) does not exist" : "permission denied or the path is not a file"
      throw Diagnostic(column: column, length: path.count, message: "cannot write '\(path)': \(why)")
    }
  }
}
