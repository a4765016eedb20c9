#pragma once
// `jfrbpf record --all`: every HotSpot JVM on the host, those that start during the recording included,
// each into its own file in the directory config.outputPath.
#include "userspace/record/config.h"
#include "userspace/record/summary.h"

namespace jfrbpf::record {

// Throws jfrbpf::Error, as recordProcesses does.
RecordSummary recordHost(const RecordConfig& config);

}  // namespace jfrbpf::record
