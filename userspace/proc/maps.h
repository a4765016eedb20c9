#pragma once
// /proc/PID/maps as data, the one parser of it. Paths come from the target (file names it chose), so parsing
// is defensive: malformed lines are skipped, paths may hold spaces, and " (deleted)" is taken off only where
// the kernel can mean it (files and memfds).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::proc {

enum class MappingKind : uint8_t {
  kFile,       // an absolute path ("/usr/lib/libc.so.6"), possibly deleted
  kMemfd,      // "/memfd:name (deleted)" or "memfd:name": nameless on disk; may hold an ELF image or JIT code
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

// One line of a maps file (without its '\n'); nullopt when it does not parse.
std::optional<Mapping> parseMapsLine(std::string_view line);
// The text of a maps file; lines that do not parse are skipped. Result is in file order.
std::vector<Mapping> parseMaps(std::string_view text);
// Reads and parses /proc/PID/maps (at most 64 MiB). Throws ProcessGoneError (proc_file.h) when the process
// is gone, jfrbpf::Error otherwise.
std::vector<Mapping> readMaps(pid_t pid);

// The last path component ("libc.so.6" for "/usr/lib/x86_64-linux-gnu/libc.so.6").
std::string_view baseName(std::string_view path);

}  // namespace jfrbpf::proc
