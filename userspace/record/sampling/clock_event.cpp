#include "userspace/record/sampling/clock_event.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#include <string>
#include <utility>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

constexpr size_t kRingDataPages = 1;  // throttle records are rare and tiny

struct ThrottleRecord {
  perf_event_header header;
  uint64_t time;
  uint64_t id;
  uint64_t streamId;
};

int openEvent(perf_event_attr& attr, pid_t pid, int cpu, const std::string& what) {
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd >= 0) return fd;
  int err = errno;
  if (err == EACCES || err == EPERM) {
    throw Error("perf_event_open on " + what + " was refused: run as root or grant CAP_PERFMON (and CAP_BPF)",
                ErrorKind::Environment);
  }
  if (err == ESRCH) throw Error(what + " is gone", ErrorKind::Target);
  if (err == EMFILE) {
    throw Error("too many open files for one perf event per thread: raise the limit (ulimit -n) or use "
                "--sampler cpu",
                ErrorKind::Environment);
  }
  throw systemError("perf_event_open on " + what, err);
}

perf_event_attr clockAttributes(uint64_t config, uint64_t periodNs) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.sample_period = periodNs;
  attr.disabled = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;  // record times on the JFR tick clock
  return attr;
}

}  // namespace

ClockEvent ClockEvent::perCpu(int cpu, uint64_t periodNs) {
  perf_event_attr attr = clockAttributes(PERF_COUNT_SW_CPU_CLOCK, periodNs);
  ClockEvent event(openEvent(attr, -1, cpu, "CPU " + std::to_string(cpu)), periodNs);
  event.mapThrottleRing(cpu);
  return event;
}

ClockEvent ClockEvent::perThread(pid_t tid, uint64_t periodNs) {
  perf_event_attr attr = clockAttributes(PERF_COUNT_SW_TASK_CLOCK, periodNs);
  attr.inherit = 1;         // threads this thread creates get their own copy, with the BPF program
  attr.inherit_thread = 1;  // ... but not processes it forks
  return ClockEvent(openEvent(attr, tid, -1, "thread " + std::to_string(tid)), periodNs);
}

void ClockEvent::mapThrottleRing(int cpu) {
  long page = sysconf(_SC_PAGESIZE);
  ringBytes_ = static_cast<size_t>(page) * (1 + kRingDataPages);
  void* ring = mmap(nullptr, ringBytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
  if (ring == MAP_FAILED) throw systemError("mmap of the perf ring for CPU " + std::to_string(cpu));
  ring_ = ring;
}

ClockEvent::ClockEvent(ClockEvent&& other) noexcept
    : periodNs_(other.periodNs_),
      fd_(std::move(other.fd_)),
      ring_(std::exchange(other.ring_, nullptr)),
      ringBytes_(other.ringBytes_),
      throttledSinceNs_(other.throttledSinceNs_) {}

ClockEvent::~ClockEvent() {
  if (ring_) munmap(ring_, ringBytes_);
}

void ClockEvent::enable() {
  if (ioctl(fd_.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) throw systemError("enabling a sampling clock event");
}

void ClockEvent::disable() { ioctl(fd_.get(), PERF_EVENT_IOC_DISABLE, 0); }

void ClockEvent::setPeriod(uint64_t periodNs) {
  // Takes effect from the next overflow; events inherited from this one later get it too.
  if (ioctl(fd_.get(), PERF_EVENT_IOC_PERIOD, &periodNs) == 0) periodNs_ = periodNs;
}

uint64_t ClockEvent::takeThrottledOverflows(uint64_t nowNs) {
  if (!ring_) return 0;
  auto* meta = static_cast<perf_event_mmap_page*>(ring_);
  auto* data = static_cast<uint8_t*>(ring_) + meta->data_offset;
  const uint64_t size = meta->data_size;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  uint64_t throttledNs = 0;
  // Records may wrap around the end of the data area: copy byte-wise through the modulo.
  auto copyOut = [&](void* dst, uint64_t from, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) static_cast<uint8_t*>(dst)[i] = data[(from + i) % size];
  };
  while (tail < head) {
    perf_event_header header;
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
