#pragma once
// Where /proc keeps what it says about a process, and the names of its entries. Every /proc path jfrbpf builds
// comes from here; `procRoot` is kProcRoot except in tests that build a fake /proc.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::proc {

inline constexpr const char* kProcRoot = "/proc";

// "/proc/<pid>"
std::string processDirPath(pid_t pid, std::string_view procRoot = kProcRoot);
// "/proc/<pid>/<entry>"
std::string procPath(pid_t pid, std::string_view entry, std::string_view procRoot = kProcRoot);
// "/proc/<pid>/task/<tid>/<entry>"
std::string taskPath(pid_t pid, pid_t tid, std::string_view entry, std::string_view procRoot = kProcRoot);

// "map_files/<start>-<end>": the entry of a /proc/PID directory that is the very file mapped at [start, end),
// even if it was deleted or replaced since (opening it needs CAP_SYS_ADMIN).
std::string mapFilesEntry(uint64_t start, uint64_t end);
// "/proc/<pid>/map_files/<start>-<end>"
std::string mapFilesPath(pid_t pid, uint64_t start, uint64_t end);

}  // namespace jfrbpf::proc
