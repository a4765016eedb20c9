#pragma once
// Sends one finished recording to one destination:
//  - OTLP: the file converted (convert::writeOtlpRequest: a profile of each kind it holds) and POSTed as
//    application/x-protobuf, as OpenTelemetry's OTLP/HTTP exporters do.
//  - Pyroscope: the file as written, in the `jfr` part of a multipart/form-data POST to /ingest, with
//    format=jfr, the app name (the process's service.name, else its main class) with a hostname label,
//    from/until (the file's span, in seconds since the epoch) and sampleRate. Pyroscope reads
//    jdk.ExecutionSample and weighs each one 1e9/sampleRate ns of CPU time; sampleRate is the file's samples
//    per second of the CPU time they stand for (100 at the default 10 ms), so that its CPU seconds are the
//    file's. A `labels` part (convert::pyroscopeLabelsOf) goes with it when its events carry contexts.
#include <atomic>
#include <string>
#include <vector>

#include "formats/jfr/reader/recording.h"
#include "userspace/push/http_client.h"
#include "userspace/push/push_destination.h"

namespace jfrbpf::push {

// What Pyroscope is told of a recording (its /ingest query).
struct PyroscopeQuery {
  std::string name;  // "checkout{hostname=node-1}"
  int64_t from = 0, until = 0;  // seconds since the epoch
  int64_t sampleRate = 100;     // Hz
  std::string text() const;     // "name=...&from=...": percent-encoded
};

// `hostName` labels the profile when the file names no host of its own (jfrbpf.ProcessResource).
PyroscopeQuery pyroscopeQueryOf(const jfr::reader::Recording& recording, const std::string& hostName);

// Throws jfrbpf::Error when the recording cannot be read or converted: it will not get better by retrying.
HttpResult uploadRecording(HttpClient& client, const PushDestination& destination,
                           const std::vector<std::string>& headers, const std::string& jfrPath,
                           const std::atomic<bool>& abort);

}  // namespace jfrbpf::push
