#pragma once
// The file mappings of a target as the attach client looks at them: how it recognises a HotSpot JVM
// (libjvm.so), finds its hsperfdata file and an already loaded jfrbpf agent. The maps text is parsed by
// userspace/proc/maps.h.
#include <sys/types.h>

#include <string_view>
#include <vector>

#include "userspace/proc/maps.h"

namespace jfrbpf::attach {

// The mappings of files (path starting with '/', " (deleted)" taken off), in address order.
std::vector<proc::Mapping> fileMappings(std::string_view mapsText);

// The first mapping whose file name (last path component) equals / starts with the given text.
const proc::Mapping* findByBaseName(const std::vector<proc::Mapping>& files, std::string_view name);
const proc::Mapping* findByBaseNamePrefix(const std::vector<proc::Mapping>& files, std::string_view prefix);

// HotSpot maps its performance-counter file <tmp>/hsperfdata_<user>/<pid as the JVM sees it>.
const proc::Mapping* findPerfDataFile(const std::vector<proc::Mapping>& files, pid_t namespacePid);

}  // namespace jfrbpf::attach
