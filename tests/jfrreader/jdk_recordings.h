#pragma once
// Recordings made by real JDKs for the reader's tests (test support only). The workload is compiled and
// each recording made once per build directory; later tests reuse the files. A file lock keeps tests
// that run in parallel from recording the same file twice.
#include <map>
#include <string>

namespace jfrbpf::jfr::testing {

struct JdkRecording {
  std::string path;
  std::string jfrTool;  // the `jfr` of the JDK that made it
};

// Records JfrReaderWorkload with the JDK at `jdkHome`, passing `recordingOptions` to
// -XX:StartFlightRecording (filename is added). Throws std::runtime_error with the reason on failure.
JdkRecording recordWorkload(const std::string& jdkHome, const std::string& name, const std::string& recordingOptions);

// Event counts per type as `jfr summary` reports them (metadata and checkpoint records left out), and the
// chunk count.
struct Summary {
  int chunks = 0;
  std::map<std::string, long> counts;
};
Summary jfrSummary(const JdkRecording& recording);

// `jfr print --json` of the whole file with every stack frame.
std::string jfrPrintJson(const JdkRecording& recording);

}  // namespace jfrbpf::jfr::testing
