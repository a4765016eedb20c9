#include "userspace/record/sources/method_timing_source.h"

#include "base/number_text.h"
#include "formats/jfr/writer/durations.h"
#include "userspace/timing/method_timing_writer.h"

namespace jfrbpf::record {
namespace {

class MethodTimingOutput : public SourceWriter {
 public:
  MethodTimingOutput(const OutputParts& output, const timing::MethodTimingOptions& options, MethodTimingReport& counts)
      : output_(output),
        periodNs_(options.timingPeriodNs),
        counts_(counts),
        writer_(
            output.out,
            [threads = &output.threads](const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) {
              ResolvedStack stack = threads->stackOf(record);
              frames.assign(stack.frames.begin(), stack.frames.end());
              return stack.truncated();
            },
            [threads = &output.threads](const jfrbpf_sample_record& record) { return threads->of(record); },
            [contexts = &output.contexts](const jfrbpf_sample_record& record) { return contexts->of(record); }),
        nextBatch_(periodNs_ > 0 ? jfr::Recording::now() + periodNs_ : INT64_MAX) {}

  bool takesTrace(uint32_t hookIndex) const override { return (hookIndex & JFRBPF_HOOK_TRACED) != 0; }
  void onTrace(const void* data, size_t size) override { writer_.onTrace(data, size); }
  void addJvm(pid_t pid, const jvm::JavaModel& model) override { writer_.addJvm(pid, model); }
  void afterTraces() override {
    writer_.retryPending();
    count();
  }
  void periodicWork(jfr::Ticks now) override {
    output_.jvms.reportInstrumentation(now);
    if (now < nextBatch_) return;
    writeTimings(now);
    nextBatch_ = now + periodNs_;
  }
  // JFR's endChunk values, cumulative, so that each file has them.
  void endFile(jfr::Ticks now) override { writeTimings(now); }
  void drain(bool final) override {
    if (final) writer_.retryPending(/*final=*/true);
    count();
  }
  size_t pendingBytesOf(pid_t pid) const override { return writer_.pendingBytesOf(pid); }

 private:
  void writeTimings(jfr::Ticks now) {
    writer_.writeTimings(now, [this](uint32_t slot) { return output_.jvms.timingStats(slot); });
    count();
  }
  // The report adds up the outputs' writers: each adds what it wrote since it last counted (a batch's counts
  // replace the batch before).
  void count() {
    const timing::TraceCounters& traces = writer_.traceCounters();
    counts_.timedMethods += writer_.timedMethodsWritten() - counted_.timedMethods;
    counts_.timedInvocations += writer_.invocationsWritten() - counted_.timedInvocations;
    counts_.tracesWritten += traces.written - counted_.tracesWritten;
    counts_.tracesUnknown += traces.unknownMethod - counted_.tracesUnknown;
    counted_ = {writer_.timedMethodsWritten(), writer_.invocationsWritten(), traces.written, traces.unknownMethod};
  }

  struct Counted {
    size_t timedMethods = 0;
    uint64_t timedInvocations = 0;
    uint64_t tracesWritten = 0;
    uint64_t tracesUnknown = 0;
  };
  OutputParts output_;
  int64_t periodNs_;
  MethodTimingReport& counts_;
  timing::MethodTimingWriter writer_;
  jfr::Ticks nextBatch_;
  Counted counted_;
};

class MethodTimingSource final : public EventSource {
 public:
  explicit MethodTimingSource(const timing::MethodTimingOptions& options) : options_(options) {}

  void addSettings(std::vector<jfr::Setting>& settings) const override {
    if (!options_.timingFilter.empty()) {
      settings.push_back({"jdk.MethodTiming", "enabled", "true"});
      settings.push_back({"jdk.MethodTiming", "filter", options_.timingFilter});
      settings.push_back({"jdk.MethodTiming", "period",
                          options_.timingPeriodNs > 0 ? jfr::formatDuration(options_.timingPeriodNs) : "endChunk"});
    }
    if (!options_.traceFilter.empty()) {
      settings.push_back({"jdk.MethodTrace", "enabled", "true"});
      settings.push_back({"jdk.MethodTrace", "filter", options_.traceFilter});
      settings.push_back({"jdk.MethodTrace", "threshold", jfr::formatDuration(options_.traceThresholdNs)});
      settings.push_back({"jdk.MethodTrace", "stackTrace", "true"});
    }
  }

  // Traces come through the trace probe's ring; timing alone needs nothing of the kernel.
  void configureKernel(SamplerConfig& sampler) const override {
    if (!options_.traceFilter.empty()) sampler.methodTraces = true;
  }

  bool asksAgents() const override { return true; }

  void addInstrumentation(const JvmConnection&, Instrumentation& request) const override { request.methods = options_; }

  void jvmEnded(const JvmConnection& jvm) override {
    counts_.timedJvms += jvm.timingStarted() ? 1 : 0;
    if (const timing::TimingTableView* table = jvm.timingTable()) counts_.stubCounters += table->counters();
  }

  std::unique_ptr<SourceWriter> writerFor(const OutputParts& output) override {
    return std::make_unique<MethodTimingOutput>(output, options_, counts_);
  }

  std::shared_ptr<const SourceReport> report() const override {
    return std::make_shared<MethodTimingReport>(counts_);
  }

 private:
  timing::MethodTimingOptions options_;
  MethodTimingReport counts_;
};

}  // namespace

std::string MethodTimingReport::line(const RecordSummary& whole) const {
  if (timedJvms == 0) return "";
  std::string text = "timing   " + groupThousands(timedMethods) + " method" + (timedMethods == 1 ? "" : "s") + " in " +
                     std::to_string(timedJvms) + " JVM" + (timedJvms == 1 ? "" : "s") + ", " +
                     groupThousands(timedInvocations) + " calls timed, " + groupThousands(tracesWritten) + " traces";
  const uint64_t tracesLost = whole.traceCounters[JFRBPF_TIMER_TRACES_LOST_RINGBUF_FULL] +
                              whole.traceCounters[JFRBPF_TIMER_TRACES_LOST_BUSY] + tracesUnknown;
  if (stubCounters.badSlot > 0 || tracesLost > 0) {
    text += "\n           not timed: " + groupThousands(stubCounters.badSlot) +
            " outside this JVM's slots; traces lost: " + groupThousands(tracesLost);
  }
  return text;
}

std::unique_ptr<EventSource> methodTimingSource(const timing::MethodTimingOptions& options) {
  return std::make_unique<MethodTimingSource>(options);
}

}  // namespace jfrbpf::record
