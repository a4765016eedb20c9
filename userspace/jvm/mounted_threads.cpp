#include "userspace/jvm/mounted_threads.h"

namespace jfrbpf::jvm {

int64_t mountedVirtualThread(const ThreadTable& threads, pid_t tid, uint64_t ticks, int64_t currentThreadId) {
  if (currentThreadId <= 0) return 0;
  const JavaThreadInfo* carrier = threads.byTid(tid, ticks);
  if (carrier != nullptr && carrier->javaThreadId == currentThreadId) return 0;
  // A carrier whose record came without its tid is still known by its Java id as a platform thread.
  const JavaThreadInfo* current = threads.byJavaId(currentThreadId);
  if (current != nullptr && !current->isVirtual) return 0;
  return currentThreadId;
}

}  // namespace jfrbpf::jvm
