#!/usr/bin/env bash
# Builds OpLab's libFuzzer targets and runs one (or all) of them for a time budget.
#
#   Fuzz/fuzz.sh TARGET SECONDS      TARGET: parser | interpreter | lesson | all
#   Fuzz/fuzz.sh build               build the three binaries only
#   Fuzz/fuzz.sh seeds               regenerate the seeds taken from Lessons/ only
#   Fuzz/fuzz.sh repro FILE...       run saved inputs once (the target comes from the file
#                                    name, TARGET-…, as libFuzzer names what it finds)
#
# Everything built or grown goes to .build-fuzz/ (git-ignored): the binaries, the seeds
# generated from Lessons/, the working corpora (.build-fuzz/corpus/TARGET), the logs and
# stats.tsv (one line per run). Crashes are written to Fuzz/crashes/ (see Fuzz/README.md).
#
# The build calls swiftc directly; it reads Sources/ but touches neither Package.swift nor
# .build/. swift-collections' modules are compiled with the sanitizer only, OpLabCore,
# OpLabRender and OpLabShell with the sanitizer and libFuzzer's coverage, and each entry
# point in Fuzz/Targets/ is linked with libFuzzer's main.
#
# Environment:
#   FUZZ_SANITIZE    address (default): AddressSanitizer; plain: none, ~2.5x the executions
#                    per second (Swift's own bounds and overflow checks stay on either way)
#   FUZZ_COVERAGE    cmp (default): libFuzzer's coverage with comparison tracing, which lets
#                    it solve comparisons against input bytes; edge: edge counters only,
#                    ~1.6x the executions per second, for long runs on a corpus that already
#                    has the coverage (built apart, in .build-fuzz/SANITIZE-edge)
#   FUZZ_FLAGS       extra libFuzzer flags, e.g. "-seed=1 -use_value_profile=1"
#   SWIFTC           the compiler (default: swiftc)
#   COLLECTIONS_REPO a git repository of swift-collections (default: .build/checkouts/
#                    swift-collections, else the mirror in /opt/swift-packages)
#   COLLECTIONS_REF  its version (default: the one in Package.resolved, else 1.6.0)
# Fuzzing runs one process, so it uses one core; the build runs swiftc with one job.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ=$ROOT/Fuzz
OUT=$ROOT/.build-fuzz
SWIFTC=${SWIFTC:-swiftc}
TARGETS=(parser interpreter lesson)
SANITIZE=${FUZZ_SANITIZE:-address}
case $SANITIZE in
  address) SAN_LIB=(-sanitize=address) SAN_OPLAB=(-sanitize=fuzzer,address) ;;
  plain) SAN_LIB=() SAN_OPLAB=(-sanitize=fuzzer) ;;
  *) echo "fuzz.sh: FUZZ_SANITIZE must be address or plain" >&2; exit 2 ;;
esac
COVERAGE=${FUZZ_COVERAGE:-cmp}
case $COVERAGE in
  cmp) BUILD=$OUT/$SANITIZE ;;
  edge) BUILD=$OUT/$SANITIZE-edge SAN_OPLAB+=(-sanitize-coverage=edge,inline-8bit-counters,pc-table) ;;
  *) echo "fuzz.sh: FUZZ_COVERAGE must be cmp or edge" >&2; exit 2 ;;
esac
MODE=$SANITIZE # as logs and stats.tsv name the build: plain, address, plain+edge, address+edge
[[ $COVERAGE == edge ]] && MODE+=+edge
# BUILD holds obj/, modules/, bin/, module-cache/

# Swift's own crash backtracer does not get along with AddressSanitizer (it trips ASan
# while reading memory): turn it off, so a Swift trap goes straight to the sanitizer's or
# libFuzzer's handler, which prints the stack. LeakSanitizer is off: it reports Swift's
# lazily initialised globals (e.g. CommandTable.all) as leaks. A smaller quarantine and
# malloc stacks make Swift's many small allocations cheaper.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:handle_abort=1:quarantine_size_mb=16:malloc_context_size=8}

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

log() { printf 'fuzz.sh: %s\n' "$*" >&2; }

# The longest input libFuzzer makes, per target.
max_len() {
  case $1 in
    parser) echo 512 ;;
    interpreter) echo 4096 ;;
    lesson) echo 16384 ;;
  esac
}

# MARK: - Build

COLLECTIONS_MODULES=(InternalCollectionsUtilities ContainersPreview HeapModule DequeModule OrderedCollections)
OPLAB_MODULES=(OpLabCore OpLabRender OpLabShell)

# The settings of swift-collections' Package.swift.
collections_flags() {
  local version=$1
  local flags=(-DCOLLECTIONS_RANDOMIZED_TESTING -package-name swift_collections -user-module-version "$version"
    -enable-upcoming-feature MemberImportVisibility)
  local f
  for f in BuiltinModule Lifetimes InoutLifetimeDependence AddressableParameters AddressableTypes \
    SuppressedAssociatedTypesWithDefaults; do
    flags+=(-enable-experimental-feature "$f")
  done
  local macros=(
    "SwiftStdlib 5.0: macOS 10.14.4, iOS 12.2, watchOS 5.2, tvOS 12.2"
    "SwiftStdlib 5.1: macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0"
    "SwiftStdlib 5.6: macOS 12.3, iOS 15.4, watchOS 8.5, tvOS 15.4"
    "SwiftStdlib 5.7: macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0"
    "SwiftStdlib 5.8: macOS 13.3, iOS 16.4, watchOS 9.4, tvOS 16.4"
    "SwiftStdlib 5.9: macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0"
    "SwiftStdlib 5.10: macOS 14.4, iOS 17.4, watchOS 10.4, tvOS 17.4, visionOS 1.1"
    "SwiftStdlib 6.0: macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0"
    "SwiftStdlib 6.1: macOS 15.4, iOS 18.4, watchOS 11.4, tvOS 18.4, visionOS 2.4"
    "SwiftStdlib 6.2: macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0"
    "SwiftStdlib 6.3: macOS 26.4, iOS 26.4, watchOS 26.4, tvOS 26.4, visionOS 26.4"
    "SwiftStdlib 6.4: macOS 9999, iOS 9999, watchOS 9999, tvOS 9999, visionOS 9999"
    "SwiftStdlib 6.5: macOS 9999, iOS 9999, watchOS 9999, tvOS 9999, visionOS 9999"
  )
  for f in "${macros[@]}"; do flags+=(-enable-experimental-feature "AvailabilityMacro=$f"); done
  printf '%s\n' "${flags[@]}"
}

# OpLabShell contains EditLineReader, which imports the CEditLine system module (libedit);
# OpLabCore imports CPrefetch (one header of prefetch hints, nothing to link).
edit_cflags() {
  local flags=(-Xcc "-fmodule-map-file=$ROOT/Sources/CEditLine/module.modulemap")
  flags+=(-Xcc "-fmodule-map-file=$ROOT/Sources/CPrefetch/module.modulemap")
  local f
  for f in $(pkg-config --cflags libedit 2>/dev/null || echo -I/usr/include/editline); do flags+=(-Xcc "$f"); done
  printf '%s\n' "${flags[@]}"
}

edit_libs() { pkg-config --libs libedit 2>/dev/null || echo -ledit; }

collections_version() {
  local ref=${COLLECTIONS_REF:-}
  if [[ -z $ref && -f $ROOT/Package.resolved ]]; then
    ref=$(awk '/"identity" : "swift-collections"/ {f=1} f && /"version"/ {gsub(/[",]/, "", $3); print $3; exit}' \
      "$ROOT/Package.resolved")
  fi
  echo "${ref:-1.6.0}"
}

# Extracts swift-collections' Sources at that version into .build-fuzz/src (once).
fetch_collections() {
  local ref=$1
  local dest=$OUT/src/swift-collections-$ref
  if [[ -f $dest/.done ]]; then echo "$dest"; return; fi
  local repo=${COLLECTIONS_REPO:-}
  if [[ -z $repo ]]; then
    for repo in "$ROOT/.build/checkouts/swift-collections" /opt/swift-packages/apple/swift-collections.git; do
      git -C "$repo" rev-parse --verify -q "$ref^{commit}" >/dev/null 2>&1 && break
      repo=
    done
  fi
  [[ -n $repo ]] || { log "no swift-collections repository has $ref (run 'swift build' once, or set COLLECTIONS_REPO)"; exit 1; }
  log "extracting swift-collections $ref from $repo"
  rm -rf "$dest" && mkdir -p "$dest"
  git -C "$repo" archive "$ref" Sources | tar -x -C "$dest"
  touch "$dest/.done"
  echo "$dest"
}

REBUILT=0

# Compiles one module (whole module, one object) unless its object is up to date.
#   compile_module NAME SOURCE_DIR [FLAGS...]
compile_module() {
  local name=$1 dir=$2
  shift 2
  local obj=$BUILD/obj/$name.o list=$BUILD/obj/$name.sources
  local sources=()
  mapfile -t sources < <(find "$dir" -name '*.swift' | LC_ALL=C sort)
  ((${#sources[@]})) || { log "no sources in $dir"; exit 1; }
  # Up to date: same file list, no source (nor this script) newer than the object, and no
  # module before it in dependency order rebuilt.
  if ((!REBUILT)) && [[ -f $obj && -f $list ]] && [[ "$(printf '%s\n' "${sources[@]}")" == "$(cat "$list")" ]] &&
    [[ -z $(find "${sources[@]}" "$0" -newer "$obj" -print -quit) ]]; then
    return
  fi
  REBUILT=1
  log "compiling $name (${#sources[@]} files, $MODE)"
  nice -n 10 "$SWIFTC" -module-name "$name" -parse-as-library -swift-version 6 -O -g -assert-config Debug \
    -wmo -num-threads 0 -j 1 -emit-module -emit-module-path "$BUILD/modules/$name.swiftmodule" \
    -I "$BUILD/modules" -module-cache-path "$BUILD/module-cache" -suppress-warnings \
    -c -o "$obj" "$@" "${sources[@]}"
  printf '%s\n' "${sources[@]}" >"$list"
  touch "$obj" # swiftc leaves an unchanged object untouched
}

build() {
  command -v "$SWIFTC" >/dev/null || { log "swiftc not found (set SWIFTC)"; exit 1; }
  mkdir -p "$BUILD/obj" "$BUILD/modules" "$BUILD/bin"
  local version src
  version=$(collections_version)
  src=$(fetch_collections "$version")
  local cflags=() eflags=()
  mapfile -t cflags < <(collections_flags "$version")
  mapfile -t eflags < <(edit_cflags)
  local m
  for m in "${COLLECTIONS_MODULES[@]}"; do
    compile_module "$m" "$src/Sources/$m" ${SAN_LIB[@]+"${SAN_LIB[@]}"} "${cflags[@]}"
  done
  for m in "${OPLAB_MODULES[@]}"; do
    compile_module "$m" "$ROOT/Sources/$m" "${SAN_OPLAB[@]}" "${eflags[@]}"
  done
  local objs=()
  for m in "${COLLECTIONS_MODULES[@]}" "${OPLAB_MODULES[@]}"; do objs+=("$BUILD/obj/$m.o"); done
  local t bin libs
  libs=$(edit_libs)
  for t in "${TARGETS[@]}"; do
    bin=$BUILD/bin/fuzz-$t
    if [[ -f $bin ]] && [[ -z $(find "$FUZZ/Targets" "${objs[@]}" "$0" -newer "$bin" \( -name '*.swift' -o -name '*.o' -o -name "$(basename "$0")" \) -print -quit) ]]; then
      continue
    fi
    log "linking fuzz-$t"
    # shellcheck disable=SC2086
    nice -n 10 "$SWIFTC" -module-name "fuzz_$t" -parse-as-library -swift-version 6 -O -g \
      "${SAN_OPLAB[@]}" -use-ld=lld -I "$BUILD/modules" -module-cache-path "$BUILD/module-cache" "${eflags[@]}" \
      "$FUZZ/Targets/$t.swift" "$FUZZ"/Targets/Support/*.swift "${objs[@]}" $libs -o "$bin"
  done
}

# MARK: - Seeds

# From each lesson, the commands it runs, in order (run: blocks, reveal: and solution:
# lines): for the interpreter, one script per lesson and one per block; for the parser,
# each distinct line on its own. The lesson files themselves seed the lesson target, with
# the example in Lessons/README.md.
seeds() {
  local dir=$OUT/seeds
  rm -rf "$dir" && mkdir -p "$dir/parser" "$dir/interpreter" "$dir/lesson"
  local f base
  for f in "$ROOT"/Lessons/*.lesson; do
    [[ -e $f ]] || continue
    base=$(basename "$f" .lesson)
    cp "$f" "$dir/lesson/$base.lesson"
    awk -v out="$dir/interpreter/$base" '
      function emit(cmd) { if (cmd == "") return; print cmd >> (out ".oplab"); print cmd >> (out "-block" block ".oplab") }
      /^[ \t]/ {
        line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line)
        if (kind == "run") emit(line)
        else if (kind != "" && line ~ /^(reveal|solution):/) { sub(/^[a-z]+:[ \t]*/, "", line); emit(line) }
        next
      }
      /^(run|predict|task):/ {
        kind = $0; sub(/:.*/, "", kind); block++
        if (kind == "run") { v = $0; sub(/^run:[ \t]*/, "", v); sub(/[ \t\r]+$/, "", v); emit(v) }
        next
      }
      { kind = "" }
    ' "$f"
  done
  local n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" >"$dir/parser/line-$n"
  done < <(find "$dir/interpreter" -name '*.oplab' ! -name '*-block*' -print0 | LC_ALL=C sort -z | xargs -0r cat |
    awk '!seen[$0]++')
  if [[ -f $ROOT/Lessons/README.md ]]; then
    awk '/^```$/ && f {exit} f {print} /^```$/ && !f && seen {f=1} /^## The format/ {seen=1}' \
      "$ROOT/Lessons/README.md" >"$dir/lesson/readme-example.lesson"
  fi
  log "seeds from Lessons/: $(ls "$dir/parser" | wc -l) parser, $(ls "$dir/interpreter" | wc -l) interpreter, $(ls "$dir/lesson" | wc -l) lesson"
}

# The dictionary: Fuzz/oplab.dict, plus every command name, alias and keyword read from
# CommandTable.swift now, so new commands reach the fuzzer without editing the file.
dictionary() {
  local out=$OUT/oplab.dict
  mkdir -p "$OUT"
  {
    cat "$FUZZ/oplab.dict"
    echo
    echo "# generated by fuzz.sh from Sources/OpLabShell/Language/CommandTable.swift"
    grep -oE 'name: "[^"]+", aliases: \[[^]]*\]|\.word\("[^"]+"\)' "$ROOT/Sources/OpLabShell/Language/CommandTable.swift" |
      grep -oE '"[^"\\]+"' | tr -d '"' | LC_ALL=C sort -u | awk '{ printf "table_%d=\"%s \"\n", NR, $0 }'
  } >"$out"
  echo "$out"
}

# MARK: - Run

run_target() {
  local t=$1 secs=$2
  local corpus=$OUT/corpus/$t logdir=$OUT/logs
  mkdir -p "$corpus" "$logdir" "$FUZZ/crashes"
  local log_file
  log_file=$logdir/$t-$(date +%Y%m%d-%H%M%S).log
  log "fuzzing $t for ${secs}s ($MODE; corpus $corpus; log $log_file)"
  local status=0 dict
  dict=$(dictionary)
  # The first directory is the working corpus, which libFuzzer grows; the others only seed it.
  # shellcheck disable=SC2086
  "$BUILD/bin/fuzz-$t" "$corpus" "$OUT/seeds/$t" "$FUZZ/seeds/$t" \
    -dict="$dict" -max_len="$(max_len "$t")" -timeout=20 -rss_limit_mb=2048 -detect_leaks=0 \
    -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$FUZZ/crashes/$t-" \
    ${FUZZ_FLAGS:-} >"$log_file" 2>&1 || status=$?
  local execs units
  execs=$(awk '/stat::number_of_executed_units/ {print $NF}' "$log_file" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  printf '%s\t%s\t%s\t%ss\texecs=%s\tcorpus=%s\tstatus=%s\n' "$(date -u +%FT%TZ)" "$t" "$MODE" "$secs" \
    "${execs:-?}" "$units" "$status" | tee -a "$OUT/stats.tsv"
  # 72 is libFuzzer's status when a signal interrupts it (-interrupted_exitcode): no finding.
  if ((status == 72)); then
    log "$t interrupted after $execs executions"
  elif ((status != 0)); then
    log "$t stopped with status $status; the input is in Fuzz/crashes/ (see the end of $log_file):"
    grep -E '==OPLAB-FUZZ==|ERROR: |SUMMARY|Test unit written|Fatal error' "$log_file" | head -20 >&2 || true
  fi
  return "$status"
}

repro() {
  local f t status=0
  for f in "$@"; do
    t=$(basename "$f")
    t=${t%%-*}
    [[ " ${TARGETS[*]} " == *" $t "* ]] || { log "cannot tell the target of $f (name it TARGET-…)"; exit 2; }
    "$BUILD/bin/fuzz-$t" "$f" || status=$?
  done
  return "$status"
}

main() {
  (($# >= 1)) || usage
  case $1 in
    build) build ;;
    seeds) seeds ;;
    repro)
      shift
      (($# >= 1)) || usage
      build
      repro "$@"
      ;;
    parser | interpreter | lesson | all)
      (($# == 2)) && [[ $2 =~ ^[0-9]+$ ]] || usage
      build
      seeds
      local list=("$1") t status=0
      [[ $1 == all ]] && list=("${TARGETS[@]}")
      for t in "${list[@]}"; do run_target "$t" "$2" || status=$?; done
      return "$status"
      ;;
    *) usage ;;
  esac
}

main "$@"
