#include "tests/view/off_cpu_recording.h"

#include <vector>

#include "formats/jfr/writer/recording.h"
#include "tests/view/synthetic_recording.h"

namespace jfrbpf::test {

using jfr::FrameType;
using jfr::StackFrame;

OffCpuRecordingFacts writeOffCpuRecording(const std::string& path, bool threadCpuTime) {
  using F = OffCpuRecordingFacts;
  jfr::RecordingOptions options;
  options.path = path;
  jfr::Recording out(options);

  auto java = [&](const char* cls, const char* name, const char* descriptor) {
    return javaMethod(out, cls, name, descriptor);
  };
  // A native frame of the stacks below.
  auto native = [&](const char* library, const char* symbol) {
    return StackFrame{nativeMethod(out, library, symbol), -1, -1, FrameType::Native};
  };
  jfr::MethodId threadRun = java("java/lang/Thread", "run", "()V");
  jfr::MethodId workMain = java("Work", "main", "([Ljava/lang/String;)V");
  jfr::MethodId compute = java("Work", "compute", "(I)J");
  jfr::MethodId process = java("Work", "process", "()V");
  jfr::MethodId take = java("Work", "take", "()Ljava/lang/Object;");
  jfr::MethodId load = java("Work", "load", "()V");

  std::vector<StackFrame> mainCpu = {{compute, 20, 7, FrameType::JitCompiled},
                                     {workMain, 5, 1, FrameType::Interpreted}};
  std::vector<StackFrame> mainSleep = {native("kernel", "hrtimer_nanosleep"),
                                       native("kernel", "do_syscall_64"),
                                       native("libc.so.6", "clock_nanosleep"),
                                       native("libjvm.so", "JVM_Sleep"),
                                       {java("java/lang/Thread", "sleep", "(J)V"), -1, -1, FrameType::Native},
                                       {workMain, 9, 3, FrameType::Interpreted}};
  std::vector<StackFrame> workerCpu = {{process, 40, 2, FrameType::JitCompiled},
                                       {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> workerWait = {native("kernel", "futex_wait_queue"),
                                        native("kernel", "futex_wait"),
                                        native("kernel", "do_syscall_64"),
                                        native("libc.so.6", "__futex_abstimed_wait_common"),
                                        native("libjvm.so", "ObjectMonitor::wait(long, bool, JavaThread*)"),
                                        {java("java/lang/Object", "wait", "(J)V"), -1, -1, FrameType::Native},
                                        {take, 12, 4, FrameType::JitCompiled},
                                        {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> workerPreempted = {native("kernel", "irqentry_exit_to_user_mode"),
                                             {process, 41, 3, FrameType::JitCompiled},
                                             {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> workerIo = {
      native("kernel", "io_schedule"),
      native("kernel", "filemap_read"),
      native("kernel", "do_syscall_64"),
      native("libc.so.6", "read"),
      native("libjava.so", "Java_java_io_FileInputStream_readBytes"),
      {java("java/io/FileInputStream", "readBytes", "([BII)I"), -1, -1, FrameType::Native},
      {load, 8, 2, FrameType::Interpreted},
      {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> gcWait = {
      native("kernel", "futex_wait_queue"), native("kernel", "do_syscall_64"), native("libc.so.6", "pthread_cond_wait"),
      native("libjvm.so", "GCTaskManager::get_task()"), native("libc.so.6", "start_thread")};

  jfr::ThreadId mainThread = out.internThread({"main", 2001, "main", 1, false});
  jfr::ThreadId worker = out.internThread({"wkr-1", 2002, "worker-1", 21, false});
  jfr::ThreadId gc = out.internThread({"gc-thread", 2003, "", 0, false});

  const jfr::Ticks start = jfr::Recording::now();
  const jfr::Ticks ms = F::kMs;
  for (uint64_t i = 0; i < F::kMainCpuSamples; ++i) {
    out.cpuTimeSample(start + static_cast<jfr::Ticks>(i) * ms, mainCpu, false, mainThread, false, 10 * ms, false);
  }
  for (uint64_t i = 0; i < F::kMainSleeps; ++i) {
    out.offCpuSample(start + static_cast<jfr::Ticks>(i) * 500 * ms, 500 * ms, mainThread, mainSleep, false, 500 * ms,
                     "sleeping", 100 * F::kUs);
  }
  for (int i = 0; i < 3; ++i) {
    out.offCpuSample(start + i * 300 * ms, 120 * ms, worker, workerWait, false, 300 * ms, "sleeping", 50 * F::kUs);
  }
  out.offCpuSamplesLost(start + 900 * ms, worker, F::kWorkerLost, F::kWorkerLostTime);
  out.rotate();  // the second chunk repeats every constant it uses
  for (uint64_t i = 0; i < F::kWorkerCpuSamples; ++i) {
    out.cpuTimeSample(start + 1000 * ms + static_cast<jfr::Ticks>(i) * ms, workerCpu, false, worker, false, 10 * ms,
                      false);
  }
  for (int i = 0; i < 2; ++i) {
    out.offCpuSample(start + 1100 * ms + i * 20 * ms, 20 * ms, worker, workerPreempted, false, 20 * ms, "preempted",
                     20 * ms);
  }
  out.offCpuSample(start + 1200 * ms, 60 * ms, worker, workerIo, false, 60 * ms, "uninterruptible", 1 * ms);
  out.offCpuSample(start + 1300 * ms, 100 * ms, gc, gcWait, false, 100 * ms, "unknown", 0);
  out.offCpuSamplesLost(start + 1900 * ms, mainThread, F::kMainLost, F::kMainLostTime);
  if (threadCpuTime) {
    out.threadCpuTime(start + 1990 * ms, mainThread, F::kMainKernelCpu, F::kMainWall, 0);
    out.threadCpuTime(start + 1990 * ms, worker, F::kWorkerKernelCpu, F::kWorkerWall, 0);
  }
  out.close();
  return OffCpuRecordingFacts{};
}

}  // namespace jfrbpf::test
