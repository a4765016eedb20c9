#include "userspace/jvm/thread_table.h"

#include <algorithm>

namespace jfrbpf::jvm {

void ThreadTable::indexTid(pid_t tid, int64_t javaThreadId) {
  if (tid <= 0) return;
  std::vector<int64_t>& ids = byTid_[tid];
  if (std::find(ids.begin(), ids.end(), javaThreadId) == ids.end()) ids.push_back(javaThreadId);
}

void ThreadTable::started(JavaThreadInfo info) {
  ++version_;
  auto [it, inserted] = threads_.try_emplace(info.javaThreadId);
  JavaThreadInfo& t = it->second;
  if (inserted) {
    bytes_ += sizeof(JavaThreadInfo) + 96 + info.name.size();
    t = std::move(info);
  } else {
    // Replays resend live threads: keep the earliest start, refresh what the agent knows now.
    uint64_t start = std::min(t.startTicks, info.startTicks);
    if (info.tid == 0) info.tid = t.tid;
    if (info.nsTid == 0) info.nsTid = t.nsTid;
    if (info.javaThread == 0) info.javaThread = t.javaThread;
    info.endTicks = t.endTicks;
    t = std::move(info);
    t.startTicks = start;
  }
  indexTid(t.tid, t.javaThreadId);
}

void ThreadTable::ended(pid_t tid, int64_t javaThreadId, uint64_t ticks) {
  auto it = threads_.find(javaThreadId);
  if (it == threads_.end()) return;
  ++version_;
  it->second.endTicks = ticks;
  if (it->second.tid == 0 && tid > 0) {
    it->second.tid = tid;
    indexTid(tid, javaThreadId);
  }
}

void ThreadTable::renamed(pid_t tid, pid_t nsTid, int64_t javaThreadId, const std::string& name, uint64_t ticks) {
  ++version_;
  auto it = threads_.find(javaThreadId);
  if (it == threads_.end()) {
    JavaThreadInfo info;
    info.tid = tid;
    info.nsTid = nsTid;
    info.javaThreadId = javaThreadId;
    info.name = name;
    info.startTicks = ticks;
    started(std::move(info));
    return;
  }
  it->second.name = name;
  if (it->second.tid == 0 && tid > 0) {
    it->second.tid = tid;
    it->second.nsTid = nsTid;
    indexTid(tid, javaThreadId);
  }
}

const JavaThreadInfo* ThreadTable::byTid(pid_t tid, uint64_t ticks) const {
  auto ids = byTid_.find(tid);
  if (ids == byTid_.end()) return nullptr;
  const JavaThreadInfo* latest = nullptr;
  for (auto id = ids->second.rbegin(); id != ids->second.rend(); ++id) {
    auto t = threads_.find(*id);
    if (t == threads_.end()) continue;
    if (latest == nullptr) latest = &t->second;
    if (t->second.startTicks <= ticks && ticks < t->second.endTicks) return &t->second;
  }
  return latest;
}

const JavaThreadInfo* ThreadTable::byJavaId(int64_t javaThreadId) const {
  auto it = threads_.find(javaThreadId);
  return it == threads_.end() ? nullptr : &it->second;
}

void ThreadTable::forgetBefore(uint64_t ticks) {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->second.endTicks < ticks) {
      ++version_;
      auto ids = byTid_.find(it->second.tid);
      if (ids != byTid_.end()) {
        std::erase(ids->second, it->first);
        if (ids->second.empty()) byTid_.erase(ids);
      }
      bytes_ -= std::min(bytes_, sizeof(JavaThreadInfo) + 96 + it->second.name.size());
      it = threads_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace jfrbpf::jvm
