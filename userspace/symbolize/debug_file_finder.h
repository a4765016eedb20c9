#pragma once
// Finds the separate debug file of a stripped object, the way gdb does: by build-id under each debug root
// (<root>/.build-id/ab/cdef....debug), then by .gnu_debuglink name (<root>/<dir>/<name>, <dir>/.debug/<name>,
// <dir>/<name>). A candidate is used only when its build-id matches the object's, or, for objects without
// build-id, when its CRC32 matches the debuglink's, so a wrong or planted file is never believed.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/symbolize/elf_file.h"

namespace jfrbpf::symbolize {

struct FoundDebugFile {
  ElfFile file;
  std::string path;  // for diagnostics; "<process root>" marks paths resolved inside the target's root
};

class DebugFileFinder {
 public:
  // `debugRoots` are host directories (normally /usr/lib/debug). Paths next to the object are resolved
  // inside the target's root, as is the target's own /usr/lib/debug.
  explicit DebugFileFinder(std::vector<std::string> debugRoots);

  // `objectPath` is the object's path as the target sees it; `targetRootFd` is /proc/PID/root (or -1).
  std::optional<FoundDebugFile> find(const ElfFile& object, std::string_view objectPath, int targetRootFd) const;

 private:
  std::vector<std::string> debugRoots_;
};

// CRC32 (the .gnu_debuglink checksum) of a whole file; nullopt when it cannot be read.
std::optional<uint32_t> fileCrc32(int fd);

}  // namespace jfrbpf::symbolize
