#pragma once
// Every sampled thread gets one JFR Thread constant: OS tid and name from /proc at first sight, and the Java
// name and id once the JVM agent tells us.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "formats/jfr/writer/recording.h"

namespace jfrbpf::record {

class ThreadRegistry {
 public:
  explicit ThreadRegistry(jfr::Recording& out) : out_(out) {}

  // The JFR thread for (tgid, tid), created on first use and named by the thread's comm.
  jfr::ThreadId threadFor(pid_t tgid, pid_t tid);

  // Java identity learnt from the agent; applies to the existing constant or to the one created later.
  void setJavaIdentity(pid_t tgid, pid_t tid, const std::string& javaName, int64_t javaThreadId, bool isVirtual);

  bool knows(pid_t tgid, pid_t tid) const { return threads_.count(key(tgid, tid)) != 0; }
  // Threads met over the whole recording, the exited ones included.
  uint64_t everSeen() const { return everSeen_; }

 private:
  struct Entry {
    jfr::ThreadId id = 0;  // 0: not interned in the current file yet
    jfr::ThreadInfo info;
  };
  static uint64_t key(pid_t tgid, pid_t tid) { return (static_cast<uint64_t>(tgid) << 32) | static_cast<uint32_t>(tid); }
  Entry& entryFor(pid_t tgid, pid_t tid);
  // The writer started a new file with no constants: threads still alive are interned again when next
  // used, exited ones are forgotten (a JVM that starts threads without end would grow this table otherwise).
  void followNewFile();

  jfr::Recording& out_;
  std::unordered_map<uint64_t, Entry> threads_;
  uint32_t constantsGeneration_ = 0;
  uint64_t everSeen_ = 0;
};

// The kernel's name of a thread (/proc/TGID/task/TID/comm), or "" if it is gone.
std::string threadComm(pid_t tgid, pid_t tid);

}  // namespace jfrbpf::record
