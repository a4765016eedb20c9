#include "userspace/record/cpu_clock_event.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "userspace/base/error.h"

namespace jfrbpf::record {
namespace {

constexpr size_t kRingDataPages = 1;  // throttle records are rare and tiny

struct ThrottleRecord {
  perf_event_header header;
  uint64_t time;
  uint64_t id;
  uint64_t streamId;
};

}  // namespace

CpuClockEvent::CpuClockEvent(int cpu, uint64_t periodNs) : cpu_(cpu), periodNs_(periodNs) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = periodNs;
  attr.disabled = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;  // throttle record times on the JFR tick clock
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    int err = errno;
    if (err == EACCES || err == EPERM) {
      throw Error("perf_event_open on CPU " + std::to_string(cpu) +
                  " was refused: run as root or grant CAP_PERFMON (and CAP_BPF)",
                  ErrorKind::Environment);
    }
    throw systemError("perf_event_open(cpu-clock) on CPU " + std::to_string(cpu), err);
  }
  fd_.reset(fd);
  long page = sysconf(_SC_PAGESIZE);
  ringBytes_ = static_cast<size_t>(page) * (1 + kRingDataPages);
  void* ring = mmap(nullptr, ringBytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
  if (ring == MAP_FAILED) throw systemError("mmap of the perf ring for CPU " + std::to_string(cpu));
  ring_ = ring;
}

CpuClockEvent::CpuClockEvent(CpuClockEvent&& other) noexcept
    : cpu_(other.cpu_),
      periodNs_(other.periodNs_),
      fd_(std::move(other.fd_)),
      ring_(std::exchange(other.ring_, nullptr)),
      ringBytes_(other.ringBytes_),
      throttledSinceNs_(other.throttledSinceNs_) {}

CpuClockEvent::~CpuClockEvent() {
  if (ring_) munmap(ring_, ringBytes_);
}

void CpuClockEvent::enable() {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) throw systemError("enabling the cpu-clock event");
}

void CpuClockEvent::disable() { ioctl(fd_.get(), PERF_EVENT_IOC_DISABLE, 0); }

uint64_t CpuClockEvent::takeThrottledOverflows(uint64_t nowNs) {
  auto* meta = static_cast<perf_event_mmap_page*>(ring_);
  auto* data = static_cast<uint8_t*>(ring_) + meta->data_offset;
  const uint64_t size = meta->data_size;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  uint64_t throttledNs = 0;
  while (tail < head) {
    perf_event_header header;
    // Records may wrap around the end of the data area: copy byte-wise through the modulo.
    auto copyOut = [&](void* dst, uint64_t from, size_t bytes) {
      for (size_t i = 0; i < bytes; ++i) static_cast<uint8_t*>(dst)[i] = data[(from + i) % size];
    };
    copyOut(&header, tail, sizeof(header));
    if (header.size < sizeof(header)) break;  // corrupt ring: stop reading rather than loop
    if ((header.type == PERF_RECORD_THROTTLE || header.type == PERF_RECORD_UNTHROTTLE) &&
        header.size >= sizeof(ThrottleRecord)) {
      ThrottleRecord record;
      copyOut(&record, tail, sizeof(record));
      if (header.type == PERF_RECORD_THROTTLE) {
        if (throttledSinceNs_ == 0) throttledSinceNs_ = record.time;
      } else if (throttledSinceNs_ != 0) {
        if (record.time > throttledSinceNs_) throttledNs += record.time - throttledSinceNs_;
        throttledSinceNs_ = 0;
      }
    }
    tail += header.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  if (throttledSinceNs_ != 0 && nowNs > throttledSinceNs_) {
    throttledNs += nowNs - throttledSinceNs_;
    throttledSinceNs_ = nowNs;
  }
  return throttledNs / periodNs_;
}

}  // namespace jfrbpf::record
