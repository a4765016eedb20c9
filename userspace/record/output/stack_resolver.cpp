#include "userspace/record/output/stack_resolver.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "base/heap_bytes.h"
#include "userspace/jvm/walked_frame.h"

namespace jfrbpf::record {
namespace {

constexpr uint32_t kAccNative = 0x0100;

uint64_t modelNow() { return static_cast<uint64_t>(jfr::Recording::now()); }

bool isNative(const jvm::JavaMethod* method) { return method && (method->modifiers & kAccNative); }

// As the JDK reports them: a Java native method's own frame (its compiled wrapper) is "Native".
jfr::FrameType frameTypeOf(const jvm::JavaFrame& frame) {
  if (isNative(frame.method)) return jfr::FrameType::Native;
  return frame.type;
}

bool inCodeHeaps(const jvm::JavaModel& model, uint64_t pc) {
  for (const auto& heap : model.codeHeaps()) {
    if (pc >= heap.reservedLow && pc < heap.reservedHigh) return true;
  }
  return false;
}

bool inInterpreter(const jvm::JavaModel& model, uint64_t pc) {
  const jvm::StubBlob* interpreter = model.code().interpreter();
  return interpreter && pc >= interpreter->start && pc < interpreter->end;
}

// A cache that grows past this is rebuilt from scratch rather than grown without bound.
constexpr size_t kMaxCachedPcsPerProcess = 1u << 20;
constexpr size_t kMaxCachedCompiledPcs = 1u << 16;  // per process; entries hold a few frames each

}  // namespace

StackResolver::StackResolver(jfr::Recording& out, const symbolize::KernelSymbols& kernel,
                             symbolize::ProcessSymbolizer& native)
    : out_(out), kernel_(kernel), native_(native) {}

ResolvedStack StackResolver::resolve(const jfrbpf_sample_record& record, StackStart start) {
  frames_.clear();
  if (out_.constantsGeneration() != constantsGeneration_) forgetMethodIds();
  const uint32_t userDepth = std::min<uint32_t>(record.user_depth, JFRBPF_MAX_USER_FRAMES);
  const uint32_t kernelDepth = std::min<uint32_t>(record.kernel_depth, JFRBPF_MAX_KERNEL_FRAMES);
  // Kernel frames sit above the user frames of the same sample: they come first, leaf first.
  const __u64* kernel = record.data + 2 * userDepth;
  for (uint32_t i = 0; i < kernelDepth; ++i) {
    // Return addresses point after the call; step back one byte so the lookup lands inside the caller's
    // call instruction (and thus its function), except for the interrupted leaf.
    frames_.push_back({kernelMethod(i == 0 ? kernel[i] : kernel[i] - 1), -1, -1, jfr::FrameType::Native});
  }
  Resolving resolving{static_cast<pid_t>(record.tgid)};
  const jvm::JavaModel* java = currentJavaModel(resolving.tgid);
  StackEnd end = walkEndOf(record);
  bool skipping = start == StackStart::kJavaSite;
  for (uint32_t i = 0; i < userDepth; ++i) {
    const uint64_t pc = record.data[2 * i];
    const uint64_t methodPtr = record.data[2 * i + 1];
    const bool top = i == 0;
    if (skipping) {
      if (isJvmOwnFrame(resolving.tgid, java, pc, methodPtr, record.time_ns)) continue;
      skipping = false;
    }
    if (pc == JFRBPF_FRAMES_SKIPPED_PC) {
      frames_.push_back({markerMethod(kFramesSkipped), -1, -1, jfr::FrameType::Native});
      continue;
    }
    // An interpreted frame the walker caught not built yet (in its method's entry) or no longer (in its
    // return) keeps its pc and no Method* (rbx alone holds it there), and the walk went on to its caller: the
    // sample is the caller's, in its call.
    if (top && methodPtr == 0 && userDepth > 1 && java && inInterpreter(*java, pc)) continue;
    // Every blob HotSpot generates lives in the code cache: a pc outside it is native code, which most frames
    // of a JVM's stacks are (libjvm, libc), and needs no lookup in the code history. An interpreted frame's
    // pc is its bcp.
    const bool inCode = java && inCodeHeaps(*java, pc);
    if (java && (methodPtr != 0 || inCode || java->codeHeaps().empty()) &&
        appendJavaFrames(resolving, *java, pc, methodPtr, record.time_ns, top, record.top_bcp_register)) {
      continue;
    }
    if (inCode) resolving.complete = false;  // JIT code or a stub not reported yet
    std::optional<jfr::MethodId> method = nativeMethod(resolving.tgid, top ? pc : pc - 1);
    if (!method) {
      // No mapping holds it: not a return address but what an unwind through a frame it misread took for
      // one. The rest is garbage. Where the walker stopped right there, its reason is the better one.
      if (end == StackEnd::kRoot || end == StackEnd::kDepthLimit || i + 1 < userDepth) end = StackEnd::kUnmapped;
      break;
    }
    frames_.push_back({*method, -1, -1, jfr::FrameType::Native});
  }
  if (userDepth == 0 && end != StackEnd::kNotTaken) end = StackEnd::kRoot;  // a failed sample: nothing to mark
  if (end != StackEnd::kRoot && end != StackEnd::kDepthLimit && end != StackEnd::kNotTaken) {
    // A sample walked with the JVM's layout just before its Java frames were dropped stops at its first Java
    // frame too, for the same reason.
    auto missing = javaFramesMissing_.find(resolving.tgid);
    if (missing != javaFramesMissing_.end() &&
        ((record.flags & JFRBPF_SAMPLE_JVM) == 0 || missing->second == StackEnd::kJavaFramesDropped)) {
      end = missing->second;
    }
  }
  if (end != StackEnd::kRoot) frames_.push_back({markerMethod(markerFrameName(end)), -1, -1, jfr::FrameType::Native});
  return {frames_, end, resolving.complete};
}

const jvm::JavaModel* StackResolver::currentJavaModel(pid_t tgid) {
  auto model = javaModels_.find(tgid);
  const jvm::JavaModel* java = model == javaModels_.end() ? nullptr : model->second;
  if (java) {
    JavaCaches& caches = javaCaches_[tgid];
    if (caches.generation != java->forgetGeneration()) {
      caches = {};
      caches.generation = java->forgetGeneration();
    }
  }
  return java;
}

ResolvedStack StackResolver::jvmWalkedStack(pid_t tgid, std::span<const std::pair<uint64_t, int32_t>> frames,
                                            uint64_t ticks, StackEnd end) {
  frames_.clear();
  if (out_.constantsGeneration() != constantsGeneration_) forgetMethodIds();
  Resolving resolving{tgid};
  const jvm::JavaModel* java = currentJavaModel(tgid);
  for (const auto& [methodId, bci] : frames) {
    const jvm::JavaMethod* method = java ? java->methods().byId(methodId, ticks) : nullptr;
    const bool native = method != nullptr && isNative(method);
    const int32_t line = method != nullptr && bci >= 0 ? method->lineForBci(bci) : -1;
    frames_.push_back({javaMethod(resolving, method, methodId), line, bci >= 0 ? bci : -1,
                       native ? jfr::FrameType::Native : jfr::FrameType::JitCompiled});
  }
  if (end != StackEnd::kRoot) frames_.push_back({markerMethod(markerFrameName(end)), -1, -1, jfr::FrameType::Native});
  return {frames_, end, resolving.complete};
}

std::optional<ResolvedStack> StackResolver::continuationPart(pid_t tgid, const ResolvedStack& stack) {
  // A resumed virtual thread may never have shown its entry yet: its return barrier needs no Java method.
  auto caches = javaCaches_.find(tgid);
  const jfr::MethodId entry = caches == javaCaches_.end() ? 0 : caches->second.continuationEntry;
  const jfr::MethodId returnBarrier = jvmCodeMethod("cont_returnBarrier");
  for (size_t i = 0; i < frames_.size(); ++i) {
    if (entry != 0 && frames_[i].method == entry) {
      frames_.resize(i + 1);
      return ResolvedStack{frames_, StackEnd::kRoot, stack.complete};
    }
    if (frames_[i].method == returnBarrier) {
      frames_.resize(i);
      frames_.push_back({markerMethod(markerFrameName(StackEnd::kContinuationFrozen)), -1, -1, jfr::FrameType::Native});
      return ResolvedStack{frames_, StackEnd::kContinuationFrozen, stack.complete};
    }
  }
  return std::nullopt;
}

const jvm::JavaModel* StackResolver::javaModel(pid_t tgid) const {
  auto model = javaModels_.find(tgid);
  return model == javaModels_.end() ? nullptr : model->second;
}

bool StackResolver::isJvmOwnFrame(pid_t tgid, const jvm::JavaModel* java, uint64_t pc, uint64_t methodPtr,
                                  uint64_t ticks) {
  if (methodPtr != 0) return false;  // an interpreted Java frame
  if (pc == JFRBPF_FRAMES_SKIPPED_PC) return true;  // between the agent's frames and the JVM's
  if (java && inCodeHeaps(*java, pc)) {
    // Stubs and the interpreter's code are the JVM's; compiled code is Java, and so is code not reported yet
    // (a method compiled moments ago, on-stack replacement included): skipping it would drop its frames
    // without a trace, where resolving it leaves the stack incomplete until the agent names it.
    const jvm::CodeKind kind = jvm::codeAtWalkedPc(*java, pc, ticks, modelNow).kind;
    return kind != jvm::CodeKind::kCompiled && kind != jvm::CodeKind::kUnknown;
  }
  auto& known = jvmOwnPcs_[tgid];
  if (auto found = known.find(pc); found != known.end()) return found->second;
  // Return addresses: the call is the byte before (the first frame, the trace stub, is the agent's anyway).
  const std::string_view library = native_.symbolize(tgid, pc - 1).library;
  const bool own = library == "libjvm.so" || library.starts_with("libjfrbpf-agent");
  if (known.size() >= kMaxCachedPcsPerProcess) known.clear();
  known.emplace(pc, own);
  return own;
}

jfr::MethodId StackResolver::markerMethod(std::string_view name) {
  auto [it, inserted] = markers_.try_emplace(name, 0);
  if (inserted) it->second = out_.internMethod(out_.internClass(kMarkerClass), name, jfr::kNativeMethodDescriptor);
  return it->second;
}

bool StackResolver::appendJavaFrames(Resolving& resolving, const jvm::JavaModel& model, uint64_t pc, uint64_t methodPtr,
                                     uint64_t ticks, bool top, uint64_t topBcp) {
  if (methodPtr != 0) {
    std::optional<jvm::JavaFrame> frame =
        jvm::interpretedJavaFrame(model, methodPtr, pc, ticks, top ? std::optional(topBcp) : std::nullopt);
    if (frame) {
      // A native method runs in the interpreter's native entry: the JDK calls that frame Native too.
      frames_.push_back({javaMethod(resolving, frame->method, frame->methodId), frame->line, frame->bci,
                        isNative(frame->method) ? jfr::FrameType::Native : jfr::FrameType::Interpreted});
    } else {
      resolving.complete = false;
      frames_.push_back({jvmCodeMethod("Interpreter"), -1, -1, jfr::FrameType::Interpreted});
    }
    return true;
  }
  jvm::PcInfo info = jvm::codeAtWalkedPc(model, pc, ticks, modelNow);
  switch (info.kind) {
    case jvm::CodeKind::kCompiled: {
      // The frames of a pc in one compiled blob never change while it lives: named once, then copied.
      JavaCaches& caches = javaCaches_[resolving.tgid];
      auto known = caches.compiledPcs.find(pc);
      if (known != caches.compiledPcs.end() && known->second.blob == info.compiled &&
          known->second.loadTicks == info.compiled->loadTicks) {
        frames_.insert(frames_.end(), known->second.frames.begin(), known->second.frames.end());
        return true;
      }
      const size_t first = frames_.size();
      const bool completeBefore = resolving.complete;
      resolving.complete = true;
      const size_t count = jvm::compiledJavaFrames(model, *info.compiled, pc, ticks, inlineScratch_);
      for (size_t i = 0; i < count; ++i) {
        const jvm::JavaFrame& f = inlineScratch_[i];
        frames_.push_back({javaMethod(resolving, f.method, f.methodId), f.line, f.bci, frameTypeOf(f)});
      }
      if (resolving.complete) {  // a method not described yet may be later: only what is fully named is kept
        if (caches.compiledPcs.size() >= kMaxCachedCompiledPcs) caches.compiledPcs.clear();
        caches.compiledPcs[pc] = {info.compiled, info.compiled->loadTicks, {frames_.begin() + first, frames_.end()}};
      }
      resolving.complete = resolving.complete && completeBefore;
      return true;
    }
    case jvm::CodeKind::kInterpreter:
      frames_.push_back({jvmCodeMethod("Interpreter"), -1, -1, jfr::FrameType::Native});
      return true;
    case jvm::CodeKind::kStub:
    case jvm::CodeKind::kAdapter:
      frames_.push_back({jvmCodeMethod(info.stub->name), -1, -1, jfr::FrameType::Native});
      return true;
    case jvm::CodeKind::kUnknown:
      return false;
  }
  return false;
}

jfr::MethodId StackResolver::javaMethod(Resolving& resolving, const jvm::JavaMethod* method, uint64_t methodId) {
  if (!method) {
    resolving.complete = false;
    // The agent never described this method (its record was lost): keep the frame, name what we know.
    char name[40];
    std::snprintf(name, sizeof(name), "method@0x%llx", static_cast<unsigned long long>(methodId));
    return out_.internMethod(out_.internClass("[unknown]"), name, "()V");
  }
  JavaCaches& caches = javaCaches_[resolving.tgid];
  auto [it, inserted] = caches.methodIds.try_emplace(method, 0);
  if (inserted) {
    const jvm::JavaClass* klass = method->klass;
    jfr::ClassId owner = out_.internClass(klass->name, static_cast<int32_t>(klass->modifiers), klass->hidden);
    it->second = out_.internMethod(owner, method->name, method->signature, static_cast<int32_t>(method->modifiers),
                                   klass->hidden);
    if (method->name == "enterSpecial" && klass->name == "jdk/internal/vm/Continuation") {
      caches.continuationEntry = it->second;
    }
  }
  return it->second;
}

// Code the JVM generates at run time that is not a Java method: the interpreter, stubs, adapters.
jfr::MethodId StackResolver::jvmCodeMethod(std::string_view name) {
  return out_.internMethod(out_.internClass("jvm"), name, jfr::kNativeMethodDescriptor);
}

size_t StackResolver::memoryBytes() const {
  size_t bytes = mapBytes(kernelCache_) + mapBytes(nativeCache_) + mapBytes(jvmOwnPcs_) + mapBytes(javaCaches_);
  for (const auto& [pid, pcs] : nativeCache_) bytes += mapBytes(pcs);
  for (const auto& [pid, pcs] : jvmOwnPcs_) bytes += mapBytes(pcs);
  for (const auto& [pid, caches] : javaCaches_) {
    bytes += mapBytes(caches.methodIds) + mapBytes(caches.compiledPcs);
    for (const auto& [pc, named] : caches.compiledPcs) bytes += named.frames.capacity() * sizeof(jfr::StackFrame);
  }
  return bytes;
}

void StackResolver::forgetMethodIds() {
  constantsGeneration_ = out_.constantsGeneration();
  kernelCache_ = {};
  nativeCache_ = {};
  javaCaches_ = {};
  markers_ = {};
}

void StackResolver::forgetProcess(pid_t tgid) {
  nativeCache_.erase(tgid);
  jvmOwnPcs_.erase(tgid);
  javaModels_.erase(tgid);
  javaFramesMissing_.erase(tgid);
  javaCaches_.erase(tgid);
  native_.forgetProcess(tgid);
}

void StackResolver::dropJavaFrames(pid_t tgid) {
  javaModels_.erase(tgid);
  javaCaches_.erase(tgid);
  javaFramesMissing_[tgid] = StackEnd::kJavaFramesDropped;
}

void StackResolver::dropCaches() {
  kernelCache_ = {};
  jvmOwnPcs_ = {};
  nativeCache_ = {};
  javaCaches_ = {};
}

jfr::MethodId StackResolver::kernelMethod(uint64_t pc) {
  auto [it, inserted] = kernelCache_.try_emplace(pc, 0);
  if (inserted) it->second = methodFor(kernel_.symbolize(pc));
  return it->second;
}

std::optional<jfr::MethodId> StackResolver::nativeMethod(pid_t tgid, uint64_t pc) {
  auto& cache = nativeCache_[tgid];
  if (auto known = cache.find(pc); known != cache.end()) return known->second;
  const symbolize::NativeFrame frame = native_.symbolize(tgid, pc);
  // Not kept: a pc outside every mapping the symbolizer knows may be in a library mapped since.
  if (frame.kind == symbolize::FrameKind::kUnmapped) return std::nullopt;
  const jfr::MethodId method = methodFor(frame);
  if (cache.size() >= kMaxCachedPcsPerProcess) cache.clear();
  cache.emplace(pc, method);
  return method;
}

jfr::MethodId StackResolver::methodFor(const symbolize::NativeFrame& frame) {
  // The symbolizer names file-backed frames, unknown ones by their file offset ("+0x1a2b0"); anonymous code
  // it leaves unnamed, so name it by its offset in the mapping.
  std::string_view name = frame.symbol;
  char offsetName[32];
  if (name.empty()) {
    std::snprintf(offsetName, sizeof(offsetName), "+0x%llx", static_cast<unsigned long long>(frame.offset));
    name = offsetName;
  }
  return out_.internMethod(out_.internClass(frame.library), name, jfr::kNativeMethodDescriptor);
}

}  // namespace jfrbpf::record
