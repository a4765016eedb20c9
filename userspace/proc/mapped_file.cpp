#include "userspace/proc/mapped_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <cerrno>

#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"

namespace jfrbpf::proc {
namespace {

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
constexpr long kOverlayfsMagic = 0x794c7630;  // <linux/magic.h> OVERLAYFS_SUPER_MAGIC

UniqueFd keepIfRegular(UniqueFd fd) {
  struct stat st {};
  if (fd && (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))) {
    errno = EINVAL;
    return {};
  }
  return fd;
}

}  // namespace

bool isMappedFile(int fd, const Mapping& mapping) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != mapping.inode) return false;
  if (st.st_dev == makedev(mapping.devMajor, mapping.devMinor)) return true;
  // /proc/PID/maps shows the device of the layer the file lives on; fstat through the overlay its own.
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && fs.f_type == kOverlayfsMagic;
}

UniqueFd openMappedFileAt(int procDirFd, const Mapping& mapping, Links links) {
  const std::string entry = mapFilesEntry(mapping.start, mapping.end);
  if (UniqueFd fd = keepIfRegular(UniqueFd(::openat(procDirFd, entry.c_str(), kReadFlags)))) return fd;
  if (mapping.kind != MappingKind::kFile || mapping.deleted) {
    errno = ENOENT;  // nameless: only map_files reaches it
    return {};
  }
  UniqueFd root = openProcessRootAt(procDirFd);
  if (!root) return {};
  UniqueFd fd = openInRoot(root.get(), mapping.path, kReadFlags, links);
  if (!fd) return {};
  if (!isMappedFile(fd.get(), mapping)) {
    errno = ESTALE;  // the path names another file by now (replaced, or planted)
    return {};
  }
  return fd;
}

UniqueFd openMappedFile(pid_t pid, const Mapping& mapping, Links links) {
  UniqueFd dir = openProcessDir(std::string(kProcRoot), pid);
  if (!dir) return {};
  return openMappedFileAt(dir.get(), mapping, links);
}

}  // namespace jfrbpf::proc
