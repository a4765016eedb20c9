#pragma once
// Reading a JVM's hsperfdata file from outside its container. The file the JVM actually maps is opened
// through /proc/PID/map_files/<start>-<end> (no path lookup at all; needs CAP_SYS_ADMIN), falling back to its
// mapped path resolved inside /proc/PID/root without following symbolic links.
#include "userspace/discovery/jvm_mappings.h"
#include "userspace/proc/files.h"

namespace jfrbpf::discovery {

// HotSpot's default is 32 KiB (-XX:PerfDataMemorySize); larger files are read up to this size.
inline constexpr size_t kPerfDataReadLimit = 4 << 20;

proc::FileData readJvmPerfData(int procDirFd, const JvmMappings& mappings);

}  // namespace jfrbpf::discovery
