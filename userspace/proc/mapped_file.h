#pragma once
// Opening the file behind a process's mapping: the one way jfrbpf opens a file a target controls (its
// libraries, its hsperfdata, a memfd). The target may have swapped the path for a FIFO, a device, a symlink
// or another file since it mapped it; what is opened here is the mapped file or nothing, and never blocks.
#include "base/unique_fd.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/root_files.h"

namespace jfrbpf::proc {

// Through /proc/PID/map_files when that may be opened (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE: exactly the
// mapped inode, deleted or not), else by the mapping's path inside the process's root, kept only if it is
// the mapped file: a regular file with the inode and device /proc/PID/maps gives (on overlayfs, whose files
// report the overlay's device, the inode alone). Opened O_NONBLOCK, so a FIFO under the name cannot hang
// the caller. procDirFd: /proc/PID (process_dir.h). Invalid fd with errno set when there is no such file.
UniqueFd openMappedFileAt(int procDirFd, const Mapping& mapping, Links links = Links::kFollowInsideRoot);
// The same for process `pid`.
UniqueFd openMappedFile(pid_t pid, const Mapping& mapping, Links links = Links::kFollowInsideRoot);

// Whether an open file is the one a mapping names: regular, same inode, same device (or overlayfs).
bool isMappedFile(int fd, const Mapping& mapping);

}  // namespace jfrbpf::proc
