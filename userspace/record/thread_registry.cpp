#include "userspace/record/thread_registry.h"

#include "userspace/proc/comm.h"

namespace jfrbpf::record {

std::string threadComm(pid_t tgid, pid_t tid) { return proc::readThreadComm(tgid, tid); }

jfr::ThreadId ThreadRegistry::threadFor(pid_t tgid, pid_t tid) {
  Entry& entry = threads_[key(tgid, tid)];
  if (entry.id == 0) {
    entry.info.osThreadId = tid;
    entry.info.osName = threadComm(tgid, tid);
    if (entry.info.osName.empty()) entry.info.osName = "thread " + std::to_string(tid);
    entry.id = out_.internThread(entry.info);
  }
  return entry.id;
}

void ThreadRegistry::setJavaIdentity(pid_t tgid, pid_t tid, const std::string& javaName, int64_t javaThreadId,
                                     bool isVirtual) {
  Entry& entry = threads_[key(tgid, tid)];
  if (entry.id != 0 && entry.info.javaName == javaName && entry.info.javaThreadId == javaThreadId) return;
  entry.info.osThreadId = tid;
  if (entry.info.osName.empty()) entry.info.osName = threadComm(tgid, tid);
  if (entry.info.osName.empty()) entry.info.osName = javaName;
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
