#include "userspace/record/output/stack_end.h"

#include <algorithm>
#include <array>

namespace jfrbpf::record {
namespace {

struct Names {
  std::string_view cause;
  std::string_view marker;
};

constexpr std::array<Names, static_cast<size_t>(StackEnd::kCount)> kNames = {{
    {"complete", ""},
    {"stack depth limit", "[truncated: stack depth limit]"},
    {"unreadable stack", "[truncated: unreadable stack]"},
    {"unknown JIT code", "[truncated: unknown JIT code]"},
    {"no unwind info", "[truncated: no unwind info]"},
    {"bad frame", "[truncated: bad frame]"},
    {"unmapped frame", "[truncated: unmapped frame]"},
    {"user stack not taken", "[truncated: user stack not taken]"},
    {"JVM agent not attached yet", "[truncated: JVM agent not attached yet]"},
    {"no JVM agent", "[truncated: no JVM agent]"},
    {"Java frames dropped (memory limit)", "[truncated: Java frames dropped: memory limit]"},
    {"frozen virtual thread frames", "[truncated: frozen virtual thread frames]"},
}};

const Names& namesOf(StackEnd end) {
  return kNames[std::min(static_cast<size_t>(end), kNames.size() - 1)];
}

}  // namespace

StackEnd walkEndOf(const jfrbpf_sample_record& record) {
  switch (record.walk_end) {
    case JFRBPF_WALK_ROOT: return StackEnd::kRoot;
    case JFRBPF_WALK_DEPTH_LIMIT: return StackEnd::kDepthLimit;
    case JFRBPF_WALK_READ_FAULT: return StackEnd::kReadFault;
    case JFRBPF_WALK_UNKNOWN_CODE: return StackEnd::kUnknownCode;
    case JFRBPF_WALK_NO_UNWIND_INFO: return StackEnd::kNoUnwindInfo;
    case JFRBPF_WALK_NOT_TAKEN: return StackEnd::kNotTaken;
    default: return StackEnd::kBadFrame;  // JFRBPF_WALK_BAD_FRAME, and anything a newer walker may add
  }
}

std::string_view stackEndCause(StackEnd end) { return namesOf(end).cause; }

std::string_view markerFrameName(StackEnd end) { return namesOf(end).marker; }

}  // namespace jfrbpf::record
