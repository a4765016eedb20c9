#include "userspace/record/sources/off_cpu_source.h"

#include <algorithm>
#include <cstdio>

#include "base/number_text.h"
#include "formats/jfr/writer/durations.h"
#include "jvmsupport/protocol/virtual_thread_records.h"

namespace jfrbpf::record {
namespace {

std::string_view offCpuStateName(uint16_t state) {
  switch (state) {
    case JFRBPF_OFF_CPU_SLEEPING: return "sleeping";
    case JFRBPF_OFF_CPU_UNINTERRUPTIBLE: return "uninterruptible";
    case JFRBPF_OFF_CPU_PREEMPTED: return "preempted";
    default: return "unknown";
  }
}

// Whether `jvm` may run virtual threads: JDK 19 and later (JVMTI's major version is the JDK's since JDK 9).
bool mayRunVirtualThreads(const JvmConnection& jvm) {
  const std::optional<jvm::AgentInfo>& agent = jvm.model().agent();
  return agent && ((agent->jvmtiVersion >> 16) & 0x0fff) >= 19;
}

class OffCpuWriter : public SourceWriter {
 public:
  OffCpuWriter(const OutputParts& output, OffCpuReport& counts) : output_(output), counts_(counts) {}

  uint32_t sampleFlags() const override { return JFRBPF_SAMPLE_OFF_CPU; }

  void writeSample(const jfrbpf_sample_record& record, const ResolvedStack& stack) override {
    // A carrier that waits with a virtual thread mounted (pinned, or preempted while it ran) waits for it.
    const ResolvedStack written = output_.threads.ownStack(record, stack);
    output_.truncations.count(written.end);
    const auto weight = static_cast<jfr::Ticks>(record.cpu_time_ns);
    output_.out.offCpuSample(static_cast<jfr::Ticks>(record.time_ns), static_cast<jfr::Ticks>(record.off_cpu_ns),
                             output_.threads.of(record), written.frames, written.truncated(), weight,
                             offCpuStateName(record.off_cpu_state), static_cast<jfr::Ticks>(record.run_delay_ns),
                             output_.contexts.of(record));
    ++counts_.samples;
    counts_.ns += static_cast<uint64_t>(weight);
  }

  // The waits of virtual threads the agents sent (protocol/virtual_thread_records.h): off-CPU samples of
  // those virtual threads, as the scheduler hooks' are of OS threads.
  void afterAgents(jfr::Ticks) override {
    output_.jvms.takeVirtualThreadWaits([this](pid_t pid, jvm::JavaModel::VirtualThreadWaitInfo& wait) {
      const StackEnd end = (wait.flags & protocol::kWaitStackNotTaken) != 0   ? StackEnd::kNotTaken
                           : (wait.flags & protocol::kWaitStackTruncated) != 0 ? StackEnd::kDepthLimit
                                                                                : StackEnd::kRoot;
      const ResolvedStack stack = output_.stacks.jvmWalkedStack(pid, wait.frames, wait.startTicks, end);
      output_.truncations.count(stack.end);
      // Thread.yield unmounts too: a virtual thread that yielded waits for a carrier, as a preempted thread
      // waits for a CPU.
      const jvm::JavaModel* model = output_.stacks.javaModel(pid);
      const jvm::JavaMethod* site = model != nullptr && !wait.frames.empty()
                                        ? model->methods().byId(wait.frames.front().first, wait.startTicks)
                                        : nullptr;
      const std::string_view state = site != nullptr && site->name == "tryYield" ? "yielded" : "parked";
      // The JVM names virtual threads to the agent only here: from now on, the thread's events carry it.
      if (!wait.name.empty()) output_.out.nameVirtualThread(wait.threadId, wait.name);
      output_.out.offCpuSample(static_cast<jfr::Ticks>(wait.startTicks), static_cast<jfr::Ticks>(wait.durationNs),
                               jfr::EventThread::virtualThread(wait.threadId), stack.frames, stack.truncated(),
                               static_cast<jfr::Ticks>(wait.weightNs), state, 0);
      ++counts_.samples;
      counts_.ns += wait.weightNs;
      ++counts_.virtualWaits;
      counts_.virtualWaitNs += wait.weightNs;
    });
  }

 private:
  OutputParts output_;
  OffCpuReport& counts_;
};

class OffCpuSource final : public EventSource {
 public:
  explicit OffCpuSource(const OffCpuOptions& options) : options_(options) {}

  void addSettings(std::vector<jfr::Setting>& settings) const override {
    settings.push_back({"jfrbpf.OffCPUSample", "enabled", "true"});
    settings.push_back({"jfrbpf.OffCPUSample", "throttle", jfr::formatDuration(options_.intervalNs)});
    settings.push_back({"jfrbpf.OffCPUSample", "stackTrace", "true"});
  }

  void configureKernel(SamplerConfig& sampler) const override {
    sampler.offCpu = true;
    sampler.offCpuIntervalNs = intervalNs();
  }

  bool asksAgents() const override { return true; }

  // Virtual threads wait unmounted, unseen by the scheduler hooks; the agent's hooks time those waits. A JVM
  // without them is left as it was.
  void addInstrumentation(const JvmConnection& jvm, Instrumentation& request) const override {
    if (mayRunVirtualThreads(jvm)) request.virtualWaitIntervalNs = intervalNs();
  }

  std::unique_ptr<SourceWriter> writerFor(const OutputParts& output) override {
    return std::make_unique<OffCpuWriter>(output, counts_);
  }

  std::shared_ptr<const SourceReport> report() const override { return std::make_shared<OffCpuReport>(counts_); }

 private:
  uint64_t intervalNs() const { return static_cast<uint64_t>(std::max<int64_t>(0, options_.intervalNs)); }

  OffCpuOptions options_;
  OffCpuReport counts_;
};

}  // namespace

std::string OffCpuReport::line(const RecordSummary& whole) const {
  if (samples == 0 && whole.offCpuLost == 0) return "";
  char text[256];
  std::snprintf(text, sizeof text, "off-CPU  %s samples (%.2f s of off-CPU time)", groupThousands(samples).c_str(),
                static_cast<double>(ns) / 1e9);
  std::string line = text;
  if (virtualWaits > 0) {
    std::snprintf(text, sizeof text, ", of which %s waits of virtual threads (%.2f s)",
                  groupThousands(virtualWaits).c_str(), static_cast<double>(virtualWaitNs) / 1e9);
    line += text;
  }
  if (whole.offCpuLost > 0) line += ", " + groupThousands(whole.offCpuLost) + " lost";
  return line;
}

std::unique_ptr<EventSource> offCpuSource(const OffCpuOptions& options) {
  return std::make_unique<OffCpuSource>(options);
}

}  // namespace jfrbpf::record
