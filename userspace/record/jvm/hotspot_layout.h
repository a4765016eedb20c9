#pragma once
// The BPF walker's view of one JVM (bpf/hotspot_abi.h), derived from the JVM's own VMStructs, code heaps and
// interpreter range as the agent reported them. Nothing is assumed per JDK version except the two
// interpreter frame slots VMStructs does not export (stable since JDK 9).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bpf/hotspot_abi.h"
#include "userspace/jvm/java_model.h"

namespace jfrbpf::record {

// nullopt with `whyNot` set when the model lacks something the walker needs.
std::optional<jfrbpf_hotspot> hotspotLayout(const jvm::JavaModel& model, std::string& whyNot);

// StubRoutines::_call_stub_return_address as process `pid` holds it (the layout's call_stub_return); 0 when
// VMStructs does not name it, it cannot be read, or it is not in the layout's code cache. The walker only
// takes a shortcut with it, so 0 costs nothing but that.
uint64_t callStubReturnAddress(pid_t pid, const jvm::JavaModel& model, const jfrbpf_hotspot& layout);

// Lets the walker go through a mounted virtual thread's frozen frames (bpf/frozen_frames.bpf.h) where the
// agent found the Java objects' layout and the JVM names the return barrier, the continuation's return
// address and the current thread's handle; leaves `layout` as it is otherwise (the walk then ends at the
// barrier, as before).
void addFrozenFrameLayout(pid_t pid, const jvm::JavaModel& model, jfrbpf_hotspot& layout);

// The libjvm.so process `pid` runs, as a path this process can open whatever mount namespace the JVM is in
// (its /proc/PID/map_files link); nullopt, with `whyNot`, if it is not mapped, the process is gone, or that
// link may not be opened (no CAP_SYS_ADMIN).
std::optional<std::string> libjvmFile(pid_t pid, std::string& whyNot);

}  // namespace jfrbpf::record
