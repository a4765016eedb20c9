#pragma once
// The benchmark's reference sampler (fp_stack.bpf.c): the kernel's frame-pointer stack walk on the same
// per-thread task-clock events jfrbpf uses, for comparing the cost of a sample.
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "base/unique_fd.h"

struct bench_fp_stack;
struct bpf_link;
struct bpf_program;
struct ring_buffer;

namespace jfrbpf::bench {

class FramePointerSampler {
 public:
  enum class Program {
    StackWalk,          // fp_sample: the frame-pointer reference sampler, waking its consumer like jfrbpf
    StackWalkNoWakeup,  // fp_sample with BPF_RB_NO_WAKEUP: the consumer polls on a timer
    Floor,              // fp_floor: target lookup only, the cost of any program on these events
    Empty,              // fp_empty: returns at once, the cost of the events themselves
    UserReads,          // fp_reads: the floor plus 64 bpf_probe_read_user of 8 bytes each
  };
  // Loads the program and samples every thread of `pid` each `periodNs` of its CPU time. Throws jfrbpf::Error.
  FramePointerSampler(pid_t pid, uint64_t periodNs, Program program = Program::StackWalk);
  ~FramePointerSampler();
  FramePointerSampler(const FramePointerSampler&) = delete;
  FramePointerSampler& operator=(const FramePointerSampler&) = delete;

  int programFd() const;
  // Consumes the records that arrived (waiting up to `timeoutMs` for the first).
  void poll(int timeoutMs);
  uint64_t records() const { return records_; }
  double meanUserFrames() const { return records_ ? static_cast<double>(userFrames_) / records_ : 0; }

 private:
  static int onRecord(void* self, void* data, size_t size);
  bpf_program* bpfProgram() const;

  bench_fp_stack* skel_ = nullptr;
  std::vector<UniqueFd> events_;
  std::vector<bpf_link*> links_;
  ring_buffer* ring_ = nullptr;
  Program program_;
  uint64_t records_ = 0;
  uint64_t userFrames_ = 0;
};

}  // namespace jfrbpf::bench
