#pragma once
// /proc/PID/maps as data. Paths come from the target (file names it chose), so parsing is defensive:
// malformed lines are skipped, paths may hold spaces, " (deleted)" is recognised and removed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/base/error.h"

namespace jfrbpf::symbolize {

enum class MappingKind : uint8_t {
  kFile,       // an absolute path ("/usr/lib/libc.so.6"), possibly deleted
  kMemfd,      // "/memfd:name" or "memfd:name": nameless on disk; may hold an ELF image or JIT code
  kAnonymous,  // no path, "[anon:name]", "[anon_shmem:name]", "[heap]", "[stack]"
  kVdso,       // "[vdso]"
  kSpecial,    // anything else: "[vsyscall]", "[uprobes]", "[vvar]", "anon_inode:..."
};

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t fileOffset = 0;
  uint32_t devMajor = 0;
  uint32_t devMinor = 0;
  uint64_t inode = 0;
  bool readable = false;
  bool writable = false;
  bool executable = false;
  bool shared = false;
  bool deleted = false;  // the path carried " (deleted)", removed from `path`
  MappingKind kind = MappingKind::kAnonymous;
  std::string path;

  bool contains(uint64_t address) const { return address >= start && address < end; }
  bool operator==(const Mapping&) const = default;
};

// Thrown by readProcMaps when the process does not exist (any more).
class ProcessGoneError : public Error {
 public:
  using Error::Error;
};

// Parses the text of a maps file; lines that do not parse are skipped. Result is in file order.
std::vector<Mapping> parseProcMaps(std::string_view text);
// Reads /proc/PID/maps. Throws ProcessGoneError when the process is gone, jfrbpf::Error otherwise.
std::vector<Mapping> readProcMaps(int pid);
// The last path component ("libc.so.6" for "/usr/lib/x86_64-linux-gnu/libc.so.6").
std::string_view baseName(std::string_view path);

}  // namespace jfrbpf::symbolize
