#include "userspace/record/sources/agent_event_source.h"

#include <cstdio>

#include "base/error.h"

namespace jfrbpf::record {

void AgentEventSource::startInJvm(JvmConnection& jvm, JvmKernelSide& kernel, std::vector<std::string>& notes) {
  std::optional<std::string> note;
  try {
    if (std::optional<std::string> caveat = start(jvm, kernel)) note = "JVM " + std::to_string(jvm.pid()) + ": " + *caveat;
  } catch (const Error& e) {
    note = std::string(e.what()) + ": recording without " + what_ + " there";
  }
  if (!note) return;
  std::fprintf(stderr, "jfrbpf: %s\n", note->c_str());
  notes.push_back(std::move(*note));
}

}  // namespace jfrbpf::record
