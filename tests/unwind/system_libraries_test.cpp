// Every ELF file of the system's library directory and the JDK's libjvm.so compile without errors, and
// the share of code the tables cannot describe stays small. Figures are printed for the record.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "base/error.h"
#include "base/unique_fd.h"
#include "test_config.h"
#include "userspace/proc/maps.h"
#include "userspace/unwind/process_maps.h"
#include "userspace/unwind/table_compiler.h"

namespace fs = std::filesystem;

namespace jfrbpf::unwind {
namespace {

// Reads the ELF identification; files that are not x86_64 ELF64 are allowed to be rejected.
bool isElf(int fd, bool& isX8664) {
  Elf64_Ehdr header{};
  if (::pread(fd, &header, sizeof(header), 0) != static_cast<ssize_t>(sizeof(header))) return false;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) return false;
  isX8664 = header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_machine == EM_X86_64;
  return true;
}

struct Summary {
  size_t files = 0, rows = 0, fdes = 0;
  uint64_t coveredBytes = 0, unsupportedBytes = 0;
  size_t unsupportedRows = 0;
  void add(const UnwindTable& table) {
    ++files;
    rows += table.rows.size();
    fdes += table.stats.fdes;
    unsupportedRows += table.stats.rowsByKind[static_cast<size_t>(RowKind::kUnsupported)];
    for (size_t kind = 1; kind < kRowKindCount; ++kind) coveredBytes += table.stats.bytesByKind[kind];
    unsupportedBytes += table.stats.bytesByKind[static_cast<size_t>(RowKind::kUnsupported)];
  }
  double unsupportedShare() const { return coveredBytes ? double(unsupportedBytes) / coveredBytes : 0; }
};

UnwindTable compilePath(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ByteSource source = ByteSource::fromFd(fd.get());
  ElfImage image(source);
  return compileUnwindTable(image);
}

TEST(UnwindSystemLibraries, EveryLibraryAndLibjvmCompile) {
  std::vector<std::string> paths;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const auto& entry : fs::recursive_directory_iterator("/usr/lib/x86_64-linux-gnu",
                                                            fs::directory_options::skip_permission_denied)) {
    if (entry.is_regular_file() && !entry.is_symlink()) paths.push_back(entry.path());
  }
  paths.push_back(std::string(::jfrbpf::test::kJdkHome) + "/lib/server/libjvm.so");
  Summary summary;
  size_t rejectedForeign = 0;
  for (const std::string& path : paths) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    bool x8664 = false;
    if (!fd || ::fstat(fd.get(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) continue;
    if (!isElf(fd.get(), x8664)) continue;
    try {
      ByteSource source = ByteSource::fromFd(fd.get());
      ElfImage image(source);
      UnwindTable table = compileUnwindTable(image);
      summary.add(table);
      EXPECT_FALSE(table.stats.truncated) << path;
      // The linker's own search table counts the FDEs it saw: every one of them must be compiled.
      if (table.stats.headerFdeCount) {
        EXPECT_EQ(table.stats.fdes, *table.stats.headerFdeCount) << path;
      }
      EXPECT_EQ(table.stats.malformedEntries, 0u) << path;
      EXPECT_LE(table.rows.size(), size_t{JFRBPF_UNWIND_MAX_ROWS}) << path;
    } catch (const Error& error) {
      if (x8664) ADD_FAILURE() << path << ": " << error.what();
      ++rejectedForeign;
    }
  }
  std::printf("%zu ELF files (%zu not x86_64, rejected), %zu FDEs, %zu rows = %.1f MiB, unsupported: %zu rows, "
              "%.3f%% of described code bytes\n",
              summary.files, rejectedForeign, summary.fdes, summary.rows, summary.rows * 8.0 / (1 << 20),
              summary.unsupportedRows, 100 * summary.unsupportedShare());
  EXPECT_GT(summary.files, 100u);
  // Stack realignment (cfa=*(rbp-N)) and frames in r10/r13 are the known gaps: about 1% of code bytes here.
  EXPECT_LT(summary.unsupportedShare(), 0.05);
}

TEST(UnwindSystemLibraries, LibcHasThePltSignalCloneAndOutermostFrames) {
  UnwindTable libc = compilePath("/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_FALSE(libc.buildId.empty());
  EXPECT_GE(libc.stats.rowsByKind[static_cast<size_t>(RowKind::kPlt)], 1u);
  EXPECT_EQ(libc.stats.rowsByKind[static_cast<size_t>(RowKind::kSignal)], 1u);    // __restore_rt
  EXPECT_GE(libc.stats.rowsByKind[static_cast<size_t>(RowKind::kEndOfStack)], 2u);  // clone, clone3
  // From clone's and clone3's syscall to their child's FDE, which neither describes.
  EXPECT_EQ(libc.stats.rowsByKind[static_cast<size_t>(RowKind::kClone)], 2u);
  ASSERT_TRUE(libc.stats.headerFdeCount);
  EXPECT_EQ(*libc.stats.headerFdeCount, libc.stats.fdes);
}

TEST(UnwindSystemLibraries, LibjvmTableIsComplete) {
  std::string path = std::string(::jfrbpf::test::kJdkHome) + "/lib/server/libjvm.so";
  if (::access(path.c_str(), R_OK) != 0) GTEST_SKIP() << "no libjvm.so at " << path;
  UnwindTable table = compilePath(path);
  std::printf("libjvm.so: %zu FDEs, %zu rows, %zu bytes of table\n", table.stats.fdes, table.rows.size(),
              table.memoryBytes());
  EXPECT_GT(table.rows.size(), 10000u);
  EXPECT_EQ(table.stats.malformedEntries, 0u);
  ASSERT_TRUE(table.stats.headerFdeCount);
  EXPECT_EQ(*table.stats.headerFdeCount, table.stats.fdes);
}

// Whether process `pid` still maps the range a problem line names ("pid N mapping START-END PATH: ...").
bool stillMapped(pid_t pid, const std::string& problem) {
  size_t at = problem.find(" mapping ");
  if (at == std::string::npos) return true;
  std::string range = problem.substr(at + 9, problem.find(' ', at + 9) - (at + 9));
  try {
    for (const proc::Mapping& mapping : proc::readMaps(pid)) {
      char text[48];
      std::snprintf(text, sizeof text, "%llx-%llx", static_cast<unsigned long long>(mapping.start),
                    static_cast<unsigned long long>(mapping.end));
      if (range == text) return true;
    }
  } catch (const Error&) {
    return false;  // gone
  }
  return false;
}

TEST(UnwindSystemLibraries, EveryProcessOnThisMachine) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to open other processes' /proc/PID/map_files";
  TableCache cache;
  std::set<const UnwindTable*> unique;
  size_t processes = 0, mappings = 0, maxMappings = 0;
  Summary summary;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::vector<std::string> problems;
    try {
      AddressSpace space = AddressSpace::forProcess(std::stoi(name), cache, &problems);
      ++processes;
      mappings += space.mappings().size();
      maxMappings = std::max(maxMappings, space.mappings().size());
      for (const MappedTable& mapping : space.mappings()) {
        if (unique.insert(mapping.table.get()).second) summary.add(*mapping.table);
      }
    } catch (const Error&) {
      continue;  // exited meanwhile
    }
    for (const std::string& problem : problems) {
      // Only a process that exits or execs under us (other tests start programs all the time) may make its
      // files vanish: a problem counts where the mapping is still there.
      if (stillMapped(std::stoi(name), problem)) ADD_FAILURE() << problem;
    }
  }
  std::printf("%zu processes, %zu executable mappings (max %zu per process), %zu distinct files, %zu parses, "
              "%zu rows = %.2f MiB of tables\n",
              processes, mappings, maxMappings, unique.size(), cache.compilations(), summary.rows,
              summary.rows * 8.0 / (1 << 20));
  EXPECT_GT(processes, 1u);
  EXPECT_EQ(cache.compilations(), unique.size());  // each distinct file parsed exactly once
  EXPECT_LT(mappings, processes * JFRBPF_UNWIND_MAX_MAPPINGS);
}

}  // namespace
}  // namespace jfrbpf::unwind
