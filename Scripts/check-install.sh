#!/usr/bin/env bash
# `make install` into a fresh PREFIX, then use the installed `oplab` from another folder
# with a fresh HOME, as a learner who installed it would. Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d) home=$(mktemp -d) elsewhere=$(mktemp -d)
trap 'rm -rf "$prefix" "$home" "$elsewhere"' EXIT
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
check "the man page is installed" grep -q '^.Nm oplab' "$prefix/share/man/man1/oplab.1"
make -s uninstall PREFIX="$prefix" >/dev/null
check "make uninstall removes it" test ! -e "$prefix/bin/oplab" -a ! -e "$prefix/share/oplab"
echo "install check: $passed passed, $failed failed"
[ "$failed" = 0 ]
