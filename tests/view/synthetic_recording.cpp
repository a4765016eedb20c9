#include "tests/view/synthetic_recording.h"

#include <climits>
#include <vector>

#include "formats/jfr/writer/recording.h"

namespace jfrbpf::test {

using jfr::FrameType;
using jfr::StackFrame;

jfr::MethodId javaMethod(jfr::Recording& out, const char* cls, const char* name, const char* descriptor) {
  return out.internMethod(out.internClass(cls, 1), name, descriptor, 9);
}

jfr::MethodId nativeMethod(jfr::Recording& out, const char* library, const char* symbol) {
  return out.internMethod(out.internClass(library), symbol, jfr::kNativeMethodDescriptor);
}

MixedRecordingFacts writeMixedRecording(const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  options.settings = {{"jdk.CPUTimeSample", "enabled", "true"}, {"jdk.CPUTimeSample", "throttle", "10 ms"}};
  jfr::Recording out(options);

  auto java = [&](const char* cls, const char* name, const char* descriptor) {
    return javaMethod(out, cls, name, descriptor);
  };
  auto native = [&](const char* library, const char* symbol) { return nativeMethod(out, library, symbol); };
  jfr::MethodId hot = java("Work", "hot", "(I)I");
  jfr::MethodId compute = java("Work", "compute", "(I)J");
  jfr::MethodId mainMethod = java("Work", "main", "([Ljava/lang/String;)V");
  jfr::MethodId never = java("Work", "never", "()V");
  jfr::MethodId readLoop = java("Work", "readLoop", "()V");
  jfr::MethodId threadRun = java("java/lang/Thread", "run", "()V");
  jfr::MethodId readBytes = java("java/io/FileInputStream", "readBytes", "([BII)I");

  std::vector<StackFrame> mainStack = {{hot, 12, 3, FrameType::Inlined},
                                       {compute, 20, 7, FrameType::JitCompiled},
                                       {mainMethod, 5, 1, FrameType::Interpreted}};
  std::vector<StackFrame> workerStack = {
      {native("kernel", "copy_user_enhanced_fast_string"), -1, -1, FrameType::Native},
      {native("xfs", "xfs_file_read_iter"), -1, -1, FrameType::Native},
      {native("kernel", "vfs_read"), -1, -1, FrameType::Native},
      {native("kernel", "entry_SYSCALL_64_after_hwframe"), -1, -1, FrameType::Native},
      {native("libc.so.6", "read"), -1, -1, FrameType::Native},
      {native("libjava.so", "Java_java_io_FileInputStream_readBytes"), -1, -1, FrameType::Native},
      {readBytes, -1, -1, FrameType::Native},
      {readLoop, 31, 4, FrameType::JitCompiled},
      {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> gcStack = {{native("libc.so.6", "memcpy"), -1, -1, FrameType::Native},
                                     {native("libjvm.so", "GCTaskThread::run()"), -1, -1, FrameType::Native},
                                     {native("libjvm.so", "thread_native_entry"), -1, -1, FrameType::Native},
                                     {native("libc.so.6", "start_thread"), -1, -1, FrameType::Native}};

  jfr::ThreadId mainThread = out.internThread({"main", 1001, "main", 1, false});
  jfr::ThreadId worker = out.internThread({"wkr-1", 1002, "worker-1", 21, false});  // OS and Java names differ
  jfr::ThreadId gc = out.internThread({"gc-thread", 1003, "", 0, false});

  using F = MixedRecordingFacts;
  const jfr::Ticks start = jfr::Recording::now();
  const jfr::Ticks ms = 1'000'000;
  for (uint64_t i = 0; i < F::kMainSamples; ++i) {
    out.cpuTimeSample(start + static_cast<jfr::Ticks>(i) * 8 * ms, mainStack, false, mainThread, false, F::kPeriodNanos,
                      i % 10 == 0);
  }
  for (uint64_t i = 0; i < F::kFailedSamples; ++i) {
    out.cpuTimeSample(start + static_cast<jfr::Ticks>(i) * 50 * ms, {}, false, mainThread, true, F::kPeriodNanos,
                      false);
  }
  out.cpuTimeSamplesLost(start + 100 * ms, static_cast<int32_t>(F::kLostMain), mainThread);
  out.sampleLoss(start + 100 * ms, mainThread, "ring buffer full", F::kLostMain);
  out.note(start + 100 * ms, "warning", F::kNote);
  out.methodTiming(start + 400 * ms, compute, 600, 150'000, 210'000, 4'000'000);
  out.methodTiming(start + 400 * ms, never, 0, INT64_MIN, INT64_MIN, INT64_MIN);
  out.rotate();  // the second chunk repeats every constant it uses
  for (uint64_t i = 0; i < F::kWorkerSamples; ++i) {
    out.cpuTimeSample(start + 500 * ms + static_cast<jfr::Ticks>(i) * 15 * ms, workerStack, false, worker, false,
                      F::kPeriodNanos, false);
  }
  for (uint64_t i = 0; i < F::kGcSamples; ++i) {
    out.cpuTimeSample(start + static_cast<jfr::Ticks>(i) * 95 * ms, gcStack, false, gc, false, F::kPeriodNanos, false);
  }
  out.sampleLoss(start + 900 * ms, 0, "kernel throttling", F::kLostThrottling);
  std::vector<StackFrame> caller = {{mainMethod, 7, 2, FrameType::Interpreted}};
  out.methodTrace(start + 600 * ms, 12 * ms, mainThread, caller, false, compute);
  out.methodTrace(start + 620 * ms, 3 * ms, mainThread, caller, false, compute);
  out.methodTrace(start + 640 * ms, 1 * ms, mainThread, caller, false, compute);
  // Cumulative, as the JDK emits it: the later event per method is the one to show.
  out.methodTiming(start + 990 * ms, compute, 1000, 150'000, 200'000, 5'000'000);
  out.methodTiming(start + 990 * ms, never, 0, INT64_MIN, INT64_MIN, INT64_MIN);
  out.close();
  return MixedRecordingFacts{};
}

}  // namespace jfrbpf::test
