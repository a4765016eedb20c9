#pragma once
// What /proc/PID/maps says about a JVM: a HotSpot JVM maps libjvm.so (OpenJ9 ships a libjvm.so too, but
// also maps its libj9vm*.so), and HotSpot maps its counters file <tmp>/hsperfdata_<user>/<its own pid>.
// The lines are parsed by userspace/proc/maps.h; this is what a JVM's file names mean.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "userspace/proc/maps.h"

namespace jfrbpf::discovery {

struct JvmMappings {
  std::string libjvmPath;        // as mapped (inside the process's mount namespace); "" if none
  bool openJ9 = false;           // libj9vm*.so is mapped: not HotSpot
  proc::Mapping perfData;        // the hsperfdata mapping, when there is one (path as mapped, no " (deleted)")

  bool hotSpot() const { return !libjvmPath.empty() && !openJ9; }
  bool hasPerfData() const { return !perfData.path.empty(); }
};

// "<dir>/hsperfdata_<user>/<namespacePid>": the counters file of the JVM that sees itself as namespacePid.
bool isPerfDataPath(std::string_view path, pid_t namespacePid);

// Feeds one maps line; `namespacePid` is the process's own pid (the hsperfdata file is named after it).
void scanMapsLine(std::string_view line, pid_t namespacePid, JvmMappings& found);

// Reads /proc/PID/maps through the process directory fd. Returns 0 or the errno of the read.
int readJvmMappings(int procDirFd, pid_t namespacePid, JvmMappings& found);

}  // namespace jfrbpf::discovery
