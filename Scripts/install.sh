#!/usr/bin/env bash
# What `make install` and `make uninstall` run: Scripts/install.sh install|uninstall.
#
# PREFIX, DESTDIR and SWIFT come from the environment (the Makefile exports them) and are
# only ever expanded inside double quotes here, so a PREFIX holding a blank or a quote is
# one folder, never shell text: `make uninstall PREFIX='A" "B'` used to paste it into the
# recipe's quotes and run `rm -rf "A" "B/share/oplab"`.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${PREFIX-"${HOME:?set PREFIX or HOME}/.local"}
root=${DESTDIR-}$prefix
share=$root/share
read -r -a swift <<<"${SWIFT:-swift}"  # like $(SWIFT) in the Makefile: a command and its options

step() { printf 'oplab: %s\n' "$*"; }

install_all() {
  step "building the release binary (swift build -c release)"
  "${swift[@]}" build -c release --product oplab
  local bin
  bin=$("${swift[@]}" build -c release --show-bin-path)
  local installed=()

  step "installing the binary"
  install -d "$root/bin"
  install -m 755 "$bin/oplab" "$root/bin/oplab"
  installed+=("$root/bin/oplab")

  step "installing the lessons and examples"
  install -d "$share/oplab"
  rm -rf "$share/oplab/Lessons" "$share/oplab/Examples"
  cp -R Lessons Examples "$share/oplab/"
  installed+=("$share/oplab")

  step "installing completions for bash, zsh and fish"
  local bash_dir=$share/bash-completion/completions zsh_dir=$share/zsh/site-functions
  local fish_dir=$share/fish/vendor_completions.d
  install -d "$bash_dir" "$zsh_dir" "$fish_dir"
  "$bin/oplab" --generate-completion-script bash >"$bash_dir/oplab"
  "$bin/oplab" --generate-completion-script zsh >"$zsh_dir/_oplab"
  "$bin/oplab" --generate-completion-script fish >"$fish_dir/oplab.fish"
  installed+=("$bash_dir/oplab" "$zsh_dir/_oplab" "$fish_dir/oplab.fish")

  # From the binary just built: swift package generate-manual rebuilt every module a second
  # time, in a folder of its own, for minutes and in silence.
  step "writing the man page (oplab --generate-man-page)"
  local man=$share/man/man1
  install -d "$man"
  if "$bin/oplab" --generate-man-page >"$man/oplab.1.new"; then
    chmod 644 "$man/oplab.1.new"
    mv -f "$man/oplab.1.new" "$man/oplab.1"
    installed+=("$man/oplab.1")
  else
    rm -f "$man/oplab.1.new"
    step "the man page could not be generated; skipped"
  fi

  # One path a line, so that a long one is never broken in the middle to fit 80 columns.
  echo "installed:"
  printf '  %s\n' "${installed[@]}"
  case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) printf 'to type oplab anywhere, add this folder to PATH:\n  %s\n' "$prefix/bin" ;;
  esac
}

uninstall_all() {
  step "removing the binary, completions and man page"
  rm -f "$root/bin/oplab" "$share/man/man1/oplab.1" \
    "$share/bash-completion/completions/oplab" "$share/zsh/site-functions/_oplab" \
    "$share/fish/vendor_completions.d/oplab.fish"
  step "removing the lessons and examples"
  rm -rf "$share/oplab"
  printf 'removed oplab from:\n  %s\n' "$root"
}

case ${1-} in
install) install_all ;;
uninstall) uninstall_all ;;
*)
  echo "usage: Scripts/install.sh install|uninstall (PREFIX, DESTDIR and SWIFT from the environment)" >&2
  exit 2
  ;;
esac
