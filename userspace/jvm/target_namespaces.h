#pragma once
// What differs between the JVM's view and ours when it runs in a container: its CLOCK_MONOTONIC may be
// shifted by a time namespace, and its tids are numbered in its own pid namespace. Both are read from
// /proc/PID (through `procRoot`, "/proc" outside tests).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace jfrbpf::jvm {

// The target's monotonic-clock offset in nanoseconds (its clock = ours + offset); 0 when it shares our
// time namespace or the kernel has none.
int64_t monotonicOffsetNs(pid_t pid, const std::string& procRoot = "/proc");

// Maps tids as the JVM sees them (gettid() inside its pid namespace) to tids in ours.
class TidTranslator {
 public:
  explicit TidTranslator(pid_t pid, std::string procRoot = "/proc");

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
