// Cache prefetch hints for OpLabCore: a header-only module (no library to link).
//
// A hint asks the processor to start loading a cache line that the simulator will touch
// soon, so that loads of random operations (at a million operations most of them miss
// every cache) overlap the work in between rather than stall it. A hint never faults and
// never changes a result: the simulator behaves the same with or without it.
#ifndef OPLAB_PREFETCH_H
#define OPLAB_PREFETCH_H

/// The line holding `address`, to be read soon.
static inline void oplab_prefetch_read(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
