#pragma once
#include <string_view>
#include <vector>

namespace jfrbpf::record {

// Parses a kernel CPU list such as "0-3,5,7-8" (/sys/devices/system/cpu/online). Throws jfrbpf::Error.
std::vector<int> parseCpuList(std::string_view text);

// The CPUs that are online now.
std::vector<int> onlineCpus();

}  // namespace jfrbpf::record
