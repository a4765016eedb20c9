// threads and lost.
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

// Loss events and samples name threads in separate tables: join them by identity.
std::string threadKey(const convert::ProfileThread& t) {
  return std::to_string(t.osThreadId) + '/' + std::to_string(t.javaThreadId) + '/' + t.name;
}

std::map<std::string, int64_t> lostByThreadKey(const RecordingDigest& digest) {
  std::map<std::string, int64_t> lost;
  for (const LossRecord& loss : digest.losses) {
    if (loss.thread < 0) continue;
    int64_t& sum = lost[threadKey(digest.lossThreads[static_cast<size_t>(loss.thread)])];
    sum = convert::saturatingAdd(sum, loss.lostSamples);
  }
  return lost;
}

bool lossesApply(const RecordingDigest& digest) {
  return digest.profile.eventName == convert::kCpuTimeSampleEvent || !digest.losses.empty();
}

}  // namespace

std::string threadsView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  if (profile.totalSamples == 0) return "\nNo CPU samples in " + digest.path + " match the filters.\n";
  std::map<std::string, int64_t> lost = lostByThreadKey(digest);
  bool showLost = lossesApply(digest);
  std::vector<TextTable::Column> columns = {{"Thread"},
                                            {"TID", Align::kRight},
                                            {"Samples", Align::kRight},
                                            {"Percent", Align::kRight},
                                            {"CPU Time", Align::kRight}};
  // jfrbpf writes each thread's CPU time as the kernel accounted it: the truth the samples can be held to.
  const bool showKernel = !digest.kernelCpuNanos.empty();
  if (showKernel) columns.push_back({"Kernel CPU", Align::kRight});
  if (showLost) columns.push_back({"Lost", Align::kRight});
  columns.push_back({"Hottest Method (self)"});
  TextTable table("CPU Time by Thread (" + profile.eventName + ")", columns);
  std::vector<ThreadStat> stats = threadStats(profile);
  for (size_t i = 0; i < stats.size() && i < options.top; ++i) {
    const ThreadStat& s = stats[i];
    const convert::ProfileThread& t = profile.threads[s.thread];
    std::vector<std::string> row = {t.name, t.osThreadId ? std::to_string(t.osThreadId) : "", groupThousands(s.samples),
                                    percent(sharePercent(profile, s.samples, s.cpuNanos), 100.0),
                                    profile.cpuTimeKnown ? humanDuration(s.cpuNanos) : "N/A"};
    if (showKernel) {
      auto kernel = digest.kernelCpuNanos.find(t.osThreadId);
      row.push_back(kernel == digest.kernelCpuNanos.end() ? "-" : humanDuration(kernel->second));
    }
    if (showLost) {
      auto it = lost.find(threadKey(t));
      row.push_back(groupThousands(it == lost.end() ? 0 : static_cast<uint64_t>(std::max<int64_t>(0, it->second))));
    }
    row.push_back(profile.methods[s.hottestMethod].name);
    table.addRow(std::move(row));
  }
  std::string out = table.render(options.width);
  if (stats.size() > options.top) {
    out += "(" + std::to_string(stats.size() - options.top) + " more threads; use --top N)\n";
  }
  return out;
}

std::string lostView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  int64_t lost = digest.totalLost();
  if (!lossesApply(digest)) {
    return "\nNo lost-sample accounting in " + digest.path +
           ": only CPU-time sampling (jdk.CPUTimeSample, by jfrbpf or JDK 25) counts lost samples.\n";
  }
  uint64_t samples = profile.eventName == convert::kCpuTimeSampleEvent ? profile.totalSamples : 0;
  auto observed = static_cast<double>(samples) + static_cast<double>(lost);
  std::string out = heading("Lost Samples");
  out += formLine("Recorded samples", groupThousands(samples), options.width);
  out += formLine("Lost samples",
                  groupThousands(static_cast<uint64_t>(lost)) + " (" + percent(static_cast<double>(lost), observed) +
                      " of " + groupThousands(static_cast<uint64_t>(observed)) + " taken)",
                  options.width);
  out += formLine("Ledger",
                  digest.writtenByJfrbpf ? "jfrbpf.SampleLoss (every cause, per thread where known)"
                                         : "jdk.CPUTimeSamplesLost (per thread; the JVM records no cause)",
                  options.width);
  if (lost == 0) return out;

  std::map<std::string, int64_t> byCause;
  for (const LossRecord& loss : digest.losses) {
    byCause[loss.cause] = convert::saturatingAdd(byCause[loss.cause], loss.lostSamples);
  }
  std::vector<std::pair<std::string, int64_t>> causes(byCause.begin(), byCause.end());
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  TextTable byCauseTable("Lost Samples by Cause",
                         {{"Cause"}, {"Lost", Align::kRight}, {"Percent of Lost", Align::kRight}});
  for (const auto& [cause, count] : causes) {
    byCauseTable.addRow({cause, groupThousands(static_cast<uint64_t>(std::max<int64_t>(0, count))),
                         percent(static_cast<double>(count), static_cast<double>(lost))});
  }
  out += byCauseTable.render(options.width);

  // Per thread: what was recorded next to what was lost.
  std::map<std::string, uint64_t> samplesByThread;
  for (const ThreadStat& s : threadStats(profile)) samplesByThread[threadKey(profile.threads[s.thread])] = s.samples;
  struct Row {
    std::string name;
    int64_t tid;
    int64_t lost;
    uint64_t samples;
  };
  std::vector<Row> rows;
  int64_t unattributed = 0;
  std::map<std::string, size_t> rowOf;
  for (const LossRecord& loss : digest.losses) {
    if (loss.thread < 0) {
      unattributed = convert::saturatingAdd(unattributed, loss.lostSamples);
      continue;
    }
    const convert::ProfileThread& t = digest.lossThreads[static_cast<size_t>(loss.thread)];
    auto [it, inserted] = rowOf.try_emplace(threadKey(t), rows.size());
    if (inserted) rows.push_back(Row{t.name, t.osThreadId, 0, samplesByThread[threadKey(t)]});
    rows[it->second].lost = convert::saturatingAdd(rows[it->second].lost, loss.lostSamples);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.lost > b.lost; });
  TextTable byThread("Lost Samples by Thread", {{"Thread"},
                                                {"TID", Align::kRight},
                                                {"Recorded", Align::kRight},
                                                {"Lost", Align::kRight},
                                                {"Lost %", Align::kRight}});
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    const Row& r = rows[i];
    byThread.addRow(
        {r.name, r.tid ? std::to_string(r.tid) : "", groupThousands(r.samples),
         groupThousands(static_cast<uint64_t>(std::max<int64_t>(0, r.lost))),
         percent(static_cast<double>(r.lost), static_cast<double>(r.samples) + static_cast<double>(r.lost))});
  }
  if (unattributed > 0) {
    byThread.addRow(
        {"(not attributable to a thread)", "", "", groupThousands(static_cast<uint64_t>(unattributed)), ""});
  }
  out += byThread.render(options.width);
  return out;
}

}  // namespace jfrbpf::view
