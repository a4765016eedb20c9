#include "userspace/jvm/walked_frame.h"

namespace jfrbpf::jvm {

PcInfo codeAtWalkedPc(const JavaModel& model, uint64_t pc, uint64_t& ticks, ModelNow now) {
  PcInfo info = model.classify(pc, ticks);
  if (info.kind != CodeKind::kUnknown) return info;
  ticks = now();
  return model.classify(pc, ticks);
}

size_t compiledJavaFrames(const JavaModel& model, const CompiledBlob& blob, uint64_t pc, uint64_t ticks,
                          std::span<JavaFrame> out) {
  if (out.empty()) return 0;
  size_t count = model.compiledFrames(blob, pc, ticks, out);
  if (count > 0) return count;
  JavaFrame own;
  own.method = model.methods().byId(blob.methodId, ticks);
  own.methodId = blob.methodId;
  own.type = jfr::FrameType::JitCompiled;
  out[0] = own;
  return 1;
}

std::optional<JavaFrame> interpretedJavaFrame(const JavaModel& model, uint64_t methodPtr, uint64_t bcp, uint64_t ticks,
                                              std::optional<uint64_t> liveBcp) {
  std::optional<JavaFrame> frame = model.interpretedFrame(methodPtr, bcp, ticks);
  if (frame && liveBcp && frame->method && frame->method->bciForBcp(*liveBcp) >= 0) {
    frame = model.interpretedFrame(methodPtr, *liveBcp, ticks);
  }
  return frame;
}

}  // namespace jfrbpf::jvm
