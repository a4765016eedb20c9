#include "formats/convert/convert.h"

#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include "formats/convert/otlp_recording.h"
#include "formats/convert/otlp_writer.h"
#include "formats/convert/output_file.h"
#include "formats/convert/pprof_writer.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

std::optional<Format> parseFormat(std::string_view name) {
  if (name == "collapsed") return Format::kCollapsed;
  if (name == "html") return Format::kHtml;
  if (name == "pprof") return Format::kPprof;
  if (name == "otlp") return Format::kOtlp;
  return std::nullopt;
}

std::string_view formatName(Format format) {
  switch (format) {
    case Format::kCollapsed: return "collapsed";
    case Format::kHtml: return "html";
    case Format::kPprof: return "pprof";
    case Format::kOtlp: return "otlp";
  }
  return "collapsed";
}

std::string_view formatExtension(Format format) {
  switch (format) {
    case Format::kCollapsed: return ".collapsed";
    case Format::kHtml: return ".html";
    case Format::kPprof: return ".pb.gz";
    case Format::kOtlp: return ".otlp.pb";
  }
  return ".collapsed";
}

std::string defaultOutputPath(const std::string& jfrPath, Format format, TimeKind time) {
  std::string base = jfrPath;
  std::string_view name = std::string_view(base).substr(base.rfind('/') == std::string::npos ? 0 : base.rfind('/') + 1);
  if (name.size() > 4 && name.ends_with(".jfr")) base.resize(base.size() - 4);
  return base + std::string(timeKindNames(time).fileSuffix) + std::string(formatExtension(format));
}

void writeProfile(const Profile& profile, Format format, const ConvertOptions& options, std::ostream& out) {
  switch (format) {
    case Format::kCollapsed: writeCollapsed(profile, options.collapsed, out); break;
    case Format::kHtml: {
      FlameGraphOptions html;
      if (!options.title.empty()) html.title = options.title;
      writeFlameGraph(profile, html, out);
      break;
    }
    case Format::kPprof: writePprof(profile, out); break;
    case Format::kOtlp: {
      const Profile* profiles[] = {&profile};
      writeOtlp(profiles, RecordedProcess{}, out);
      break;
    }
  }
}

namespace {

// The profile of the samples `options.time` chooses.
Profile loadChosenProfile(const jfr::reader::Recording& recording, const ConvertOptions& options) {
  SampleOptions samples = options.samples;
  samples.filter.virtualThreadsByName = true;
  switch (options.time) {
    case TimeKind::kCpu: return loadProfile(recording, samples);
    case TimeKind::kAlloc: return loadAllocationProfile(recording, samples.filter);
    case TimeKind::kLock: return loadLockProfile(recording, samples.filter);
    case TimeKind::kOffCpu:
    case TimeKind::kWall: break;
  }
  return loadTimeProfile(recording, samples.filter, options.time);
}

// What a converted profile holds, for the caller's report.
ConvertResult convertedFigures(const Profile& profile) {
  ConvertResult result;
  result.kind = profile.timeKind;
  if (profile.timeKind == TimeKind::kWall) result.onCpuNanos = onCpuNanos(profile);
  if (profile.timeKind == TimeKind::kAlloc) {
    result.bytes = profile.totalCpuNanos;
  } else if (profile.cpuTimeKnown) {
    result.nanos = profile.totalCpuNanos;
  }
  result.eventName = profile.eventName;
  result.samples = profile.totalSamples;
  std::vector<bool> seen(profile.threads.size());
  for (const SampleGroup& group : profile.groups) {
    if (!seen[group.thread]) ++result.threads;
    seen[group.thread] = true;
  }
  return result;
}

ConvertResult convertToOtlp(const jfr::reader::Recording& recording, const ConvertOptions& options,
                            const std::function<void(const std::function<void(std::ostream&)>&)>& write) {
  SampleOptions samples = options.samples;
  samples.filter.virtualThreadsByName = true;
  // Not the wall-clock profile: its samples are the CPU and off-CPU ones again.
  static constexpr TimeKind kEveryKind[] = {TimeKind::kCpu, TimeKind::kOffCpu, TimeKind::kAlloc, TimeKind::kLock};
  const TimeKind chosen[] = {options.time};
  OtlpRecording otlp = loadOtlpRecording(recording, samples,
                                         options.everyKind ? std::span<const TimeKind>(kEveryKind) : chosen);
  std::vector<const Profile*> profiles;
  for (const Profile& profile : otlp.profiles) profiles.push_back(&profile);
  write([&](std::ostream& out) { writeOtlp(profiles, otlp.process, out); });
  ConvertResult result;
  result.kind = options.time;
  for (const Profile& profile : otlp.profiles) {
    result.profiles.push_back(convertedFigures(profile));
    result.samples += profile.totalSamples;
  }
  return result;
}

}  // namespace

ConvertResult writeOtlpRequest(const std::string& jfrPath, std::ostream& out) {
  ConvertOptions options;
  options.everyKind = true;
  return convertToOtlp(jfr::reader::Recording::open(jfrPath), options, [&](const auto& writer) { writer(out); });
}

ConvertResult convertRecording(const std::string& jfrPath, Format format, const std::string& outPath,
                               const ConvertOptions& options) {
  auto recording = jfr::reader::Recording::open(jfrPath);
  if (format == Format::kOtlp) {
    ConvertResult result = convertToOtlp(recording, options, [&](const auto& writer) {
      writeFileAtomically(outPath, writer);
    });
    result.outputPath = outPath;
    return result;
  }
  Profile profile = loadChosenProfile(recording, options);
  ConvertOptions effective = options;
  if (effective.title.empty()) {
    effective.title =
        std::string(timeKindNames(options.time).graph) + ": " + std::filesystem::path(jfrPath).filename().string();
  }
  writeFileAtomically(outPath, [&](std::ostream& out) { writeProfile(profile, format, effective, out); });
  ConvertResult result = convertedFigures(profile);
  result.outputPath = outPath;
  return result;
}

}  // namespace jfrbpf::convert
