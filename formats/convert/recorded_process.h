#pragma once
// What a recording says about the process it is of, for outputs that name it (OTLP's resource): the
// OpenTelemetry process context the process published (jfrbpf.ProcessContext, see docs/otel-context.md),
// jdk.JVMInformation, and where it runs (jfrbpf.ProcessResource: host, executable, container).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

inline constexpr const char* kProcessContextEvent = "jfrbpf.ProcessContext";
inline constexpr const char* kJvmInformationEvent = "jdk.JVMInformation";
inline constexpr const char* kProcessResourceEvent = "jfrbpf.ProcessResource";

struct RecordedProcess {
  int64_t pid = 0;          // 0 when unknown
  std::string serviceName;  // the published service.name, else the JVM's main class (or jar); "" when neither
  // The published resource's attributes in the order published, values as the file keeps them: text; then
  // those of jfrbpf.ProcessResource the process did not publish itself (host.name, process.executable.name
  // and .path, container.id and .runtime, k8s.pod.name, k8s.namespace.name).
  std::vector<std::pair<std::string, std::string>> resource;
};

// "service.name=checkout, deployment.environment.name=prod" -> its (key, value) pairs. The file does not
// escape the separators, so a ", " splits only where a key and "=" follow: values such as "[a, b]" stay whole.
std::vector<std::pair<std::string, std::string>> splitResourceText(std::string_view text);

// Feeds on the events of one pass over a recording (see collect), like SampleCollector.
class RecordedProcessCollector {
 public:
  bool wants(const jfr::reader::TypeInfo& type) const {
    return type.name == kProcessContextEvent || type.name == kJvmInformationEvent ||
           type.name == kProcessResourceEvent;
  }
  void beginChunk(const jfr::reader::Chunk&) {}
  void add(const jfr::reader::RecordedEvent& event);
  // The process; nothing of one when the file describes several (`record -p A,B` into one file), since its
  // samples do not say whose they are.
  RecordedProcess finish();

 private:
  std::set<int64_t> pids_;
  std::string publishedServiceName_, publishedResource_;  // the latest context: a process may update it
  std::string mainClass_;
  std::vector<std::pair<std::string, std::string>> whereItRuns_;  // from jfrbpf.ProcessResource
};

}  // namespace jfrbpf::convert
