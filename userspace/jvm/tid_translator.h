#pragma once
// The JVM's tids as ours: a JVM in a container numbers its threads in its own pid namespace, and the agent
// reports them that way. Read from /proc/PID (through `procRoot`, proc::kProcRoot outside tests).
#include <sys/types.h>

#include <string>
#include <unordered_map>

#include "userspace/proc/paths.h"

namespace jfrbpf::jvm {

// Maps tids as the JVM sees them (gettid() inside its pid namespace) to tids in ours.
class TidTranslator {
 public:
  explicit TidTranslator(pid_t pid, std::string procRoot = proc::kProcRoot);

  bool identity() const { return identity_; }
  // Our tid for the JVM's `nsTid`, or 0 if no live thread has it. A miss rescans /proc/PID/task, at most
  // once per allowRescan() — a burst of misses costs one scan.
  pid_t hostTid(pid_t nsTid);
  void allowRescan() { rescanAllowed_ = true; }

 private:
  void rescan();

  pid_t pid_;
  std::string procRoot_;
  bool identity_ = true;
  bool rescanAllowed_ = true;
  std::unordered_map<pid_t, pid_t> nsToHost_;
};

}  // namespace jfrbpf::jvm
