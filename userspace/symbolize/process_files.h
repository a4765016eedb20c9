#pragma once
// Reaching the files and memory a process really uses, including processes in other mount namespaces
// (containers). Paths are never resolved on the host: a container's /usr/lib/libc.so.6 is not ours, and
// a symlink a container owns must not lead us out of its root.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/proc/maps.h"

namespace jfrbpf::symbolize {

// Opens the regular file at `path` as resolved inside the directory `rootFd` (proc::openProcessRoot): absolute
// symlinks and ".." stay within it, /proc magic links are refused. Invalid fd on any failure.
UniqueFd openInRoot(int rootFd, std::string_view path);

// Opens the file behind a file mapping: /proc/PID/map_files/<start>-<end> (the very file mapped, even if
// deleted or replaced; needs CAP_SYS_ADMIN), else the mapping's path inside the process root when its inode
// still matches. Invalid fd when neither works. `rootFd` may be -1 to skip the second way.
UniqueFd openMappedFile(int pid, const proc::Mapping& mapping, int rootFd);

// Opens a host file for reading (debug directories the operator configured). Invalid fd unless regular.
UniqueFd openHostFile(const std::string& path);

// Reads [address, address + size) of the process through /proc/PID/mem; nullopt when not fully readable.
std::optional<std::vector<uint8_t>> readProcessMemory(int pid, uint64_t address, size_t size);

// A copy of this process's own vDSO image, which is the same for every 64-bit process on this kernel.
std::optional<std::vector<uint8_t>> ownVdsoImage();

}  // namespace jfrbpf::symbolize
