#pragma once
// The native methods instrumented bytecode calls on every entry and exit of a timed or traced method:
// static natives of the hook class, bound with RegisterNatives. They time the invocation themselves (a
// per-thread shadow stack of entry times, CLOCK_MONOTONIC through the vDSO) and add it to the method's row
// of the shared timing table (protocol/timing_table.h), so a timed call costs two JNI calls and two clock
// reads, no system call and no uprobe.
//
// A traced invocation at or over the threshold calls jfrbpf_method_traced(hook index, entry time, duration,
// 0, 0): a 5-byte NOP and a return, where the loader attaches the uprobe whose BPF program walks the
// caller's stack (Java, native and stub frames) into a trace record. Linux 6.18+ (x86_64) turns a uprobe
// on a 5-byte NOP into a call instead of an int3 trap.
#include <jni.h>

#include <cstdint>

#include "jvmsupport/protocol/timing_table.h"

extern "C" {
void jfrbpf_method_enter(JNIEnv* env, jclass hooks, jint hookIndex);
void jfrbpf_method_exit(JNIEnv* env, jclass hooks, jint hookIndex);
void jfrbpf_method_traced(uint32_t hookIndex, uint64_t entryNs, uint64_t durationNs, uint64_t detail, uint64_t address);
}

namespace jfrbpf::agent {

// The uprobe site: the first instruction of the trace stub.
inline uint64_t traceHookSite() { return reinterpret_cast<uintptr_t>(&jfrbpf_method_traced); }

// Agent thread, before any method is instrumented for a recording: where the stubs count and from which
// duration on a traced invocation goes to the trace probe. `table` stays mapped for the agent's lifetime:
// invocations still open when a recording ends may exit into it later.
void armHooks(protocol::TimingTableHeader* table, uint64_t traceThresholdNs);

}  // namespace jfrbpf::agent
