#pragma once
// Where a pc is, at a sample's time: compiled methods with a load/unload history (nmethods are freed and
// their addresses reused), and the other generated code (interpreter, stubs, adapters), which the JVM
// never reports as freed. Lookups do not allocate.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm {

enum class CodeKind : uint8_t { kUnknown, kInterpreter, kCompiled, kStub, kAdapter };

// One frame of an inline chain: its method by index into its blob's jmethodIDs (resolved against the
// method table later). Eight bytes: a class-churning JVM's model is mostly these.
struct InlineStep {
  uint16_t methodIndex = 0;
  int32_t bci = 0;
};

struct CompiledBlob {
  uint64_t start = 0;  // code_begin, as JVMTI reports it
  uint64_t end = 0;
  uint64_t methodId = 0;  // the compiled (root) method
  uint64_t loadTicks = 0;  // 0: existed before the session
  uint64_t unloadTicks = UINT64_MAX;
  protocol::BlobInfo blob;
  bool inlineTruncated = false;

  // pc -> inline chain, sorted by pc offset; chain(i) is innermost first.
  struct PcRecord {
    uint32_t pcOffset;
    uint32_t firstStep;
  };
  std::vector<PcRecord> pcs;
  std::vector<InlineStep> steps;
  std::vector<uint64_t> stepMethods;  // the jmethodIDs the steps name

  uint64_t methodIdOf(const InlineStep& step) const { return stepMethods[step.methodIndex]; }

  std::span<const InlineStep> chain(size_t pcIndex) const {
    uint32_t first = pcs[pcIndex].firstStep;
    uint32_t last = pcIndex + 1 < pcs.size() ? pcs[pcIndex + 1].firstStep : static_cast<uint32_t>(steps.size());
    return {steps.data() + first, last - first};
  }
  // The pc record for `pc`: the first record at or after it, like HotSpot's own approximate lookup for an
  // interrupted (top) frame. For a caller frame `pc` is a return address, which has a record of its own
  // (calls are safepoints), so the same rule finds the exact one. -1 if no record lies at or after pc.
  ptrdiff_t pcIndexFor(uint64_t pc) const;
};

struct StubBlob {
  uint64_t start = 0;
  uint64_t end = 0;
  CodeKind kind = CodeKind::kStub;
  std::string name;
  uint64_t loadTicks = 0;
  protocol::BlobInfo blob;
};

// Interpreter for "Interpreter", adapter for the i2c/c2i and method-handle adapters, stub otherwise.
CodeKind classifyDynamicCode(std::string_view name);

class CodeMap {
 public:
  // Adds a compiled method; live blobs it overlaps are retired as of its load time (their unload was lost
  // or is still in flight). Identical reports of a live blob (replays) are ignored.
  void addCompiled(std::unique_ptr<CompiledBlob> blob);
  void unloadCompiled(uint64_t start, uint64_t methodId, uint64_t ticks);
  void addStub(StubBlob stub);

  // The compiled blob covering pc at `ticks`, else nullptr.
  const CompiledBlob* compiledAt(uint64_t pc, uint64_t ticks) const;
  // The innermost stub/interpreter/adapter range covering pc, else nullptr.
  const StubBlob* stubAt(uint64_t pc) const;
  const StubBlob* interpreter() const { return interpreter_; }

  // Drops retired blobs unloaded before `ticks` (samples older than that are done); returns how many went.
  size_t forgetBefore(uint64_t ticks);

  // Changes whenever a blob is added, unloaded or retired: a consumer that mirrors the code ranges (BPF
  // maps) refreshes when it differs from the value it last saw.
  uint64_t generation() const { return generation_; }
  size_t liveCompiledCount() const { return live_.size(); }
  size_t retiredCompiledCount() const { return retired_.size(); }
  size_t stubCount() const { return stubs_.size(); }
  size_t approximateBytes() const { return bytes_; }

  template <typename F>
  void forEachLiveCompiled(F&& visit) const {
    for (const auto& [start, blob] : live_) visit(*blob);
  }
  template <typename F>
  void forEachStub(F&& visit) const {
    for (const auto& [start, stub] : stubs_) visit(stub);
  }

 private:
  void retire(std::map<uint64_t, std::unique_ptr<CompiledBlob>>::iterator it, uint64_t ticks);
  void cover(uint64_t start, uint64_t end);
  bool outside(uint64_t pc) const { return pc < low_ || pc >= high_; }
  static size_t footprint(const CompiledBlob& blob);

  std::map<uint64_t, std::unique_ptr<CompiledBlob>> live_;
  std::multimap<uint64_t, std::unique_ptr<CompiledBlob>> retired_;
  uint64_t maxRetiredSize_ = 0;
  std::map<uint64_t, StubBlob> stubs_;
  uint64_t maxStubSize_ = 0;
  const StubBlob* interpreter_ = nullptr;
  // Every blob and stub ever added lies in [low_, high_): the loader asks about every frame of a stack, and
  // those of native code (a Java thread's start, JNI libraries) are answered without searching the maps,
  // which took 40 % of the loader's time.
  uint64_t low_ = UINT64_MAX;
  uint64_t high_ = 0;
  size_t bytes_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace jfrbpf::jvm
