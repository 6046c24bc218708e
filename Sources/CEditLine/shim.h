#ifndef OPLAB_CEDITLINE_SHIM_H
#define OPLAB_CEDITLINE_SHIM_H

// libedit's native (histedit) API, plus static inline wrappers for what Swift
// cannot call directly: el_set/el_get/history are C-variadic, and Swift 6 rejects
// references to mutable C globals such as stdin/stdout.

#include <stdio.h>
#include <histedit.h>

static inline FILE *cel_stdin(void) { return stdin; }
static inline FILE *cel_stdout(void) { return stdout; }
static inline FILE *cel_stderr(void) { return stderr; }

#endif
