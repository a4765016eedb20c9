#include "userspace/timing/method_timing_writer.h"

#include <algorithm>
#include <map>

#include "userspace/timing/trace_record.h"
#include "userspace/timing/trace_stack.h"

namespace jfrbpf::timing {

MethodTimingWriter::MethodTimingWriter(jfr::Recording& out, ResolveStack resolve, ThreadOf threadOf,
                                       ContextOf contextOf)
    : out_(out),
      resolve_(std::move(resolve)),
      threadOf_(std::move(threadOf)),
      contextOf_(std::move(contextOf)),
      trimmed_(new jfrbpf_sample_record) {}

void MethodTimingWriter::addJvm(pid_t pid, const jvm::JavaModel& model) { jvms_.push_back({pid, &model}); }

const MethodTimingWriter::Jvm* MethodTimingWriter::jvmOf(pid_t pid) const {
  for (const Jvm& jvm : jvms_) {
    if (jvm.pid == pid) return &jvm;
  }
  return nullptr;
}

jfr::MethodId MethodTimingWriter::methodId(const jvm::TimedMethodInfo& method) {
  if (out_.constantsGeneration() != constantsGeneration_) {  // a new file, with no constants yet
    methodIds_ = {};
    constantsGeneration_ = out_.constantsGeneration();
  }
  auto [it, inserted] = methodIds_.try_emplace(&method, 0);
  if (inserted) {
    jfr::ClassId owner = out_.internClass(method.className, static_cast<int32_t>(method.classModifiers));
    it->second = out_.internMethod(owner, method.methodName, method.descriptor,
                                   static_cast<int32_t>(method.methodModifiers));
  }
  return it->second;
}

void MethodTimingWriter::onTrace(const void* data, size_t size) {
  const bool keep = pending_.hasRoom(size);
  Outcome outcome = write(data, size, /*lastChance=*/!keep);
  if (outcome == Outcome::kMalformed) ++counters_.malformed;
  if (outcome != Outcome::kRetry) return;
  if (!keep) {
    ++counters_.unknownMethod;
    return;
  }
  pending_.keep(data, size, jfr::Recording::now(), static_cast<pid_t>(trimmed_->tgid));  // as write() decoded it
}

void MethodTimingWriter::retryPending(bool final) {
  pending_.retry(jfr::Recording::now(), final, [this](const void* data, size_t size, bool lastChance) {
    if (write(data, size, lastChance) != Outcome::kRetry) return true;
    if (lastChance) ++counters_.unknownMethod;
    return false;
  });
}

MethodTimingWriter::Outcome MethodTimingWriter::write(const void* data, size_t size, bool lastChance) {
  jfrbpf_trace_head head;
  if (!decodeTraceRecord(data, size, head, *trimmed_)) return Outcome::kMalformed;
  const jfrbpf_sample_record& record = *trimmed_;
  const Jvm* jvm = jvmOf(static_cast<pid_t>(record.tgid));
  // The entry time is the JVM's clock (the stubs'), shifted if it runs in a time namespace.
  if (jvm != nullptr) trimmed_->time_ns = jvm->model->toOurTicks(record.time_ns);
  const uint32_t slot = head.hook_index & JFRBPF_HOOK_SLOT_MASK;
  const jvm::TimedMethodInfo* method = jvm ? jvm->model->timedMethods().bySlot(slot) : nullptr;
  if (method == nullptr || !method->traced()) return Outcome::kRetry;
  const jvm::ModelNow now = [] { return static_cast<uint64_t>(jfr::Recording::now()); };
  CallerFrames caller = findCaller(*jvm->model, record, *method, now, inlineScratch_);
  if (!caller.found && !lastChance) return Outcome::kRetry;
  if (!caller.found) {
    ++counters_.callerNotFound;
    const std::optional<jvm::HookSiteAddresses>& sites = jvm->model->timedMethods().hookSites();
    caller.rawFrames =
        hookFrames(*jvm->model, record, sites ? std::string_view(sites->hookClass) : std::string_view(), now, inlineScratch_);
  }
  // Before the frames move: the context follows the record's stacks.
  const jfr::TraceContext context = contextOf_(record);
  dropTopFrames(*trimmed_, caller.rawFrames);
  const bool truncated = resolve_(*trimmed_, frames_);
  frames_.erase(frames_.begin(), frames_.begin() + std::min<size_t>(caller.resolvedFrames, frames_.size()));
  out_.methodTrace(static_cast<jfr::Ticks>(record.time_ns), static_cast<jfr::Ticks>(head.duration_ns),
                   threadOf_(*trimmed_), frames_, truncated, methodId(*method), context);
  ++counters_.written;
  return Outcome::kWritten;
}

void MethodTimingWriter::writeTimings(jfr::Ticks now, const ReadStats& read) {
  std::map<jfr::MethodId, MethodStats> byMethod;
  for (const Jvm& jvm : jvms_) {
    jvm.model->timedMethods().forEach([&](const jvm::TimedMethodInfo& method) {
      if (method.timed()) byMethod[methodId(method)].merge(read(method.slot()));
    });
  }
  lastInvocations_ = 0;
  for (const auto& [id, stats] : byMethod) {
    MethodTimingValues v = timingValues(stats);
    out_.methodTiming(now, id, v.invocations, v.minimum, v.average, v.maximum);
    lastInvocations_ += stats.invocations;
  }
  lastBatch_ = byMethod.size();
}

}  // namespace jfrbpf::timing
