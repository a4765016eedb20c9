// summary: what the recording is, how much it holds, what was lost, and where the time went.
#include <algorithm>
#include <map>

#include "formats/convert/saturating.h"
#include "userspace/view/method_stats.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"

namespace jfrbpf::view {
namespace {

using Align = TextTable::Align;
constexpr size_t kSummaryRows = 10;

void field(std::string& out, std::string_view label, const std::string& value, size_t width) {
  out += formLine(label, value, width);
}

std::string sampleLine(const RecordingDigest& digest) {
  const convert::Profile& p = digest.profile;
  std::string line = groupThousands(p.totalSamples);
  if (p.cpuTimeKnown && p.settingPeriodNanos > 0) {
    line += ", about " + humanDuration(p.totalCpuNanos) + " of CPU time (one sample per " +
            humanDuration(p.settingPeriodNanos) + " period)";
  } else if (p.cpuTimeKnown) {
    line += ", " + humanDuration(p.totalCpuNanos) + " of CPU time";
  }
  std::vector<std::string> details;
  if (p.failedSamples) details.push_back(groupThousands(p.failedSamples) + " without stack trace");
  if (p.biasedSamples) details.push_back(groupThousands(p.biasedSamples) + " safepoint-biased");
  if (p.truncatedSamples) details.push_back(groupThousands(p.truncatedSamples) + " truncated stacks");
  for (size_t i = 0; i < details.size(); ++i) line += (i == 0 ? " (" : ", ") + details[i];
  if (!details.empty()) line += ")";
  return line;
}

std::string lostLine(const RecordingDigest& digest) {
  int64_t lost = digest.totalLost();
  if (lost == 0) return "0";
  std::map<std::string, int64_t> byCause;
  for (const LossRecord& loss : digest.losses) {
    byCause[loss.cause] = convert::saturatingAdd(byCause[loss.cause], loss.lostSamples);
  }
  std::string line = lostShare(lost, digest.profile.totalSamples);
  std::string separator = ": ";
  for (const auto& [cause, count] : byCause) {
    line += separator + cause + " " + groupThousands(static_cast<uint64_t>(std::max<int64_t>(0, count)));
    separator = ", ";
  }
  return line;
}

}  // namespace

std::string summaryView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  std::string out = heading("Recording Summary");
  field(out, "File",
        digest.path + " (" + std::to_string(digest.chunks) + (digest.chunks == 1 ? " chunk, " : " chunks, ") +
            humanBytes(digest.fileBytes) + ", written by " + (digest.writtenByJfrbpf ? "jfrbpf" : "the JDK") + ")",
        options.width);
  field(out, "Start", localDateTime(digest.startNanos), options.width);
  field(out, "Duration",
        humanDuration(std::max<int64_t>(0, convert::saturatingSub(digest.endNanos, digest.startNanos))), options.width);
  if (!digest.jvmName.empty() || !digest.jvmVersion.empty()) {
    // The JDK's jvmVersion usually repeats jvmName: "OpenJDK 64-Bit Server VM (25.0.3+9-LTS) for linux-amd64 …".
    std::string jvm = digest.jvmVersion.starts_with(digest.jvmName)
                          ? digest.jvmVersion
                          : digest.jvmName + (digest.jvmVersion.empty() ? "" : " " + digest.jvmVersion);
    if (digest.pid) jvm += " (pid " + std::to_string(digest.pid) + ")";
    field(out, "JVM", jvm, options.width);
  }
  if (!digest.javaArguments.empty()) field(out, "Java command", digest.javaArguments, options.width);

  std::string events =
      profile.eventName.empty() ? "none (no jdk.CPUTimeSample or jdk.ExecutionSample events)" : profile.eventName;
  std::string others;
  for (const auto& [name, count] : digest.sampleEvents) {
    if (name != profile.eventName) others += (others.empty() ? "; also " : ", ") + groupThousands(count) + " " + name;
  }
  field(out, "Sample event", events + others, options.width);
  field(out, "Samples", sampleLine(digest), options.width);
  if (profile.eventName == convert::kCpuTimeSampleEvent || digest.totalLost() > 0) {
    field(out, "Lost samples", lostLine(digest), options.width);
  }
  if (digest.offCpu.present()) {
    field(out, "Off-CPU samples", offCpuSamplesLine(digest), options.width);
    field(out, "Lost off-CPU", offCpuLostLine(digest), options.width);
  }
  if (digest.allocation.eventsSeen > 0) field(out, "Alloc samples", allocationSamplesLine(digest), options.width);
  if (digest.locks.eventsSeen() > 0) field(out, "Lock waits", lockEventsLine(digest), options.width);
  std::vector<ThreadStat> threads = threadStats(profile);
  std::string threadLine = std::to_string(threads.size()) + " with samples";
  if (!threads.empty()) {
    const ThreadStat& busiest = threads.front();
    threadLine += "; busiest " + threadLabel(profile.threads[busiest.thread]) + " " +
                  percent(static_cast<double>(busiest.samples), static_cast<double>(profile.totalSamples));
  }
  field(out, "Threads", threadLine, options.width);
  if (!digest.timings.empty()) field(out, "Timed methods", std::to_string(digest.timings.size()), options.width);
  if (!digest.traces.empty()) field(out, "Method traces", groupThousands(digest.traces.size()), options.width);

  if (profile.totalSamples > 0) {
    size_t rows = std::min(options.top, kSummaryRows);
    auto total = static_cast<double>(profile.totalSamples);
    std::vector<MethodStat> stats = methodStats(profile);
    TextTable self("Top Methods by Self Samples (top frame)",
                   {{"Method"}, {"Samples", Align::kRight}, {"Percent", Align::kRight}});
    for (size_t i = 0; i < stats.size() && i < rows && stats[i].selfSamples > 0; ++i) {
      self.addRow({profile.methods[stats[i].method].name, groupThousands(stats[i].selfSamples),
                   percent(static_cast<double>(stats[i].selfSamples), total)});
    }
    out += self.render(options.width);
    std::stable_sort(stats.begin(), stats.end(),
                     [](const MethodStat& a, const MethodStat& b) { return a.totalSamples > b.totalSamples; });
    // Thread entry code (start_thread, the interpreter, call stubs) is under nearly every sample: the Java
    // methods say more, where there are any.
    bool javaOnly =
        std::any_of(stats.begin(), stats.end(), [&](const MethodStat& s) { return profile.methods[s.method].java; });
    TextTable inclusive(javaOnly ? "Top Java Methods by Total Samples (anywhere on the stack)"
                                 : "Top Methods by Total Samples (anywhere on the stack)",
                        {{"Method"}, {"Samples", Align::kRight}, {"Percent", Align::kRight}});
    size_t shown = 0;
    for (size_t i = 0; i < stats.size() && shown < rows; ++i) {
      if (javaOnly && !profile.methods[stats[i].method].java) continue;
      inclusive.addRow({profile.methods[stats[i].method].name, groupThousands(stats[i].totalSamples),
                        percent(static_cast<double>(stats[i].totalSamples), total)});
      ++shown;
    }
    out += inclusive.render(options.width);
  }
  if (!digest.notes.empty()) {
    out += heading("Notes from the Recorder");
    for (const Note& note : digest.notes) out += fitWidth(note.severity + ": " + note.message, options.width) + "\n";
  }
  return out;
}

const std::vector<ViewInfo>& allViews() {
  static const std::vector<ViewInfo> views = {
      {"summary", "the recording, samples, losses, threads and the hottest methods", summaryView},
      {"hot-methods", "methods by self and total samples", hotMethodsView},
      {"cpu-time-hot-methods", "jdk.CPUTimeSample counted by top frame, as JDK 25's view", cpuTimeHotMethodsView},
      {"method-timing", "jdk.MethodTiming: invocations, minimum, average, maximum", methodTimingView},
      {"method-traces", "jdk.MethodTrace: time per traced method and the longest calls with stacks", methodTracesView},
      {"threads", "samples and CPU time per thread", threadsView},
      {"contexts", "CPU time by OpenTelemetry context: by each attribute's values, and by trace", contextsView},
      {"lost", "lost samples by cause and by thread, off-CPU samples too", lostView},
      {"off-cpu", "where threads waited: off-CPU time by method, kernel function, state, thread", offCpuView},
      {"allocation", "what threads allocated: bytes by class, allocation site, thread", allocationView},
      {"locks", "where threads waited for locks: time by class, site, thread, owner", locksView},
  };
  return views;
}

}  // namespace jfrbpf::view
