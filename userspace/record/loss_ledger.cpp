#include "userspace/record/loss_ledger.h"

#include <algorithm>
#include <climits>

namespace jfrbpf::record {

void LossLedger::reportThreadLosses(jfr::Ticks now, const std::vector<ThreadLoss>& losses) {
  for (const ThreadLoss& loss : losses) {
    Reported& reported = reported_[loss.tid];
    reportOffCpuLoss(now, loss, reported);
    if (loss.lostRingbufFull <= reported.samples) continue;
    uint64_t fresh = loss.lostRingbufFull - reported.samples;
    uint64_t freshCpuNs = loss.lostCpuNs - std::min(loss.lostCpuNs, reported.cpuNs);
    reported.samples = loss.lostRingbufFull;
    reported.cpuNs = loss.lostCpuNs;
    jfr::ThreadId thread = threads_.threadFor(static_cast<pid_t>(loss.tgid), static_cast<pid_t>(loss.tid));
    // lostSamples is a Java int: split an (unlikely) larger count over several events.
    for (uint64_t left = fresh; left > 0;) {
      auto chunk = static_cast<int32_t>(std::min<uint64_t>(left, INT32_MAX));
      out_.cpuTimeSamplesLost(now, chunk, thread);
      left -= static_cast<uint64_t>(chunk);
    }
    out_.sampleLoss(now, thread, kCauseRingBufferFull, static_cast<int64_t>(fresh), static_cast<jfr::Ticks>(freshCpuNs));
    byCause_[kCauseRingBufferFull] += fresh;
    total_ += fresh;
  }
}

void LossLedger::reportOffCpuLoss(jfr::Ticks now, const ThreadLoss& loss, Reported& reported) {
  if (loss.lostOffCpu <= reported.offCpu) return;
  uint64_t fresh = loss.lostOffCpu - reported.offCpu;
  uint64_t freshNs = loss.lostOffCpuNs - std::min(loss.lostOffCpuNs, reported.offCpuNs);
  reported.offCpu = loss.lostOffCpu;
  reported.offCpuNs = loss.lostOffCpuNs;
  jfr::ThreadId thread = threads_.threadFor(static_cast<pid_t>(loss.tgid), static_cast<pid_t>(loss.tid));
  out_.offCpuSamplesLost(now, thread, static_cast<int64_t>(fresh), static_cast<jfr::Ticks>(freshNs));
  offCpuLost_ += fresh;
}

void LossLedger::reportUnattributed(jfr::Ticks now, const char* cause, uint64_t count) {
  if (count == 0) return;
  out_.sampleLoss(now, 0, cause, static_cast<int64_t>(count));
  byCause_[cause] += count;
  total_ += count;
}

}  // namespace jfrbpf::record
