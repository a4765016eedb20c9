#pragma once
// The `labels` part of a Pyroscope JFR upload: a LabelsSnapshot (formats/pyroscope/jfr_labels.proto) that
// gives the label pairs of each contextId the recording's events carry, so that Pyroscope can filter and
// group their samples by the OpenTelemetry context's attributes (http.route, ...). Pyroscope reads contextId
// on jdk.ExecutionSample and jdk.JavaMonitorEnter.
#include <string>

#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

// The serialized snapshot; "" when no such event of the recording has a context with attributes.
std::string pyroscopeLabelsOf(const jfr::reader::Recording& recording);

}  // namespace jfrbpf::convert
