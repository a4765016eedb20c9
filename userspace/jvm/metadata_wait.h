#pragma once
// Records that name Java code or methods the agent has not described yet (a class loaded or a method
// compiled a moment ago: the agent's records come through their own channel, moments later), kept for
// another try. One bound for CPU samples and method traces alike: a record waits at most kMaxWaitNs after it
// came, and a queue holds at most kMaxBytes; a record that does not fit is written at once, as well as it
// can be. What each process's records hold is known, so that --memory-limit sheds the JVM that holds the
// most (one whose agent names code it never describes fills a queue), not the one with the largest model.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace jfrbpf::jvm {

class MetadataWait {
 public:
  static constexpr int64_t kMaxWaitNs = 1'000'000'000;
  static constexpr size_t kMaxBytes = 32u << 20;

  bool hasRoom(size_t size) const { return bytes_ + size <= kMaxBytes; }
  size_t bytes() const { return bytes_; }
  bool empty() const { return records_.empty(); }

  // Keeps a copy of process `pid`'s record (suitably aligned for any record type), which came at `nowNs`.
  void keep(const void* data, size_t size, int64_t nowNs, pid_t pid) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    records_.push_back({std::vector<uint8_t>(bytes, bytes + size), nowNs, pid});
    bytes_ += size;
    bytesByPid_[pid] += size;
  }
  // What process `pid`'s waiting records hold.
  size_t bytesOf(pid_t pid) const {
    auto found = bytesByPid_.find(pid);
    return found == bytesByPid_.end() ? 0 : found->second;
  }

  // Offers each record kept to `attempt(data, size, lastChance)`, oldest first, lastChance when `all` or
  // when it waited kMaxWaitNs; a record stays only when `attempt` returns false (which it must not on its
  // last chance).
  template <typename Attempt>
  void retry(int64_t nowNs, bool all, Attempt&& attempt) {
    for (auto it = records_.begin(); it != records_.end();) {
      const bool lastChance = all || nowNs - it->since >= kMaxWaitNs;
      if (attempt(static_cast<const void*>(it->bytes.data()), it->bytes.size(), lastChance) || lastChance) {
        bytes_ -= it->bytes.size();
        auto held = bytesByPid_.find(it->pid);
        if ((held->second -= it->bytes.size()) == 0) bytesByPid_.erase(held);
        it = records_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  struct Waiting {
    std::vector<uint8_t> bytes;
    int64_t since;
    pid_t pid;
  };
  std::deque<Waiting> records_;
  size_t bytes_ = 0;
  std::unordered_map<pid_t, size_t> bytesByPid_;
};

}  // namespace jfrbpf::jvm
