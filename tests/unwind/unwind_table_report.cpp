// Developer tool: compiles unwind tables and prints what they cost and cover.
//   unwind_table_report files PATH...   every ELF file under the paths (recursively)
//   unwind_table_report system          every executable file mapped by every process (deduplicated)
//   unwind_table_report pid PID         the executable mappings of one process
//   unwind_table_report dump FILE       the rows of one file
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "userspace/unwind/byte_source.h"
#include "userspace/unwind/elf_image.h"
#include "userspace/unwind/process_maps.h"
#include "userspace/unwind/table_compiler.h"

namespace fs = std::filesystem;
using namespace jfrbpf::unwind;

namespace {

struct Totals {
  size_t files = 0, failed = 0, rows = 0, fdes = 0, truncated = 0;
  std::array<size_t, kRowKindCount> rowsByKind{};
  std::array<uint64_t, kRowKindCount> bytesByKind{};
  std::array<size_t, static_cast<size_t>(UnsupportedReason::kCount)> reasons{};
  double seconds = 0;
  void add(const UnwindTable& table) {
    ++files;
    rows += table.rows.size();
    fdes += table.stats.fdes;
    truncated += table.stats.truncated;
    for (size_t k = 0; k < kRowKindCount; ++k) {
      rowsByKind[k] += table.stats.rowsByKind[k];
      bytesByKind[k] += table.stats.bytesByKind[k];
    }
    for (size_t r = 0; r < reasons.size(); ++r) reasons[r] += table.stats.unsupportedRows[r];
  }
  void print(const char* title) const {
    uint64_t coveredBytes = 0;
    for (size_t k = 1; k < kRowKindCount; ++k) coveredBytes += bytesByKind[k];
    std::printf("%s: %zu files (%zu not parsed, %zu truncated), %zu FDEs, %zu rows = %.2f MiB, %.3f s, %.0f rows/s\n",
                title, files, failed, truncated, fdes, rows, rows * 8.0 / (1 << 20), seconds,
                seconds > 0 ? rows / seconds : 0.0);
    for (size_t k = 1; k < kRowKindCount; ++k) {
      std::printf("  %-14s rows %9zu (%5.2f%%)  code bytes %11llu (%6.3f%%)\n", rowKindName(static_cast<RowKind>(k)),
                  rowsByKind[k], rows ? 100.0 * rowsByKind[k] / rows : 0.0,
                  static_cast<unsigned long long>(bytesByKind[k]),
                  coveredBytes ? 100.0 * bytesByKind[k] / coveredBytes : 0.0);
    }
    for (size_t r = 0; r < reasons.size(); ++r) {
      if (reasons[r]) std::printf("  unsupported because %-20s %zu rows (before collapsing)\n",
                                  unsupportedReasonName(static_cast<UnsupportedReason>(r)), reasons[r]);
    }
  }
};

bool isElf(const fs::path& path) {
  jfrbpf::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  char magic[4] = {};
  return fd && ::pread(fd.get(), magic, 4, 0) == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

UnwindTable compileFile(const fs::path& path) {
  jfrbpf::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw jfrbpf::systemError("open " + path.string());
  ByteSource source = ByteSource::fromFd(fd.get());
  ElfImage image(source);
  return compileUnwindTable(image);
}

int files(int argc, char** argv) {
  Totals totals;
  std::set<std::pair<dev_t, ino_t>> seen;
  bool verbose = std::getenv("VERBOSE") != nullptr;
  for (int i = 0; i < argc; ++i) {
    std::vector<fs::path> paths;
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::recursive_directory_iterator(argv[i], fs::directory_options::skip_permission_denied)) {
        if (entry.is_regular_file() && !entry.is_symlink()) paths.push_back(entry.path());
      }
    } else {
      paths.push_back(argv[i]);
    }
    for (const fs::path& path : paths) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second || !isElf(path)) continue;
      auto start = std::chrono::steady_clock::now();
      try {
        UnwindTable table = compileFile(path);
        totals.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        totals.add(table);
        if (verbose || paths.size() == 1) {
          size_t unsupported = table.stats.rowsByKind[static_cast<size_t>(RowKind::kUnsupported)];
          std::printf("%s: %zu FDEs, %zu rows (%zu unsupported), %zu bytes%s\n", path.c_str(), table.stats.fdes,
                      table.rows.size(), unsupported, table.memoryBytes(), table.stats.truncated ? " TRUNCATED" : "");
        }
      } catch (const jfrbpf::Error& error) {
        ++totals.failed;
        if (verbose) std::printf("%s: %s\n", path.c_str(), error.what());
      }
    }
  }
  totals.print("total");
  return 0;
}

int systemWide() {
  TableCache cache;
  Totals totals;
  std::set<const UnwindTable*> counted;
  size_t processes = 0, mappings = 0, maxMappings = 0, problems = 0;
  auto start = std::chrono::steady_clock::now();
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::vector<std::string> issues;
    try {
      AddressSpace space = AddressSpace::forProcess(std::stoi(name), cache, &issues);
      ++processes;
      mappings += space.mappings().size();
      maxMappings = std::max(maxMappings, space.mappings().size());
      for (const MappedTable& mapping : space.mappings()) {
        if (!counted.insert(mapping.table.get()).second) continue;
        totals.add(*mapping.table);
        if (std::getenv("VERBOSE") != nullptr) {
          std::printf("  %8zu rows %10zu bytes  %s\n", mapping.table->rows.size(), mapping.table->memoryBytes(),
                      mapping.path.c_str());
        }
      }
    } catch (const jfrbpf::Error&) {
      continue;  // the process exited
    }
    problems += issues.size();
    for (const std::string& issue : issues) std::printf("  %s\n", issue.c_str());
  }
  totals.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu processes, %zu executable mappings (max %zu in one process), %zu unique files, %zu parses, "
              "%zu problems\n", processes, mappings, maxMappings, counted.size(), cache.compilations(), problems);
  totals.print("mapped files");
  return 0;
}

int process(pid_t pid) {
  TableCache cache;
  std::vector<std::string> problems;
  AddressSpace space = AddressSpace::forProcess(pid, cache, &problems);
  size_t rows = 0;
  for (const MappedTable& mapping : space.mappings()) {
    rows += mapping.table->rows.size();
    std::printf("  %8zu rows %10zu bytes  %s\n", mapping.table->rows.size(), mapping.table->memoryBytes(),
                mapping.path.c_str());
  }
  for (const std::string& problem : problems) std::printf("  %s\n", problem.c_str());
  std::printf("pid %d: %zu executable mappings, %zu rows = %.2f MiB\n", pid, space.mappings().size(), rows,
              rows * 8.0 / (1 << 20));
  return 0;
}

int dump(const char* path) {
  UnwindTable table = compileFile(path);
  std::printf("pc base %#llx, %zu rows, build-id %s\n", static_cast<unsigned long long>(table.pcBase),
              table.rows.size(), table.buildId.c_str());
  for (const UnwindRow& row : table.rows) {
    std::printf("%08x %s\n", row.pc, describeRow(row).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "files" && argc > 2) return files(argc - 2, argv + 2);
    if (mode == "system") return systemWide();
    if (mode == "pid" && argc == 3) return process(std::stoi(argv[2]));
    if (mode == "dump" && argc == 3) return dump(argv[2]);
  } catch (const jfrbpf::Error& error) {
    std::fprintf(stderr, "unwind_table_report: %s\n", error.what());
    return 1;
  }
  std::fprintf(stderr, "usage: unwind_table_report files PATH... | system | pid PID | dump FILE\n");
  return 2;
}
