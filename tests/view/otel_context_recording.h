#pragma once
// Test helper: recordings that say which process they are of and which OpenTelemetry contexts their samples
// were taken in, whose numbers are known exactly, written with jfrbpf's own JFR writer as jfrbpf record
// writes them (jfrbpf.ProcessContext, the context fields of jdk.CPUTimeSample) or as the JDK does
// (jdk.JVMInformation).
#include <cstdint>
#include <string>

namespace jfrbpf::test {

// What writeOtelContextRecording puts in the file: CPU samples of 10 ms, Work.handle(int) under Work.serve().
struct OtelContextRecordingFacts {
  static constexpr int64_t kPeriodNanos = 10'000'000;
  // The process context, published twice: the second, which the file keeps last, is the one that counts.
  static constexpr int64_t kPid = 4242;
  static constexpr const char* kServiceName = "checkout";
  static constexpr const char* kResource =
      "service.name=checkout, service.version=1.4.2, host.name=node-7, container.id=3f2a9c41d0e5, "
      "process.executable.name=java, process.command_args=[java, -jar, checkout.jar]";
  static constexpr const char* kEarlierResource = "service.name=starting";
  // http-exec-1 (tid 5001, Java id 31): 20 samples in trace A span A1 and 10 in trace A span A2, both
  // "http.route=/checkout, http.method=POST", in the first chunk;
  // http-exec-2 (tid 5002, Java id 32): 15 samples outside any context, then 5 in trace B span B1,
  // "http.route=/cart", in the second chunk.
  static constexpr uint64_t kTraceAHi = 0x0af7651916cd43ddULL, kTraceALo = 0x8448eb211c80319cULL;
  static constexpr uint64_t kSpanA1 = 0xb7ad6b7169203331ULL, kSpanA2 = 0x00f067aa0ba902b7ULL;
  static constexpr uint64_t kTraceBHi = 0x4bf92f3577b34da6ULL, kTraceBLo = 0xa3ce929d0e0e4736ULL;
  static constexpr uint64_t kSpanB1 = 0x53995c3f42cd8ad8ULL;
  static constexpr const char* kCheckoutAttributes = "http.route=/checkout, http.method=POST";
  static constexpr const char* kCartAttributes = "http.route=/cart";
  static constexpr uint64_t kA1Samples = 20, kA2Samples = 10, kNoContextSamples = 15, kB1Samples = 5;
  static constexpr uint64_t kSamples = kA1Samples + kA2Samples + kNoContextSamples + kB1Samples;
};

// Writes the recording in two chunks.
OtelContextRecordingFacts writeOtelContextRecording(const std::string& path);

// What writeJvmInformationRecording puts in the file: jdk.JVMInformation as the JDK writes it, and 3 CPU
// samples of main (tid 7001) in Main.main(String[]).
struct JvmInformationRecordingFacts {
  static constexpr int64_t kPid = 777;
  static constexpr const char* kJavaArguments = "com.example.Main --port 8080";
  static constexpr const char* kMainClass = "com.example.Main";
  static constexpr uint64_t kSamples = 3;
};

JvmInformationRecordingFacts writeJvmInformationRecording(const std::string& path);

}  // namespace jfrbpf::test
