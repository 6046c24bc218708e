import CPrefetch

/// Cache prefetch hints: where the simulator knows early which element of a big array it
/// will touch at random, it asks for that element's cache lines before doing the work in
/// between.
///
/// At a million operations the kernel's arrays are far bigger than the cache, and its
/// random reads (a dependency's readiness when linking, a name's slot in the index, a
/// dependent's readiness when releasing) each wait on memory. Asked for early, those loads
/// overlap other work. A hint has no effect on results: an index out of range is ignored,
/// and nothing reads the prefetched data but the ordinary code after it. BENCHMARKS.md has
/// the figures.
extension Array {
  /// Starts loading the cache lines that element `index` lies on.
  @inline(__always) func prefetch(_ index: Int) {
    withUnsafeBufferPointer { elements in
      guard index >= 0, index < elements.count, let base = elements.baseAddress else { return }
      let start = UnsafeRawPointer(base + index)
      let address = Int(bitPattern: start)
      // An element may straddle lines (a record is 136 bytes): ask for each one it touches.
      var line = address & ~63
      while line < address + Swift.max(1, MemoryLayout<Element>.size) {
        oplab_prefetch_read(start + (line - address))
        line += 64
      }
    }
  }
}
