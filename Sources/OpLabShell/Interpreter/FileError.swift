import OpLabRender

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be read or written, as a value: ``message`` phrases it for a
/// person, and the interpreter places it under the path (``Diagnostic``).
struct FileError: Error, Hashable, Sendable {
  /// What was being done.
  enum Access: Hashable, Sendable {
    case read, write
  }

  /// What stood in the way.
  enum Reason: Hashable, Sendable {
    /// A system call failed with this `errno`.
    case system(Int32)
    /// A folder stands where a file was expected.
    case folder
    /// Something that is not a regular file (a device, a FIFO, a socket) stands there;
    /// writing would replace it.
    case notAFile(String)
    /// A symbolic link whose target does not exist.
    case danglingLink(String)
    /// This folder exists but no file can be created in it (`/proc`).
    case noNewFiles(String)
    /// A file could not be created in this folder (a symbolic link's target's folder, not
    /// the one the path names), with this `errno`.
    case creatingIn(String, Int32)
    /// `mkdir` of the path (a folder) failed with this `errno`.
    case makingFolder(Int32)
    /// The file exists and is read-only for the learner.
    case readOnlyFile
    /// The path holds a NUL byte, which no file name can.
    case nul
    /// The path is empty.
    case empty
    /// Ctrl-C or a signal abandoned the write.
    case interrupted
    /// `/dev/fd/N` names a descriptor the lab does not have open.
    case closedDescriptor(Int32)
    /// `/dev/fd/N` names a descriptor the lab has open only for reading (`/dev/stdin`).
    case readOnlyDescriptor(Int32)
    /// A line longer than `DescriptorLines.maxLineBytes`: this is no text file of the lab's.
    case lineTooLong(line: Int, bytes: Int)
  }

  var path: String
  var access: Access
  var reason: Reason

  /// "cannot write 'x': the file system there is read-only".
  var message: String {
    if case .makingFolder = reason {
      return "cannot create the folder \(FileError.shown(path)): \(FileError.describe(reason, path: path, access: access))"
    }
    return "cannot \(access == .read ? "read" : "write") '\(FileError.shown(path))': \(FileError.describe(reason, path: path, access: access))"
  }

  /// What to try, when there is something better than retyping the path.
  var hint: String? {
    switch reason {
    case .notAFile, .danglingLink: "give the name of a regular file"
    case .nul: "retype the path: a NUL usually comes from pasted binary text"
    case .closedDescriptor(let fd), .readOnlyDescriptor(let fd):
      "open it for writing where you start the lab (e.g. `oplab \(fd)>>out.txt`), or give a file's name"
    case .system(ENOSPC), .system(EDQUOT): "free some space, or write somewhere else"
    case .system(EACCES) where access == .write, .system(EROFS), .noNewFiles, .readOnlyFile,
      .creatingIn(_, EACCES), .creatingIn(_, EROFS), .makingFolder:
      "write somewhere you may, e.g. your home folder or /tmp"
    default: nil
    }
  }

  /// The path as shown: a NUL as the two characters `\0` (the rest is escaped when printed).
  static func shown(_ path: String) -> String {
    path.contains("\u{0}") ? path.replacingOccurrences(of: "\u{0}", with: "\\0") : path
  }

  /// The folder a path's file is in, as a person would name it.
  static func folderName(of path: String) -> String { named(folder: FileIO.folder(of: path)) }

  /// "the current folder" for ".", else "the folder /x".
  static func named(folder: String) -> String {
    folder == "." ? "the current folder" : "the folder \(shown(folder))"
  }

  /// Why, in words. Pure: the same reason and path always read the same.
  static func describe(_ reason: Reason, path: String, access: Access) -> String {
    switch reason {
    case .system(let code): describe(errno: code, path: path, access: access)
    case .folder: access == .write ? "it is a folder: give the name of a file in it" : "it is a folder, not a script"
    case .notAFile(let kind): "it is \(kind), not a file"
    case .danglingLink(let target): "it is a symbolic link to '\(shown(target))', which does not exist"
    case .noNewFiles(let folder): "\(named(folder: folder)) does not let files be created in it"
    case .creatingIn(let folder, let code):
      describe(errno: code, path: (folder == "/" ? "" : folder) + "/file", access: .write)
    case .makingFolder(let code):
      // mkdir says ENOENT when the folder above exists but takes no new entries (/proc).
      code == ENOENT ? "the system does not let files be created there" : describe(errno: code, path: path, access: .write)
    case .readOnlyFile: "permission denied (the file is read-only for you)"
    case .nul: "a file name cannot hold a NUL byte (shown as \\0)"
    case .empty: "an empty path names no file"
    case .interrupted: "interrupted, so nothing was written"
    case .closedDescriptor(let fd): "the lab has no \(FileIO.descriptorName(fd)) open"
    case .readOnlyDescriptor(let fd): "the lab's \(FileIO.descriptorName(fd)) is open for reading only"
    case .lineTooLong(let line, let bytes):
      "its line \(line) is \(Chains.grouped(bytes)) bytes long, more than the \(Chains.grouped(DescriptorLines.maxLineBytes)) a line may have"
    }
  }

  /// An `errno` value in words, for a person: never "error 512", never a Foundation dump.
  /// Pure: the folder named is taken from `path`'s text.
  static func describe(errno code: Int32, path: String, access: Access) -> String {
    let writing = access == .write
    switch code {
    case ENOENT: return writing ? "\(folderName(of: path)) does not exist" : "no such file"
    case EACCES:
      return writing
        ? "permission denied (\(folderName(of: path)) is not writable by you)"
        : "permission denied (you may not read it, or a folder on the way)"
    case EPERM: return "the system does not permit it (operation not permitted)"
    case EROFS: return "the file system there is read-only"
    case ENOSPC: return "no space left on the device (or no free inodes)"
    case EDQUOT: return "your disk quota is used up"
    case EFBIG: return "the file would be larger than the file system allows"
    case EMFILE: return "the lab has too many files open"
    case ENFILE: return "the system has too many files open"
    case ENOTDIR: return "a part of the path is a file, not a folder"
    case EISDIR: return writing ? "it is a folder: give the name of a file in it" : "it is a folder, not a script"
    case ELOOP: return "too many symbolic links (a link that leads back to itself?)"
    case ENAMETOOLONG: return "the name is too long"
    case EIO: return "an input/output error (the disk or device failed)"
    case EBUSY, ETXTBSY: return "it is in use"
    case ENXIO, ENODEV: return "there is no such device"
    case EINTR: return "interrupted"
    default:
      // An errno with no name ("Unknown error 41") is no reason: say so, the code kept
      // for whoever looks it up.
      let unnamed = "the system refused it for a reason it does not name (code \(code))"
      guard let text = strerror(code) else { return unnamed }
      var words = String(cString: text)
      if words.isEmpty || words.hasPrefix("Unknown error") { return unnamed }
      while words.hasSuffix(".") { words.removeLast() }
      // "Exec format error" reads "exec format error"; an acronym ("RFS specific error") stays.
      let second = words.dropFirst().first
      return second?.isLowercase == true ? words.prefix(1).lowercased() + words.dropFirst() : words
    }
  }
}

extension Diagnostic {
  /// A file error, placed under the path's token.
  init(_ error: FileError, column: Int, length: Int) {
    self.init(column: column, length: max(1, length), message: error.message, hint: error.hint)
  }
}
