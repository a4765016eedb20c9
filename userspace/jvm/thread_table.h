#pragma once
// Java threads of one JVM: OS tid (ours and the JVM's), Java name and id, virtual/daemon, and when they
// started and ended. OS tids are reused, so a tid keeps its threads in order and a lookup takes the one
// alive at the sample's time.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace jfrbpf::jvm {

struct JavaThreadInfo {
  pid_t tid = 0;    // in our pid namespace; 0 if it could not be learnt
  pid_t nsTid = 0;  // as the JVM sees it
  int64_t javaThreadId = 0;
  std::string name;
  bool isVirtual = false;
  bool daemon = false;
  uint64_t javaThread = 0;  // the JavaThread* in the JVM (where its JavaFrameAnchor is); 0 if unknown
  uint64_t startTicks = 0;  // 0: existed before the session
  uint64_t endTicks = UINT64_MAX;
};

class ThreadTable {
 public:
  void started(JavaThreadInfo info);
  void ended(pid_t tid, int64_t javaThreadId, uint64_t ticks);
  // A new name for the thread with `javaThreadId` (and `tid` when the agent knew it).
  void renamed(pid_t tid, pid_t nsTid, int64_t javaThreadId, const std::string& name, uint64_t ticks);

  // The thread with OS tid `tid` at `ticks`; without one alive then, the latest that had the tid.
  const JavaThreadInfo* byTid(pid_t tid, uint64_t ticks) const;
  const JavaThreadInfo* byJavaId(int64_t javaThreadId) const;

  // Drops threads that ended before `ticks`.
  void forgetBefore(uint64_t ticks);

  size_t size() const { return threads_.size(); }
  // Changes whenever a thread starts, ends, is renamed or forgotten: lets consumers skip unchanged tables.
  uint64_t version() const { return version_; }
  size_t approximateBytes() const { return bytes_; }
  template <typename F>
  void forEach(F&& visit) const {
    for (const auto& [id, t] : threads_) visit(t);
  }

 private:
  void indexTid(pid_t tid, int64_t javaThreadId);

  std::unordered_map<int64_t, JavaThreadInfo> threads_;     // by Java thread id (never reused)
  std::unordered_map<pid_t, std::vector<int64_t>> byTid_;  // tid -> Java thread ids, oldest first
  size_t bytes_ = 0;
  uint64_t version_ = 0;
};

}  // namespace jfrbpf::jvm
