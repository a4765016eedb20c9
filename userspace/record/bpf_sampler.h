#pragma once
// The loaded sampler BPF object: which processes it samples, its ring buffer, and its counters.
#include <array>
#include <cstdint>
#include <vector>

#include "bpf/sampler_abi.h"

struct sampler;
struct bpf_link;

namespace jfrbpf::record {

struct SamplerConfig {
  uint32_t userStackDepth = 512;
  uint32_t ringBufferBytes = 16u << 20;  // power of two, >= page size
};

using SamplerCounters = std::array<uint64_t, JFRBPF_COUNTER_COUNT>;

struct ThreadLoss {
  uint32_t tid;
  uint32_t tgid;
  uint64_t lostRingbufFull;  // cumulative since the thread was first charged
};

class BpfSampler {
 public:
  explicit BpfSampler(const SamplerConfig& config);  // opens and loads; throws jfrbpf::Error
  ~BpfSampler();
  BpfSampler(const BpfSampler&) = delete;
  BpfSampler& operator=(const BpfSampler&) = delete;

  void addTarget(uint32_t tgid);
  void removeTarget(uint32_t tgid);

  // Attaches the program to each perf event fd (one per CPU). Links are released by detach()/destructor.
  void attach(const std::vector<int>& perfEventFds);
  void detach();

  int ringBufferMapFd() const;
  SamplerCounters readCounters() const;        // summed over CPUs
  std::vector<ThreadLoss> readThreadLosses() const;
  int programFd() const;

 private:
  sampler* skel_ = nullptr;
  std::vector<bpf_link*> links_;
};

}  // namespace jfrbpf::record
