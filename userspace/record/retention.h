#pragma once
// Retention of an output directory, like JFR's maxage and maxsize for its repository: jfrbpf's finished
// recordings there ("PID-....jfr") are removed oldest first once older than maxAge, or while a process's
// recordings ("PID-MAIN[-CONTAINER]-..."), those being written included, take more than maxBytes: one chatty
// JVM pushes out only its own older files; then, while all of them take more than maxTotalBytes, the oldest
// of any process. A file still being written (a .part.jfr) is never removed, nor anything jfrbpf did not
// name; a process's newest finished one stays whatever the sizes, the directory's newest whatever the age.
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace jfrbpf::record {

struct RetentionPolicy {
  int64_t maxAgeNs = 0;  // --max-age (0: no limit)
  uint64_t maxBytes = 0; // --max-size, per process (0: no limit)
  uint64_t maxTotalBytes = 0;  // --max-total-size, the whole directory (0: no limit)
  bool enabled() const { return maxAgeNs > 0 || maxBytes > 0 || maxTotalBytes > 0; }
};

// Whether `name` is one of jfrbpf's finished recordings: a pid, '-', and ".jfr" but not ".part.jfr".
bool isFinishedRecordingName(const std::string& name);

// Removes what `policy` says must go, at wall time `now`; returns the paths removed.
std::vector<std::string> applyRetention(const std::filesystem::path& directory, const RetentionPolicy& policy,
                                        time_t now);

// applyRetention every few seconds of a recording, saying what it removed.
class RetentionSweeper {
 public:
  RetentionSweeper(std::filesystem::path directory, RetentionPolicy policy)
      : directory_(std::move(directory)), policy_(policy) {}
  // `now`: CLOCK_MONOTONIC nanoseconds; INT64_MAX sweeps at once.
  void sweepIfDue(int64_t now);

 private:
  std::filesystem::path directory_;
  RetentionPolicy policy_;
  int64_t next_ = 0;
};

}  // namespace jfrbpf::record
