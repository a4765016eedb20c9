#pragma once
// The Method* of method versions that retransformation replaced. A thread that was inside a method when
// its class was retransformed (a loop that never returns: Thread.run, a worker's main loop) keeps running
// the old version, whose Method* no replay would report: a later session could not name those frames. So
// the agent remembers, just before each retransformation, the versions it replaces, and every replay sends
// them (before the current version, which stays the newest for the method's jmethodID).
//
// Agent thread only (retransformations and replays both run there). Bounded: beyond kMaxVersions old
// versions are forgotten, and their frames go unnamed.
#include <jvmti.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "jvmsupport/agent/jvm_layout.h"

namespace jfrbpf::agent {

class PreviousVersions {
 public:
  static constexpr size_t kMaxVersions = 1u << 16;

  // Before `klass` is retransformed: its methods' current versions.
  void remember(jvmtiEnv* jvmti, const JvmLayout& layout, jclass klass);

  template <typename F>
  void forEach(jmethodID method, F&& visit) const {
    auto found = versions_.find(reinterpret_cast<uintptr_t>(method));
    if (found == versions_.end()) return;
    for (const MethodPointers& version : found->second) visit(version);
  }

 private:
  std::unordered_map<uint64_t, std::vector<MethodPointers>> versions_;  // by jmethodID, oldest first
  size_t count_ = 0;
};

}  // namespace jfrbpf::agent
