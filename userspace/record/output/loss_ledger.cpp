#include "userspace/record/output/loss_ledger.h"

#include <algorithm>
#include <climits>

namespace jfrbpf::record {

LossLedger::Reported LossLedger::Reported::advanceTo(uint64_t totalCount, uint64_t totalNs) {
  if (totalCount <= count) return {};
  Reported fresh{totalCount - count, totalNs - std::min(totalNs, ns)};
  count = totalCount;
  ns = totalNs;
  return fresh;
}

void LossLedger::reportThreadLosses(jfr::Ticks now, const std::vector<ThreadLoss>& losses) {
  for (const ThreadLoss& loss : losses) {
    ThreadReported& reported = reported_[loss.tid];
    reportOffCpuLoss(now, loss, reported.offCpu);
    reportCpuLoss(now, loss, kCauseRingBufferFull, reported.cpu.advanceTo(loss.lostRingbufFull, loss.lostCpuNs));
    reportCpuLoss(now, loss, kCauseUnsampledAtEnd, reported.unsampled.advanceTo(loss.unsampled, loss.unsampledCpuNs));
  }
}

void LossLedger::reportCpuLoss(jfr::Ticks now, const ThreadLoss& loss, const char* cause, Reported fresh) {
  if (fresh.count == 0) return;
  jfr::ThreadId thread = threads_.threadFor(static_cast<pid_t>(loss.tgid), static_cast<pid_t>(loss.tid));
  // lostSamples is a Java int: split an (unlikely) larger count over several events.
  for (uint64_t left = fresh.count; left > 0;) {
    auto chunk = static_cast<int32_t>(std::min<uint64_t>(left, INT32_MAX));
    out_.cpuTimeSamplesLost(now, chunk, thread);
    left -= static_cast<uint64_t>(chunk);
  }
  out_.sampleLoss(now, thread, cause, static_cast<int64_t>(fresh.count), static_cast<jfr::Ticks>(fresh.ns));
  byCause_[cause] += fresh.count;
  total_ += fresh.count;
}

void LossLedger::reportOffCpuLoss(jfr::Ticks now, const ThreadLoss& loss, Reported& reported) {
  Reported fresh = reported.advanceTo(loss.lostOffCpu, loss.lostOffCpuNs);
  if (fresh.count == 0) return;
  jfr::ThreadId thread = threads_.threadFor(static_cast<pid_t>(loss.tgid), static_cast<pid_t>(loss.tid));
  out_.offCpuSamplesLost(now, thread, static_cast<int64_t>(fresh.count), static_cast<jfr::Ticks>(fresh.ns));
  offCpuLost_ += fresh.count;
}

void LossLedger::reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count) {
  if (count == 0) return;
  out_.sampleLoss(now, 0, cause, static_cast<int64_t>(count));
  unattributed_ += count;
  total_ += count;
}

}  // namespace jfrbpf::record
