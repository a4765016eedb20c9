#pragma once
// The kernel's own accounting of BPF programs and maps held by another process (jfrbpf): run time and run
// count of a program (bpf_stats), memory charged for maps.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/unique_fd.h"

namespace jfrbpf::bench {

// Keeps the kernel's BPF run-time statistics switched on while it lives (BPF_ENABLE_STATS: reference
// counted, so it neither disturbs nor depends on kernel.bpf_stats_enabled or anyone else). Throws
// jfrbpf::Error when the kernel refuses.
class BpfStatsSwitch {
 public:
  BpfStatsSwitch();

 private:
  UniqueFd fd_;
};

struct ProgramTotals {
  uint64_t runTimeNs = 0;
  uint64_t runCount = 0;
};

// A BPF program that another process holds open, found by name among its file descriptors.
class ProgramProbe {
 public:
  // nullopt while `pid` holds no program of that name (yet); names are the kernel's (at most 15 chars).
  static std::optional<ProgramProbe> find(pid_t pid, std::string_view name);
  // Our own program (e.g. the benchmark's reference sampler).
  static ProgramProbe ofFd(int programFd);

  ProgramTotals totals() const;
  uint32_t id() const { return id_; }
  uint32_t verifiedInstructions() const { return verifiedInstructions_; }

 private:
  ProgramProbe(UniqueFd fd, uint32_t id, uint32_t verified)
      : fd_(std::move(fd)), id_(id), verifiedInstructions_(verified) {}
  UniqueFd fd_;
  uint32_t id_ = 0;
  uint32_t verifiedInstructions_ = 0;
};

// Bytes the kernel charges for the BPF maps `pid` holds open (the "memlock" of each map's fdinfo).
uint64_t bpfMapBytes(pid_t pid);

// A numeric field ("prog_id:\t42") of an fdinfo text.
std::optional<uint64_t> fdinfoField(std::string_view fdinfo, std::string_view key);

}  // namespace jfrbpf::bench
