#include "userspace/view/recording_digest.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "formats/convert/profile_builder.h"
#include "formats/convert/saturating.h"
#include "formats/jfr/reader/chunk.h"
#include "formats/jfr/reader/recording.h"
#include "userspace/view/method_stats.h"

namespace jfrbpf::view {
namespace {

using jfr::reader::RecordedEvent;
using jfr::reader::TypeInfo;

constexpr std::string_view kCpuTimeSamplesLost = "jdk.CPUTimeSamplesLost";
constexpr std::string_view kSampleLoss = "jfrbpf.SampleLoss";
constexpr std::string_view kNote = "jfrbpf.Note";
constexpr std::string_view kMethodTiming = "jdk.MethodTiming";
constexpr std::string_view kMethodTrace = "jdk.MethodTrace";
constexpr std::string_view kJvmInformation = "jdk.JVMInformation";
constexpr std::string_view kThreadCpuTime = "jfrbpf.ThreadCPUTime";

bool wantedHere(const TypeInfo& type) {
  return type.name == kCpuTimeSamplesLost || type.name == kSampleLoss || type.name == kNote ||
         type.name == kMethodTiming || type.name == kMethodTrace || type.name == kJvmInformation ||
         type.name == kThreadCpuTime || type.name == convert::kOffCpuSamplesLostEvent;
}

std::string firstLine(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

void addThreadTime(std::map<int64_t, int64_t>& totals, int64_t osThreadId, std::optional<int64_t> nanos) {
  if (!nanos || *nanos < 0) return;  // 0 is a figure too: an idle thread's CPU time
  int64_t& total = totals[osThreadId];
  total = convert::saturatingAdd(total, *nanos);
}

class DigestBuilder {
 public:
  DigestBuilder(RecordingDigest& digest, const jfr::reader::Recording& recording, const DigestOptions& options)
      : digest_(digest),
        options_(options),
        samples_(recording, options.samples),
        offCpu_(recording, options.samples.filter, convert::TimeKind::kOffCpu),
        allocation_(recording, options.samples.filter),
        locks_{convert::LockCollector(recording, options.samples.filter, convert::LockKind::kBlocked),
               convert::LockCollector(recording, options.samples.filter, convert::LockKind::kWait),
               convert::LockCollector(recording, options.samples.filter, convert::LockKind::kPark)},
        tables_(options.samples.filter, 0, 1'000'000'000),
        lossThreads_(options.samples.filter, 0, 1) {}

  bool wants(const TypeInfo& type) const {
    return samples_.wants(type) || offCpu_.wants(type) || allocation_.wants(type) ||
           convert::lockKindOf(type.name).has_value() || wantedHere(type);
  }

  void beginChunk(const jfr::reader::Chunk& chunk) {
    samples_.beginChunk(chunk);
    offCpu_.beginChunk(chunk);
    allocation_.beginChunk(chunk);
    for (convert::LockCollector& locks : locks_) locks.beginChunk(chunk);
    tables_.beginChunk();
    lossThreads_.beginChunk();
    if (chunk.metadata().byName(kSampleLoss)) digest_.writtenByJfrbpf = true;
  }

  void add(const RecordedEvent& event) {
    const std::string& name = event.type().name;
    // The samples take jfrbpf.OffCPUSample, jdk.ObjectAllocationSample or a lock event too when it is asked
    // for as the sample event (--event).
    const bool sample = samples_.wants(event.type()), offCpu = offCpu_.wants(event.type()),
               allocation = allocation_.wants(event.type());
    convert::LockCollector* locks = lockCollector(event.type());
    if (sample) samples_.add(event);
    if (offCpu) offCpu_.add(event);
    if (allocation) allocation_.add(event);
    if (locks) locks->add(event);
    if (sample || offCpu || allocation || locks) {
      return;
    } else if (name == kSampleLoss || name == kCpuTimeSamplesLost) {
      addLoss(event, name == kSampleLoss);
    } else if (name == convert::kOffCpuSamplesLostEvent) {
      addOffCpuLoss(event);
    } else if (name == kNote) {
      digest_.notes.push_back(Note{std::string(event.getString("severity")), std::string(event.getString("message"))});
    } else if (name == kMethodTiming) {
      addTiming(event);
    } else if (name == kMethodTrace) {
      addTrace(event);
    } else if (name == kThreadCpuTime) {
      if (auto thread = jfr::reader::threadOf(event)) {
        addThreadTime(digest_.kernelCpuNanos, thread->osThreadId, event.timespanNanos("cpuTime"));
        addThreadTime(digest_.kernelWallNanos, thread->osThreadId, event.timespanNanos("wallTime"));
      }
    } else if (name == kJvmInformation) {
      digest_.jvmName = firstLine(event.getString("jvmName"));
      digest_.jvmVersion = firstLine(event.getString("jvmVersion"));
      digest_.javaArguments = firstLine(event.getString("javaArguments"));
      digest_.pid = event.getLong("pid");
    }
  }

  void finish() {
    digest_.profile = samples_.finish();
    digest_.sampleEvents = samples_.eventCounts();
    // The loss ledger: jfrbpf.SampleLoss when the recording has it, since it covers every cause.
    std::vector<LossRecord> chosen = digest_.writtenByJfrbpf ? std::move(sampleLosses_) : std::move(jdkLosses_);
    digest_.losses = std::move(chosen);
    digest_.lossThreads = lossThreads_.finish().threads;
    digest_.offCpu.profile = offCpu_.finish();
    digest_.offCpu.states = offCpu_.states();
    digest_.offCpu.eventsSeen = offCpu_.offCpuEventsSeen();
    digest_.allocation.profile = allocation_.finish();
    digest_.allocation.eventsSeen = allocation_.eventsSeen();
    for (size_t kind = 0; kind < locks_.size(); ++kind) {
      LockKindDigest& locks = digest_.locks.kinds[kind];
      locks.profile = locks_[kind].finish();
      locks.owners = locks_[kind].owners();
      locks.eventsSeen = locks_[kind].eventsSeen();
    }
    digest_.timings.reserve(timings_.size());
    for (auto& [method, row] : timings_) digest_.timings.push_back(row);
    digest_.tables = tables_.finish();
  }

 private:
  // The collector of a lock event's kind; null for other events.
  convert::LockCollector* lockCollector(const TypeInfo& type) {
    auto kind = convert::lockKindOf(type.name);
    return kind ? &locks_[static_cast<size_t>(*kind)] : nullptr;
  }

  // A loss event's thread and count, or nullopt when the thread filter leaves it out.
  std::optional<LossRecord> lossRecord(const RecordedEvent& event) {
    LossRecord record;
    auto thread = jfr::reader::threadOf(event);
    if (thread) {
      uint32_t index = lossThreads_.thread(thread);
      if (!lossThreads_.threadSelected(index)) return std::nullopt;
      record.thread = index;
    } else if (!options_.samples.filter.thread.empty()) {
      return std::nullopt;
    }
    record.lostSamples = std::max<int64_t>(0, event.getLong("lostSamples"));  // counts; negative is corrupt
    return record;
  }

  void addOffCpuLoss(const RecordedEvent& event) {
    auto record = lossRecord(event);
    if (!record) return;
    record->lostNanos = convert::sampleNanos(event.timespanNanos("lostTime"));
    digest_.offCpu.losses.push_back(std::move(*record));
  }

  void addLoss(const RecordedEvent& event, bool jfrbpfLedger) {
    auto found = lossRecord(event);
    if (!found) return;
    LossRecord& record = *found;
    if (jfrbpfLedger) {
      record.cause = std::string(event.getString("cause"));
      if (record.cause.empty()) record.cause = "unknown";
      sampleLosses_.push_back(std::move(record));
    } else {
      record.cause = kJdkLossCause;
      jdkLosses_.push_back(std::move(record));
    }
  }

  bool methodSelected(uint32_t method) {
    const std::string& wanted = options_.samples.filter.method;
    return wanted.empty() || tables_.profile().methods[method].name.find(wanted) != std::string::npos;
  }

  void addTiming(const RecordedEvent& event) {
    uint32_t method = tables_.javaMethod(event.getObject("method"));
    if (!methodSelected(method)) return;
    MethodTimingRow row;
    row.method = method;
    row.invocations = event.getLong("invocations");
    row.minimumNanos = event.timespanNanos("minimum").value_or(INT64_MIN);
    row.averageNanos = event.timespanNanos("average").value_or(INT64_MIN);
    row.maximumNanos = event.timespanNanos("maximum").value_or(INT64_MIN);
    row.timeNanos = event.startTimeNanos();
    // Values are cumulative since timing began: the latest event per method holds the totals.
    auto [it, inserted] = timings_.try_emplace(method, row);
    if (!inserted && row.timeNanos >= it->second.timeNanos) it->second = row;
  }

  void addTrace(const RecordedEvent& event) {
    uint32_t thread = tables_.thread(jfr::reader::threadOf(event));
    if (!tables_.threadSelected(thread)) return;
    uint32_t method = tables_.javaMethod(event.getObject("method"));
    if (!methodSelected(method)) return;
    digest_.traces.push_back(MethodTraceRecord{event.startTimeNanos(), std::max<int64_t>(0, event.durationNanos()),
                                               thread, method, tables_.stack(event.get("stackTrace"))});
  }

  RecordingDigest& digest_;
  const DigestOptions& options_;
  convert::SampleCollector samples_;
  convert::OffCpuCollector offCpu_;
  convert::AllocationCollector allocation_;
  std::array<convert::LockCollector, convert::kLockKinds.size()> locks_;  // by convert::LockKind
  convert::ProfileBuilder tables_;       // names and stacks of timed and traced methods
  convert::ProfileBuilder lossThreads_;  // threads named by loss events
  std::vector<LossRecord> sampleLosses_;
  std::vector<LossRecord> jdkLosses_;
  std::unordered_map<uint32_t, MethodTimingRow> timings_;
};

}  // namespace

LossTotals lossTotals(const std::vector<LossRecord>& losses) {
  LossTotals sum;
  for (const LossRecord& loss : losses) {
    sum.samples = convert::saturatingAdd(sum.samples, loss.lostSamples);
    sum.nanos = convert::saturatingAdd(sum.nanos, loss.lostNanos);
  }
  return sum;
}

std::map<std::string, LossTotals> lossesByThread(const std::vector<LossRecord>& losses,
                                                 const std::vector<convert::ProfileThread>& threads) {
  std::map<std::string, LossTotals> out;
  for (const LossRecord& loss : losses) {
    if (loss.thread < 0) continue;
    LossTotals& sum = out[threadKey(threads[static_cast<size_t>(loss.thread)])];
    sum.samples = convert::saturatingAdd(sum.samples, loss.lostSamples);
    sum.nanos = convert::saturatingAdd(sum.nanos, loss.lostNanos);
  }
  return out;
}

uint64_t LockDigest::eventsSeen() const {
  uint64_t sum = 0;
  for (const LockKindDigest& kind : kinds) sum += kind.eventsSeen;
  return sum;
}

int64_t RecordingDigest::totalLost() const { return lossTotals(losses).samples; }

RecordingDigest digestRecording(const std::string& path, const DigestOptions& options) {
  return digestRecording(jfr::reader::Recording::open(path), options);
}

RecordingDigest digestRecording(const jfr::reader::Recording& recording, const DigestOptions& options) {
  RecordingDigest digest;
  digest.path = recording.name();
  digest.fileBytes = recording.bytes().size();
  digest.chunks = recording.chunks().size();
  DigestBuilder builder(digest, recording, options);
  convert::collect(recording, builder);
  digest.startNanos = digest.profile.recordingStartNanos;
  digest.endNanos = digest.profile.recordingEndNanos;
  return digest;
}

}  // namespace jfrbpf::view
