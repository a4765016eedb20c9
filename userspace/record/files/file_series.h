#pragma once
// The files of a rotating recording (--rotate): when the current one is due to be finished, and what the
// next is called. Names say which process a file belongs to and sort by time within it:
// "1234-com.example.App-20261124T101500Z.jfr" (UTC start), with "-2", "-3"... when a name is taken.
#include <sys/types.h>

#include <ctime>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "formats/jfr/writer/types.h"
#include "userspace/discovery/jvm_info.h"

namespace jfrbpf::record {

struct RotationPolicy {
  jfr::Ticks periodNs = 0;  // --rotate: a new file at least this often (0: no time bound)
  uint64_t maxBytes = 0;    // --rotate-size: a new file once the current one holds this much (0: no size bound)
  bool enabled() const { return periodNs > 0 || maxBytes > 0; }
};

class FileSeries {
 public:
  FileSeries(std::filesystem::path directory, std::string prefix, RotationPolicy policy);

  // The path of a file beginning at `wallNow`, not taken yet.
  std::string nextPath(time_t wallNow);
  // Whether a file opened at `openedAt` that holds `bytes` is to be finished at `now`.
  bool due(jfr::Ticks now, jfr::Ticks openedAt, uint64_t bytes) const;
  const std::filesystem::path& directory() const { return directory_; }
  const std::string& prefix() const { return prefix_; }

 private:
  std::filesystem::path directory_;
  std::string prefix_;
  RotationPolicy policy_;
  std::string last_;  // the latest name given: its temporary file may not be renamed into place yet
};

// "1234-com.example.App-3f2a9c1b04de": the pid, what runs (a main class, jar or command; "java" if unknown)
// and the container if any, in characters safe for file names.
std::string processFilePrefix(pid_t pid, std::string_view what, std::string_view containerShortId);

// processFilePrefix of a discovered JVM: the service.name it publishes (its OpenTelemetry process context),
// else its main class; and its container.
std::string jvmFilePrefix(const discovery::JvmInfo& jvm, std::string_view serviceName = {});

// "20261124T101500Z" for the UTC time `wall`.
std::string utcStamp(time_t wall);

}  // namespace jfrbpf::record
