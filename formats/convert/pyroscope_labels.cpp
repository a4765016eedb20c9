#include "formats/convert/pyroscope_labels.h"

#include <map>

#include "formats/convert/recorded_process.h"
#include "formats/convert/sample_collector.h"
#include "jfr_labels.pb.h"

namespace jfrbpf::convert {

std::string pyroscopeLabelsOf(const jfr::reader::Recording& recording) {
  std::map<int64_t, std::string> attributesById;
  scanRecording(
      recording, [](const jfr::reader::Chunk&) {},
      [&](const jfr::reader::RecordedEvent& event) {
        const int64_t id = event.getLong("contextId");
        if (id != 0 && !attributesById.contains(id)) {
          attributesById.emplace(id, std::string(event.getString("contextAttributes")));
        }
      },
      [](const jfr::reader::TypeInfo& type) {
        return type.name == "jdk.ExecutionSample" || type.name == "jdk.JavaMonitorEnter";
      });
  if (attributesById.empty()) return "";
  jfrbpf::pyroscope::LabelsSnapshot snapshot;
  std::map<std::string, int64_t> stringIds;
  auto stringId = [&](const std::string& text) {
    auto [it, added] = stringIds.emplace(text, static_cast<int64_t>(stringIds.size() + 1));
    if (added) (*snapshot.mutable_strings())[it->second] = text;
    return it->second;
  };
  for (const auto& [id, attributes] : attributesById) {
    auto& labels = *(*snapshot.mutable_contexts())[id].mutable_labels();
    // Pyroscope's label names take [A-Za-z0-9_.], as OpenTelemetry's attribute keys are written.
    for (const auto& [key, value] : splitResourceText(attributes)) labels[stringId(key)] = stringId(value);
  }
  return snapshot.SerializeAsString();
}

}  // namespace jfrbpf::convert
