#pragma once
// File-backed mappings from /proc/PID/maps: how jfrbpf recognises a HotSpot JVM (libjvm.so), finds its
// hsperfdata file and an already loaded jfrbpf agent. The text is target-influenced (file names), so parsing
// is bounds-checked and malformed lines are skipped.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::attach {

struct MappedFile {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string path;      // as the kernel prints it, without the " (deleted)" suffix
  bool deleted = false;  // the file was unlinked after it was mapped
};

// One entry per file-backed mapping (path starting with '/'), in address order.
std::vector<MappedFile> parseMappedFiles(std::string_view mapsText);

std::string_view baseName(std::string_view path);

// The first mapping whose file name (last path component) equals / starts with the given text.
const MappedFile* findByBaseName(const std::vector<MappedFile>& files, std::string_view name);
const MappedFile* findByBaseNamePrefix(const std::vector<MappedFile>& files, std::string_view prefix);

// HotSpot maps its performance-counter file <tmp>/hsperfdata_<user>/<pid as the JVM sees it>.
const MappedFile* findPerfDataFile(const std::vector<MappedFile>& files, pid_t namespacePid);

}  // namespace jfrbpf::attach
