#pragma once
// Turns the raw frames of a sample record into JFR frames, leaf first: kernel frames (class "kernel" or the
// module), then user frames — Java frames of a JVM whose agent is connected (interpreted, JIT compiled and
// inlined, with line numbers, resolved as the code was at the sample's time), native frames otherwise.
// Native pcs are resolved once per process and then served from a cache of JFR method ids, so the
// steady-state cost of a sample is a few hash lookups per frame. A stack that did not reach the thread's
// outermost frame ends in a marker frame naming why (see stack_end.h).
#include <sys/types.h>

#include <cstdint>
#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bpf/sampler_abi.h"
#include "formats/jfr/writer/recording.h"
#include "userspace/jvm/java_model.h"
#include "userspace/record/output/stack_end.h"
#include "userspace/symbolize/kernel_symbolizer.h"
#include "userspace/symbolize/process_symbolizer.h"

namespace jfrbpf::record {

// What the resolver made of one record.
struct ResolvedStack {
  std::span<const jfr::StackFrame> frames;  // leaf first; valid until the resolver's next call
  // How the stack ended: anything but kRoot means it is truncated (and ends in a marker frame).
  StackEnd end = StackEnd::kRoot;
  // False when some Java frame could not be named because the agent has not described its code or method
  // yet (a class loaded or a method compiled a moment ago): resolving later may do better.
  bool complete = true;
  bool truncated() const { return end != StackEnd::kRoot; }
};

// Where a stack starts: at the walk's first frame, or (an allocation sample or a lock wait, taken in the
// agent's JVMTI callback) at the event's site: the JVM's own frames above it (the agent, libjvm, runtime
// stubs) left out, native frames of other libraries kept (an object allocated through JNI by native code).
enum class StackStart { kLeaf, kJavaSite };

class StackResolver {
 public:
  StackResolver(jfr::Recording& out, const symbolize::KernelSymbols& kernel, symbolize::ProcessSymbolizer& native);

  // The frames of `record` (whose data holds its user frames, then its kernel frames).
  ResolvedStack resolve(const jfrbpf_sample_record& record, StackStart start = StackStart::kLeaf);
  // The innermost continuation's part of the stack just resolved for process `tgid`: a virtual thread's own
  // stack, as the JDK writes it, down to the continuation's entry (Continuation.enterSpecial). Where the walk
  // could not go through the frozen frames, it ends at the return barrier with the kContinuationFrozen marker.
  // Nullopt when the stack reaches neither. Valid, like the stack, until the next call.
  std::optional<ResolvedStack> continuationPart(pid_t tgid, const ResolvedStack& stack);
  // A stack the JVM walked itself (JVMTI: a jmethodID and a bci per frame, innermost first) in process
  // `tgid` at `ticks`, ending in `end`'s marker unless that is kRoot. JVMTI does not tell how a frame runs:
  // native methods are typed Native, other Java frames JIT compiled.
  ResolvedStack jvmWalkedStack(pid_t tgid, std::span<const std::pair<uint64_t, int32_t>> frames, uint64_t ticks,
                               StackEnd end);

  // Java frames of `tgid` come from `model` (owned by the caller, alive until forgetProcess or destruction).
  void setJavaModel(pid_t tgid, const jvm::JavaModel* model) { javaModels_[tgid] = model; }
  // The model of `tgid`'s Java frames; nullptr when it has none (not a JVM, or its Java frames were dropped).
  const jvm::JavaModel* javaModel(pid_t tgid) const;
  // `tgid` is a JVM whose samples may come without its Java layout (its agent is not attached yet, or it
  // refused it): a walk of such a sample that stopped short ends with `why` (kJavaFramesPending or
  // kJavaFramesUnavailable), what it is, rather than with the walker's "no unwind info".
  void setJavaFramesMissing(pid_t tgid, StackEnd why) { javaFramesMissing_[tgid] = why; }

  // A process exited or was re-exec'd: its cached pcs are no longer meaningful.
  void forgetProcess(pid_t tgid);
  // The memory budget took `tgid`'s Java frames away: its model is no longer read, and its stacks that stop
  // short say why (kJavaFramesDropped).
  void dropJavaFrames(pid_t tgid);
  // Memory pressure: every cached answer goes (each is found again on its next use).
  void dropCaches();
  // What the cached answers hold, roughly.
  size_t memoryBytes() const;

 private:
  // The record being resolved: its process, and whether every Java frame so far was named.
  struct Resolving {
    pid_t tgid;
    bool complete = true;
  };
  // The Java model of the process being resolved, its caches reset if it forgot code since; nullptr if none.
  const jvm::JavaModel* currentJavaModel(pid_t tgid);
  // Appends the Java frames of one walker frame to frames_; false if it is not Java code.
  bool appendJavaFrames(Resolving& resolving, const jvm::JavaModel& model, uint64_t pc, uint64_t methodPtr,
                        uint64_t ticks, bool top, uint64_t topBcp);
  jfr::MethodId javaMethod(Resolving& resolving, const jvm::JavaMethod* method, uint64_t methodId);
  jfr::MethodId jvmCodeMethod(std::string_view name);
  jfr::MethodId kernelMethod(uint64_t pc);
  // Nothing when no mapping of the process holds `pc`.
  std::optional<jfr::MethodId> nativeMethod(pid_t tgid, uint64_t pc);
  jfr::MethodId methodFor(const symbolize::NativeFrame& frame);
  jfr::MethodId markerMethod(std::string_view name);
  // Whether a user frame is the JVM's own code: the agent, libjvm, or code in the code cache that is no
  // Java method (stubs, the interpreter's runtime entries).
  bool isJvmOwnFrame(pid_t tgid, const jvm::JavaModel* java, uint64_t pc, uint64_t methodPtr, uint64_t ticks);
  // The writer went on in a new file with no constants: every cached id is void.
  void forgetMethodIds();

  jfr::Recording& out_;
  const symbolize::KernelSymbols& kernel_;
  symbolize::ProcessSymbolizer& native_;
  std::unordered_map<uint64_t, jfr::MethodId> kernelCache_;
  std::unordered_map<pid_t, std::unordered_map<uint64_t, jfr::MethodId>> nativeCache_;
  std::unordered_map<pid_t, const jvm::JavaModel*> javaModels_;
  std::unordered_map<pid_t, StackEnd> javaFramesMissing_;
  std::unordered_map<pid_t, std::unordered_map<uint64_t, bool>> jvmOwnPcs_;  // native pcs: in the JVM's own code
  // Per process: its methods and code blobs die with its model, or earlier when the model forgets what
  // the JVM unloaded (JavaModel::forgetGeneration), and with them what was named from them.
  struct CompiledPcFrames {
    const jvm::CompiledBlob* blob;  // the code the frames were read from, with its load time: a blob
    uint64_t loadTicks;             // freed and another at the same address are told apart
    std::vector<jfr::StackFrame> frames;
  };
  struct JavaCaches {
    uint64_t generation = 0;
    std::unordered_map<const jvm::JavaMethod*, jfr::MethodId> methodIds;
    std::unordered_map<uint64_t, CompiledPcFrames> compiledPcs;
    jfr::MethodId continuationEntry = 0;  // Continuation.enterSpecial's, once named
  };
  std::unordered_map<pid_t, JavaCaches> javaCaches_;
  uint32_t constantsGeneration_ = 0;  // of out_, when the caches were filled
  std::vector<jfr::StackFrame> frames_;  // of the last record resolved
  std::unordered_map<std::string_view, jfr::MethodId> markers_;  // by name (static strings)
  std::array<jvm::JavaFrame, 64> inlineScratch_;
};

}  // namespace jfrbpf::record
