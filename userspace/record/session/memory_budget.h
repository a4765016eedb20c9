#pragma once
// --memory-limit: one ceiling for the loader's resident memory, whatever the targets do. What targets can
// make the loader hold (ELF symbols of their libraries, unwind tables, their JVMs' models, the resolvers'
// caches) is sized from it, and the consumer checks the loader's RSS once a second. From a quarter of the
// limit on the allocator hands its free pages back to the kernel; from 7/8 of it on the loader sheds: every
// cache is dropped (they refill as samples need them) and the freed memory goes back to the kernel. If that
// is not enough, the JVM the loader holds the most for (its model and its records waiting for its agent's)
// loses its Java frames (its samples go on with native frames) rather than the loader growing: the other
// targets are never taken down with it. One JVM's model alone may not outgrow its share (javaModelShareOf, less
// near the ceiling): its session ends as its records arrive (jvm::SessionLimits), with the same outcome.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "userspace/jvm/java_session.h"
#include "userspace/record/memory_account.h"

namespace jfrbpf::record {

// The loader's resident set size now (/proc/self/statm), 0 if it cannot be read.
size_t residentSetBytes();
// Its high-water mark (VmHWM of /proc/self/status), 0 if it cannot be read.
size_t peakResidentSetBytes();

// What one JVM's model may hold of `limit`: 3/32, or as much as it held before, in any case, and up to a
// quarter while the loader's RSS leaves it room under 5/8 of the limit. An agent flooding the loader with
// metadata costs at most 3/32 above the loader's steady state, or takes it to its ceiling, not past: at the
// soak's load the high-water mark stays under two thirds of the limit (with an eighth it passed it). A
// long-lived JVM that defines and unloads a thousand classes a second peaks at an eighth (bench/soak), which
// the room under the ceiling leaves it, and once it held it, a flood meanwhile does not cut it.
inline constexpr size_t javaModelShareOf(size_t limit) { return limit / 4; }
inline constexpr size_t javaModelFloorOf(size_t limit) { return limit / 32 * 3; }
inline constexpr size_t javaModelCeilingOf(size_t limit) { return limit / 8 * 5; }
// The RSS as a model's allowance reads it: within `margin` of `ceiling`, what the allocator holds free goes
// back to the kernel first (at most every 100 ms), so that no JVM is cut for memory already freed (another
// JVM's model just dropped, a burst over).
size_t residentSetBytesNear(size_t ceiling, size_t margin);
// What each JVM's agent session may hold of `limit`.
inline jvm::SessionLimits sessionLimitsOf(size_t limit) {
  const size_t ceiling = javaModelCeilingOf(limit);
  return {.maxModelBytes = javaModelShareOf(limit),
          .residentBytes = [ceiling, limit] { return residentSetBytesNear(ceiling, limit / 16); },
          .ceilingBytes = ceiling,
          .floorBytes = javaModelFloorOf(limit)};
}
// What the ELF symbol cache may hold of `limit`, and one object's symbol tables while they are read.
inline constexpr size_t symbolCacheShareOf(size_t limit) { return limit / 4; }

class MemoryBudget {
 public:
  struct Consumers {
    std::function<void()> shedCaches;  // drops everything that can be rebuilt
    // The JVMs whose Java frames are still resolved, with the bytes the loader holds for each.
    std::function<std::vector<std::pair<pid_t, size_t>>()> javaModels;
    // Stops resolving JVM `pid`'s Java frames and frees its model; `why` goes into its file.
    std::function<void(pid_t pid, const std::string& why)> dropJavaFrames;
    // Says once, on the terminal and in every file, that the loader shed its caches (`what`).
    std::function<void(const std::string& what)> noteShed;
  };

  explicit MemoryBudget(size_t limitBytes, std::function<size_t()> residentBytes = residentSetBytes,
                        std::function<size_t()> peakBytes = peakResidentSetBytes);

  size_t limit() const { return limit_; }
  size_t symbolCacheShare() const { return symbolCacheShareOf(limit_); }

  // Once a second, on the thread that owns what `consumers` touch.
  void check(const Consumers& consumers);

  // The high-water mark of the RSS, not only what the checks saw.
  size_t peakResident() const;
  uint64_t sheds() const { return sheds_; }
  // The RSS now, its peak, the limit and the sheds, into `account`.
  void addTo(MemoryAccount& account) const;

 private:
  size_t resident();

  size_t limit_;
  std::function<size_t()> residentBytes_;
  std::function<size_t()> peakBytes_;
  size_t peakResident_ = 0;
  uint64_t sheds_ = 0;
};

}  // namespace jfrbpf::record
