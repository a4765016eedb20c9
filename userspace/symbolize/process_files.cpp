#include "userspace/symbolize/process_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace jfrbpf::symbolize {
namespace {

// O_NONBLOCK: opening a FIFO a container planted where a library should be must not hang us.
constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

UniqueFd keepIfRegular(UniqueFd fd) {
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return fd;
}

}  // namespace

UniqueFd openProcessRoot(int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/root";
  return UniqueFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

UniqueFd openInRoot(int rootFd, std::string_view path) {
  if (rootFd < 0 || path.empty() || path.find('\0') != std::string_view::npos) return {};
  std::string relative(path);
  open_how how{};
  how.flags = kReadFlags;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  long fd;
  do {
    fd = ::syscall(SYS_openat2, rootFd, relative.c_str(), &how, sizeof how);
  } while (fd < 0 && (errno == EAGAIN || errno == EINTR));  // EAGAIN: a concurrent rename; retry is correct
  return keepIfRegular(UniqueFd(static_cast<int>(fd)));
}

UniqueFd openMappedFile(int pid, const Mapping& mapping, int rootFd) {
  char mapFile[96];
  std::snprintf(mapFile, sizeof mapFile, "/proc/%d/map_files/%llx-%llx", pid,
                static_cast<unsigned long long>(mapping.start), static_cast<unsigned long long>(mapping.end));
  if (UniqueFd fd = keepIfRegular(UniqueFd(::open(mapFile, kReadFlags)))) return fd;

  if (mapping.kind != MappingKind::kFile || mapping.deleted) return {};
  UniqueFd fd = openInRoot(rootFd, mapping.path);
  struct stat st;
  // The path may name another file by now (an upgrade replaced it); only the mapped inode is the truth.
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_ino != mapping.inode) return {};
  return fd;
}

UniqueFd openHostFile(const std::string& path) {
  return keepIfRegular(UniqueFd(::open(path.c_str(), kReadFlags)));
}

std::optional<std::vector<uint8_t>> readProcessMemory(int pid, uint64_t address, size_t size) {
  std::string path = "/proc/" + std::to_string(pid) + "/mem";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::vector<uint8_t> bytes(size);
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::pread(fd.get(), bytes.data() + done, size - done, static_cast<off_t>(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    done += static_cast<size_t>(got);
  }
  return bytes;
}

std::optional<std::vector<uint8_t>> ownVdsoImage() {
  auto base = static_cast<uint64_t>(::getauxval(AT_SYSINFO_EHDR));
  if (base == 0) return std::nullopt;
  std::vector<Mapping> mappings;
  try {
    mappings = readProcMaps(::getpid());
  } catch (const Error&) {
    return std::nullopt;
  }
  for (const Mapping& mapping : mappings) {
    if (mapping.kind == MappingKind::kVdso && mapping.start == base) {
      const auto* begin = reinterpret_cast<const uint8_t*>(mapping.start);
      return std::vector<uint8_t>(begin, begin + (mapping.end - mapping.start));
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::symbolize
