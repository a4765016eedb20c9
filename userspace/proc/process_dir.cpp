#include "userspace/proc/process_dir.h"

#include <dirent.h>
#include <fcntl.h>

#include <memory>

#include "userspace/proc/text_fields.h"

namespace jfrbpf::proc {

UniqueFd openProcessDir(const std::string& procRoot, pid_t pid) {
  return UniqueFd(::open(processDirPath(pid, procRoot).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

UniqueFd openProcessRoot(pid_t pid) {
  return UniqueFd(::open(procPath(pid, "root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

UniqueFd openProcessRootAt(int procDirFd) {
  return UniqueFd(::openat(procDirFd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC));
}

std::vector<pid_t> listProcessIds(const std::string& directory) {
  std::vector<pid_t> pids;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory.c_str()), ::closedir);
  if (!dir) return pids;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    if (auto pid = parseNumber<pid_t>(entry->d_name)) pids.push_back(*pid);
  }
  return pids;
}

std::vector<pid_t> listTasks(pid_t pid, const std::string& procRoot) {
  return listProcessIds(procPath(pid, "task", procRoot));
}

}  // namespace jfrbpf::proc
