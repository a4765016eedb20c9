#pragma once
// The directories /proc gives a process: /proc/PID itself, its threads under task/, and root, the process's
// view of the file system (another one when it runs in a container). Listing and opening only; what is
// inside is read through files.h and root_files.h.
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::proc {

// /proc/<pid> opened as a directory: reads relative to it all refer to this process, even if it exits
// and its pid is reused meanwhile (they then fail with ESRCH). Invalid fd with errno set on failure.
UniqueFd openProcessDir(const std::string& procRoot, pid_t pid);

// /proc/<pid>/root as an O_PATH directory, for openInRoot (root_files.h). Invalid fd with errno set when the
// process is gone or we may not look (another user's process needs CAP_SYS_PTRACE).
UniqueFd openProcessRoot(pid_t pid);
// The same through an open /proc/<pid> directory (openProcessDir).
UniqueFd openProcessRootAt(int procDirFd);

// The numeric entries of a /proc-like directory (process ids of procRoot, thread ids of a task directory),
// in directory order; empty when it cannot be listed.
std::vector<pid_t> listProcessIds(const std::string& directory);
// The thread ids of process `pid` (/proc/<pid>/task); empty when it is gone.
std::vector<pid_t> listTasks(pid_t pid, const std::string& procRoot = kProcRoot);

}  // namespace jfrbpf::proc
