#pragma once
// Unwind tables shared across processes: a library mapped by a hundred processes (or by containers that
// each have their own copy of the same build) is parsed once. Files are identified by GNU build-id, else
// by (device, inode, size, mtime); byte images (e.g. a vDSO read from a process) by build-id, else by
// content. The caller opens files (through /proc/PID/map_files or /proc/PID/root) and passes the fd.
// A file with a build-id also gets the .debug_frame of its host debug file, if one is installed
// (<debugDirectory>/.build-id/xx/yyyy.debug with the same build-id): that is the same build, wherever the
// file itself came from.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <unordered_set>

#include "userspace/unwind/table_compiler.h"
#include "userspace/unwind/unwind_table.h"

namespace jfrbpf::unwind {

class TableCache {
 public:
  explicit TableCache(CompileLimits limits = {}, std::string debugDirectory = "/usr/lib/debug")
      : limits_(limits), debugDirectory_(std::move(debugDirectory)) {}

  // The table of the ELF file open at fd (borrowed). Throws jfrbpf::Error when it is not a usable
  // x86_64 ELF file; failures are not cached.
  std::shared_ptr<const UnwindTable> forFile(int fd);
  // The table of an ELF image held in memory (copied out as needed; the span may go away afterwards).
  std::shared_ptr<const UnwindTable> forBytes(std::span<const uint8_t> bytes);

  // Drops tables that no caller holds any more.
  void prune();

  size_t size() const;
  size_t compilations() const;  // how many files were actually parsed
  size_t memoryBytes() const;   // the rows of the tables held

 private:
  using FileKey = std::tuple<dev_t, ino_t, off_t, int64_t>;  // device, inode, size, mtime (ns)

  std::shared_ptr<const UnwindTable> byBuildIdOrCompile(const std::string& buildId, const ElfImage& image);
  std::shared_ptr<const UnwindTable> compile(const std::string& buildId, const ElfImage& image);
  std::unordered_set<const UnwindTable*> distinctTables() const;  // under mutex_

  CompileLimits limits_;
  std::string debugDirectory_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const UnwindTable>> byBuildId_;
  std::map<FileKey, std::shared_ptr<const UnwindTable>> byFile_;
  std::map<std::pair<size_t, uint64_t>, std::shared_ptr<const UnwindTable>> byContent_;  // (hash, size)
  size_t compilations_ = 0;
};

}  // namespace jfrbpf::unwind
