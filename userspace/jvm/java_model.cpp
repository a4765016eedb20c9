#include "userspace/jvm/java_model.h"

#include <algorithm>
#include <numeric>

#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/timing_records.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::jvm {

namespace {
// The code cache has a handful of heaps; more is garbage.
constexpr size_t kMaxCodeHeaps = 64;

// The fields a virtual thread's walk and name are read through lie within the first few hundred bytes of
// their objects (a StackChunk's frames start after its header and fields), and a byte[]'s elements follow
// its length within a 16-byte header. Offsets the agent sends beyond that are a hostile JVM's: the loader
// sizes its reads by them.
constexpr uint32_t kMaxFieldOffset = 4096;
constexpr uint32_t kMaxArrayHeader = 64;

bool plausibleLayout(const protocol::ContinuationLayout& r) {
  for (uint32_t offset : {r.virtualThreadCont, r.continuationTail, r.chunkParent, r.chunkSize, r.chunkSp,
                          r.chunkBottom, r.chunkStack, r.threadTid, r.threadName, r.stringValue, r.stringCoder}) {
    if (offset >= kMaxFieldOffset) return false;
  }
  const bool noNames = r.byteArrayLength == 0 && r.byteArrayBase == 0;
  return noNames || (r.byteArrayBase <= kMaxArrayHeader &&
                     static_cast<uint64_t>(r.byteArrayLength) + sizeof(int32_t) <= r.byteArrayBase);
}

const char* recordName(protocol::RecordType type) {
  switch (type) {
    case protocol::RecordType::kHello: return "Hello";
    case protocol::RecordType::kGoodbye: return "Goodbye";
    case protocol::RecordType::kReplayBegin: return "ReplayBegin";
    case protocol::RecordType::kReplayEnd: return "ReplayEnd";
    case protocol::RecordType::kLostRecords: return "LostRecords";
    case protocol::RecordType::kVmStructField: return "VmStructField";
    case protocol::RecordType::kVmType: return "VmType";
    case protocol::RecordType::kVmConstant: return "VmConstant";
    case protocol::RecordType::kCodeHeap: return "CodeHeap";
    case protocol::RecordType::kContinuationLayout: return "ContinuationLayout";
    case protocol::RecordType::kClass: return "Class";
    case protocol::RecordType::kMethod: return "Method";
    case protocol::RecordType::kCompiledMethodLoad: return "CompiledMethodLoad";
    case protocol::RecordType::kCompiledMethodUnload: return "CompiledMethodUnload";
    case protocol::RecordType::kDynamicCode: return "DynamicCode";
    case protocol::RecordType::kThreadStart: return "ThreadStart";
    case protocol::RecordType::kThreadEnd: return "ThreadEnd";
    case protocol::RecordType::kThreadRename: return "ThreadRename";
    case protocol::RecordType::kHookSites: return "HookSites";
    case protocol::RecordType::kTimedMethod: return "TimedMethod";
    case protocol::RecordType::kTimingSkipped: return "TimingSkipped";
    case protocol::RecordType::kTimingStatus: return "TimingStatus";
    case protocol::RecordType::kClassUnload: return "ClassUnload";
    case protocol::RecordType::kAllocationStatus: return "AllocationStatus";
    case protocol::RecordType::kLockStatus: return "LockStatus";
    case protocol::RecordType::kVirtualThreadWait: return "VirtualThreadWait";
  }
  return "unknown";
}
}  // namespace

bool JavaModel::fail(std::string reason) {
  if (error_.empty()) error_ = std::move(reason);
  return false;
}

template <typename Record>
bool JavaModel::decodeOrFail(std::span<const uint8_t> payload, Record& record, const char* what) {
  if (protocol::decode(payload, record)) return true;
  return fail(std::string("malformed ") + what + " record from the agent");
}

template <typename Record, typename Use>
bool JavaModel::decodeThen(std::span<const uint8_t> payload, const char* what, Use&& use) {
  Record record;
  if (!decodeOrFail(payload, record, what)) return false;
  use(record);
  return true;
}

uint64_t JavaModel::toOurTicks(uint64_t agentTicks) const {
  int64_t ours = static_cast<int64_t>(agentTicks) - clockOffsetNs_;
  return ours < 1 ? 1 : static_cast<uint64_t>(ours);  // 0 means "before the session"
}

pid_t JavaModel::ourTid(uint32_t nsTid) {
  if (nsTid == 0 || nsTid > static_cast<uint32_t>(INT32_MAX)) return 0;
  pid_t tid = static_cast<pid_t>(nsTid);
  return tids_ != nullptr ? tids_->hostTid(tid) : tid;
}

bool JavaModel::apply(protocol::RecordType type, std::span<const uint8_t> payload) {
  if (!error_.empty()) return false;
  uint16_t index = static_cast<uint16_t>(type);
  if (index > protocol::kLastRecordType) index = 0;
  ++counters_.records[index];
  counters_.bytes[index] += payload.size() + protocol::kRecordHeaderSize;
  if (index == 0) return true;  // a newer agent's record type: nothing we need

  const char* what = recordName(type);
  if (!agent_.has_value() && type != protocol::RecordType::kHello) {
    return fail(std::string("agent sent ") + what + " before Hello");
  }
  switch (type) {
    case protocol::RecordType::kHello: {
      protocol::Hello r;
      if (agent_.has_value()) return fail("agent sent a second Hello");
      if (!decodeOrFail(payload, r, what)) return false;
      AgentInfo info;
      info.token = r.token;
      info.pid = r.pid;
      info.sessionNumber = r.sessionNumber;
      info.jvmtiVersion = r.jvmtiVersion;
      info.flags = r.flags;
      info.vmName.assign(r.vmName);
      info.vmVersion.assign(r.vmVersion);
      agent_ = std::move(info);
      return true;
    }
    case protocol::RecordType::kGoodbye:
      return decodeThen<protocol::Goodbye>(
          payload, what, [&](const auto& r) { goodbye_ = static_cast<protocol::GoodbyeReason>(r.reason); });
    case protocol::RecordType::kReplayBegin:
      return decodeThen<protocol::ReplayBegin>(payload, what, [&](const auto& r) { replayBeginTime_ = r.time; });
    case protocol::RecordType::kReplayEnd: {
      if (!decodeOrFail(payload, lastReplay_, what)) return false;
      lastReplayDurationNs_ = lastReplay_.time > replayBeginTime_ ? lastReplay_.time - replayBeginTime_ : 0;
      initialReplayDone_ = true;
      ++counters_.replays;
      return true;
    }
    case protocol::RecordType::kLostRecords:
      return decodeThen<protocol::LostRecords>(payload, what, [&](const auto& r) {
        counters_.lostRecords = std::max(counters_.lostRecords, r.records);
        counters_.lostBytes = std::max(counters_.lostBytes, r.bytes);
      });
    case protocol::RecordType::kVmStructField:
      return decodeThen<protocol::VmStructField>(payload, what, [&](const auto& r) { vmStructs_.add(r); });
    case protocol::RecordType::kVmType:
      return decodeThen<protocol::VmType>(payload, what, [&](const auto& r) { vmStructs_.add(r); });
    case protocol::RecordType::kVmConstant:
      return decodeThen<protocol::VmConstant>(payload, what, [&](const auto& r) { vmStructs_.add(r); });
    case protocol::RecordType::kCodeHeap: {
      protocol::CodeHeap r;
      if (!decodeOrFail(payload, r, what)) return false;
      if (codeHeaps_.size() >= kMaxCodeHeaps) return fail("agent sent more than 64 code heaps");
      codeHeaps_.push_back(r);
      return true;
    }
    case protocol::RecordType::kContinuationLayout: {
      protocol::ContinuationLayout r;
      if (!decodeOrFail(payload, r, what)) return false;
      if (!plausibleLayout(r)) return fail("agent sent a ContinuationLayout with offsets no Java object has");
      continuationLayout_ = r;
      return true;
    }
    case protocol::RecordType::kClass:
      return decodeThen<protocol::ClassInfo>(payload, what, [&](const auto& r) { methods_.addClass(r); });
    case protocol::RecordType::kClassUnload:
      return decodeThen<protocol::ClassUnload>(
          payload, what, [&](const auto& r) { methods_.unloadClass(r.classId, toOurTicks(r.time)); });
    case protocol::RecordType::kMethod:
      return decodeThen<protocol::MethodInfo>(payload, what, [&](const auto& r) {
        methods_.addMethod(r, (r.flags & protocol::kReplayed) != 0 ? 0 : toOurTicks(r.time));
      });
    case protocol::RecordType::kCompiledMethodLoad:
      return applyCompiledLoad(payload);
    case protocol::RecordType::kCompiledMethodUnload:
      return decodeThen<protocol::CompiledMethodUnload>(
          payload, what, [&](const auto& r) { code_.unloadCompiled(r.codeStart, r.methodId, toOurTicks(r.time)); });
    case protocol::RecordType::kDynamicCode: {
      protocol::DynamicCode r;
      if (!decodeOrFail(payload, r, what)) return false;
      if (r.start + r.size < r.start) return fail("agent sent a DynamicCode range that wraps around");
      StubBlob stub;
      stub.start = r.start;
      stub.end = r.start + r.size;
      stub.kind = classifyDynamicCode(r.name);
      stub.name.assign(r.name);
      stub.loadTicks = (r.flags & protocol::kReplayed) != 0 ? 0 : toOurTicks(r.time);
      stub.blob = r.blob;
      code_.addStub(std::move(stub));
      return true;
    }
    case protocol::RecordType::kThreadStart: {
      protocol::ThreadStart r;
      if (!decodeOrFail(payload, r, what)) return false;
      JavaThreadInfo t;
      t.nsTid = static_cast<pid_t>(std::min<uint32_t>(r.tid, INT32_MAX));
      t.tid = ourTid(r.tid);
      t.javaThreadId = static_cast<int64_t>(r.javaThreadId);
      t.name.assign(r.name);
      t.isVirtual = (r.flags & protocol::kThreadVirtual) != 0;
      t.daemon = (r.flags & protocol::kThreadDaemon) != 0;
      t.javaThread = r.javaThread;
      t.startTicks = (r.flags & protocol::kThreadReplayed) != 0 ? 0 : toOurTicks(r.time);
      threads_.started(std::move(t));
      return true;
    }
    case protocol::RecordType::kThreadEnd:
      return decodeThen<protocol::ThreadEnd>(payload, what, [&](const auto& r) {
        threads_.ended(ourTid(r.tid), static_cast<int64_t>(r.javaThreadId), toOurTicks(r.time));
      });
    case protocol::RecordType::kThreadRename:
      return decodeThen<protocol::ThreadRename>(payload, what, [&](const auto& r) {
        threads_.renamed(ourTid(r.tid), static_cast<pid_t>(std::min<uint32_t>(r.tid, INT32_MAX)),
                         static_cast<int64_t>(r.javaThreadId), std::string(r.name), toOurTicks(r.time));
      });
    case protocol::RecordType::kHookSites:
      return decodeThen<protocol::HookSites>(payload, what, [&](const auto& r) { timed_.setHookSites(r); });
    case protocol::RecordType::kTimedMethod:
      // A slot outside this JVM's range is refused (and counted), not fatal.
      return decodeThen<protocol::TimedMethod>(payload, what, [&](const auto& r) { timed_.add(r); });
    case protocol::RecordType::kTimingSkipped:
      return decodeThen<protocol::TimingSkipped>(payload, what, [&](const auto& r) { timed_.addSkip(r); });
    case protocol::RecordType::kTimingStatus:
      return decodeThen<protocol::TimingStatus>(payload, what, [&](const auto& r) { timed_.setStatus(r); });
    case protocol::RecordType::kAllocationStatus:
      return decodeThen<protocol::AllocationStatus>(payload, what, [&](const auto& r) {
        allocationStatus_ = AllocationStatusInfo{r.state == static_cast<uint32_t>(protocol::AllocationState::kStarted),
                                                 r.weightFromCounters != 0, r.intervalBytes, std::string(r.message)};
      });
    case protocol::RecordType::kLockStatus:
      return decodeThen<protocol::LockStatus>(payload, what, [&](const auto& r) {
        lockStatus_ = LockStatusInfo{r.state == static_cast<uint32_t>(protocol::LockState::kStarted), r.parks != 0,
                                     std::string(r.message)};
      });
    case protocol::RecordType::kVirtualThreadWait:
      return decodeThen<protocol::VirtualThreadWait>(payload, what, [&](const auto& r) {
        if (virtualThreadWaits_.size() >= kMaxPendingWaits) {
          ++counters_.virtualThreadWaitsDropped;
          return;
        }
        VirtualThreadWaitInfo& wait = virtualThreadWaits_.emplace_back();
        wait.startTicks = toOurTicks(r.startNs);
        wait.durationNs = r.durationNs;
        wait.weightNs = r.weightNs;
        wait.threadId = static_cast<int64_t>(std::min<uint64_t>(r.threadId, INT64_MAX));
        wait.flags = r.flags;
        size_t nameBytes = std::min(r.name.size(), kMaxVirtualThreadNameBytes);
        while (nameBytes < r.name.size() && nameBytes > 0 && (static_cast<uint8_t>(r.name[nameBytes]) & 0xC0) == 0x80) {
          --nameBytes;  // not inside a character
        }
        wait.name.assign(r.name.substr(0, nameBytes));
        wait.frames.reserve(r.frameCount);
        for (uint32_t i = 0; i < r.frameCount; ++i) wait.frames.emplace_back(r.methodIdAt(i), r.bciAt(i));
        virtualThreadWaitBytes_ += sizeof wait + wait.name.capacity() + wait.frames.capacity() * sizeof wait.frames[0];
      });
  }
  return true;
}

bool JavaModel::applyCompiledLoad(std::span<const uint8_t> payload) {
  protocol::CompiledMethodLoad r;
  if (!decodeOrFail(payload, r, "CompiledMethodLoad")) return false;
  if (r.codeSize == 0 || r.codeStart + r.codeSize < r.codeStart) {
    return fail("agent sent a CompiledMethodLoad with an empty or wrapping code range");
  }
  auto blob = std::make_unique<CompiledBlob>();
  blob->start = r.codeStart;
  blob->end = r.codeStart + r.codeSize;
  blob->methodId = r.methodId;
  blob->loadTicks = (r.flags & protocol::kCompiledReplayed) != 0 ? 0 : toOurTicks(r.time);
  blob->blob = r.blob;
  blob->inlineTruncated = (r.flags & protocol::kCompiledInlineTruncated) != 0;

  blob->stepMethods.reserve(r.methodCount);
  for (uint16_t i = 0; i < r.methodCount; ++i) blob->stepMethods.push_back(r.methodIdAt(i));
  std::vector<CompiledBlob::PcRecord> pcs;
  std::vector<InlineStep> steps;
  pcs.reserve(r.pcCount);
  protocol::InlinePcCursor cursor(r);
  uint32_t offset = 0;
  uint16_t frames = 0;
  bool sorted = true;
  while (cursor.next(offset, frames)) {
    if (!pcs.empty() && offset <= pcs.back().pcOffset) sorted = false;
    pcs.push_back({offset, static_cast<uint32_t>(steps.size())});
    for (uint16_t i = 0; i < frames; ++i) {
      protocol::InlineFrame f = cursor.frame(i);
      steps.push_back({f.methodIndex, f.bci});
    }
  }
  if (sorted) {
    blob->pcs = std::move(pcs);
    blob->steps = std::move(steps);
  } else {
    // HotSpot sends pcs in order; anything else is rebuilt sorted, keeping the first record per pc.
    std::vector<uint32_t> order(pcs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return pcs[a].pcOffset < pcs[b].pcOffset; });
    for (uint32_t i : order) {
      if (!blob->pcs.empty() && blob->pcs.back().pcOffset == pcs[i].pcOffset) continue;
      uint32_t first = pcs[i].firstStep;
      uint32_t last = i + 1 < pcs.size() ? pcs[i + 1].firstStep : static_cast<uint32_t>(steps.size());
      blob->pcs.push_back({pcs[i].pcOffset, static_cast<uint32_t>(blob->steps.size())});
      blob->steps.insert(blob->steps.end(), steps.begin() + first, steps.begin() + last);
    }
  }
  code_.addCompiled(std::move(blob));
  return true;
}

PcInfo JavaModel::classify(uint64_t pc, uint64_t ticks) const {
  PcInfo info;
  if (const CompiledBlob* blob = code_.compiledAt(pc, ticks)) {
    info.kind = CodeKind::kCompiled;
    info.compiled = blob;
  } else if (const StubBlob* stub = code_.stubAt(pc)) {
    info.kind = stub->kind;
    info.stub = stub;
  }
  return info;
}

size_t JavaModel::compiledFrames(uint64_t pc, uint64_t ticks, std::span<JavaFrame> out) const {
  const CompiledBlob* blob = code_.compiledAt(pc, ticks);
  return blob != nullptr ? compiledFrames(*blob, pc, ticks, out) : 0;
}

size_t JavaModel::compiledFrames(const CompiledBlob& blob, uint64_t pc, uint64_t ticks,
                                 std::span<JavaFrame> out) const {
  if (out.empty()) return 0;
  ptrdiff_t index = blob.pcIndexFor(pc);
  if (index < 0 || blob.chain(static_cast<size_t>(index)).empty()) {
    // No debug info for this pc (or it was truncated away): the compiled method itself, line unknown.
    JavaFrame& f = out[0];
    f.methodId = blob.methodId;
    f.method = methods_.byId(blob.methodId, ticks);
    f.bci = -1;
    f.line = f.method != nullptr ? f.method->lineForBci(-1) : -1;
    f.type = jfr::FrameType::JitCompiled;
    return 1;
  }
  std::span<const InlineStep> chain = blob.chain(static_cast<size_t>(index));
  size_t n = std::min(chain.size(), out.size());
  for (size_t i = 0; i < n; ++i) {
    JavaFrame& f = out[i];
    f.methodId = blob.methodIdOf(chain[i]);
    f.method = methods_.byId(f.methodId, ticks);
    f.bci = chain[i].bci;
    f.line = f.method != nullptr ? f.method->lineForBci(chain[i].bci) : -1;
    f.type = i + 1 == chain.size() ? jfr::FrameType::JitCompiled : jfr::FrameType::Inlined;
  }
  return n;
}

std::optional<JavaFrame> JavaModel::interpretedFrame(uint64_t methodPtr, uint64_t bcp, uint64_t ticks) const {
  const JavaMethod* method = methods_.byPointer(methodPtr, ticks);
  if (method == nullptr) return std::nullopt;
  JavaFrame f;
  f.method = method;
  f.methodId = method->methodId;
  f.bci = method->bciForBcp(bcp);
  f.line = f.bci >= 0 ? method->lineForBci(f.bci) : -1;
  f.type = jfr::FrameType::Interpreted;
  return f;
}

void JavaModel::forgetBefore(uint64_t ticks) {
  threads_.forgetBefore(ticks);
  if (code_.forgetBefore(ticks) + methods_.forgetUnloadedBefore(ticks) > 0) ++forgetGeneration_;
}

void JavaModel::dropJavaFrames() {
  methods_ = MethodTable();
  code_ = CodeMap();
  codeHeaps_.clear();
  ++forgetGeneration_;
}

size_t JavaModel::approximateBytes() const {
  return methods_.approximateBytes() + code_.approximateBytes() + threads_.approximateBytes() +
         vmStructs_.approximateBytes() + timed_.approximateBytes() + virtualThreadWaitBytes_;
}

}  // namespace jfrbpf::jvm
