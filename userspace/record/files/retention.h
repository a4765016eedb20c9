#pragma once
// Retention of an output directory, like JFR's maxage and maxsize for its repository: jfrbpf's finished
// recordings there ("PID-....jfr") are removed oldest first once older than maxAge, or while a process's
// recordings ("PID-MAIN[-CONTAINER]-..."), those being written included, take more than maxBytes: one chatty
// JVM pushes out only its own older files; then, while all of them take more than maxTotalBytes, the oldest
// of any process. A file still being written (a .part.jfr) is never removed, nor anything jfrbpf did not
// name; a process's newest finished one stays whatever the sizes, the directory's newest whatever the age.
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::record {

struct RetentionPolicy {
  int64_t maxAgeNs = 0;  // --max-age (0: no limit)
  uint64_t maxBytes = 0; // --max-size, per process (0: no limit)
  uint64_t maxTotalBytes = 0;  // --max-total-size, the whole directory (0: no limit)
  bool enabled() const { return maxAgeNs > 0 || maxBytes > 0 || maxTotalBytes > 0; }
};

// Whether `name` is one of jfrbpf's finished recordings: a pid, '-', and ".jfr" but not ".part.jfr".
bool isFinishedRecordingName(const std::string& name);

// Removes what `policy` says must go from the directory open at `directory`, at wall time `now`; returns the
// names removed. Only regular files of a trusted owner (isTrustedOwner) are counted and removed: a file of
// anyone else was not written by jfrbpf. Nor is one dated after `now`, whose age is unknown (the clock was set
// back, or someone chose the date): counted, it would pass for the newest and push the others out.
std::vector<std::string> applyRetention(int directory, const RetentionPolicy& policy, time_t now);

// applyRetention every few seconds of a recording, saying what it removed.
class RetentionSweeper {
 public:
  // With a policy, opens `directory` now (openOutputDirectory: throws jfrbpf::Error when it cannot be used)
  // and sweeps that directory for the recording's life, never its path again: whoever owns a parent could
  // swap the path for a link to another directory, where root would then delete files.
  RetentionSweeper(std::string directory, RetentionPolicy policy);
  // `now`: CLOCK_MONOTONIC nanoseconds; INT64_MAX sweeps at once.
  void sweepIfDue(int64_t now);

 private:
  std::string path_;  // what it was called at the start, for messages
  RetentionPolicy policy_;
  UniqueFd directory_;
  int64_t next_ = 0;
};

}  // namespace jfrbpf::record
