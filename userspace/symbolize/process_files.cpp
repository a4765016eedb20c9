#include "userspace/symbolize/process_files.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/error.h"
#include "userspace/proc/mapped_file.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/root_files.h"

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

UniqueFd openInRoot(int rootFd, std::string_view path) {
  if (rootFd < 0 || path.empty() || path.find('\0') != std::string_view::npos) return {};
  return keepIfRegular(proc::openInRoot(rootFd, path, kReadFlags, proc::Links::kFollowInsideRoot));
}

UniqueFd openMappedFile(int pid, const proc::Mapping& mapping, int rootFd) {
  const std::string mapFile = proc::mapFilesPath(pid, mapping.start, mapping.end);
  if (UniqueFd fd = keepIfRegular(UniqueFd(::open(mapFile.c_str(), kReadFlags)))) return fd;

  if (mapping.kind != proc::MappingKind::kFile || mapping.deleted) return {};
  UniqueFd fd = openInRoot(rootFd, mapping.path);
  // The path may name another file by now (an upgrade replaced it, or the target planted one).
  if (!fd || !proc::isMappedFile(fd.get(), mapping)) return {};
  return fd;
}

UniqueFd openHostFile(const std::string& path) {
  return keepIfRegular(UniqueFd(::open(path.c_str(), kReadFlags)));
}

std::optional<std::vector<uint8_t>> readProcessMemory(int pid, uint64_t address, size_t size) {
  UniqueFd fd(::open(proc::procPath(pid, "mem").c_str(), O_RDONLY | O_CLOEXEC));
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
  std::vector<proc::Mapping> mappings;
  try {
    mappings = proc::readMaps(::getpid());
  } catch (const Error&) {
    return std::nullopt;
  }
  for (const proc::Mapping& mapping : mappings) {
    if (mapping.kind == proc::MappingKind::kVdso && mapping.start == base) {
      const auto* begin = reinterpret_cast<const uint8_t*>(mapping.start);
      return std::vector<uint8_t>(begin, begin + (mapping.end - mapping.start));
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::symbolize
