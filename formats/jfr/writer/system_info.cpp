#include "formats/jfr/writer/system_info.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <set>
#include <utility>

#include "base/unique_fd.h"

namespace jfrbpf::jfr {
namespace {

// /proc/cpuinfo is ~1.5 KiB per CPU; 4 MiB covers thousands of CPUs and bounds what we hold.
constexpr size_t kMaxFileBytes = 4u << 20;

std::string readSmallFile(const char* path) {
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  std::string text;
  if (!fd) return text;
  char buffer[16384];
  while (text.size() < kMaxFileBytes) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  if (text.size() > kMaxFileBytes) text.resize(kMaxFileBytes);
  return text;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "Label: value, Label: value" for the non-empty values.
std::string labelled(std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
  std::string line;
  for (const auto& [label, value] : items) {
    if (value.empty()) continue;
    if (!line.empty()) line += ", ";
    line.append(label).append(": ").append(value);
  }
  return line;
}

}  // namespace

void parseCpuInfo(std::string_view cpuinfo, SystemInfo& info) {
  std::string_view brand, vendor, family, model, stepping, flags;
  std::string_view physicalId;
  std::set<std::string_view> sockets;
  std::set<std::pair<std::string_view, std::string_view>> cores;
  int32_t processors = 0;

  while (!cpuinfo.empty()) {
    size_t end = cpuinfo.find('\n');
    std::string_view line = cpuinfo.substr(0, end);
    cpuinfo.remove_prefix(end == std::string_view::npos ? cpuinfo.size() : end + 1);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    // The first processor's description stands for all of them, as in the JDK.
    auto first = [](std::string_view& field, std::string_view v) {
      if (field.empty()) field = v;
    };
    if (key == "processor") {
      ++processors;
      physicalId = {};
    } else if (key == "model name" || key == "cpu model") {
      first(brand, value);
    } else if (key == "vendor_id" || key == "CPU implementer") {
      first(vendor, value);
    } else if (key == "cpu family" || key == "CPU architecture") {
      first(family, value);
    } else if (key == "model" || key == "CPU part") {
      first(model, value);
    } else if (key == "stepping" || key == "CPU revision") {
      first(stepping, value);
    } else if (key == "flags" || key == "Features") {
      first(flags, value);
    } else if (key == "physical id") {
      physicalId = value;
      sockets.insert(value);
    } else if (key == "core id") {
      cores.emplace(physicalId, value);
    }
  }

  info.cpu = std::string(brand);
  info.cpuDescription.clear();
  for (const std::string& line :
       {labelled({{"Brand", brand}, {"Vendor", vendor}}),
        labelled({{"Family", family}, {"Model", model}, {"Stepping", stepping}}), labelled({{"Flags", flags}})}) {
    if (line.empty()) continue;
    if (!info.cpuDescription.empty()) info.cpuDescription += '\n';
    info.cpuDescription += line;
  }

  info.hwThreads = processors;
  info.sockets = sockets.empty() ? (processors > 0 ? 1 : 0) : static_cast<int32_t>(sockets.size());
  info.cores = cores.empty() ? processors : static_cast<int32_t>(cores.size());
}

SystemInfo readSystemInfo() {
  SystemInfo info;
  info.osVersion = readSmallFile("/etc/os-release");
  if (!info.osVersion.empty() && info.osVersion.back() != '\n') info.osVersion += '\n';

  utsname uts{};
  std::string machine;
  if (uname(&uts) == 0) {
    machine = uts.machine;
    info.osVersion +=
        std::string("uname: ") + uts.sysname + " " + uts.release + " " + uts.version + " " + uts.machine + "\n";
  }
#if defined(_CS_GNU_LIBC_VERSION) && defined(_CS_GNU_LIBPTHREAD_VERSION)
  char libc[64] = {}, threads[64] = {};
  if (confstr(_CS_GNU_LIBC_VERSION, libc, sizeof libc) > 0 &&
      confstr(_CS_GNU_LIBPTHREAD_VERSION, threads, sizeof threads) > 0)
    info.osVersion += std::string("libc: ") + libc + " " + threads + "\n";
#endif

  parseCpuInfo(readSmallFile("/proc/cpuinfo"), info);
  if (info.cpu.empty()) info.cpu = machine;
  if (info.hwThreads == 0) {
    long online = sysconf(_SC_NPROCESSORS_CONF);
    info.hwThreads = online > 0 ? static_cast<int32_t>(online) : 0;
    info.cores = info.hwThreads;
    info.sockets = info.hwThreads > 0 ? 1 : 0;
  }
  return info;
}

}  // namespace jfrbpf::jfr
