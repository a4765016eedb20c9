#include "userspace/jvm/tid_translator.h"

#include "userspace/proc/namespace_ids.h"
#include "userspace/proc/namespaces.h"

namespace jfrbpf::jvm {

TidTranslator::TidTranslator(pid_t pid, std::string procRoot) : pid_(pid), procRoot_(std::move(procRoot)) {
  // Without namespaces to compare, ids are taken as ours.
  identity_ = proc::sharesOurNamespace(pid_, proc::NamespaceKind::Pid, procRoot_).value_or(true);
}

pid_t TidTranslator::hostTid(pid_t nsTid) {
  if (nsTid <= 0) return 0;
  if (identity_) return nsTid;
  auto it = nsToHost_.find(nsTid);
  if (it == nsToHost_.end() && rescanAllowed_) {
    rescan();
    it = nsToHost_.find(nsTid);
  }
  return it == nsToHost_.end() ? 0 : it->second;
}

void TidTranslator::rescan() {
  rescanAllowed_ = false;
  nsToHost_.clear();
  for (const proc::ThreadIds& thread : proc::threadIdsOf(pid_, procRoot_)) nsToHost_[thread.nsTid] = thread.tid;
}

}  // namespace jfrbpf::jvm
