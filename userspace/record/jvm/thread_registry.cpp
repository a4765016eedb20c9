#include "userspace/record/jvm/thread_registry.h"

#include <unordered_set>

#include "userspace/proc/comm.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::record {

std::string threadComm(pid_t tgid, pid_t tid) { return proc::readThreadComm(tgid, tid); }

ThreadRegistry::Entry& ThreadRegistry::entryFor(pid_t tgid, pid_t tid) {
  if (out_.constantsGeneration() != constantsGeneration_) followNewFile();
  auto [it, inserted] = threads_.try_emplace(key(tgid, tid));
  if (inserted) {
    ++everSeen_;
    it->second.info.osThreadId = tid;
  }
  return it->second;
}

void ThreadRegistry::followNewFile() {
  constantsGeneration_ = out_.constantsGeneration();
  std::unordered_map<pid_t, std::unordered_set<pid_t>> alive;
  for (auto it = threads_.begin(); it != threads_.end();) {
    const auto tgid = static_cast<pid_t>(it->first >> 32);
    const auto tid = static_cast<pid_t>(it->first & 0xffffffffu);
    auto [tasks, listed] = alive.try_emplace(tgid);
    if (listed) {
      for (pid_t task : proc::listTasks(tgid)) tasks->second.insert(task);
    }
    if (tasks->second.count(tid) == 0) {
      it = threads_.erase(it);
    } else {
      it->second.id = 0;
      ++it;
    }
  }
}

jfr::ThreadId ThreadRegistry::threadFor(pid_t tgid, pid_t tid) {
  Entry& entry = entryFor(tgid, tid);
  if (entry.id == 0) {
    if (entry.info.osName.empty()) entry.info.osName = threadComm(tgid, tid);
    if (entry.info.osName.empty()) entry.info.osName = "thread " + std::to_string(tid);
    entry.id = out_.internThread(entry.info);
  }
  return entry.id;
}

void ThreadRegistry::setJavaIdentity(pid_t tgid, pid_t tid, const std::string& javaName, int64_t javaThreadId,
                                     bool isVirtual) {
  Entry& entry = entryFor(tgid, tid);
  // HotSpot names a thread's native thread after its Java name (cut to the kernel's 15 bytes) only once the
  // thread runs, after it reported the thread: an OS name read before is the launcher's ("java"), so it is
  // read again until it is that (the main thread keeps the launcher's name, and costs a read each time).
  const bool sameIdentity = entry.info.javaName == javaName && entry.info.javaThreadId == javaThreadId;
  if (entry.id != 0 && sameIdentity && entry.info.osName == javaName.substr(0, 15)) return;
  const std::string osNameBefore = entry.info.osName;
  if (std::string comm = threadComm(tgid, tid); !comm.empty()) entry.info.osName = std::move(comm);
  if (entry.info.osName.empty()) entry.info.osName = javaName;
  if (entry.id != 0 && sameIdentity && entry.info.osName == osNameBefore) return;
  entry.info.javaName = javaName;
  entry.info.javaThreadId = javaThreadId;
  entry.info.isVirtual = isVirtual;
  if (entry.id == 0) {
    entry.id = out_.internThread(entry.info);
  } else {
    out_.updateThread(entry.id, entry.info);
  }
}

}  // namespace jfrbpf::record
