#include "userspace/jvm/method_table.h"

#include <algorithm>

namespace jfrbpf::jvm {

namespace {
constexpr uint32_t kNone = UINT32_MAX;

size_t classBytes(const JavaClass& c) { return sizeof(JavaClass) + 64 + c.name.size(); }
size_t methodBytes(const JavaMethod& m) {
  return sizeof(JavaMethod) + 96 + m.name.size() + m.signature.size() + m.lines.size() * sizeof(protocol::LineEntry);
}

// Unlinks `slot` from the version chain that starts at `newest` (next: the older link of each entry).
template <typename Next>
void unlink(std::unordered_map<uint64_t, uint32_t>& newest, uint64_t key, uint32_t slot, Next&& next) {
  auto it = newest.find(key);
  if (it == newest.end()) return;
  if (it->second == slot) {
    if (next(slot) == kNone) {
      newest.erase(it);
    } else {
      it->second = next(slot);
    }
    return;
  }
  for (uint32_t at = it->second; next(at) != kNone; at = next(at)) {
    if (next(at) == slot) {
      next(at) = next(slot);
      return;
    }
  }
}
}  // namespace

int32_t JavaMethod::lineForBci(int32_t bci) const {
  if (lines.empty()) return -1;
  uint32_t at = bci < 0 ? 0u : static_cast<uint32_t>(bci);
  auto after = std::upper_bound(lines.begin(), lines.end(), at,
                                [](uint32_t b, const protocol::LineEntry& e) { return b < e.startBci; });
  const protocol::LineEntry& entry = after == lines.begin() ? lines.front() : *(after - 1);
  return static_cast<int32_t>(entry.line);
}

int32_t JavaMethod::bciForBcp(uint64_t bcp) const {
  if (codeStart == 0 || bcp < codeStart || bcp - codeStart >= codeSize) return -1;
  return static_cast<int32_t>(bcp - codeStart);
}

const JavaClass& MethodTable::addClass(const protocol::ClassInfo& record) {
  JavaClass& c = classes_[record.classId];
  const bool known = !c.name.empty();
  c.unloadTicks = UINT64_MAX;  // a replay names it again: alive
  c.classId = record.classId;
  c.name.assign(record.name);
  if (!known) bytes_ += classBytes(c);
  c.modifiers = record.modifiers;
  c.hidden = (record.flags & protocol::kHidden) != 0;
  return c;
}

void MethodTable::addMethod(const protocol::MethodInfo& record, uint64_t sinceTicks) {
  auto klass = classes_.find(record.classId);
  if (klass == classes_.end()) {
    klass = classes_.try_emplace(record.classId).first;
    klass->second.classId = record.classId;
    bytes_ += sizeof(JavaClass) + 64;
  }
  auto newestId = newestById_.find(record.methodId);
  if (newestId != newestById_.end()) {
    const JavaMethod& current = methods_[newestId->second];
    if (current.methodPtr == record.methodPtr && current.name == record.name &&
        current.signature == record.signature && current.klass->name == klass->second.name) {
      return;
    }
  }

  JavaMethod m;
  m.methodId = record.methodId;
  m.methodPtr = record.methodPtr;
  m.codeStart = record.codeStart;
  m.codeSize = record.codeSize;
  m.modifiers = record.modifiers;
  m.klass = &klass->second;
  m.name.assign(record.name);
  m.signature.assign(record.signature);
  m.sinceTicks = sinceTicks;
  m.lines.reserve(record.lineCount);
  for (uint32_t i = 0; i < record.lineCount; ++i) m.lines.push_back(record.line(i));
  std::stable_sort(m.lines.begin(), m.lines.end(),
                   [](const protocol::LineEntry& a, const protocol::LineEntry& b) { return a.startBci < b.startBci; });

  uint32_t index = static_cast<uint32_t>(methods_.size());
  if (!freeSlots_.empty()) {
    index = freeSlots_.back();
    freeSlots_.pop_back();
  }
  m.olderSameId_ = newestId != newestById_.end() ? newestId->second : kNone;
  if (record.methodPtr != 0) {
    auto newestPtr = newestByPtr_.find(record.methodPtr);
    m.olderSamePtr_ = newestPtr != newestByPtr_.end() ? newestPtr->second : kNone;
    newestByPtr_[record.methodPtr] = index;
  }
  newestById_[record.methodId] = index;
  bytes_ += methodBytes(m);
  klass->second.methodSlots.push_back(index);
  if (index == methods_.size()) {
    methods_.push_back(std::move(m));
  } else {
    methods_[index] = std::move(m);
  }
}

void MethodTable::unloadClass(uint64_t classId, uint64_t ticks) {
  auto it = classes_.find(classId);
  if (it == classes_.end() || it->second.unloadTicks != UINT64_MAX) return;
  it->second.unloadTicks = ticks;
  unloaded_.push_back(classId);
}

size_t MethodTable::forgetUnloadedBefore(uint64_t ticks) {
  size_t dropped = 0;
  std::erase_if(unloaded_, [&](uint64_t classId) {
    auto it = classes_.find(classId);
    if (it == classes_.end()) return true;
    if (it->second.unloadTicks == UINT64_MAX) return true;  // named again since
    if (it->second.unloadTicks >= ticks) return false;
    for (uint32_t slot : it->second.methodSlots) dropMethod(slot);
    bytes_ -= std::min(bytes_, classBytes(it->second));
    classes_.erase(it);
    ++dropped;
    return true;
  });
  return dropped;
}

void MethodTable::dropMethod(uint32_t slot) {
  JavaMethod& m = methods_[slot];
  unlink(newestById_, m.methodId, slot, [this](uint32_t at) -> uint32_t& { return methods_[at].olderSameId_; });
  if (m.methodPtr != 0)
    unlink(newestByPtr_, m.methodPtr, slot, [this](uint32_t at) -> uint32_t& { return methods_[at].olderSamePtr_; });
  bytes_ -= std::min(bytes_, methodBytes(m));
  m = JavaMethod{};  // frees its strings and lines; klass null marks the slot free
  freeSlots_.push_back(slot);
}

const JavaMethod* MethodTable::pick(uint32_t newest, uint64_t ticks, bool byId) const {
  // Newest version that existed at `ticks`; a sample older than every version gets the oldest one.
  uint32_t at = newest;
  for (;;) {
    const JavaMethod& m = methods_[at];
    uint32_t older = byId ? m.olderSameId_ : m.olderSamePtr_;
    if (m.sinceTicks <= ticks || older == kNone) return &m;
    at = older;
  }
}

const JavaMethod* MethodTable::byId(uint64_t methodId, uint64_t ticks) const {
  auto it = newestById_.find(methodId);
  return it == newestById_.end() ? nullptr : pick(it->second, ticks, true);
}

const JavaMethod* MethodTable::byPointer(uint64_t methodPtr, uint64_t ticks) const {
  if (methodPtr == 0) return nullptr;
  auto it = newestByPtr_.find(methodPtr);
  return it == newestByPtr_.end() ? nullptr : pick(it->second, ticks, false);
}

}  // namespace jfrbpf::jvm
