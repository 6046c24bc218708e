#!/usr/bin/env bash
# `make install` into a fresh PREFIX, then use the installed `oplab` from another folder
# with a fresh HOME, as a learner who installed it would. Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d) home=$(mktemp -d) elsewhere=$(mktemp -d) odd=$(mktemp -d)
trap 'rm -rf "$prefix" "$home" "$elsewhere" "$odd"' EXIT
passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "install check failed: $what" >&2; fi
}
make -s install PREFIX="$prefix" >"$home/install.log" 2>&1 || { cat "$home/install.log" >&2; exit 1; }
lab() { (cd "$elsewhere" && env -i HOME="$home" PATH="$prefix/bin:/usr/bin:/bin" LANG=C.UTF-8 oplab "$@"); }
check "oplab lesson lists the course from another folder" bash -c "$(declare -f lab); prefix='$prefix' home='$home' elsewhere='$elsewhere'; lab lesson | grep -q 'Why concurrency: the frozen UI'"
check "oplab lesson 1 starts the lesson" bash -c "$(declare -f lab); prefix='$prefix' home='$home' elsewhere='$elsewhere'; printf 'quit\n' | lab lesson 1 | grep -q 'Lesson 1: Why concurrency'"
check "an installed example runs" bash -c "$(declare -f lab); prefix='$prefix' home='$home' elsewhere='$elsewhere'; lab run '$prefix/share/oplab/Examples/pipeline.oplab' | grep -q 'idle at t='"
check "oplab lesson check passes on the installed lessons" bash -c "$(declare -f lab); prefix='$prefix' home='$home' elsewhere='$elsewhere'; lab lesson check --all | grep -q ' 0 failed'"
check "bash completion registers" bash -c "source '$prefix/share/bash-completion/completions/oplab' && complete -p oplab"
check "zsh completion is installed" grep -q '#compdef oplab' "$prefix/share/zsh/site-functions/_oplab"
check "fish completion is installed" grep -q "complete -c 'oplab'" "$prefix/share/fish/vendor_completions.d/oplab.fish"
page=$prefix/share/man/man1/oplab.1
check "the man page is installed" grep -q '^.Nm oplab' "$page"
check "the man page documents the options" grep -q '^.It Fl -width Ar width' "$page"
check "the man page documents the lab's commands (timeline)" grep -q '^.It Ic timeline' "$page"
if command -v mandoc >/dev/null; then
  check "the man page is valid mdoc (mandoc -T lint -W warning)" mandoc -T lint -W warning "$page"
else
  check "man -l renders the man page without a warning" bash -c "[ -z \"\$(MANWIDTH=80 man -l '$page' 2>&1 >/dev/null)\" ]"
fi
for step in "building" "installing the binary" "lessons" "completions" "man page"; do
  check "make install says when it is $step" grep -q "^oplab: .*$step" "$home/install.log"
done
# Its own lines, not swift build's: the steps, then the closing message.
long=$({ grep '^oplab: ' "$home/install.log"; sed -n '/^installed:$/,$p' "$home/install.log"; } | grep -c '.\{81\}' || true)
check "make install's own lines fit in 80 columns" test "$long" = 0
make -s uninstall PREFIX="$prefix" >/dev/null
check "make uninstall removes it" test ! -e "$prefix/bin/oplab" -a ! -e "$prefix/share/oplab"

# A PREFIX holding a blank and double quotes is one folder: make install and uninstall
# there touch nothing else, as pasting it into a recipe's quotes did (PREFIX='A" "B' ran
# rm -rf "A" "B/share/oplab"). Sentinels stand where those pieces point: a file A (a
# folder would stop that rm -f before its rm -rf) and a folder B/share/oplab.
mkdir -p "$odd/B/share/oplab"
touch "$odd/A" "$odd/B/share/oplab/sentinel"
quoted="$odd/A\" \"$odd/B"
make -s install PREFIX="$quoted" >"$home/quoted.log" 2>&1 || cat "$home/quoted.log" >&2
check "make install into a PREFIX with a blank and quotes" test -x "$quoted/bin/oplab" -a -s "$quoted/share/man/man1/oplab.1"
check "the lessons go there too" test -d "$quoted/share/oplab/Lessons"
make -s uninstall PREFIX="$quoted" >/dev/null 2>&1 || true
check "make uninstall removes them from there" test ! -e "$quoted/bin/oplab" -a ! -e "$quoted/share/oplab"
check "nothing beside that PREFIX was touched" \
  test "$(cd "$odd" && find A B | sort | tr '\n' ' ')" = "A B B/share B/share/oplab B/share/oplab/sentinel "
staged="$odd/stage \"x\""
make -s install DESTDIR="$staged" PREFIX=/opt/oplab >/dev/null 2>&1 || true
check "a DESTDIR with a blank and quotes stages the install" test -x "$staged/opt/oplab/bin/oplab"
make -s uninstall DESTDIR="$staged" PREFIX=/opt/oplab >/dev/null 2>&1 || true
check "and make uninstall with it empties it" test ! -e "$staged/opt/oplab/bin/oplab" -a ! -e "$staged/opt/oplab/share/oplab"
echo "install check: $passed passed, $failed failed"
[ "$failed" = 0 ]
