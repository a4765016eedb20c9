#include "userspace/record/jvm/virtual_thread_names.h"

#include "userspace/jvm/thread_names.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::record {

void VirtualThreadNames::learn(const jfrbpf_sample_record& record, int64_t javaThreadId, const jvm::JavaModel& model,
                               jfr::Recording& out) {
  const std::optional<protocol::ContinuationLayout>& layout = model.continuationLayout();
  if (record.current_thread_object == 0 || !layout || layout->threadName == 0) return;
  const Key key{static_cast<pid_t>(record.tgid), javaThreadId};
  if (attempts_.size() >= kMaxRemembered && !attempts_.contains(key)) attempts_ = {};
  uint8_t& attempts = attempts_[key];
  if (attempts == kRead || attempts >= kMaxAttempts) return;
  const std::optional<std::string> name =
      jvm::readThreadName(unwind::ProcessMemory(key.pid), *layout, record.current_thread_object, javaThreadId);
  if (!name) {
    ++attempts;
    return;
  }
  attempts = kRead;
  if (!name->empty()) out.nameVirtualThread(javaThreadId, *name);
}

}  // namespace jfrbpf::record
