#pragma once
// A Java thread's name, read from outside the JVM at its Thread object's address as a sample saw it
// (bpf/virtual_threads.bpf.h), with the field offsets the agent checked (protocol::ContinuationLayout). A
// collector may have moved the object since: the name is taken only if the object there still carries the
// thread's id, and the String's coder and length are checked before its characters are read.
#include <cstdint>
#include <optional>
#include <string>

#include "jvmsupport/protocol/vm_records.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::jvm {

// Longer names are cut to this many characters.
inline constexpr uint32_t kMaxThreadNameChars = 256;

// The UTF-8 name of thread `javaThreadId` whose Thread object was at `thread`; nullopt if the layout has no
// names, the object there is not that thread's, or a read fails or looks wrong.
std::optional<std::string> readThreadName(const unwind::MemoryReader& memory, const protocol::ContinuationLayout& layout,
                                          uint64_t thread, int64_t javaThreadId);

}  // namespace jfrbpf::jvm
