#pragma once
// Reads, in one pass over a recording, what an OTLP profiles request is made of: a profile of each kind asked
// for, with every sample's time and state (SampleFilter::keepEvents), and the process the recording is of.
#include <span>
#include <vector>

#include "formats/convert/profile.h"
#include "formats/convert/recorded_process.h"
#include "formats/convert/sample_collector.h"
#include "formats/jfr/reader/recording.h"

namespace jfrbpf::convert {

struct OtlpRecording {
  std::vector<Profile> profiles;  // of the kinds asked for that have samples, in the order asked
  RecordedProcess process;
};

// `kinds`: each at most once. The filters apply to every kind; the event name to CPU samples only.
OtlpRecording loadOtlpRecording(const jfr::reader::Recording& recording, const SampleOptions& options,
                                std::span<const TimeKind> kinds);

}  // namespace jfrbpf::convert
