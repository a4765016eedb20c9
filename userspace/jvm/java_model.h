#pragma once
// Everything the loader knows about one JVM, built from the agent's records: code map, methods, threads,
// VMStructs. It answers the sampler's questions on the loader's hot path — what is at this pc at this
// time, which Java frames does it stand for — without allocating.
//
// Times: records carry the JVM's CLOCK_MONOTONIC; the model stores our CLOCK_MONOTONIC (the samples'
// clock), correcting for a time namespace. Entities that existed before the session (replays) count as
// present from the beginning of time.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/jfr/writer/types.h"
#include "jvmsupport/protocol/records.h"
#include "userspace/jvm/code_map.h"
#include "userspace/jvm/method_table.h"
#include "userspace/jvm/thread_table.h"
#include "userspace/jvm/tid_translator.h"
#include "userspace/jvm/timed_methods.h"
#include "userspace/jvm/vm_structs_table.h"

namespace jfrbpf::jvm {

struct JavaFrame {
  const JavaMethod* method = nullptr;  // null if the agent never described methodId
  uint64_t methodId = 0;
  int32_t bci = -1;
  int32_t line = -1;
  jfr::FrameType type = jfr::FrameType::JitCompiled;  // Interpreted, JitCompiled or Inlined
};

struct PcInfo {
  CodeKind kind = CodeKind::kUnknown;
  const CompiledBlob* compiled = nullptr;  // kCompiled
  const StubBlob* stub = nullptr;          // kInterpreter, kStub, kAdapter
};

struct AgentInfo {
  std::array<uint8_t, protocol::kTokenSize> token{};
  uint32_t pid = 0;  // in the JVM's pid namespace
  uint32_t sessionNumber = 0;
  uint32_t jvmtiVersion = 0;
  uint32_t flags = 0;  // protocol::kHello* flags
  std::string vmName;
  std::string vmVersion;
};

struct ChannelCounters {
  std::array<uint64_t, protocol::kLastRecordType + 1> records{};  // by type; [0] = unknown types
  std::array<uint64_t, protocol::kLastRecordType + 1> bytes{};
  uint64_t lostRecords = 0;  // as the agent last reported
  uint64_t lostBytes = 0;
  uint32_t replays = 0;  // ReplayEnd records seen
  uint64_t virtualThreadWaitsDropped = 0;  // more than JavaModel::kMaxPendingWaits waited to be written
};

class JavaModel {
 public:
  // `clockOffsetNs`: the JVM's monotonic clock minus ours; `tids`: JVM tid -> our tid (null: identity).
  explicit JavaModel(int64_t clockOffsetNs = 0, TidTranslator* tids = nullptr)
      : clockOffsetNs_(clockOffsetNs), tids_(tids) {}

  // Applies one record. False if it is malformed or out of order; error() says which.
  bool apply(protocol::RecordType type, std::span<const uint8_t> payload);
  const std::string& error() const { return error_; }

  // ---- lookups (hot path) ----
  PcInfo classify(uint64_t pc, uint64_t ticks) const;
  // The Java frames a compiled pc stands for, innermost first: "Inlined" frames, then the "JIT compiled"
  // root. Writes at most out.size(); returns how many. 0 if pc is not compiled code at `ticks`.
  size_t compiledFrames(uint64_t pc, uint64_t ticks, std::span<JavaFrame> out) const;
  size_t compiledFrames(const CompiledBlob& blob, uint64_t pc, uint64_t ticks, std::span<JavaFrame> out) const;
  // An interpreter frame from its Method* and bcp slots; nullopt if the Method* is unknown. bci is -1 if
  // the bcp lies outside the method's bytecode.
  std::optional<JavaFrame> interpretedFrame(uint64_t methodPtr, uint64_t bcp, uint64_t ticks) const;

  const MethodTable& methods() const { return methods_; }
  const CodeMap& code() const { return code_; }
  const ThreadTable& threads() const { return threads_; }
  const VmStructsTable& vmStructs() const { return vmStructs_; }
  const TimedMethods& timedMethods() const { return timed_; }
  TimedMethods& timedMethods() { return timed_; }
  const std::vector<protocol::CodeHeap>& codeHeaps() const { return codeHeaps_; }
  // Where a virtual thread's frozen frames are (JDK 21+), when the agent could tell.
  const std::optional<protocol::ContinuationLayout>& continuationLayout() const { return continuationLayout_; }

  // ---- session facts ----
  const std::optional<AgentInfo>& agent() const { return agent_; }
  // The agent's answer to StartAllocations (allocation_records.h), once it came.
  struct AllocationStatusInfo {
    bool started = false;
    bool weightFromCounters = false;
    uint64_t intervalBytes = 0;
    std::string message;
  };
  const std::optional<AllocationStatusInfo>& allocationStatus() const { return allocationStatus_; }
  // The agent's answer to StartLocks (lock_records.h), once it came.
  struct LockStatusInfo {
    bool started = false;
    bool parks = false;  // parks are timed as well (else `message` says why not)
    std::string message;
  };
  const std::optional<LockStatusInfo>& lockStatus() const { return lockStatus_; }
  // A picked wait of a virtual thread (protocol/virtual_thread_records.h), its start on our clock, its frames
  // still the agent's (jmethodID, bci), innermost first.
  struct VirtualThreadWaitInfo {
    uint64_t startTicks = 0;
    uint64_t durationNs = 0;
    uint64_t weightNs = 0;
    int64_t threadId = 0;
    uint32_t flags = 0;  // protocol::kWaitStack*
    std::string name;    // empty: unnamed
    std::vector<std::pair<uint64_t, int32_t>> frames;
  };
  // The waits received since the last call, oldest first. At most kMaxPendingWaits are kept in between:
  // more are counted in counters().virtualThreadWaitsDropped. Their bytes count in approximateBytes().
  std::vector<VirtualThreadWaitInfo> takeVirtualThreadWaits() {
    virtualThreadWaitBytes_ = 0;
    return std::exchange(virtualThreadWaits_, {});
  }
  static constexpr size_t kMaxPendingWaits = 65'536;
  // A virtual thread's name as kept: the agent sends at most 128 characters (384 bytes of UTF-8); a longer
  // one is cut (at a character's start) rather than held for a hostile agent.
  static constexpr size_t kMaxVirtualThreadNameBytes = 384;
  bool initialReplayDone() const { return initialReplayDone_; }
  const protocol::ReplayEnd& lastReplay() const { return lastReplay_; }
  // How long the agent took for its last replay (its own timestamps), in nanoseconds.
  uint64_t lastReplayDurationNs() const { return lastReplayDurationNs_; }
  std::optional<protocol::GoodbyeReason> goodbye() const { return goodbye_; }
  const ChannelCounters& counters() const { return counters_; }

  // Our ticks for a time the agent stamped.
  uint64_t toOurTicks(uint64_t agentTicks) const;
  // Forgets code, threads and classes that were gone before `ticks`: no sample still to be resolved may be
  // older than that. Pointers to methods and code kept from before are void once forgetGeneration() changed
  // (an address may now hold another method or blob).
  void forgetBefore(uint64_t ticks);
  size_t approximateBytes() const;
  uint64_t forgetGeneration() const { return forgetGeneration_; }
  // Frees the methods and code the JVM described: its Java frames can no longer be named (the memory
  // budget dropped them). Threads and timed methods stay; so does every later record's effect but those.
  void dropJavaFrames();

 private:
  bool fail(std::string reason);
  template <typename Record>
  bool decodeOrFail(std::span<const uint8_t> payload, Record& record, const char* what);
  // Decodes a Record and hands it to `use`; false (and the model failed) when the payload is malformed.
  template <typename Record, typename Use>
  bool decodeThen(std::span<const uint8_t> payload, const char* what, Use&& use);
  bool applyCompiledLoad(std::span<const uint8_t> payload);
  pid_t ourTid(uint32_t nsTid);

  int64_t clockOffsetNs_;
  TidTranslator* tids_;
  std::string error_;
  std::optional<AgentInfo> agent_;
  bool initialReplayDone_ = false;
  protocol::ReplayEnd lastReplay_;
  uint64_t replayBeginTime_ = 0;
  uint64_t lastReplayDurationNs_ = 0;
  std::optional<protocol::GoodbyeReason> goodbye_;
  std::optional<AllocationStatusInfo> allocationStatus_;
  std::optional<LockStatusInfo> lockStatus_;
  std::vector<VirtualThreadWaitInfo> virtualThreadWaits_;
  size_t virtualThreadWaitBytes_ = 0;
  ChannelCounters counters_;

  MethodTable methods_;
  CodeMap code_;
  ThreadTable threads_;
  VmStructsTable vmStructs_;
  TimedMethods timed_;
  std::vector<protocol::CodeHeap> codeHeaps_;
  std::optional<protocol::ContinuationLayout> continuationLayout_;
  uint64_t forgetGeneration_ = 0;
};

}  // namespace jfrbpf::jvm
