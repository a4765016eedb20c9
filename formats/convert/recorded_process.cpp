#include "formats/convert/recorded_process.h"

#include <algorithm>
#include <cctype>

namespace jfrbpf::convert {
namespace {

// Where the key that starts at `at` ends, if one does ("deployment.environment.name=..."): the position of its
// "="; npos otherwise.
size_t resourceKeyEnd(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && text[end] != '=' && text[end] != ',' &&
         !std::isspace(static_cast<unsigned char>(text[end]))) {
    ++end;
  }
  return end > at && end < text.size() && text[end] == '=' ? end : std::string_view::npos;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> splitResourceText(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> attributes;
  size_t at = 0;
  while (at < text.size()) {
    const size_t equals = resourceKeyEnd(text, at);
    if (equals == std::string_view::npos) break;
    size_t end = equals + 1;
    for (;;) {
      end = text.find(", ", end);
      if (end == std::string_view::npos || resourceKeyEnd(text, end + 2) != std::string_view::npos) break;
      end += 2;
    }
    if (end == std::string_view::npos) end = text.size();
    attributes.emplace_back(std::string(text.substr(at, equals - at)),
                            std::string(text.substr(equals + 1, end - equals - 1)));
    at = end + 2;
  }
  return attributes;
}

void RecordedProcessCollector::add(const jfr::reader::RecordedEvent& event) {
  const int64_t pid = event.getLong("pid");
  if (pid > 0) pids_.insert(pid);
  if (event.type().name == kProcessContextEvent) {
    publishedServiceName_ = std::string(event.getString("serviceName"));
    publishedResource_ = std::string(event.getString("resource"));
  } else if (event.type().name == kProcessResourceEvent) {
    whereItRuns_.clear();
    for (const auto& [key, field] : {std::pair{"host.name", "hostName"}, {"process.executable.name", "executableName"},
                                     {"process.executable.path", "executablePath"}, {"container.id", "containerId"},
                                     {"container.runtime", "containerRuntime"}, {"k8s.pod.name", "k8sPodName"},
                                     {"k8s.namespace.name", "k8sNamespaceName"}}) {
      const std::string_view value = event.getString(field);
      if (!value.empty()) whereItRuns_.emplace_back(key, std::string(value));
    }
  } else {
    // "com.example.Main --port 8080", as the launcher's sun.java.command: the main class, jar or module first.
    const std::string_view arguments = event.getString("javaArguments");
    size_t start = 0;
    while (start < arguments.size() && std::isspace(static_cast<unsigned char>(arguments[start]))) ++start;
    size_t end = start;
    while (end < arguments.size() && !std::isspace(static_cast<unsigned char>(arguments[end]))) ++end;
    if (end > start) mainClass_ = std::string(arguments.substr(start, end - start));
  }
}

RecordedProcess RecordedProcessCollector::finish() {
  RecordedProcess process;
  if (pids_.size() > 1) return process;
  if (!pids_.empty()) process.pid = *pids_.begin();
  process.serviceName = publishedServiceName_.empty() ? mainClass_ : publishedServiceName_;
  process.resource = splitResourceText(publishedResource_);
  for (const auto& attribute : whereItRuns_) {
    const bool published = std::any_of(process.resource.begin(), process.resource.end(),
                                       [&](const auto& own) { return own.first == attribute.first; });
    if (!published) process.resource.push_back(attribute);
  }
  return process;
}

}  // namespace jfrbpf::convert
