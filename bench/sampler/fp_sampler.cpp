#include "bench/sampler/fp_sampler.h"

#include <bpf/libbpf.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>

#include "base/error.h"
#include "bench/sampler/fp_stack_abi.h"
#include "bench_fp_stack.skel.h"

namespace jfrbpf::bench {
namespace {

std::vector<pid_t> threadsOf(pid_t pid) {
  std::vector<pid_t> tids;
  std::string path = "/proc/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(path.c_str()), closedir);
  if (!dir) return tids;
  while (dirent* entry = readdir(dir.get())) {
    char* end = nullptr;
    long tid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<pid_t>(tid));
  }
  return tids;
}

// The same event jfrbpf's per-thread mode uses (userspace/record/sampling/clock_event.cpp), so that both samplers
// run on equal terms.
int openTaskClock(pid_t tid, uint64_t periodNs) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = periodNs;
  attr.disabled = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.inherit = 1;
  attr.inherit_thread = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace

FramePointerSampler::FramePointerSampler(pid_t pid, uint64_t periodNs, Program program) : program_(program) {
  skel_ = bench_fp_stack__open();
  if (!skel_) throw Error("cannot open the frame-pointer reference sampler", ErrorKind::Environment);
  try {
    if (program == Program::StackWalkNoWakeup) skel_->rodata->ringbuf_flags = BPF_RB_NO_WAKEUP;
    if (bench_fp_stack__load(skel_) != 0) {
      throw Error("cannot load the frame-pointer reference sampler (run as root)", ErrorKind::Environment);
    }
    auto tgid = static_cast<uint32_t>(pid);
    uint32_t one = 1;
    if (bpf_map__update_elem(skel_->maps.fp_targets, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY) != 0) {
      throw Error("cannot add the target to the reference sampler");
    }
    ring_ = ring_buffer__new(bpf_map__fd(skel_->maps.fp_records), onRecord, this, nullptr);
    if (!ring_) throw Error("cannot open the reference sampler's ring buffer");
    for (pid_t tid : threadsOf(pid)) {
      UniqueFd event(openTaskClock(tid, periodNs));
      if (!event) continue;  // the thread just exited
      bpf_link* link = bpf_program__attach_perf_event(bpfProgram(), event.get());
      if (!link) throw Error("cannot attach the reference sampler to thread " + std::to_string(tid));
      links_.push_back(link);
      events_.push_back(std::move(event));
    }
    if (events_.empty()) throw Error("process " + std::to_string(pid) + " has no thread to sample", ErrorKind::Target);
    for (const UniqueFd& event : events_) ioctl(event.get(), PERF_EVENT_IOC_ENABLE, 0);
  } catch (...) {
    for (bpf_link* link : links_) bpf_link__destroy(link);
    ring_buffer__free(ring_);
    bench_fp_stack__destroy(skel_);
    throw;
  }
}

FramePointerSampler::~FramePointerSampler() {
  for (const UniqueFd& event : events_) ioctl(event.get(), PERF_EVENT_IOC_DISABLE, 0);
  for (bpf_link* link : links_) bpf_link__destroy(link);
  ring_buffer__free(ring_);
  bench_fp_stack__destroy(skel_);
}

bpf_program* FramePointerSampler::bpfProgram() const {
  switch (program_) {
    case Program::Floor: return skel_->progs.fp_floor;
    case Program::Empty: return skel_->progs.fp_empty;
    case Program::UserReads: return skel_->progs.fp_reads;
    case Program::StackWalk:
    case Program::StackWalkNoWakeup: break;
  }
  return skel_->progs.fp_sample;
}

int FramePointerSampler::programFd() const { return bpf_program__fd(bpfProgram()); }

void FramePointerSampler::poll(int timeoutMs) { ring_buffer__poll(ring_, timeoutMs); }

int FramePointerSampler::onRecord(void* self, void* data, size_t size) {
  if (size < FP_HEADER_SIZE) return 0;
  auto* sampler = static_cast<FramePointerSampler*>(self);
  const auto* record = static_cast<const fp_record*>(data);
  sampler->records_ += 1;
  sampler->userFrames_ += record->user_frames;
  return 0;
}

}  // namespace jfrbpf::bench
