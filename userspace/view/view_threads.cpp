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

bool lossesApply(const RecordingDigest& digest) {
  return digest.profile.eventName == convert::kCpuTimeSampleEvent || !digest.losses.empty();
}

// The rows of the threads table: each platform thread's, and one for all virtual threads (their carriers'
// own samples stay on the carriers' rows), in the order of threadStats.
std::vector<ThreadStat> threadRows(const convert::Profile& profile, size_t& virtualThreads) {
  std::vector<ThreadStat> rows = threadStats(profile);
  std::erase_if(rows, [&](const ThreadStat& s) { return profile.threads[s.thread].isVirtual; });
  VirtualThreadsStat all = virtualThreadsStat(profile);
  virtualThreads = all.threads;
  if (all.threads == 0) return rows;
  const bool byTime = profile.cpuTimeKnown;
  auto before = std::find_if(rows.begin(), rows.end(), [&](const ThreadStat& s) {
    return byTime && s.cpuNanos != all.stat.cpuNanos ? s.cpuNanos < all.stat.cpuNanos : s.samples < all.stat.samples;
  });
  rows.insert(before, all.stat);
  return rows;
}

}  // namespace

std::string threadsView(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  if (profile.totalSamples == 0) return "\nNo CPU samples in " + digest.path + " match the filters.\n";
  // Loss events and samples name threads in separate tables: joined by identity.
  std::map<std::string, LossTotals> lost = lossesByThread(digest.losses, digest.lossThreads);
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
  size_t virtualThreads = 0;
  std::vector<ThreadStat> stats = threadRows(profile, virtualThreads);
  for (size_t i = 0; i < stats.size() && i < options.top; ++i) {
    const ThreadStat& s = stats[i];
    const std::vector<std::string> shares = {groupThousands(s.samples),
                                             percent(sharePercent(profile, s.samples, s.cpuNanos), 100.0),
                                             profile.cpuTimeKnown ? humanDuration(s.cpuNanos) : "N/A"};
    if (s.thread == kAllVirtualThreads) {
      // No OS thread of its own: the kernel's CPU time and the losses are the carriers'.
      std::vector<std::string> row = {"virtual threads (" + groupThousands(virtualThreads) + ")", ""};
      row.insert(row.end(), shares.begin(), shares.end());
      if (showKernel) row.push_back("-");
      if (showLost) row.push_back("-");
      row.push_back(profile.methods[s.hottestMethod].name);
      table.addRow(std::move(row));
      continue;
    }
    const convert::ProfileThread& t = profile.threads[s.thread];
    std::vector<std::string> row = {t.name, t.osThreadId ? std::to_string(t.osThreadId) : ""};
    row.insert(row.end(), shares.begin(), shares.end());
    if (showKernel) {
      auto kernel = digest.kernelCpuNanos.find(t.osThreadId);
      row.push_back(kernel == digest.kernelCpuNanos.end() ? "-" : humanDuration(kernel->second));
    }
    if (showLost) {
      auto it = lost.find(threadKey(t));
      row.push_back(groupThousands(it == lost.end() ? 0 : static_cast<uint64_t>(it->second.samples)));
    }
    row.push_back(profile.methods[s.hottestMethod].name);
    table.addRow(std::move(row));
  }
  std::string out = table.render(options.width);
  if (stats.size() > options.top) {
    out += "(" + std::to_string(stats.size() - options.top) + " more threads; use --top N)\n";
  }
  if (virtualThreads > 0 && showKernel) {
    out += "(the kernel counts a virtual thread's CPU time in the carrier it ran on: a carrier's Kernel CPU "
           "includes it)\n";
  }
  return out;
}

namespace {

// "10 (8.70% of 115 taken)"
std::string lostOfTaken(int64_t lost, uint64_t recorded) {
  auto taken = static_cast<double>(recorded) + static_cast<double>(lost);
  return groupThousands(static_cast<uint64_t>(lost)) + " (" + percent(static_cast<double>(lost), taken) + " of " +
         groupThousands(static_cast<uint64_t>(taken)) + " taken)";
}

// Per thread: what was recorded (in `recorded`) next to what was lost, and the time the losses stood for
// when the loss events say (`withTime`).
std::string lostByThread(const std::string& title, const std::vector<LossRecord>& losses,
                         const std::vector<convert::ProfileThread>& lossThreads, const convert::Profile& recorded,
                         bool withTime, const ViewOptions& options) {
  std::map<std::string, uint64_t> samplesByThread;
  for (const ThreadStat& s : threadStats(recorded)) samplesByThread[threadKey(recorded.threads[s.thread])] = s.samples;
  struct Row {
    const convert::ProfileThread* thread;
    LossTotals lost;
    uint64_t samples;
  };
  std::vector<Row> rows;
  LossTotals unattributed;
  std::map<std::string, size_t> rowOf;
  for (const LossRecord& loss : losses) {
    LossTotals* sum = &unattributed;
    if (loss.thread >= 0) {
      const convert::ProfileThread& t = lossThreads[static_cast<size_t>(loss.thread)];
      auto [it, inserted] = rowOf.try_emplace(threadKey(t), rows.size());
      if (inserted) rows.push_back(Row{&t, {}, samplesByThread[threadKey(t)]});
      sum = &rows[it->second].lost;
    }
    sum->samples = convert::saturatingAdd(sum->samples, loss.lostSamples);
    sum->nanos = convert::saturatingAdd(sum->nanos, loss.lostNanos);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.lost.samples > b.lost.samples; });
  std::vector<TextTable::Column> columns = {{"Thread"},
                                            {"TID", Align::kRight},
                                            {"Recorded", Align::kRight},
                                            {"Lost", Align::kRight},
                                            {"Lost %", Align::kRight}};
  if (withTime) columns.push_back({"Lost Time", Align::kRight});
  TextTable table(title, columns);
  for (size_t i = 0; i < rows.size() && i < options.top; ++i) {
    const Row& r = rows[i];
    std::vector<std::string> row = {r.thread->name, r.thread->osThreadId ? std::to_string(r.thread->osThreadId) : "",
                                    groupThousands(r.samples), groupThousands(static_cast<uint64_t>(r.lost.samples)),
                                    percent(static_cast<double>(r.lost.samples),
                                            static_cast<double>(r.samples) + static_cast<double>(r.lost.samples))};
    if (withTime) row.push_back(humanDuration(r.lost.nanos));
    table.addRow(std::move(row));
  }
  if (unattributed.samples > 0) {
    std::vector<std::string> row = {"(not attributable to a thread)", "", "",
                                    groupThousands(static_cast<uint64_t>(unattributed.samples)), ""};
    if (withTime) row.push_back(humanDuration(unattributed.nanos));
    table.addRow(std::move(row));
  }
  return table.render(options.width);
}

std::string cpuLost(const RecordingDigest& digest, const ViewOptions& options) {
  const convert::Profile& profile = digest.profile;
  int64_t lost = digest.totalLost();
  uint64_t samples = profile.eventName == convert::kCpuTimeSampleEvent ? profile.totalSamples : 0;
  std::string out = heading("Lost Samples");
  out += formLine("Recorded samples", groupThousands(samples), options.width);
  out += formLine("Lost samples", lostOfTaken(lost, samples), options.width);
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
  out += lostByThread("Lost Samples by Thread", digest.losses, digest.lossThreads, profile, false, options);
  return out;
}

std::string offCpuLost(const RecordingDigest& digest, const ViewOptions& options) {
  const OffCpuDigest& offCpu = digest.offCpu;
  LossTotals lost = lossTotals(offCpu.losses);
  std::string out = heading("Lost Off-CPU Samples");
  out += formLine("Recorded samples", groupThousands(offCpu.profile.totalSamples), options.width);
  out += formLine("Lost samples", lostOfTaken(lost.samples, offCpu.profile.totalSamples), options.width);
  out += formLine("Lost time", humanDuration(lost.nanos) + " of off-CPU time", options.width);
  out += formLine("Ledger", std::string(convert::kOffCpuSamplesLostEvent) + " (ring buffer full, per thread)",
                  options.width);
  if (lost.samples == 0) return out;
  return out + lostByThread("Lost Off-CPU Samples by Thread", offCpu.losses, digest.lossThreads, offCpu.profile, true,
                            options);
}

}  // namespace

std::string lostView(const RecordingDigest& digest, const ViewOptions& options) {
  std::string out = lossesApply(digest) ? cpuLost(digest, options)
                                        : "\nNo lost-sample accounting in " + digest.path +
                                              ": only CPU-time sampling (jdk.CPUTimeSample, by jfrbpf or JDK 25) "
                                              "counts lost samples.\n";
  if (digest.offCpu.present()) out += offCpuLost(digest, options);
  return out;
}

}  // namespace jfrbpf::view
