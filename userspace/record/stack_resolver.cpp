#include "userspace/record/stack_resolver.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace jfrbpf::record {
namespace {

// A cache that grows past this is rebuilt from scratch rather than grown without bound.
constexpr size_t kMaxCachedPcsPerProcess = 1u << 20;

}  // namespace

StackResolver::StackResolver(jfr::Recording& out, const symbolize::KernelSymbolizer& kernel,
                             symbolize::ProcessSymbolizer& native)
    : out_(out), kernel_(kernel), native_(native) {}

void StackResolver::resolve(const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) {
  frames.clear();
  const uint32_t userDepth = std::min<uint32_t>(record.user_depth, JFRBPF_MAX_USER_FRAMES);
  const uint32_t kernelDepth = std::min<uint32_t>(record.kernel_depth, JFRBPF_MAX_KERNEL_FRAMES);
  // Kernel frames sit above the user frames of the same sample: they come first, leaf first.
  const uint64_t* kernel = record.data + 2 * userDepth;
  for (uint32_t i = 0; i < kernelDepth; ++i) {
    // Return addresses point after the call; step back one byte so the lookup lands inside the caller's
    // call instruction (and thus its function), except for the interrupted leaf.
    frames.push_back({kernelMethod(i == 0 ? kernel[i] : kernel[i] - 1), -1, -1, jfr::FrameType::Native});
  }
  for (uint32_t i = 0; i < userDepth; ++i) {
    const uint64_t pc = record.data[2 * i];
    const bool exactPc = i == 0;
    frames.push_back({nativeMethod(static_cast<pid_t>(record.tgid), exactPc ? pc : pc - 1), -1, -1,
                      jfr::FrameType::Native});
  }
}

void StackResolver::forgetProcess(pid_t tgid) {
  nativeCache_.erase(tgid);
  native_.forgetProcess(tgid);
}

jfr::MethodId StackResolver::kernelMethod(uint64_t pc) {
  auto [it, inserted] = kernelCache_.try_emplace(pc, 0);
  if (inserted) it->second = methodFor(kernel_.symbolize(pc));
  return it->second;
}

jfr::MethodId StackResolver::nativeMethod(pid_t tgid, uint64_t pc) {
  auto& cache = nativeCache_[tgid];
  if (cache.size() > kMaxCachedPcsPerProcess) cache.clear();
  auto [it, inserted] = cache.try_emplace(pc, 0);
  if (inserted) it->second = methodFor(native_.symbolize(tgid, pc));
  return it->second;
}

jfr::MethodId StackResolver::methodFor(const symbolize::NativeFrame& frame) {
  jfr::ClassId owner = out_.internClass(frame.library);
  if (!frame.symbol.empty()) return out_.internMethod(owner, frame.symbol, jfr::kNativeMethodDescriptor);
  // No symbol: keep the library and the offset so the frame is still recognisable.
  char name[32];
  std::snprintf(name, sizeof(name), "+0x%llx", static_cast<unsigned long long>(frame.offset));
  return out_.internMethod(owner, name, jfr::kNativeMethodDescriptor);
}

}  // namespace jfrbpf::record
