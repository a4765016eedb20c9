#pragma once
// Host description for jdk.OSInformation and jdk.CPUInformation, read once per recording from uname(2),
// /etc/os-release and /proc/cpuinfo (the sources the JDK uses on Linux).
#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::jfr {

struct SystemInfo {
  std::string osVersion;       // os-release, then "uname: …" and "libc: …" lines
  std::string cpu;             // e.g. "AMD EPYC"
  std::string cpuDescription;  // brand, vendor, family/model/stepping, flags
  int32_t sockets = 0, cores = 0, hwThreads = 0;
};

SystemInfo readSystemInfo();

// The parts of readSystemInfo() that depend on file contents, separated so they can be tested with any text.
void parseCpuInfo(std::string_view cpuinfo, SystemInfo& info);

}  // namespace jfrbpf::jfr
