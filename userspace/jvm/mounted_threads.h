#pragma once
// Which Java thread a CPU sample of a JVM's OS thread ran in, when the walker took it inside a continuation
// (bpf/virtual_threads.bpf.h): the virtual thread mounted on that carrier, or the carrier itself.
#include <sys/types.h>

#include <cstdint>

#include "userspace/jvm/thread_table.h"

namespace jfrbpf::jvm {

// The Java id of the virtual thread that ran a sample of OS thread `tid` at `ticks`, taken inside a
// continuation while the JavaThread's current Java thread was `currentThreadId`; 0 when the sample is the
// platform thread's own: `currentThreadId` is its own id (the instants of a mount and an unmount, or a
// continuation a platform thread runs itself), another platform thread's, or none.
int64_t mountedVirtualThread(const ThreadTable& threads, pid_t tid, uint64_t ticks, int64_t currentThreadId);

}  // namespace jfrbpf::jvm
