#pragma once
// Where `record --push` sends each finished file: `otlp=URL`, an OpenTelemetry Collector's OTLP/HTTP
// receiver (the file converted to an ExportProfilesServiceRequest), or `pyroscope=URL`, a Grafana Pyroscope
// server (the file as written, to its /ingest). A URL without a path gets the signal's own
// (/v1development/profiles, /ingest), as OpenTelemetry's exporters do with OTEL_EXPORTER_OTLP_ENDPOINT.
#include <string>
#include <string_view>

namespace jfrbpf::push {

enum class PushKind { kOtlp, kPyroscope };

struct PushDestination {
  PushKind kind = PushKind::kOtlp;
  std::string url;       // as given
  std::string endpoint;  // what is POSTed to
  std::string name() const;  // "otlp=URL", as given on the command line
  // A name for its spool directory that stays the same from run to run: the kind and a hash of the URL.
  std::string spoolName() const;
};

// "otlp=http://collector:4318" -> the destination. Throws jfrbpf::Error (usage) naming what is wrong: the
// kind, the scheme (http or https), no host, or characters a URL cannot hold.
PushDestination parsePushDestination(std::string_view text);

}  // namespace jfrbpf::push
