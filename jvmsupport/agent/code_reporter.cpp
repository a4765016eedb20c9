#include "jvmsupport/agent/code_reporter.h"

#include <jvmticmlr.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/clock.h"

namespace jfrbpf::agent {

namespace {

// compile_info is a short list (HotSpot sends one inline record, sometimes a dummy); a long one is broken.
constexpr int kMaxCompileInfoRecords = 16;
constexpr size_t kHeadSize = 8 + 8 + 8 + 4 + 4 + protocol::kBlobInfoSize + 2 + 4;

const jvmtiCompiledMethodLoadInlineRecord* inlineRecord(const void* compileInfo) {
  auto header = static_cast<const jvmtiCompiledMethodLoadRecordHeader*>(compileInfo);
  for (int i = 0; header != nullptr && i < kMaxCompileInfoRecords; ++i, header = header->next) {
    if (header->kind == JVMTI_CMLR_INLINE_INFO && header->majorinfoversion == JVMTI_CMLR_MAJOR_VERSION_1) {
      return reinterpret_cast<const jvmtiCompiledMethodLoadInlineRecord*>(header);
    }
  }
  return nullptr;
}

// The distinct methods of an inline table, sorted, so a frame's method index is a binary search.
class MethodTable {
 public:
  MethodTable() = default;
  MethodTable(const MethodTable&) = delete;
  MethodTable& operator=(const MethodTable&) = delete;
  ~MethodTable() { std::free(ids_); }

  bool build(jmethodID root, const jvmtiCompiledMethodLoadInlineRecord* record) {
    size_t total = 1;
    if (record != nullptr) {
      for (jint i = 0; i < record->numpcs; ++i) {
        if (record->pcinfo[i].numstackframes > 0) total += static_cast<size_t>(record->pcinfo[i].numstackframes);
      }
    }
    ids_ = static_cast<uint64_t*>(std::malloc(total * sizeof(uint64_t)));
    if (ids_ == nullptr) return false;
    ids_[count_++] = reinterpret_cast<uintptr_t>(root);
    if (record != nullptr) {
      for (jint i = 0; i < record->numpcs; ++i) {
        const PCStackInfo& pc = record->pcinfo[i];
        for (jint f = 0; f < pc.numstackframes; ++f) ids_[count_++] = reinterpret_cast<uintptr_t>(pc.methods[f]);
      }
    }
    std::sort(ids_, ids_ + count_);
    count_ = static_cast<size_t>(std::unique(ids_, ids_ + count_) - ids_);
    return count_ <= 0xffff;
  }
  size_t size() const { return count_; }
  uint64_t at(size_t i) const { return ids_[i]; }
  uint16_t indexOf(jmethodID method) const {
    uint64_t key = reinterpret_cast<uintptr_t>(method);
    return static_cast<uint16_t>(std::lower_bound(ids_, ids_ + count_, key) - ids_);
  }

 private:
  uint64_t* ids_ = nullptr;
  size_t count_ = 0;
};

size_t pcEntrySize(const PCStackInfo& pc) {
  size_t frames = pc.numstackframes > 0 ? static_cast<size_t>(pc.numstackframes) : 0;
  if (frames > 0xffff) frames = 0xffff;
  return protocol::kInlinePcHeaderSize + frames * protocol::kInlineFrameSize;
}

}  // namespace

void reportCompiledMethodLoad(Agent& agent, jmethodID method, jint codeSize, const void* codeAddress,
                              const void* compileInfo) {
  if (!agent.sessionActive() || codeAddress == nullptr || codeSize <= 0) return;
  const jvmtiCompiledMethodLoadInlineRecord* record = inlineRecord(compileInfo);
  MethodTable methods;
  if (!methods.build(method, record)) return;

  uint64_t start = reinterpret_cast<uintptr_t>(codeAddress);
  protocol::CompiledMethodLoad r;
  r.time = monotonicNs();
  r.methodId = reinterpret_cast<uintptr_t>(method);
  r.codeStart = start;
  r.codeSize = static_cast<uint32_t>(codeSize);
  r.flags = agent.replaying() ? protocol::kCompiledReplayed : 0;
  agent.codeCache().blobAt(start, r.blob);
  r.methodCount = static_cast<uint16_t>(methods.size());

  // Keep the pcs that fit into one record; the loader still resolves those.
  size_t budget = protocol::kMaxPayload - kHeadSize - methods.size() * 8;
  uint32_t pcCount = 0;
  jint available = record != nullptr ? record->numpcs : 0;
  for (jint i = 0; i < available; ++i) {
    const PCStackInfo& pc = record->pcinfo[i];
    uint64_t at = reinterpret_cast<uintptr_t>(pc.pc);
    if (at < start || at - start > 0xffffffffu) continue;
    size_t need = pcEntrySize(pc);
    if (need > budget) {
      r.flags |= protocol::kCompiledInlineTruncated;
      break;
    }
    budget -= need;
    ++pcCount;
  }

  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kCompiledMethodLoad);
  Writer w(buffer);
  protocol::encodeCompiledMethodHead(w, r);
  for (size_t i = 0; i < methods.size(); ++i) protocol::encodeMethodIndexEntry(w, methods.at(i));
  if (agent.replaying()) agent.noteReplayed(protocol::RecordType::kCompiledMethodLoad);
  protocol::encodePcCount(w, pcCount);
  uint32_t written = 0;
  for (jint i = 0; i < available && written < pcCount; ++i) {
    const PCStackInfo& pc = record->pcinfo[i];
    uint64_t at = reinterpret_cast<uintptr_t>(pc.pc);
    if (at < start || at - start > 0xffffffffu) continue;
    jint frames = std::clamp<jint>(pc.numstackframes, 0, 0xffff);
    protocol::encodeInlinePc(w, static_cast<uint32_t>(at - start), static_cast<uint16_t>(frames));
    for (jint f = 0; f < frames; ++f) {
      protocol::encodeInlineFrame(w, {methods.indexOf(pc.methods[f]), pc.bcis[f]});
    }
    ++written;
  }
  if (buffer.finish()) agent.emit(buffer);
}

void reportCompiledMethodUnload(Agent& agent, jmethodID method, const void* codeAddress) {
  if (!agent.sessionActive()) return;
  protocol::CompiledMethodUnload r;
  r.time = monotonicNs();
  r.methodId = reinterpret_cast<uintptr_t>(method);
  r.codeStart = reinterpret_cast<uintptr_t>(codeAddress);
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kCompiledMethodUnload);
  Writer w(buffer);
  protocol::encode(w, r);
  if (buffer.finish()) agent.emit(buffer);
}

void reportDynamicCode(Agent& agent, const char* name, const void* address, jint length) {
  if (!agent.sessionActive() || address == nullptr || length <= 0) return;
  protocol::DynamicCode r;
  r.time = monotonicNs();
  r.start = reinterpret_cast<uintptr_t>(address);
  r.size = static_cast<uint32_t>(length);
  r.flags = agent.replaying() ? protocol::kReplayed : 0;
  if (agent.replaying()) agent.noteReplayed(protocol::RecordType::kDynamicCode);
  agent.codeCache().blobAt(r.start, r.blob);
  r.name = name != nullptr ? name : "";
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kDynamicCode);
  Writer w(buffer);
  protocol::encode(w, r);
  if (buffer.finish()) agent.emit(buffer);
}

}  // namespace jfrbpf::agent
