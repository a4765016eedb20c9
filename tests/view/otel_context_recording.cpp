#include "tests/view/otel_context_recording.h"

#include <vector>

#include "formats/jfr/writer/recording.h"
#include "tests/view/synthetic_recording.h"

namespace jfrbpf::test {

using jfr::FrameType;
using jfr::StackFrame;

namespace {

// A thread's context in a trace, sampled or not, as jfrbpf record copies it into events.
jfr::TraceContext traceContext(uint64_t traceIdHi, uint64_t traceIdLo, uint64_t spanId, bool sampled,
                               const char* attributes) {
  jfr::TraceContext context;
  context.traceIdHi = traceIdHi;
  context.traceIdLo = traceIdLo;
  context.spanId = spanId;
  context.traceFlags = sampled ? 1 : 0;
  context.attributes = attributes;
  return context;
}

}  // namespace

OtelContextRecordingFacts writeOtelContextRecording(const std::string& path) {
  using F = OtelContextRecordingFacts;
  jfr::RecordingOptions options;
  options.path = path;
  jfr::Recording out(options);

  std::vector<StackFrame> stack = {{javaMethod(out, "Work", "handle", "(I)V"), 14, 2, FrameType::JitCompiled},
                                   {javaMethod(out, "Work", "serve", "()V"), 30, 5, FrameType::Interpreted}};
  jfr::ThreadId exec1 = out.internThread({"http-exec-1", 5001, "http-exec-1", 31, false});
  jfr::ThreadId exec2 = out.internThread({"http-exec-2", 5002, "http-exec-2", 32, false});
  const jfr::Ticks start = jfr::Recording::now();
  const jfr::Ticks ms = 1'000'000;
  out.processContext(start, F::kPid, "starting", F::kEarlierResource, "", "");
  out.processContext(start + 1 * ms, F::kPid, F::kServiceName, F::kResource, "",
                     "tls_v1: 0=http.route, 1=http.method");

  auto samples = [&](uint64_t count, jfr::ThreadId thread, jfr::Ticks from, const jfr::TraceContext& context) {
    for (uint64_t i = 0; i < count; ++i) {
      const jfr::Ticks at = from + static_cast<jfr::Ticks>(i) * 10 * ms;
      out.cpuTimeSample(at, stack, false, thread, false, F::kPeriodNanos, false, context);
    }
  };
  const jfr::TraceContext a1 = traceContext(F::kTraceAHi, F::kTraceALo, F::kSpanA1, true, F::kCheckoutAttributes);
  const jfr::TraceContext a2 = traceContext(F::kTraceAHi, F::kTraceALo, F::kSpanA2, true, F::kCheckoutAttributes);
  const jfr::TraceContext b1 = traceContext(F::kTraceBHi, F::kTraceBLo, F::kSpanB1, false, F::kCartAttributes);
  samples(F::kA1Samples, exec1, start + 10 * ms, a1);
  samples(F::kA2Samples, exec1, start + 300 * ms, a2);
  out.rotate();  // the second chunk repeats every constant it uses
  samples(F::kNoContextSamples, exec2, start + 500 * ms, {});
  samples(F::kB1Samples, exec2, start + 700 * ms, b1);
  out.close();
  return F{};
}

JvmInformationRecordingFacts writeJvmInformationRecording(const std::string& path) {
  using F = JvmInformationRecordingFacts;
  jfr::RecordingOptions options;
  options.path = path;
  options.jvm = jfr::JvmInformation{"OpenJDK 64-Bit Server VM", "17.0.9+9", "-Xmx1g", "", F::kJavaArguments,
                                    1'700'000'000'000, F::kPid};
  jfr::Recording out(options);
  std::vector<StackFrame> stack = {
      {javaMethod(out, "com/example/Main", "main", "([Ljava/lang/String;)V"), 3, 1, FrameType::Interpreted}};
  jfr::ThreadId mainThread = out.internThread({"main", 7001, "main", 1, false});
  const jfr::Ticks start = jfr::Recording::now();
  for (uint64_t i = 0; i < F::kSamples; ++i) {
    out.cpuTimeSample(start + static_cast<jfr::Ticks>(i) * 10'000'000, stack, false, mainThread, false, 10'000'000,
                      false);
  }
  out.close();
  return F{};
}

}  // namespace jfrbpf::test
