#include "userspace/record/output/event_threads.h"

#include <optional>

#include "userspace/jvm/mounted_threads.h"

namespace jfrbpf::record {

jfr::ThreadId EventThreads::osThreadOf(const jfrbpf_sample_record& record) {
  auto tgid = static_cast<pid_t>(record.tgid);
  auto tid = static_cast<pid_t>(record.tid);
  // A thread first seen in a sample: its Java identity right away if the agent told us one.
  if (!threads_.knows(tgid, tid)) jvms_.identify(threads_, tgid, tid, record.time_ns);
  return threads_.threadFor(tgid, tid);
}

int64_t EventThreads::virtualThreadOf(const jfrbpf_sample_record& record) const {
  if ((record.flags & JFRBPF_SAMPLE_IN_CONTINUATION) == 0) return 0;
  const jvm::JavaModel* model = stacks_.javaModel(static_cast<pid_t>(record.tgid));
  if (model == nullptr) return 0;
  return jvm::mountedVirtualThread(model->threads(), static_cast<pid_t>(record.tid), record.time_ns,
                                   record.current_thread_id);
}

jfr::EventThread EventThreads::of(const jfrbpf_sample_record& record) {
  const int64_t virtualThread = virtualThreadOf(record);
  if (virtualThread == 0) return jfr::EventThread(osThreadOf(record));
  virtualThreadNames_.learn(record, virtualThread, *stacks_.javaModel(static_cast<pid_t>(record.tgid)), out_);
  return jfr::EventThread::virtualThread(virtualThread);
}

ResolvedStack EventThreads::ownStack(const jfrbpf_sample_record& record, const ResolvedStack& stack) {
  // A virtual thread's stack is its continuation's: the carrier's frames below are not the virtual thread's.
  if (virtualThreadOf(record) == 0) return stack;
  std::optional<ResolvedStack> own = stacks_.continuationPart(static_cast<pid_t>(record.tgid), stack);
  return own ? *own : stack;
}

}  // namespace jfrbpf::record
