#pragma once
// Test helper: recordings written with jfrbpf's own JFR writer, with contents known exactly, as jfrbpf
// record writes them (native and kernel frames, loss ledger, notes, method timing and traces).
#include <cstdint>
#include <string>

#include "formats/jfr/writer/recording.h"

namespace jfrbpf::test {

// A public static Java method; native code: a symbol of `library` ("libc.so.6", "kernel").
jfr::MethodId javaMethod(jfr::Recording& out, const char* cls, const char* name, const char* descriptor);
jfr::MethodId nativeMethod(jfr::Recording& out, const char* library, const char* symbol);

// What writeMixedRecording puts in the file.
struct MixedRecordingFacts {
  // main (tid 1001): 60 samples Work.main -> Work.compute -> Work.hot, all in the first half second,
  //                  plus 5 failed samples without a stack;
  // worker-1 (tid 1002, OS name wkr-1): 30 samples in FileInputStream.readBytes -> libjava -> libc read -> kernel
  //                  (with an xfs module frame), all in the second half;
  // gc-thread (tid 1003, not a Java thread): 10 samples memcpy (libc.so.6) under libjvm.so frames.
  static constexpr uint64_t kMainSamples = 60, kFailedSamples = 5, kWorkerSamples = 30, kGcSamples = 10;
  static constexpr uint64_t kTotalSamples = kMainSamples + kFailedSamples + kWorkerSamples + kGcSamples;
  static constexpr int64_t kPeriodNanos = 10'000'000;
  // Losses: main 3 ("ring buffer full", also as jdk.CPUTimeSamplesLost), 7 "kernel throttling" without thread.
  static constexpr int64_t kLostMain = 3, kLostThrottling = 7;
  static constexpr const char* kNote = "frames of 1 library could not be symbolized";
  // Method timing: Work.compute(int) 1000 invocations, 0.15 / 0.2 / 5 ms; Work.never() 0 invocations, N/A.
  // Method traces of Work.compute(int): 12 ms, 3 ms, 1 ms, called from Work.main(String[]) line 7.
};

// Writes the recording in two chunks.
MixedRecordingFacts writeMixedRecording(const std::string& path);

}  // namespace jfrbpf::test
