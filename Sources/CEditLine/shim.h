#ifndef OPLAB_CEDITLINE_SHIM_H
#define OPLAB_CEDITLINE_SHIM_H

// libedit's native (histedit) API, plus static inline wrappers for what Swift
// cannot call directly: el_set/el_get/history are C-variadic, and Swift 6 rejects
// references to mutable C globals such as stdin/stdout.
//
// Only Sources/OpLabShell/LineReading/EditLineReader.swift imports this module.

#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <histedit.h>
#include <pthread.h>

// MARK: - Standard streams

static inline FILE *cel_stdin(void) { return stdin; }
static inline FILE *cel_stdout(void) { return stdout; }
static inline FILE *cel_stderr(void) { return stderr; }

// MARK: - el_set / el_get

typedef char *(*cel_prompt_fn)(EditLine *);
typedef unsigned char (*cel_command_fn)(EditLine *, int);

/// Sets the prompt function; characters between two `ignore` bytes are printed
/// but not counted (for ANSI escapes).
static inline int cel_set_prompt(EditLine *el, cel_prompt_fn fn, char ignore) {
  return el_set(el, EL_PROMPT_ESC, fn, ignore);
}

/// Selects the key map: "emacs" or "vi".
static inline int cel_set_editor(EditLine *el, const char *mode) {
  return el_set(el, EL_EDITOR, mode);
}

/// 1: libedit handles SIGINT/SIGWINCH/SIGTSTP... while reading (restores the tty,
/// then re-raises to the previously installed handler).
static inline int cel_set_signal(EditLine *el, int on) {
  return el_set(el, EL_SIGNAL, on);
}

/// Connects a history to the editor (Up/Down, Ctrl-R...).
static inline int cel_set_history(EditLine *el, History *h) {
  return el_set(el, EL_HIST, history, h);
}

static inline int cel_set_clientdata(EditLine *el, void *data) {
  return el_set(el, EL_CLIENTDATA, data);
}

static inline void *cel_get_clientdata(EditLine *el) {
  void *data = NULL;
  if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
  return data;
}

/// Registers a named editor command.
static inline int cel_add_function(EditLine *el, const char *name, const char *help,
                                   cel_command_fn fn) {
  return el_set(el, EL_ADDFN, name, help, fn);
}

/// Binds one key sequence (e.g. "^I") to a named editor command.
static inline int cel_bind(EditLine *el, const char *key, const char *command) {
  return el_set(el, EL_BIND, key, command, (const char *)NULL);
}

/// The terminal width in columns, or `fallback` when libedit does not know it.
static inline int cel_columns(EditLine *el, int fallback) {
  int columns = 0;
  if (el_get(el, EL_GETTC, "co", &columns) != 0 || columns <= 0) return fallback;
  return columns;
}

// MARK: - history()

static inline int cel_history_setsize(History *h, int size) {
  HistEvent ev;
  return history(h, &ev, H_SETSIZE, size);
}

static inline int cel_history_setunique(History *h, int on) {
  HistEvent ev;
  return history(h, &ev, H_SETUNIQUE, on);
}

static inline int cel_history_enter(History *h, const char *line) {
  HistEvent ev;
  return history(h, &ev, H_ENTER, line);
}

/// Loads entries from `path`: the number loaded, or -1.
static inline int cel_history_load(History *h, const char *path) {
  HistEvent ev;
  return history(h, &ev, H_LOAD, path);
}

/// Writes every entry to `path` (mode 0600): the number written, or -1.
static inline int cel_history_save(History *h, const char *path) {
  HistEvent ev;
  return history(h, &ev, H_SAVE, path);
}

/// The number of entries.
static inline int cel_history_size(History *h) {
  HistEvent ev;
  if (history(h, &ev, H_GETSIZE) != 0) return 0;
  return ev.num;
}

/// The oldest entry (H_LAST), or NULL when empty.
static inline const char *cel_history_oldest(History *h) {
  HistEvent ev;
  if (history(h, &ev, H_LAST) != 0) return NULL;
  return ev.str;
}

/// The entry after the current one, towards the newest (H_PREV), or NULL.
static inline const char *cel_history_newer(History *h) {
  HistEvent ev;
  if (history(h, &ev, H_PREV) != 0) return NULL;
  return ev.str;
}

// MARK: - SIGINT

/// Installs `handler` for SIGINT *without* SA_RESTART, so a blocked read() fails
/// with EINTR and el_gets returns; the previous action is stored in `previous`.
static inline int cel_signal_install(int signo, void (*handler)(int), struct sigaction *previous);
static inline int cel_sigint_install(void (*handler)(int), struct sigaction *previous) {
  return cel_signal_install(SIGINT, handler, previous);
}

/// Puts back an action saved by cel_sigint_install.
static inline int cel_signal_restore(int signo, const struct sigaction *previous);
static inline int cel_sigint_restore(const struct sigaction *previous) {
  return cel_signal_restore(SIGINT, previous);
}

/// Installs `handler` for `signo` without SA_RESTART (so el_gets returns), saving the old action.
static inline int cel_signal_install(int signo, void (*handler)(int), struct sigaction *previous) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  return sigaction(signo, &action, previous);
}

/// Puts back an action saved by cel_signal_install.
static inline int cel_signal_restore(int signo, const struct sigaction *previous) {
  return sigaction(signo, previous, NULL);
}

/// Whether `signo` is ignored now (`nohup` ignores SIGHUP): a batch run leaves such a
/// signal alone rather than catch it.
static inline int cel_signal_is_ignored(int signo) {
  struct sigaction current;
  if (sigaction(signo, NULL, &current) != 0) return 0;
  return current.sa_handler == SIG_IGN;
}

/// Unblocks SIGINT, SIGTERM and SIGHUP in the calling thread. A parent that blocked them
/// (some test runners and process launchers do) passes the mask on through exec, and
/// Ctrl-C or a closing terminal would then do nothing.
static inline int cel_signals_unblock(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

#endif
