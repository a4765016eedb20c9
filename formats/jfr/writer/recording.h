#pragma once
// A JDK Flight Recorder file being written: the sink of the profiler's events.
//
// Files open in JDK 17+ `jfr print/summary/metadata`, JDK 21+ `jfr view` and JMC. Event types carry JDK 25's
// exact names, fields and annotations (jdk.CPUTimeSample, jdk.ExecutionSample, jdk.CPUTimeSamplesLost, jdk.MethodTiming,
// jdk.MethodTrace, …) plus jfrbpf.SampleLoss, jfrbpf.Note, jfrbpf.TruncatedStacks, jfrbpf.ThreadCPUTime,
// jfrbpf.OffCPUSample and jfrbpf.OffCPUSamplesLost. Every chunk is self-contained: it repeats the constants it references and the
// recording/OS/CPU/JVM description events.
//
// Not thread-safe: one thread records (the pipeline serializes events). Event methods never throw and do
// not allocate in steady state; I/O errors during recording are reported by close().
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <string_view>

#include "formats/jfr/writer/types.h"

namespace jfrbpf::jfr {

class Recording {
 public:
  // Creates the temporary file next to options.path. Throws jfrbpf::Error (unwritable destination, unknown
  // event name in a setting, zero maxChunkBytes).
  explicit Recording(RecordingOptions options);
  // Finishes the recording if close() was not called; never throws.
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // Interning: ids are stable within a file (see continueIn); the same arguments give the same id.
  // internalName: "java/lang/String", or for native code the library ("libc.so.6") or "kernel".
  ClassId internClass(std::string_view internalName, int32_t modifiers = 0, bool hidden = false);
  // Throws jfrbpf::Error if the ClassId did not come from internClass. Native symbols: kNativeMethodDescriptor.
  MethodId internMethod(ClassId type, std::string_view name, std::string_view descriptor, int32_t modifiers = 0,
                        bool hidden = false);
  // Keyed by (osThreadId, javaThreadId).
  ThreadId internThread(const ThreadInfo& info);
  // Virtual thread `javaThreadId` is named `name` (events refer to it by EventThread::virtualThread): the
  // constants of every chunk that refers to it from now on, this one included, carry the name.
  void nameVirtualThread(int64_t javaThreadId, std::string_view name);
  // Names learnt later (the Java name from the agent). Events recorded from now on show them, and so do the
  // earlier events of the current chunk unless the thread was already in the previous chunk (the JDK keeps
  // what it read there).
  void updateThread(ThreadId thread, const ThreadInfo& info);
  void setJvmInformation(JvmInformation jvm);
  // The process a file records alone, where it runs: jfrbpf.ProcessResource in every chunk from now on.
  void setProcessResource(ProcessResource resource);

  // Events. Stack frames are leaf first. Unknown ids never corrupt the file: an unknown ThreadId is
  // written as no thread, an unknown MethodId as the method "[unknown].[unknown]".
  // An empty `frames` writes no stack trace (JDK 25 does the same for failed samples).
  // The sample, trace, allocation and lock events take a virtual thread too (EventThread), and the context the
  // thread was in (TraceContext).
  void cpuTimeSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated, EventThread thread,
                     bool failed, Ticks samplingPeriod, bool biased, const TraceContext& context = {});
  // jdk.ExecutionSample with the state the JDK writes for it (STATE_RUNNABLE).
  void executionSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated, EventThread thread,
                       const TraceContext& context = {});
  // `count` CPU samples of `thread` at `startTime` with one stack, each standing for samplingPeriod of its CPU
  // time, written as the options' sampleEvents say (an ExecutionSample has no `failed`: such a sample is one
  // without a stack trace there too).
  void cpuSample(Ticks startTime, std::span<const StackFrame> frames, bool truncated, EventThread thread, bool failed,
                 Ticks samplingPeriod, uint32_t count = 1, const TraceContext& context = {});
  void cpuTimeSamplesLost(Ticks startTime, int32_t lostSamples, ThreadId thread);
  // jdk.ObjectAllocationSample: `thread` allocated an `objectClass` at `startTime` with `frames` on its stack (from
  // the allocating method), standing for `weight` bytes of what it allocated.
  void objectAllocationSample(Ticks startTime, EventThread thread, std::span<const StackFrame> frames, bool truncated,
                              ClassId objectClass, int64_t weight, const TraceContext& context = {});
  // jdk.JavaMonitorEnter: `thread` waited from `startTime` for `duration` to enter a monitor of `monitorClass`
  // (whose object was at `address`), with `frames` on its stack from the monitor's site.
  void javaMonitorEnter(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                        bool truncated, ClassId monitorClass, uint64_t address, const TraceContext& context = {});
  // jdk.JavaMonitorWait: `thread` called Object.wait(timeoutMillis; 0: none) on a `monitorClass` object.
  void javaMonitorWait(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                       bool truncated, ClassId monitorClass, int64_t timeoutMillis, bool timedOut, uint64_t address,
                       const TraceContext& context = {});
  // jdk.ThreadPark: `thread` parked (LockSupport.park) on a `parkedClass` blocker (0: none) at `address`, with
  // a timeout in ns or a deadline in ms since the epoch (Long.MIN_VALUE where there is none, as the JDK writes).
  void threadPark(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                  bool truncated, ClassId parkedClass, int64_t timeoutNanos, int64_t untilMillis, uint64_t address,
                  const TraceContext& context = {});
  // minimum/average/maximum in ticks (ns); Long.MIN_VALUE where unknown, as the JDK writes them.
  void methodTiming(Ticks startTime, MethodId method, int64_t invocations, int64_t minimum, int64_t average,
                    int64_t maximum);
  // frames: the caller's stack (JDK 25 starts a MethodTrace stack at the caller of `method`).
  void methodTrace(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                   bool truncated, MethodId method, const TraceContext& context = {});
  // thread 0 = not attributable to a thread. lostCpuTime: the CPU time the lost samples stood for (0 where
  // the next sample of the thread stands for it).
  void sampleLoss(Ticks startTime, ThreadId thread, std::string_view cause, int64_t lostSamples,
                  Ticks lostCpuTime = 0);
  // severity: "info" or "warning".
  void note(Ticks startTime, std::string_view severity, std::string_view message);
  // The OpenTelemetry process context process `pid` published (texts as the fields' descriptions say).
  void processContext(Ticks startTime, int64_t pid, std::string_view serviceName, std::string_view resource,
                      std::string_view attributes, std::string_view threadContext);
  // Samples whose stacks stopped before the thread's outermost frame for `cause`, since the last such event.
  void truncatedStacks(Ticks startTime, std::string_view cause, int64_t samples);
  // The thread's CPU time over the recording, as the kernel accounted it, the span of the recording it was
  // alive for (wallTime - cpuTime: its time off CPU), and its time runnable but waiting for a CPU.
  void threadCpuTime(Ticks startTime, ThreadId thread, Ticks cpuTime, Ticks wallTime, Ticks runDelay);
  // jfrbpf.OffCPUSample: the thread was off CPU from startTime for duration, left it in `state` with `frames`
  // on its stack, and waited runDelay for a CPU after its wake-up; the event stands for `weight` of its
  // off-CPU time.
  void offCpuSample(Ticks startTime, Ticks duration, EventThread thread, std::span<const StackFrame> frames,
                    bool truncated, Ticks weight, std::string_view state, Ticks runDelay,
                    const TraceContext& context = {});
  void offCpuSamplesLost(Ticks startTime, ThreadId thread, int64_t lostSamples, Ticks lostTime);

  // A setting changed while recording (e.g. the sampling period under a rate budget): the chunk being built
  // and the later ones show the new value. Throws jfrbpf::Error for an event type this writer lacks.
  void changeSetting(const Setting& setting);

  // Chunks rotate by size on their own; by age when the caller calls rotateIfDue periodically.
  void rotateIfDue(Ticks now);
  // Whether rotateIfDue(now) would finish the current chunk.
  bool chunkDue(Ticks now) const;
  void rotate();
  // Finishes the current file as close() does and goes on in a new one at `path`, every setting kept: a
  // file per period of a long recording, each self-contained. The constants start afresh in the new file,
  // so that what a long recording holds follows what one file references, not everything it ever saw
  // (hidden classes, exited threads): ids interned before are invalid once constantsGeneration() changed,
  // and whoever keeps ids interns again. Returns what went wrong with the finished file (as close() would
  // throw it), or why `path` cannot be created, in which case recording goes on in the current file, its
  // constants kept. Never throws.
  std::optional<std::string> continueIn(const std::string& path);
  // Changes when continueIn forgets the interned constants.
  uint32_t constantsGeneration() const;
  SampleEvents sampleEvents() const;  // as the options said
  // Where the current file goes when it is finished.
  const std::string& path() const;
  // The current file as it is being written: its whole chunks take the first `bytes` of `temporaryPath`.
  struct WrittenPart {
    std::string temporaryPath;
    uint64_t bytes;
  };
  WrittenPart writtenPart() const;
  // Writes the final chunk, fsyncs and renames the file into place. Throws jfrbpf::Error on I/O failure
  // (including chunks that could not be written earlier). Further calls do nothing.
  void close();
  // Gives the recording up: removes the temporary file and leaves the destination untouched, for runs that
  // failed before recording anything useful. Later calls (close included) do nothing; never throws.
  void abandon() noexcept;

  struct Stats {
    uint64_t events;        // events recorded through the methods above
    uint64_t chunks;        // chunks written, over all files
    uint64_t bytesWritten;  // bytes in the current file
    uint64_t stackTraces;   // stack traces written (deduplicated per chunk, summed over chunks)
  };
  Stats stats() const;
  // What the recording holds in memory: the chunk being built and the constants. The event buffer is
  // reserved for a whole chunk; `unwritten` is the part of it never written to (not resident).
  struct Memory {
    size_t held;
    size_t unwritten;
  };
  Memory memory() const;

  static Ticks now();  // CLOCK_MONOTONIC nanoseconds

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace jfrbpf::jfr
