#include "userspace/timing/trace_stack.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "userspace/jvm/walked_frame.h"

namespace jfrbpf::timing {

namespace {

// The trace stub, its native caller, the hook's frames and the traced method's own: a little slack for adapters.
constexpr uint32_t kMaxFramesToSearch = 8;

bool isTracedMethod(const jvm::JavaMethod* method, const jvm::TimedMethodInfo& traced) {
  return method != nullptr && method->klass != nullptr && method->name == traced.methodName &&
         method->signature == traced.descriptor && method->klass->name == traced.className;
}

}  // namespace

CallerFrames findCaller(const jvm::JavaModel& model, const jfrbpf_sample_record& record,
                        const jvm::TimedMethodInfo& method, jvm::ModelNow now, std::span<jvm::JavaFrame> scratch) {
  const uint32_t depth = std::min<uint32_t>({record.user_depth, JFRBPF_MAX_USER_FRAMES, kMaxFramesToSearch});
  for (uint32_t i = 0; i < depth; ++i) {
    const uint64_t pc = record.data[2 * i];
    const uint64_t methodPtr = record.data[2 * i + 1];
    uint64_t ticks = record.time_ns;
    if (methodPtr != 0) {
      std::optional<jvm::JavaFrame> frame = jvm::interpretedJavaFrame(model, methodPtr, pc, ticks);
      if (frame && isTracedMethod(frame->method, method)) return {true, i + 1, 0};
      continue;
    }
    jvm::PcInfo info = jvm::codeAtWalkedPc(model, pc, ticks, now);
    if (info.kind != jvm::CodeKind::kCompiled) continue;
    const size_t count = jvm::compiledJavaFrames(model, *info.compiled, pc, ticks, scratch);
    for (size_t k = 0; k < count; ++k) {
      if (!isTracedMethod(scratch[k].method, method)) continue;
      // The last of the chain is the physical frame's own method: drop the frame whole.
      if (k + 1 == count) return {true, i + 1, 0};
      return {true, i, static_cast<uint32_t>(k + 1)};
    }
  }
  return {};
}

uint32_t hookFrames(const jvm::JavaModel& model, const jfrbpf_sample_record& record, std::string_view hookClass,
                    jvm::ModelNow now, std::span<jvm::JavaFrame> scratch) {
  const uint32_t depth = std::min<uint32_t>({record.user_depth, JFRBPF_MAX_USER_FRAMES, kMaxFramesToSearch});
  for (uint32_t i = 1; i < depth; ++i) {  // frame 0 is the trace stub
    const uint64_t pc = record.data[2 * i], methodPtr = record.data[2 * i + 1];
    uint64_t ticks = record.time_ns;
    const jvm::JavaMethod* method = nullptr;  // the physical frame's own
    if (methodPtr != 0) {
      std::optional<jvm::JavaFrame> frame = jvm::interpretedJavaFrame(model, methodPtr, pc, ticks);
      method = frame ? frame->method : nullptr;
    } else if (jvm::PcInfo info = jvm::codeAtWalkedPc(model, pc, ticks, now); info.kind == jvm::CodeKind::kCompiled) {
      const size_t count = jvm::compiledJavaFrames(model, *info.compiled, pc, ticks, scratch);
      method = count > 0 ? scratch[count - 1].method : nullptr;
    }
    if (method != nullptr && method->klass != nullptr && method->klass->name == hookClass) return i + 1;
  }
  return std::min<uint32_t>(depth, 1);
}

void dropTopFrames(jfrbpf_sample_record& record, uint32_t frames) {
  const uint32_t userDepth = std::min<uint32_t>(record.user_depth, JFRBPF_MAX_USER_FRAMES);
  const uint32_t kernelDepth = std::min<uint32_t>(record.kernel_depth, JFRBPF_MAX_KERNEL_FRAMES);
  frames = std::min(frames, userDepth);
  if (frames == 0) return;
  // The thread's context, after the stacks, moves with them.
  const size_t words = 2 * static_cast<size_t>(userDepth - frames) + kernelDepth +
                       (std::min<size_t>(record.context_size, JFRBPF_CONTEXT_MAX_SIZE) + 7) / 8;
  std::memmove(record.data, record.data + 2 * frames, words * sizeof(uint64_t));
  record.user_depth = static_cast<uint16_t>(userDepth - frames);
  record.kernel_depth = static_cast<uint16_t>(kernelDepth);
}

}  // namespace jfrbpf::timing
