#include "formats/convert/otlp_writer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "formats/convert/saturating.h"
#include "formats/convert/utf8.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"

namespace jfrbpf::convert {
namespace {

namespace otlp = opentelemetry::proto;
namespace otlp_profiles = opentelemetry::proto::profiles::v1development;

constexpr std::string_view kOtlpScopeName = "jfrbpf";

// "0af7651916cd43dd8448eb211c80319c" -> its 16 bytes.
std::string bytesOfHex(std::string_view hex) {
  auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return bytes;
}

// The request's dictionary: every table's entries interned by value, each table's entry 0 the empty one.
class OtlpDictionary {
 public:
  explicit OtlpDictionary(otlp_profiles::ProfilesDictionary& tables) : tables_(tables) {
    tables_.add_mapping_table();
    tables_.add_location_table();
    tables_.add_function_table();
    tables_.add_link_table();
    tables_.add_attribute_table();
    tables_.add_stack_table();
    string("");
  }

  // protobuf strings must be UTF-8: what the recording holds is repaired on the way.
  int32_t string(std::string_view text) {
    auto [it, inserted] = strings_.try_emplace(std::string(text), tables_.string_table_size());
    if (inserted) tables_.add_string_table(validUtf8(text));
    return it->second;
  }

  int32_t stringAttribute(std::string_view key, std::string_view value) {
    auto [it, inserted] = attributes_.try_emplace("s" + std::string(key) + '\0' + std::string(value),
                                                  tables_.attribute_table_size());
    if (inserted) newAttribute(key)->mutable_value()->set_string_value(validUtf8(value));
    return it->second;
  }

  int32_t intAttribute(std::string_view key, int64_t value) {
    auto [it, inserted] =
        attributes_.try_emplace("i" + std::string(key) + '\0' + std::to_string(value), tables_.attribute_table_size());
    if (inserted) newAttribute(key)->mutable_value()->set_int_value(value);
    return it->second;
  }

  // The trace and span of a context; 0 (no link) outside a trace.
  int32_t link(const ProfileContext& context) {
    if (context.traceId.empty()) return 0;
    auto [it, inserted] = links_.try_emplace(context.traceId + '/' + context.spanId, tables_.link_table_size());
    if (inserted) {
      auto* link = tables_.add_link_table();
      link->set_trace_id(bytesOfHex(context.traceId));
      link->set_span_id(bytesOfHex(context.spanId));
    }
    return it->second;
  }

  // The stack ending at `node`: one location per physical frame (leaf first), inlined frames with the compiled
  // frame they sit in.
  int32_t stack(const Profile& profile, uint32_t node) {
    const std::vector<uint32_t> frames = profile.stackLeafFirst(node);
    std::vector<int32_t> locations;
    for (size_t first = 0; first < frames.size();) {
      size_t last = first;
      while (last + 1 < frames.size() && profile.frames[frames[last]].kind == FrameKind::kInlined) ++last;
      locations.push_back(location(profile, frames, first, last));
      first = last + 1;
    }
    std::string key;
    for (int32_t location : locations) key += std::to_string(location) + ',';
    auto [it, inserted] = stacks_.try_emplace(key, tables_.stack_table_size());
    if (inserted) {
      auto* stack = tables_.add_stack_table();
      for (int32_t location : locations) stack->add_location_indices(location);
    }
    return it->second;
  }

 private:
  otlp_profiles::KeyValueAndUnit* newAttribute(std::string_view key) {
    auto* attribute = tables_.add_attribute_table();
    attribute->set_key_strindex(string(key));
    return attribute;
  }

  int32_t function(const ProfileMethod& method) {
    auto [it, inserted] = functions_.try_emplace(method.name + '\0' + method.systemName + '\0' + method.owner,
                                                 tables_.function_table_size());
    if (inserted) {
      auto* function = tables_.add_function_table();
      function->set_name_strindex(string(method.name));
      function->set_system_name_strindex(string(method.systemName));
      function->set_filename_strindex(string(method.owner));
    }
    return it->second;
  }

  int32_t mapping(const std::string& library) {
    auto [it, inserted] = mappings_.try_emplace(library, tables_.mapping_table_size());
    if (inserted) tables_.add_mapping_table()->set_filename_strindex(string(library));
    return it->second;
  }

  int32_t location(const Profile& profile, const std::vector<uint32_t>& frames, size_t first, size_t last) {
    const ProfileMethod& physical = profile.methods[profile.frames[frames[last]].method];
    const int32_t mappingIndex = !physical.java && !physical.owner.empty() ? mapping(physical.owner) : 0;
    std::vector<std::pair<int32_t, int64_t>> lines;  // function, line
    std::string key = std::to_string(mappingIndex) + ':';
    for (size_t i = first; i <= last; ++i) {
      const ProfileFrame& frame = profile.frames[frames[i]];
      lines.emplace_back(function(profile.methods[frame.method]), std::max(0, frame.line));
      key += std::to_string(lines.back().first) + '@' + std::to_string(lines.back().second) + ',';
    }
    auto [it, inserted] = locations_.try_emplace(key, tables_.location_table_size());
    if (inserted) {
      auto* location = tables_.add_location_table();
      location->set_mapping_index(mappingIndex);
      for (const auto& [functionIndex, line] : lines) {
        auto* entry = location->add_lines();
        entry->set_function_index(functionIndex);
        entry->set_line(line);
      }
    }
    return it->second;
  }

  otlp_profiles::ProfilesDictionary& tables_;
  std::unordered_map<std::string, int32_t> strings_, attributes_, links_, functions_, mappings_, locations_, stacks_;
};

class OtlpProfileWriter {
 public:
  OtlpProfileWriter(const Profile& profile, OtlpDictionary& dictionary) : profile_(profile), dictionary_(dictionary) {}

  void write(otlp_profiles::Profile& out) {
    const TimeKindNames& names = timeKindNames(profile_.timeKind);
    for (auto* type : {out.mutable_sample_type(), out.mutable_period_type()}) {
      type->set_type_strindex(dictionary_.string(names.sampleType));
      type->set_unit_strindex(dictionary_.string(names.unit));
    }
    if (profile_.cpuTimeKnown && profile_.totalSamples > 0) {
      out.set_period(profile_.totalCpuNanos / static_cast<int64_t>(profile_.totalSamples));
    }
    out.set_time_unix_nano(static_cast<uint64_t>(std::max<int64_t>(0, profile_.recordingStartNanos)));
    out.set_duration_nano(static_cast<uint64_t>(
        std::max<int64_t>(0, saturatingSub(profile_.recordingEndNanos, profile_.recordingStartNanos))));
    for (const SampleGroup& group : profile_.groups) addGroup(group, out);
  }

 private:
  void addGroup(const SampleGroup& group, otlp_profiles::Profile& out) {
    const int32_t stack = stackOf(group.node);
    const std::vector<int32_t> attributes = attributesOf(group);
    const int32_t link = dictionary_.link(profile_.contexts[group.context]);
    auto newSample = [&](uint32_t state) {
      auto* sample = out.add_samples();
      sample->set_stack_index(stack);
      for (int32_t attribute : attributes) sample->add_attribute_indices(attribute);
      if (state != 0) sample->add_attribute_indices(dictionary_.stringAttribute(kOtlpOffCpuStateKey, stateName(state)));
      sample->set_link_index(link);
      return sample;
    };
    if (group.events.empty()) {
      newSample(0)->add_values(group.cpuNanos);
      return;
    }
    // An OTLP sample has one set of attributes: a group's events of each state are a sample of their own.
    std::map<uint32_t, otlp_profiles::Sample*> byState;
    for (const SampleEvent& event : group.events) {
      auto [it, inserted] = byState.try_emplace(event.state, nullptr);
      if (inserted) it->second = newSample(event.state);
      it->second->add_values(event.value);
      it->second->add_timestamps_unix_nano(static_cast<uint64_t>(std::max<int64_t>(0, event.timeNanos)));
    }
  }

  // thread.name, thread.id, then the context's attributes: a sample's keys must be distinct, so a context key
  // that one of ours or an earlier one took (a file may repeat a key) is left out.
  std::vector<int32_t> attributesOf(const SampleGroup& group) {
    const ProfileThread& thread = profile_.threads[group.thread];
    std::vector<int32_t> indices = {dictionary_.stringAttribute("thread.name", thread.name)};
    const int64_t id = thread.javaThreadId > 0 ? thread.javaThreadId : thread.osThreadId;
    if (id > 0) indices.push_back(dictionary_.intAttribute("thread.id", id));
    std::set<std::string_view> keys = {"thread.name", "thread.id", kOtlpOffCpuStateKey};
    for (const auto& [key, value] : profile_.contexts[group.context].attributes) {
      if (keys.insert(key).second) indices.push_back(dictionary_.stringAttribute(key, value));
    }
    return indices;
  }

  int32_t stackOf(uint32_t node) {
    auto [it, inserted] = stacks_.try_emplace(node, 0);
    if (inserted) it->second = dictionary_.stack(profile_, node);
    return it->second;
  }

  const std::string& stateName(uint32_t state) const { return profile_.eventStates[state]; }

  const Profile& profile_;
  OtlpDictionary& dictionary_;
  std::unordered_map<uint32_t, int32_t> stacks_;  // by the profile's node
};

// The resource stays unset when the file names no process: no resource information is known.
void describeRecordedProcess(const RecordedProcess& process, otlp_profiles::ResourceProfiles& resourceProfiles) {
  auto add = [&](std::string_view key) {
    auto* attribute = resourceProfiles.mutable_resource()->add_attributes();
    attribute->set_key(std::string(key));
    return attribute->mutable_value();
  };
  if (!process.serviceName.empty()) add("service.name")->set_string_value(validUtf8(process.serviceName));
  if (process.pid > 0) add("process.pid")->set_int_value(process.pid);
  for (const auto& [key, value] : process.resource) {
    if (key == "service.name" || key == "process.pid") continue;
    add(validUtf8(key))->set_string_value(validUtf8(value));
  }
}

}  // namespace

void writeOtlp(std::span<const Profile* const> profiles, const RecordedProcess& process, std::ostream& out) {
  otlp::collector::profiles::v1development::ExportProfilesServiceRequest request;
  OtlpDictionary dictionary(*request.mutable_dictionary());
  auto* resourceProfiles = request.add_resource_profiles();
  describeRecordedProcess(process, *resourceProfiles);
  auto* scope = resourceProfiles->add_scope_profiles();
  scope->mutable_scope()->set_name(std::string(kOtlpScopeName));
  for (const Profile* profile : profiles) OtlpProfileWriter(*profile, dictionary).write(*scope->add_profiles());
  std::string bytes;
  if (!request.SerializeToString(&bytes)) throw Error("cannot encode the OTLP request (too large for protobuf: 2 GiB)");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace jfrbpf::convert
