#include "userspace/jvm/code_map.h"

#include <algorithm>
#include <cctype>

namespace jfrbpf::jvm {

namespace {
// Nested stub ranges are few; a lookup never walks further back than this.
constexpr int kMaxStubScan = 64;

bool containsNoCase(std::string_view text, std::string_view word) {
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}
}  // namespace

CodeKind classifyDynamicCode(std::string_view name) {
  if (name == "Interpreter") return CodeKind::kInterpreter;
  if (containsNoCase(name, "adapter")) return CodeKind::kAdapter;
  return CodeKind::kStub;
}

ptrdiff_t CompiledBlob::pcIndexFor(uint64_t pc) const {
  if (pc < start || pc - start > UINT32_MAX || pcs.empty()) return -1;
  uint32_t offset = static_cast<uint32_t>(pc - start);
  auto it = std::lower_bound(pcs.begin(), pcs.end(), offset,
                             [](const PcRecord& r, uint32_t off) { return r.pcOffset < off; });
  return it == pcs.end() ? -1 : it - pcs.begin();
}

size_t CodeMap::footprint(const CompiledBlob& blob) {
  return sizeof(CompiledBlob) + 64 + blob.pcs.capacity() * sizeof(CompiledBlob::PcRecord) +
         blob.steps.capacity() * sizeof(InlineStep) + blob.stepMethods.capacity() * sizeof(uint64_t);
}

void CodeMap::retire(std::map<uint64_t, std::unique_ptr<CompiledBlob>>::iterator it, uint64_t ticks) {
  std::unique_ptr<CompiledBlob> blob = std::move(it->second);
  live_.erase(it);
  ++generation_;
  blob->unloadTicks = std::max(ticks, blob->loadTicks);
  maxRetiredSize_ = std::max(maxRetiredSize_, blob->end - blob->start);
  uint64_t start = blob->start;
  retired_.emplace(start, std::move(blob));
}

void CodeMap::cover(uint64_t start, uint64_t end) {
  low_ = std::min(low_, start);
  high_ = std::max(high_, end);
}

void CodeMap::addCompiled(std::unique_ptr<CompiledBlob> blob) {
  if (blob == nullptr || blob->end <= blob->start) return;
  auto same = live_.find(blob->start);
  if (same != live_.end() && same->second->end == blob->end && same->second->methodId == blob->methodId &&
      same->second->blob.compileId == blob->blob.compileId) {
    return;
  }
  // Retire every live blob overlapping [start, end).
  auto it = live_.upper_bound(blob->start);
  if (it != live_.begin() && std::prev(it)->second->end > blob->start) --it;
  while (it != live_.end() && it->first < blob->end) {
    auto next = std::next(it);
    retire(it, blob->loadTicks);
    it = next;
  }
  // Generated code the JVM never reported freed cannot still be where an nmethod now lives.
  auto stub = stubs_.lower_bound(blob->start);
  while (stub != stubs_.end() && stub->first < blob->end) {
    if (&stub->second == interpreter_) interpreter_ = nullptr;
    stub = stubs_.erase(stub);
  }
  bytes_ += footprint(*blob);
  cover(blob->start, blob->end);
  uint64_t start = blob->start;
  live_.emplace(start, std::move(blob));
  ++generation_;
}

void CodeMap::unloadCompiled(uint64_t start, uint64_t methodId, uint64_t ticks) {
  auto it = live_.find(start);
  if (it != live_.end() && it->second->methodId == methodId) retire(it, ticks);
}

void CodeMap::addStub(StubBlob stub) {
  if (stub.end <= stub.start) return;
  maxStubSize_ = std::max(maxStubSize_, stub.end - stub.start);
  cover(stub.start, stub.end);
  auto [it, inserted] = stubs_.insert_or_assign(stub.start, std::move(stub));
  ++generation_;
  if (inserted) bytes_ += sizeof(StubBlob) + 64 + it->second.name.size();
  if (it->second.kind == CodeKind::kInterpreter) interpreter_ = &it->second;
}

const CompiledBlob* CodeMap::compiledAt(uint64_t pc, uint64_t ticks) const {
  if (outside(pc)) return nullptr;  // retired blobs were live once: covered too
  const CompiledBlob* live = nullptr;
  auto it = live_.upper_bound(pc);
  if (it != live_.begin()) {
    const CompiledBlob* candidate = std::prev(it)->second.get();
    if (pc < candidate->end) live = candidate;
  }
  if (live != nullptr && live->loadTicks <= ticks) return live;

  // The live blob came later (or there is none): whatever was there at `ticks`, else the live one (its
  // load record may simply have been posted after the sample).
  const CompiledBlob* best = nullptr;
  if (!retired_.empty()) {
    auto r = retired_.upper_bound(pc);
    while (r != retired_.begin()) {
      --r;
      const CompiledBlob* b = r->second.get();
      if (pc - b->start >= maxRetiredSize_) break;  // starts only fall from here: nothing earlier reaches pc
      if (pc < b->end && b->loadTicks <= ticks && ticks < b->unloadTicks &&
          (best == nullptr || b->loadTicks > best->loadTicks)) {
        best = b;
      }
    }
  }
  return best != nullptr ? best : live;
}

const StubBlob* CodeMap::stubAt(uint64_t pc) const {
  if (outside(pc)) return nullptr;
  auto it = stubs_.upper_bound(pc);
  for (int steps = 0; it != stubs_.begin() && steps < kMaxStubScan; ++steps) {
    --it;
    if (pc < it->second.end) return &it->second;
    if (pc - it->second.start >= maxStubSize_) break;
  }
  return nullptr;
}

size_t CodeMap::forgetBefore(uint64_t ticks) {
  size_t dropped = 0;
  for (auto it = retired_.begin(); it != retired_.end();) {
    if (it->second->unloadTicks < ticks) {
      bytes_ -= std::min(bytes_, footprint(*it->second));
      it = retired_.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  return dropped;
}

}  // namespace jfrbpf::jvm
