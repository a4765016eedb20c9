#include "userspace/record/session/memory_budget.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "base/number_text.h"
#include "formats/jfr/writer/recording.h"

namespace jfrbpf::record {

size_t residentSetBytes() {
  FILE* statm = std::fopen("/proc/self/statm", "re");
  if (!statm) return 0;
  unsigned long sizePages = 0;
  unsigned long residentPages = 0;
  int fields = std::fscanf(statm, "%lu %lu", &sizePages, &residentPages);
  std::fclose(statm);
  if (fields != 2) return 0;
  return static_cast<size_t>(residentPages) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

size_t peakResidentSetBytes() { return ownStatusBytes({"VmHWM"}); }

size_t residentSetBytesNear(size_t ceiling, size_t margin) {
  constexpr int64_t kTrimEveryNs = 100'000'000;
  static std::atomic<int64_t> lastTrim{0};
  size_t resident = residentSetBytes();
  if (resident + margin < ceiling) return resident;
  const int64_t nowNs = jfr::Recording::now();
  int64_t last = lastTrim.load(std::memory_order_relaxed);
  if (nowNs - last < kTrimEveryNs || !lastTrim.compare_exchange_strong(last, nowNs)) return resident;
  malloc_trim(0);
  return residentSetBytes();
}

MemoryBudget::MemoryBudget(size_t limitBytes, std::function<size_t()> residentBytes,
                           std::function<size_t()> peakBytes)
    : limit_(limitBytes), residentBytes_(std::move(residentBytes)), peakBytes_(std::move(peakBytes)) {}

size_t MemoryBudget::peakResident() const { return std::max(peakResident_, peakBytes_()); }

void MemoryBudget::addTo(MemoryAccount& account) const {
  account.resident = residentBytes_();
  account.peakResident = std::max(peakResident(), account.resident);
  account.limit = limit_;
  account.sheds = sheds_;
}

size_t MemoryBudget::resident() {
  size_t bytes = residentBytes_();
  peakResident_ = std::max(peakResident_, bytes);
  return bytes;
}

void MemoryBudget::check(const Consumers& consumers) {
  const std::string limitText = "--memory-limit " + mebibytes(limit_);
  size_t now = resident();
  if (now >= limit_ / 4) {
    // What was freed since goes back to the kernel first: the allocator keeps free pages otherwise, and the
    // RSS is what the JVMs' allowances under the ceiling read (sessionLimitsOf).
    malloc_trim(0);
    now = resident();
  }
  if (now < limit_ / 8 * 7) return;
  consumers.shedCaches();
  malloc_trim(0);  // what the caches held goes back to the kernel, not only to the allocator
  const size_t before = now;
  now = resident();
  if (sheds_++ == 0) {
    consumers.noteShed("jfrbpf's memory reached " + mebibytes(before) + " of " + limitText +
                       ": its caches were dropped (" + mebibytes(now) + " after) and refill as samples need them");
  }
  if (now <= limit_) return;
  std::vector<std::pair<pid_t, size_t>> models = consumers.javaModels();
  auto largest = std::max_element(models.begin(), models.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  if (largest == models.end()) return;
  consumers.dropJavaFrames(largest->first, "jfrbpf's memory stayed at " + mebibytes(now) + " with its caches dropped, over " +
                                               limitText + ", and this JVM's metadata (" + mebibytes(largest->second) +
                                               ") was the largest");
  malloc_trim(0);
}

}  // namespace jfrbpf::record
