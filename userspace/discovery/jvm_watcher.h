#pragma once
// Notices JVMs starting and exiting, for `record --all`. It polls /proc rather than using the netlink proc
// connector, which needs CAP_NET_ADMIN and only works in the initial network namespace (so not in a
// Kubernetes pod without hostNetwork). The cost of a poll is bounded by what changed:
//   - every poll lists /proc and reads /proc/PID/stat of the known JVMs (exits, pid reuse);
//   - a process is classified (its maps read) when first seen, and while it is young (started or exec'd
//     less than youngWindow ago) again each time its age doubles, at least every maxRecheckGap: `java`
//     maps libjvm.so some milliseconds after exec (later on a loaded host);
//   - every execSweepInterval the other processes' /proc/PID/stat is compared with what it was, which
//     catches a process that execs java long after it started (an entrypoint waiting for a database).
// Kernel threads are never classified again. Not thread-safe: one owner calls poll().
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "userspace/proc/paths.h"

namespace jfrbpf::discovery {

// A good cadence for poll(): a new JVM is usually reported within this long of mapping libjvm.so.
inline constexpr std::chrono::milliseconds kSuggestedPollInterval{250};

struct WatcherOptions {
  std::string procRoot = proc::kProcRoot;
  // How long after it starts (or execs) a process that is not (yet) a JVM is re-classified.
  std::chrono::milliseconds youngWindow{5000};
  // The youngest age at which a process is re-classified: the doubling schedule starts here.
  std::chrono::milliseconds firstRecheck{50};
  // The longest wait between two classifications of a young process.
  std::chrono::milliseconds maxRecheckGap{1000};
  // How often the other non-JVM processes are checked for an exec; zero checks at every poll.
  std::chrono::milliseconds execSweepInterval{2000};
};

struct JvmChanges {
  std::vector<pid_t> appeared;  // JVMs not reported before (all JVMs, at the first poll), sorted
  std::vector<pid_t> gone;      // JVMs that exited (or became zombies) since the last poll, sorted
  // A pid in both lists was reused: the JVM that had it is gone and a new JVM has it now.
  bool empty() const { return appeared.empty() && gone.empty(); }
};

struct WatcherStats {
  uint64_t polls = 0;
  uint64_t mapsReads = 0;  // classifications (each reads one /proc/PID/maps)
  uint64_t statReads = 0;  // /proc/PID/stat reads (identity and exec checks)
  uint64_t sweeps = 0;
};

class JvmWatcher {
 public:
  explicit JvmWatcher(WatcherOptions options = {});

  JvmChanges poll();
  // The JVMs alive at the last poll, sorted.
  std::vector<pid_t> jvms() const;
  const WatcherStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;

  // What /proc/PID/stat says: the start time tells pid reuse, the rest changes on execve.
  struct Identity {
    uint64_t startTicks = 0;
    uint64_t startCode = 0;
    uint64_t argStart = 0;
    std::string comm;
    bool kernelThread = false;
    bool zombie = false;
    bool operator==(const Identity&) const = default;
  };
  struct Process {
    Identity identity;
    bool jvm = false;
    Clock::time_point bornAt;        // started, or last exec'd
    Clock::time_point nextClassify;  // while young: when to read its maps again
    uint64_t generation = 0;         // the last poll that listed it
  };

  std::optional<Identity> readIdentity(pid_t pid);
  Clock::time_point startedAt(uint64_t startTicks, Clock::time_point now) const;
  bool young(const Process& process, Clock::time_point now) const;
  void scheduleClassify(Process& process, Clock::time_point now) const;
  bool classify(pid_t pid);
  // (Re)learns what `pid` is; `execd`: it has just exec'd. False when it has gone.
  bool examine(pid_t pid, Process& process, Clock::time_point now, bool execd, JvmChanges& changes);
  // The checks for a process seen before; false when it has gone.
  bool recheck(pid_t pid, Process& process, Clock::time_point now, bool sweep, JvmChanges& changes);

  WatcherOptions options_;
  long ticksPerSecond_;
  std::unordered_map<pid_t, Process> processes_;
  uint64_t generation_ = 0;
  Clock::time_point nextSweep_{};
  WatcherStats stats_;
};

}  // namespace jfrbpf::discovery
