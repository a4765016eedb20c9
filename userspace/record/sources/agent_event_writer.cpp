#include "userspace/record/sources/agent_event_writer.h"

#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "userspace/timing/trace_record.h"

namespace jfrbpf::record {

// The agent's and the probe's spellings of the same hook index bits.
static_assert(protocol::kHookAllocation == JFRBPF_HOOK_ALLOCATION && protocol::kHookLock == JFRBPF_HOOK_LOCK &&
              protocol::kHookLockWait == JFRBPF_HOOK_LOCK_WAIT && protocol::kHookLockTimedOut == JFRBPF_HOOK_LOCK_TIMED_OUT &&
              protocol::kHookLockPark == JFRBPF_HOOK_LOCK_PARK && protocol::kHookLockUntil == JFRBPF_HOOK_LOCK_UNTIL);

AgentEventWriter::AgentEventWriter(const OutputParts& output, uint32_t hooks, AgentEventCounts& counts)
    : out_(output.out),
      threads_(output.threads),
      contexts_(output.contexts),
      hooks_(hooks),
      counts_(counts),
      record_(std::make_unique<jfrbpf_sample_record>()) {}

const jvm::JavaModel* AgentEventWriter::modelOf(pid_t pid) const {
  for (const Jvm& jvm : jvms_) {
    if (jvm.pid == pid) return jvm.model;
  }
  return nullptr;
}

void AgentEventWriter::onTrace(const void* data, size_t size) {
  const Outcome outcome = write(data, size, /*lastChance=*/!pending_.hasRoom(size));
  if (outcome == Outcome::kMalformed) ++counts_.malformed;
  if (outcome == Outcome::kRetry) pending_.keep(data, size, jfr::Recording::now(), static_cast<pid_t>(record_->tgid));
}

void AgentEventWriter::retryPending(bool final) {
  pending_.retry(jfr::Recording::now(), final, [this](const void* data, size_t size, bool lastChance) {
    return write(data, size, lastChance) != Outcome::kRetry;
  });
}

AgentEventWriter::Outcome AgentEventWriter::write(const void* data, size_t size, bool lastChance) {
  jfrbpf_trace_head head;
  if (!timing::decodeTraceRecord(data, size, head, *record_)) return Outcome::kMalformed;
  jfrbpf_sample_record& record = *record_;
  const jvm::JavaModel* model = modelOf(static_cast<pid_t>(record.tgid));
  // The time is the agent's clock, shifted if the JVM runs in a time namespace.
  if (model != nullptr) record.time_ns = model->toOurTicks(record.time_ns);
  const uint64_t classId = head.hook_index & JFRBPF_HOOK_SLOT_MASK;
  const jvm::JavaClass* klass = model != nullptr ? model->methods().classById(classId) : nullptr;
  if (klass == nullptr && classId != 0 && !lastChance) return Outcome::kRetry;
  // The event starts at its Java site: the JVM's own frames above it are left out.
  ResolvedStack stack = threads_.stackOf(record, StackStart::kJavaSite);
  if (!stack.complete && !lastChance) return Outcome::kRetry;
  const bool park = (head.hook_index & JFRBPF_HOOK_LOCK_PARK) != 0;
  // Class id 0 is a park without a blocker: no class, as the JDK writes it.
  const jfr::ClassId eventClass =
      klass != nullptr ? out_.internClass(klass->name, static_cast<int32_t>(klass->modifiers), klass->hidden)
      : park && classId == 0 ? jfr::ClassId{}
                             : out_.internClass("[unknown]");
  const auto time = static_cast<jfr::Ticks>(record.time_ns);
  const jfr::TraceContext context = contexts_.of(record);
  const auto duration = static_cast<jfr::Ticks>(head.duration_ns);
  AgentEventsWritten* written = &counts_.allocations;
  if ((head.hook_index & JFRBPF_HOOK_ALLOCATION) != 0) {
    out_.objectAllocationSample(time, threads_.of(record), stack.frames, stack.truncated(), eventClass,
                                static_cast<int64_t>(head.duration_ns), context);
  } else if (park) {
    // Unsafe.park's time: 0 for none, else a timeout in ns or (absolute) a deadline in ms.
    const auto detail = static_cast<int64_t>(head.detail);
    const bool until = (head.hook_index & JFRBPF_HOOK_LOCK_UNTIL) != 0;
    out_.threadPark(time, duration, threads_.of(record), stack.frames, stack.truncated(), eventClass,
                    detail != 0 && !until ? detail : INT64_MIN, until ? detail : INT64_MIN, head.address, context);
    written = &counts_.parks;
  } else if ((head.hook_index & JFRBPF_HOOK_LOCK_WAIT) != 0) {
    out_.javaMonitorWait(time, duration, threads_.of(record), stack.frames, stack.truncated(), eventClass,
                         static_cast<int64_t>(head.detail), (head.hook_index & JFRBPF_HOOK_LOCK_TIMED_OUT) != 0,
                         head.address, context);
    written = &counts_.monitorWaits;
  } else {
    out_.javaMonitorEnter(time, duration, threads_.of(record), stack.frames, stack.truncated(), eventClass,
                          head.address, context);
    written = &counts_.monitorEnters;
  }
  ++written->events;
  written->amount += head.duration_ns;
  return Outcome::kWritten;
}

}  // namespace jfrbpf::record
