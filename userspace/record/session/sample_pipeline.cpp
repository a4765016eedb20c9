#include "userspace/record/session/sample_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bpf/method_timer_abi.h"
#include "userspace/record/output/thread_contexts.h"

namespace jfrbpf::record {
namespace {

// How often the consumer drains the rings when nothing wakes it (the BPF side only does when they fill up).
constexpr int kPollTimeoutMs = 50;
constexpr jfr::Ticks kPeriodicWorkNs = 1'000'000'000;
constexpr jfr::Ticks kYoungProcessNs = 5'000'000'000;
constexpr auto kAgentFlushTimeout = std::chrono::seconds(2);

bool wellFormed(const jfrbpf_sample_record& record, size_t size) {
  if (size < JFRBPF_SAMPLE_HEADER_SIZE) return false;
  if (record.user_depth > JFRBPF_MAX_USER_FRAMES || record.kernel_depth > JFRBPF_MAX_KERNEL_FRAMES) return false;
  return contextFits(record, size);
}

// The CPU samples a record stands for: one per sampling period of CPU time; none in an off-CPU record.
uint64_t cpuSamplesIn(const jfrbpf_sample_record& record) {
  return (record.flags & JFRBPF_SAMPLE_OFF_CPU) ? 0 : std::max<uint64_t>(1, record.periods);
}

symbolize::ProcessSymbolizer::Options symbolizerOptions(const MemoryBudget& budget) {
  symbolize::ProcessSymbolizer::Options options;
  options.elfCacheBytes = budget.symbolCacheShare();
  return options;
}

}  // namespace

SamplePipeline::SamplePipeline(BpfSampler& sampler, SamplingClocks& clocks, size_t memoryLimit,
                               unwind::TableCache& unwindTables)
    : sampler_(sampler),
      clocks_(clocks),
      memory_(memoryLimit),
      nativeSymbols_(symbolizerOptions(memory_)),
      ring_(sampler.ringBufferMapFd(), [this](const void* data, size_t size) { onSample(data, size); }),
      unwindTables_(unwindTables),
      unwind_(sampler, unwindTables) {
  if (sampler.methodTracesLoaded()) {
    traceRing_ = std::make_unique<RingBufferReader>(sampler.traceRingBufferMapFd(),
                                                    [this](const void* data, size_t size) { onTrace(data, size); });
  }
}

void SamplePipeline::addProcess(pid_t pid, TargetOutput& output) {
  {
    std::lock_guard lock(changesMutex_);
    changes_.push_back({pid, &output, nullptr, nullptr});
    processes_.push_back(pid);
  }
  if (!running_.load(std::memory_order_acquire)) applyChanges();
}

void SamplePipeline::runOnConsumer(std::function<void()> task) {
  {
    std::lock_guard lock(changesMutex_);
    changes_.push_back({0, nullptr, nullptr, std::move(task)});
  }
  if (!running_.load(std::memory_order_acquire)) applyChanges();
}

void SamplePipeline::retireProcess(pid_t pid, std::function<void()> onRetired) {
  std::lock_guard lock(changesMutex_);
  changes_.push_back({pid, nullptr, std::move(onRetired), nullptr});
  std::erase(processes_, pid);
}

void SamplePipeline::applyChanges(bool withinDrain) {
  std::vector<Change> changes;
  {
    std::lock_guard lock(changesMutex_);
    if (withinDrain) {
      // Within a drain only new routes: a retirement drains the rings, and a drain inside the ring buffer's
      // callback would hand the outer one's records over twice. A new route may pass the changes queued
      // before it, unless one retires its pid (a reused pid's route follows its predecessor's retirement).
      std::vector<pid_t> retiring;
      for (auto it = changes_.begin(); it != changes_.end();) {
        if (!it->output) {
          if (!it->task) retiring.push_back(it->pid);
          ++it;
        } else if (std::find(retiring.begin(), retiring.end(), it->pid) == retiring.end()) {
          changes.push_back(std::move(*it));
          it = changes_.erase(it);
        } else {
          ++it;
        }
      }
    } else {
      changes = std::move(changes_);
      changes_.clear();
    }
  }
  for (Change& change : changes) {
    if (change.task) {
      change.task();
      continue;
    }
    if (change.output) {
      routes_[change.pid] = change.output;
      unwind_.syncProcess(change.pid);
      youngUntil_[change.pid] = jfr::Recording::now() + kYoungProcessNs;
      continue;
    }
    youngUntil_.erase(change.pid);
    // Everything the rings still hold of this process goes to its output before it is let go.
    ring_.drain();
    if (traceRing_) traceRing_->drain();
    std::vector<ThreadLoss> losses = sampler_.readThreadLosses();
    std::erase_if(losses, [&](const ThreadLoss& loss) { return static_cast<pid_t>(loss.tgid) != change.pid; });
    auto route = routes_.find(change.pid);
    if (route != routes_.end()) {
      TargetOutput* output = route->second;
      output->periodicWork(jfr::Recording::now(), losses);
      output->forgetProcess(change.pid);
      routes_.erase(route);
    }
    unwind_.forgetProcess(change.pid);
    nativeSymbols_.forgetProcess(change.pid);
    sampler_.forgetProcess(static_cast<uint32_t>(change.pid));
    sampler_.forgetThreadLosses(losses);  // read above, the last time: no BPF program charges them any more
    if (change.retired) change.retired();
  }
}

std::vector<TargetOutput*> SamplePipeline::outputs() const {
  std::vector<TargetOutput*> all;
  for (const auto& [pid, output] : routes_) {
    if (std::find(all.begin(), all.end(), output) == all.end()) all.push_back(output);
  }
  return all;
}

void SamplePipeline::onSample(const void* data, size_t size) {
  const auto& record = *static_cast<const jfrbpf_sample_record*>(data);
  if (!wellFormed(record, size)) return;
  auto route = routes_.find(static_cast<pid_t>(record.tgid));
  if (route == routes_.end()) {
    applyChanges(/*withinDrain=*/true);  // a process targeted a moment before its route was handed over
    route = routes_.find(static_cast<pid_t>(record.tgid));
    if (route == routes_.end()) {
      // Of a process already let go: no file can take it, but the sampling ticks it stands for are counted.
      unrouted_.fetch_add(cpuSamplesIn(record), std::memory_order_relaxed);
      return;
    }
  }
  route->second->onSample(record);
  samples_.fetch_add(cpuSamplesIn(record), std::memory_order_relaxed);
}

void SamplePipeline::onTrace(const void* data, size_t size) {
  if (size < JFRBPF_TRACE_HEAD_SIZE + JFRBPF_SAMPLE_HEADER_SIZE) return;
  const auto& record =
      *reinterpret_cast<const jfrbpf_sample_record*>(static_cast<const uint8_t*>(data) + JFRBPF_TRACE_HEAD_SIZE);
  auto route = routes_.find(static_cast<pid_t>(record.tgid));
  if (route != routes_.end()) route->second->onTrace(data, size);
}

void SamplePipeline::syncYoungProcesses(jfr::Ticks now) {
  for (auto it = youngUntil_.begin(); it != youngUntil_.end();) {
    if (now >= it->second) {
      it = youngUntil_.erase(it);
      continue;
    }
    unwind_.syncProcess(it->first);
    nativeSymbols_.refresh(it->first);  // libraries it maps are named from its next samples on
    ++it;
  }
}

void SamplePipeline::periodicWork(jfr::Ticks now) {
  for (const auto& [pid, output] : routes_) unwind_.syncProcess(pid);  // one maps read when nothing changed
  std::unordered_map<TargetOutput*, std::vector<ThreadLoss>> lossesByOutput;
  for (const ThreadLoss& loss : sampler_.readThreadLosses()) {
    auto route = routes_.find(static_cast<pid_t>(loss.tgid));
    if (route != routes_.end()) lossesByOutput[route->second].push_back(loss);
  }
  // Losses no thread can be charged with are reported in every file: each one covers the same window.
  uint64_t throttled = clocks_.takeThrottledOverflows(static_cast<uint64_t>(now));
  SamplerCounters counters = sampler_.readCounters();
  uint64_t mapFull = counters[JFRBPF_COUNTER_LOST_THREAD_MAP_FULL];
  uint64_t freshMapFull = mapFull - std::min(mapFull, reportedThreadMapFull_);
  reportedThreadMapFull_ = mapFull;
  unattributedLost_[kCauseKernelThrottling] += throttled;
  unattributedLost_[kCauseThreadTableFull] += freshMapFull;
  uint64_t lost = unrouted_.load(std::memory_order_relaxed);
  for (const auto& [cause, count] : unattributedLost_) lost += count;
  for (TargetOutput* output : outputs()) {
    output->periodicWork(now, lossesByOutput[output]);
    output->reportUnattributed(now, kCauseKernelThrottling, throttled);
    output->reportUnattributed(now, kCauseThreadTableFull, freshMapFull);
    lost += output->ledger().attributed();
  }
  lost_.store(lost, std::memory_order_relaxed);
  checkMemory(now);
}

void SamplePipeline::checkMemory(jfr::Ticks now) {
  MemoryBudget::Consumers consumers;
  consumers.shedCaches = [this] {
    nativeSymbols_.dropCaches();
    for (TargetOutput* output : outputs()) output->dropCaches();
  };
  consumers.javaModels = [this] {
    std::vector<std::pair<pid_t, size_t>> models;
    for (TargetOutput* output : outputs()) {
      for (const auto& held : output->heldBytes()) models.push_back(held);
    }
    return models;
  };
  consumers.dropJavaFrames = [this, now](pid_t pid, const std::string& why) {
    if (auto route = routes_.find(pid); route != routes_.end()) route->second->dropJavaFrames(pid, now, why);
  };
  consumers.noteShed = [this](const std::string& what) {
    std::fprintf(stderr, "jfrbpf: %s\n", what.c_str());
    for (TargetOutput* output : outputs()) output->note("info", what);
  };
  memory_.check(consumers);
}

void SamplePipeline::addUnfiledLossesTo(RecordSummary& summary) const {
  std::map<std::string, uint64_t> causes = unattributedLost_;
  causes[kCauseProcessLetGo] = unrouted_.load(std::memory_order_relaxed);
  for (const auto& [cause, count] : causes) {
    if (count == 0) continue;
    summary.lost += count;
    summary.lostByCause[cause] += count;
  }
}

MemoryAccount SamplePipeline::memoryAccount() const {
  MemoryAccount account;
  memory_.addTo(account);
  account.symbols = nativeSymbols_.memoryBytes();
  account.unwindTables = unwindTables_.memoryBytes();
  for (TargetOutput* output : outputs()) output->accountMemory(account);
  measureHeapAndMappings(account);
  return account;
}

void SamplePipeline::addMemoryTo(RecordSummary& summary) const {
  summary.memoryLimitBytes = memory_.limit();
  summary.peakResidentBytes = memory_.peakResident();
  summary.memorySheds = memory_.sheds();
}

void SamplePipeline::start() {
  // Before the thread exists: from here on, changes are applied by the consumer only.
  running_.store(true, std::memory_order_release);
  consumer_ = std::thread([this] { runConsumer(); });
}

SamplePipeline::~SamplePipeline() { stopConsumer(); }

void SamplePipeline::stopConsumer() {
  stopConsumer_.store(true, std::memory_order_release);
  if (consumer_.joinable()) consumer_.join();
}

void SamplePipeline::abandon() {
  clocks_.disable();
  stopConsumer();
}

void SamplePipeline::runConsumer() {
  jfr::Ticks nextPeriodic = jfr::Recording::now() + kPeriodicWorkNs;
  while (!stopConsumer_.load(std::memory_order_acquire)) {
    ring_.wait(kPollTimeoutMs);
    applyChanges();  // after the wait: a JVM handed over meanwhile resolves its samples in this drain
    jfr::Ticks now = jfr::Recording::now();
    // The agents' records first: a sample in code compiled a moment ago finds the method it is in.
    for (TargetOutput* output : outputs()) output->serviceJvms(now);
    syncYoungProcesses(now);
    ring_.drain();
    if (traceRing_) {  // after the agents' records, which name the traced methods
      traceRing_->drain();
      for (TargetOutput* output : outputs()) output->afterTraces();
    }
    std::vector<TargetOutput*> due;
    for (TargetOutput* output : outputs()) {
      if (output->fileDue(now)) due.push_back(output);
    }
    if (now >= nextPeriodic || !due.empty()) {
      periodicWork(now);  // every loss up to now is in the file about to be finished
      nextPeriodic = now + kPeriodicWorkNs;
    }
    for (TargetOutput* output : due) output->continueInNextFile(now);
    for (TargetOutput* output : outputs()) output->flushIfDue(now);
  }
  running_.store(false, std::memory_order_release);
}

void SamplePipeline::flushOffCpuWaits() {
  if (!sampler_.offCpuLoaded()) return;
  const uint64_t passesBefore = sampler_.offCpuFlushPasses();
  size_t handed = 0;
  for (TargetOutput* output : outputs()) handed += output->handOffCpuFlush();
  // An agent runs its pass as soon as its thread sees the command (milliseconds); one that has not finished
  // in time leaves its threads to the loader's pass below, with kernel frames only.
  const auto deadline = std::chrono::steady_clock::now() + kAgentFlushTimeout;
  while (handed > 0 && sampler_.offCpuFlushPasses() - passesBefore < handed &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  sampler_.flushOffCpu();
}

void SamplePipeline::stopAndDrain() {
  const std::vector<std::pair<pid_t, ThreadCpuTimes>> cpuEnds = stopSampling();
  takeOverFromConsumer();
  flushOffCpuWaits();
  drainRemaining();
  writeFinalCpuTimes(cpuEnds);
}

std::vector<std::pair<pid_t, ThreadCpuTimes>> SamplePipeline::stopSampling() {
  clocks_.disable();
  sampler_.endOffCpuWindow(static_cast<uint64_t>(jfr::Recording::now()));
  // The threads' CPU time at the moment sampling stopped: what the samples can be checked against.
  std::vector<std::pair<pid_t, ThreadCpuTimes>> cpuEnds;
  {
    std::lock_guard lock(changesMutex_);
    for (pid_t pid : processes_) cpuEnds.emplace_back(pid, readThreadCpuTimes(pid));
  }
  for (const auto& [pid, end] : cpuEnds) sampler_.setOffCpuRunDelayEnds(end);
  sampler_.detach();
  return cpuEnds;
}

void SamplePipeline::takeOverFromConsumer() {
  stopConsumer();
  applyChanges();
}

void SamplePipeline::drainRemaining() {
  jfr::Ticks now = jfr::Recording::now();
  for (TargetOutput* output : outputs()) output->serviceJvms(now);
  ring_.drain();
  if (traceRing_) traceRing_->drain();
  periodicWork(jfr::Recording::now());
}

void SamplePipeline::writeFinalCpuTimes(const std::vector<std::pair<pid_t, ThreadCpuTimes>>& cpuEnds) {
  for (const auto& [pid, end] : cpuEnds) {
    auto route = routes_.find(pid);
    if (route != routes_.end()) route->second->endTarget(jfr::Recording::now(), pid, end);
  }
}

}  // namespace jfrbpf::record
