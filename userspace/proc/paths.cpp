#include "userspace/proc/paths.h"

#include <cinttypes>
#include <cstdio>

namespace jfrbpf::proc {

std::string processDirPath(pid_t pid, std::string_view procRoot) {
  return std::string(procRoot) + "/" + std::to_string(pid);
}

std::string procPath(pid_t pid, std::string_view entry, std::string_view procRoot) {
  return processDirPath(pid, procRoot) + "/" + std::string(entry);
}

std::string taskPath(pid_t pid, pid_t tid, std::string_view entry, std::string_view procRoot) {
  return procPath(pid, "task/" + std::to_string(tid) + "/" + std::string(entry), procRoot);
}

std::string mapFilesEntry(uint64_t start, uint64_t end) {
  char entry[64];
  std::snprintf(entry, sizeof entry, "map_files/%" PRIx64 "-%" PRIx64, start, end);
  return entry;
}

std::string mapFilesPath(pid_t pid, uint64_t start, uint64_t end) { return procPath(pid, mapFilesEntry(start, end)); }

}  // namespace jfrbpf::proc
