#pragma once
// Converts a JFR recording's CPU samples to the formats other tools read: collapsed stacks (flamegraph.pl,
// speedscope), a self-contained HTML flame graph, and pprof.
//
//   convertRecording("app.jfr", Format::kHtml, "app.html");
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/convert/collapsed_writer.h"
#include "formats/convert/flame_graph_writer.h"
#include "formats/convert/profile.h"
#include "formats/convert/sample_collector.h"

namespace jfrbpf::convert {

enum class Format { kCollapsed, kHtml, kPprof };

// "collapsed", "html", "pprof"; nullopt otherwise.
std::optional<Format> parseFormat(std::string_view name);
std::string_view formatName(Format format);
// ".collapsed", ".html", ".pb.gz"
std::string_view formatExtension(Format format);
// "app.jfr" -> "app.html": the input with its .jfr extension (if any) replaced.
std::string defaultOutputPath(const std::string& jfrPath, Format format);

struct ConvertOptions {
  SampleOptions samples;       // which events, thread and method filters
  CollapsedOptions collapsed;  // weight, thread roots, type suffixes
  std::string title;           // flame graph title; empty: "CPU flame graph: <file name>"
};

struct ConvertResult {
  std::string outputPath;
  std::string eventName;  // the sample event converted; "" when the recording had none
  uint64_t samples = 0;
  uint64_t threads = 0;
};

// Reads `jfrPath` and writes `outPath` ("-" writes to standard output). The file appears complete or not
// at all: it is written next to its destination and renamed into place. Throws jfrbpf::Error with a
// one-line message (unreadable or corrupt recording, unwritable destination, bad options).
ConvertResult convertRecording(const std::string& jfrPath, Format format, const std::string& outPath,
                               const ConvertOptions& options = {});

// The same for an already aggregated profile.
void writeProfile(const Profile& profile, Format format, const ConvertOptions& options, std::ostream& out);

}  // namespace jfrbpf::convert
