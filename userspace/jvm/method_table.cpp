#include "userspace/jvm/method_table.h"

#include <algorithm>

namespace jfrbpf::jvm {

namespace {
constexpr uint32_t kNone = UINT32_MAX;
}

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
  if (c.name.empty()) bytes_ += sizeof(JavaClass) + 64 + record.name.size();
  c.classId = record.classId;
  c.name.assign(record.name);
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
  m.olderSameId_ = newestId != newestById_.end() ? newestId->second : kNone;
  if (record.methodPtr != 0) {
    auto newestPtr = newestByPtr_.find(record.methodPtr);
    m.olderSamePtr_ = newestPtr != newestByPtr_.end() ? newestPtr->second : kNone;
    newestByPtr_[record.methodPtr] = index;
  }
  newestById_[record.methodId] = index;
  bytes_ += sizeof(JavaMethod) + 96 + m.name.size() + m.signature.size() + m.lines.size() * sizeof(protocol::LineEntry);
  methods_.push_back(std::move(m));
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
