#pragma once
// The trace stub: jfrbpf_method_traced(hook index, start, duration, detail, address, session) is a 5-byte NOP
// and a return, where the loader attaches the uprobe whose BPF program walks the caller's stack (Java, native
// and stub frames) into a trace record. `session` is the agent session whose feature made the call: every
// recorder of the JVM has its uprobe on the stub, and each takes only its own session's calls. Linux 6.18+ (x86_64) turns a uprobe on a 5-byte NOP into a call instead
// of an int3 trap. Its callers: a traced method's invocation at or over the threshold (through the hook
// class's native `traced`, below), sampled allocations and lock waits.
#include <jni.h>

#include <cstdint>

#include "jvmsupport/protocol/timing_table.h"

extern "C" {
void jfrbpf_method_traced(uint32_t hookIndex, uint64_t entryNs, uint64_t durationNs, uint64_t detail, uint64_t address,
                          uint32_t session);
// MethodTimer.traced(int, long, long), bound with RegisterNatives.
void jfrbpf_java_method_traced(JNIEnv* env, jclass hooks, jint hookIndex, jlong startNs, jlong durationNs);
}

namespace jfrbpf::agent {

// The uprobe site: the first instruction of the trace stub.
inline uint64_t traceHookSite() { return reinterpret_cast<uintptr_t>(&jfrbpf_method_traced); }

// Agent thread, when a recording starts timing: the table whose trace counter `traced` counts in (it stays
// mapped for the agent's lifetime), and the session its traced calls are for.
void setTraceCounterTable(protocol::TimingTableHeader* table, uint32_t session);

}  // namespace jfrbpf::agent
