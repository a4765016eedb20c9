#pragma once
// Test helper: a recording with off-CPU samples (jfrbpf.OffCPUSample) and CPU samples of the same threads,
// whose numbers are known exactly, written with jfrbpf's own JFR writer as jfrbpf record writes them.
#include <cstdint>
#include <string>

namespace jfrbpf::test {

// What writeOffCpuRecording puts in the file (times in nanoseconds).
struct OffCpuRecordingFacts {
  static constexpr int64_t kMs = 1'000'000, kUs = 1'000;
  // main (tid 2001): 30 CPU samples of 10 ms in Work.compute(int); 4 off-CPU samples "sleeping" of 500 ms
  // each in java.lang.Thread.sleep(long) over hrtimer_nanosleep (kernel), run delay 100 us each.
  static constexpr uint64_t kMainCpuSamples = 30, kMainSleeps = 4;
  static constexpr int64_t kMainCpu = 300 * kMs, kMainOffCpu = 2'000 * kMs;
  // worker-1 (tid 2002, OS name wkr-1): 20 CPU samples of 10 ms in Work.process(); off CPU:
  //   3 samples "sleeping", weight 300 ms each (intervals of 120 ms, sampled), in java.lang.Object.wait(long)
  //     over futex_wait_queue (kernel), run delay 50 us each;
  //   2 samples "preempted", 20 ms each, in Work.process() under irqentry_exit_to_user_mode (kernel), run
  //     delay 20 ms each;
  //   1 sample "uninterruptible", 60 ms, in java.io.FileInputStream.readBytes over io_schedule (kernel),
  //     run delay 1 ms.
  static constexpr uint64_t kWorkerCpuSamples = 20;
  static constexpr int64_t kWorkerCpu = 200 * kMs, kWorkerWait = 900 * kMs, kWorkerPreempted = 40 * kMs,
                           kWorkerIo = 60 * kMs, kWorkerOffCpu = kWorkerWait + kWorkerPreempted + kWorkerIo;
  // gc-thread (tid 2003, no Java frames): 1 sample "unknown", 100 ms, in pthread_cond_wait (libc.so.6) over
  // futex_wait_queue (kernel), no run delay.
  static constexpr int64_t kGcOffCpu = 100 * kMs;
  static constexpr uint64_t kOffCpuSamples = 11;
  static constexpr int64_t kOffCpu = kMainOffCpu + kWorkerOffCpu + kGcOffCpu;  // 3.1 s
  static constexpr int64_t kCpu = kMainCpu + kWorkerCpu;
  // jfrbpf.OffCPUSamplesLost: worker-1 2 samples (30 ms), main 1 sample (10 ms).
  static constexpr int64_t kWorkerLost = 2, kWorkerLostTime = 30 * kMs, kMainLost = 1, kMainLostTime = 10 * kMs;
  // jfrbpf.ThreadCPUTime (with threadCpuTime): main 310 ms of CPU time in 2.4 s alive, worker-1 205 ms in
  // 1.25 s: 2.09 s and 1.045 s off CPU by the kernel's accounting.
  static constexpr int64_t kMainKernelCpu = 310 * kMs, kWorkerKernelCpu = 205 * kMs;
  static constexpr int64_t kMainWall = 2'400 * kMs, kWorkerWall = 1'250 * kMs;
};

// Writes the recording in two chunks; with `threadCpuTime`, also the kernel's CPU time of main and worker-1.
OffCpuRecordingFacts writeOffCpuRecording(const std::string& path, bool threadCpuTime = true);

}  // namespace jfrbpf::test
