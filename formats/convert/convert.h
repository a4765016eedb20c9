#pragma once
// Converts a JFR recording's CPU samples (or its off-CPU samples, or both as wall-clock time, or its allocation
// samples, or its lock waits) to the formats other tools read: collapsed stacks (flamegraph.pl, speedscope), a
// self-contained HTML flame graph, pprof, and OpenTelemetry's OTLP profiles (every kind in one request).
//
//   convertRecording("app.jfr", Format::kHtml, "app.html");
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "formats/convert/allocation_collector.h"
#include "formats/convert/collapsed_writer.h"
#include "formats/convert/flame_graph_writer.h"
#include "formats/convert/lock_collector.h"
#include "formats/convert/off_cpu_collector.h"
#include "formats/convert/profile.h"
#include "formats/convert/sample_collector.h"

namespace jfrbpf::convert {

enum class Format { kCollapsed, kHtml, kPprof, kOtlp };

// "collapsed", "html", "pprof", "otlp"; nullopt otherwise.
std::optional<Format> parseFormat(std::string_view name);
std::string_view formatName(Format format);
// ".collapsed", ".html", ".pb.gz", ".otlp.pb"
std::string_view formatExtension(Format format);
// "app.jfr" -> "app.html": the input with its .jfr extension (if any) replaced; "app-off-cpu.html",
// "app-wall.html", "app-alloc.html" and "app-lock.html" for off-CPU, wall-clock, allocation and lock profiles.
std::string defaultOutputPath(const std::string& jfrPath, Format format, TimeKind time = TimeKind::kCpu);

struct ConvertOptions {
  SampleOptions samples;           // which events (CPU samples only), thread and method filters
  TimeKind time = TimeKind::kCpu;  // CPU samples, off-CPU samples (jfrbpf.OffCPUSample), both (wall clock),
                                   // allocation samples (jdk.ObjectAllocationSample), or lock waits
                                   // (jdk.JavaMonitorEnter, jdk.JavaMonitorWait, jdk.ThreadPark)
  CollapsedOptions collapsed;      // weight, thread roots, type suffixes
  std::string title;               // flame graph title; empty: "CPU flame graph: <file name>" (see TimeKindNames)
  // OTLP: a profile of each kind the recording has samples of (CPU, off-CPU, allocation, lock) rather than of
  // `time` alone.
  bool everyKind = false;
};

struct ConvertResult {
  std::string outputPath;
  TimeKind kind = TimeKind::kCpu;
  std::string eventName;  // the sample event converted; "" when the recording had none
  uint64_t samples = 0;
  uint64_t threads = 0;
  int64_t nanos = 0;       // the time the samples stand for, when they say
  int64_t onCpuNanos = 0;  // of which on CPU, in a wall-clock profile
  int64_t bytes = 0;       // what allocation samples stand for, instead of a time
  // OTLP: the figures above of each profile written, in the request's order (`samples` is their sum).
  std::vector<ConvertResult> profiles;
};

// Reads `jfrPath` and writes `outPath` ("-" writes to standard output). The file appears complete or not
// at all: it is written next to its destination and renamed into place. Throws jfrbpf::Error with a
// one-line message (unreadable or corrupt recording, unwritable destination, bad options).
ConvertResult convertRecording(const std::string& jfrPath, Format format, const std::string& outPath,
                               const ConvertOptions& options = {});

// The OTLP request of every kind of sample `jfrPath` holds, to `out` (what `record --push otlp=` sends).
// Throws jfrbpf::Error as convertRecording does.
ConvertResult writeOtlpRequest(const std::string& jfrPath, std::ostream& out);

// The same for an already aggregated profile.
void writeProfile(const Profile& profile, Format format, const ConvertOptions& options, std::ostream& out);

}  // namespace jfrbpf::convert
