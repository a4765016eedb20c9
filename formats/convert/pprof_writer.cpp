#include "formats/convert/pprof_writer.h"

#include <zlib.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "formats/convert/profile.pb.h"
#include "formats/convert/saturating.h"
#include "formats/convert/utf8.h"

namespace jfrbpf::convert {
namespace {

namespace pb = perftools::profiles;

class ProtoBuilder {
 public:
  explicit ProtoBuilder(const Profile& profile) : profile_(profile) { string(""); }

  pb::Profile build() {
    const TimeKindNames& names = timeKindNames(profile_.timeKind);
    auto* samples = proto_.add_sample_type();
    samples->set_type(string(std::string(names.countType)));
    samples->set_unit(string("count"));
    const std::string weight(names.sampleType), unit(names.unit);
    auto* weights = proto_.add_sample_type();
    weights->set_type(string(weight));
    weights->set_unit(string(unit));
    proto_.set_default_sample_type(string(weight));
    proto_.mutable_period_type()->set_type(string(weight));
    proto_.mutable_period_type()->set_unit(string(unit));
    if (profile_.cpuTimeKnown && profile_.totalSamples > 0) {
      proto_.set_period(profile_.totalCpuNanos / static_cast<int64_t>(profile_.totalSamples));
    }
    proto_.set_time_nanos(profile_.recordingStartNanos);
    proto_.set_duration_nanos(
        std::max<int64_t>(0, saturatingSub(profile_.recordingEndNanos, profile_.recordingStartNanos)));
    proto_.add_comment(string("converted by jfrbpf from " + profile_.eventName + " events"));

    int64_t threadKey = string("thread");
    int64_t threadIdKey = string("thread id");
    for (const SampleGroup& group : profile_.groups) {
      auto* sample = proto_.add_sample();
      for (uint64_t location : locations(group.node)) sample->add_location_id(location);
      sample->add_value(static_cast<int64_t>(group.samples));
      sample->add_value(group.cpuNanos);
      const ProfileThread& thread = profile_.threads[group.thread];
      auto* name = sample->add_label();
      name->set_key(threadKey);
      name->set_str(string(thread.name));
      auto* id = sample->add_label();
      id->set_key(threadIdKey);
      id->set_num(thread.osThreadId);
      // The OpenTelemetry context, under the names OpenTelemetry's profiling signal links spans with.
      const ProfileContext& context = profile_.contexts[group.context];
      auto label = [&](const std::string& key, const std::string& value) {
        if (value.empty()) return;
        auto* l = sample->add_label();
        l->set_key(string(key));
        l->set_str(string(value));
      };
      label("trace_id", context.traceId);
      label("span_id", context.spanId);
      for (const auto& [key, value] : context.attributes) label(key, value);
    }
    return std::move(proto_);
  }

 private:
  // protobuf strings must be UTF-8 (Go's decoder, for one, rejects anything else).
  int64_t string(const std::string& text) {
    auto [it, inserted] = strings_.try_emplace(text, static_cast<int64_t>(strings_.size()));
    if (inserted) proto_.add_string_table(validUtf8(text));
    return it->second;
  }

  uint64_t function(uint32_t method) {
    auto [it, inserted] = functions_.try_emplace(method, functions_.size() + 1);
    if (inserted) {
      const ProfileMethod& m = profile_.methods[method];
      auto* f = proto_.add_function();
      f->set_id(it->second);
      f->set_name(string(m.name));
      f->set_system_name(string(m.systemName));
      f->set_filename(string(m.owner));
    }
    return it->second;
  }

  uint64_t mapping(const std::string& library) {
    auto [it, inserted] = mappings_.try_emplace(library, mappings_.size() + 1);
    if (inserted) {
      auto* m = proto_.add_mapping();
      m->set_id(it->second);
      m->set_filename(string(library));
      m->set_has_functions(true);
    }
    return it->second;
  }

  // One location per physical frame: inlined frames (leaf first) up to the compiled frame they sit in.
  uint64_t location(const std::vector<uint32_t>& frames, size_t first, size_t last) {
    std::string key;
    for (size_t i = first; i <= last; ++i) {
      key += std::to_string(frames[i]);
      key += ',';
    }
    auto [it, inserted] = locations_.try_emplace(key, locations_.size() + 1);
    if (inserted) {
      auto* loc = proto_.add_location();
      loc->set_id(it->second);
      const ProfileMethod& physical = profile_.methods[profile_.frames[frames[last]].method];
      if (!physical.java && !physical.owner.empty()) loc->set_mapping_id(mapping(physical.owner));
      for (size_t i = first; i <= last; ++i) {
        const ProfileFrame& frame = profile_.frames[frames[i]];
        auto* line = loc->add_line();
        line->set_function_id(function(frame.method));
        if (frame.line > 0) line->set_line(frame.line);
      }
    }
    return it->second;
  }

  std::vector<uint64_t> locations(uint32_t node) {
    std::vector<uint32_t> frames = profile_.stackLeafFirst(node);
    std::vector<uint64_t> out;
    for (size_t first = 0; first < frames.size();) {
      size_t last = first;
      while (last + 1 < frames.size() && profile_.frames[frames[last]].kind == FrameKind::kInlined) ++last;
      out.push_back(location(frames, first, last));
      first = last + 1;
    }
    return out;
  }

  const Profile& profile_;
  pb::Profile proto_;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<uint32_t, uint64_t> functions_;
  std::map<std::string, uint64_t> mappings_;
  std::unordered_map<std::string, uint64_t> locations_;
};

void writeGzip(const std::string& data, std::ostream& out) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's, as pprof expects.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw Error("cannot initialise gzip compression for the pprof output");
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  char buffer[1 << 16];
  int status = Z_OK;
  do {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    status = deflate(&stream, Z_FINISH);
    if (status == Z_STREAM_ERROR) break;
    out.write(buffer, static_cast<std::streamsize>(sizeof(buffer) - stream.avail_out));
  } while (status != Z_STREAM_END);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw Error("gzip compression of the pprof output failed");
}

}  // namespace

void writePprof(const Profile& profile, std::ostream& out) {
  pb::Profile proto = ProtoBuilder(profile).build();
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) throw Error("cannot encode the pprof profile (too large for protobuf: 2 GiB)");
  if (bytes.size() > UINT32_MAX) throw Error("the pprof profile is too large to compress (over 4 GiB)");
  writeGzip(bytes, out);
}

}  // namespace jfrbpf::convert
