#include "userspace/record/allocation_writer.h"

#include <algorithm>
#include <cstring>

namespace jfrbpf::record {

AllocationWriter::AllocationWriter(jfr::Recording& out, Resolve resolve, ThreadOf threadOf)
    : out_(out), resolve_(std::move(resolve)), threadOf_(std::move(threadOf)),
      record_(std::make_unique<jfrbpf_sample_record>()) {}

const jvm::JavaModel* AllocationWriter::modelOf(pid_t pid) const {
  for (const Jvm& jvm : jvms_) {
    if (jvm.pid == pid) return jvm.model;
  }
  return nullptr;
}

void AllocationWriter::onRecord(const void* data, size_t size) {
  const Outcome outcome = write(data, size, /*lastChance=*/!pending_.hasRoom(size));
  if (outcome == Outcome::kMalformed) ++malformed_;
  if (outcome == Outcome::kRetry) pending_.keep(data, size, jfr::Recording::now());
}

void AllocationWriter::retryPending(bool final) {
  pending_.retry(jfr::Recording::now(), final, [this](const void* data, size_t size, bool lastChance) {
    return write(data, size, lastChance) != Outcome::kRetry;
  });
}

AllocationWriter::Outcome AllocationWriter::write(const void* data, size_t size, bool lastChance) {
  if (size < JFRBPF_TRACE_HEAD_SIZE + JFRBPF_SAMPLE_HEADER_SIZE) return Outcome::kMalformed;
  jfrbpf_trace_head head;
  std::memcpy(&head, data, sizeof head);
  const size_t recordSize = size - JFRBPF_TRACE_HEAD_SIZE;
  std::memcpy(record_.get(), static_cast<const uint8_t*>(data) + JFRBPF_TRACE_HEAD_SIZE,
              std::min(recordSize, sizeof(jfrbpf_sample_record)));
  jfrbpf_sample_record& record = *record_;
  if (record.user_depth > JFRBPF_MAX_USER_FRAMES || record.kernel_depth != 0 ||
      JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, 0) > recordSize) {
    return Outcome::kMalformed;
  }
  const jvm::JavaModel* model = modelOf(static_cast<pid_t>(record.tgid));
  // The time is the agent's clock, shifted if the JVM runs in a time namespace.
  if (model != nullptr) record.time_ns = model->toOurTicks(record.time_ns);
  const uint64_t classId = head.hook_index & JFRBPF_HOOK_SLOT_MASK;
  const jvm::JavaClass* klass = model != nullptr ? model->methods().classById(classId) : nullptr;
  if (klass == nullptr && !lastChance) return Outcome::kRetry;
  ResolvedStack stack = resolve_(record);
  if (!stack.complete && !lastChance) return Outcome::kRetry;
  const jfr::ClassId objectClass =
      klass != nullptr ? out_.internClass(klass->name, static_cast<int32_t>(klass->modifiers), klass->hidden)
                       : out_.internClass("[unknown]");
  out_.objectAllocationSample(static_cast<jfr::Ticks>(record.time_ns), threadOf_(record), stack.frames,
                              stack.truncated(), objectClass, static_cast<int64_t>(head.duration_ns));
  ++written_;
  bytes_ += head.duration_ns;
  return Outcome::kWritten;
}

}  // namespace jfrbpf::record
