#include "userspace/push/recording_upload.h"

#include <cctype>
#include <cmath>
#include <sstream>

#include "base/error.h"
#include "formats/convert/convert.h"
#include "formats/convert/otlp_recording.h"
#include "formats/convert/pyroscope_labels.h"
#include "formats/jfr/reader/recording.h"
#include "userspace/proc/host_name.h"

namespace jfrbpf::push {
namespace {

// Pyroscope's app names take [A-Za-z0-9_./-]; label values end at ',' or '}'.
std::string pyroscopeName(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-';
    out += kept ? c : '_';
  }
  return out.empty() ? "java" : out;
}

std::string percentEncoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string PyroscopeQuery::text() const {
  // spyName javaspy: Pyroscope's UI colours Java frames by package for it.
  return "name=" + percentEncoded(name) + "&from=" + std::to_string(from) + "&until=" + std::to_string(until) +
         "&format=jfr&sampleRate=" + std::to_string(sampleRate) + "&spyName=javaspy";
}

PyroscopeQuery pyroscopeQueryOf(const jfr::reader::Recording& recording, const std::string& hostName) {
  static constexpr convert::TimeKind kCpu[] = {convert::TimeKind::kCpu};
  const convert::OtlpRecording cpu = convert::loadOtlpRecording(recording, {}, kCpu);
  PyroscopeQuery query;
  const std::string& service = cpu.process.serviceName;
  std::string host = hostName;  // the recorder's, unless the file names the process's
  for (const auto& [key, value] : cpu.process.resource) {
    if (key == "host.name") host = value;
  }
  query.name = pyroscopeName(service) + "{hostname=" + pyroscopeName(host) + "}";
  int64_t start = INT64_MAX, end = 0;
  for (const auto& chunk : recording.chunks()) {
    start = std::min(start, chunk.startNanos);
    end = std::max(end, chunk.startNanos + chunk.durationNanos);
  }
  if (start == INT64_MAX) start = end = 0;
  query.from = start / 1'000'000'000;
  query.until = std::max(query.from + 1, (end + 999'999'999) / 1'000'000'000);
  if (!cpu.profiles.empty() && cpu.profiles.front().cpuTimeKnown && cpu.profiles.front().totalCpuNanos > 0) {
    const convert::Profile& profile = cpu.profiles.front();
    query.sampleRate = std::max<int64_t>(
        1, std::llround(static_cast<double>(profile.totalSamples) * 1e9 / static_cast<double>(profile.totalCpuNanos)));
  }
  return query;
}

HttpResult uploadRecording(HttpClient& client, const PushDestination& destination,
                           const std::vector<std::string>& headers, const std::string& jfrPath,
                           const std::atomic<bool>& abort) {
  if (abort.load()) return {0, "the recording's end came first", "", ""};  // a conversion cannot be stopped
  if (destination.kind == PushKind::kOtlp) {
    std::ostringstream body;
    convert::writeOtlpRequest(jfrPath, body);
    return client.post(destination.endpoint, headers, "application/x-protobuf", body.view(), abort);
  }
  const std::string& host = proc::hostName();
  const auto recording = jfr::reader::Recording::open(jfrPath);
  const PyroscopeQuery query = pyroscopeQueryOf(recording, host);
  const std::string labels = convert::pyroscopeLabelsOf(recording);
  // Pyroscope reads only parts that have a file name (Go's multipart form files). The file is read as it is
  // sent, not held.
  std::vector<FormPart> parts = {{"jfr", "jfr", {}, jfrPath}};
  if (!labels.empty()) parts.push_back({"labels", "labels", labels, ""});
  return client.postForm(destination.endpoint + "?" + query.text(), headers, parts, abort);
}

}  // namespace jfrbpf::push
