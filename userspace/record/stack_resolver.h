#pragma once
// Turns the raw pcs of a sample record into JFR frames, leaf first: kernel frames (class "kernel" or the
// module), then user frames. Every pc is resolved once per process and then served from a cache of JFR
// method ids, so the steady-state cost of a sample is a few hash lookups per frame.
#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/symbolize/symbolizer.h"

namespace jfrbpf::record {

class StackResolver {
 public:
  StackResolver(jfr::Recording& out, const symbolize::KernelSymbolizer& kernel, symbolize::ProcessSymbolizer& native);

  // Replaces `frames` with the frames of `record` (whose pcs array holds kernel_depth + user_depth entries).
  void resolve(const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames);

  // A process exited or was re-exec'd: its cached pcs are no longer meaningful.
  void forgetProcess(pid_t tgid);

 private:
  jfr::MethodId kernelMethod(uint64_t pc);
  jfr::MethodId nativeMethod(pid_t tgid, uint64_t pc);
  jfr::MethodId methodFor(const symbolize::NativeFrame& frame);

  jfr::Recording& out_;
  const symbolize::KernelSymbolizer& kernel_;
  symbolize::ProcessSymbolizer& native_;
  std::unordered_map<uint64_t, jfr::MethodId> kernelCache_;
  std::unordered_map<pid_t, std::unordered_map<uint64_t, jfr::MethodId>> nativeCache_;
};

}  // namespace jfrbpf::record
