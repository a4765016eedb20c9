#pragma once
// OpenTelemetry's profiles signal: an ExportProfilesServiceRequest in protobuf binary, the body an OTLP/HTTP
// exporter POSTs to /v1development/profiles, pinned to opentelemetry-proto v1.10.0 (formats/otlp/proto). One
// resource (the recorded process), one scope ("jfrbpf"), one profile per Profile given, and one dictionary that
// all of them index into.
//
// A profile's sample type is pprof's weight type: cpu/nanoseconds, off_cpu/nanoseconds, wall/nanoseconds,
// alloc_space/bytes or delay/nanoseconds. An OTLP sample is one group's events of one state: values[i] is what
// the event at timestamps_unix_nano[i] stands for, so that their number is the count (samples, allocation
// samples, lock waits) pprof gives a sample type of its own. A profile whose events were not kept
// (SampleFilter::keepEvents) gets each group as one value, its sum, without timestamps. Sample attributes:
// thread.name, thread.id (the Java thread id, which is what OpenTelemetry's Java agent puts on spans; the OS
// thread id for threads the JVM gives none), jfrbpf.off_cpu.state, and the OpenTelemetry context's attributes;
// its trace and span are the sample's link. Frames are named as in pprof, inlined Java frames share the
// location of the compiled frame they sit in, and native libraries get a mapping each.
#include <ostream>
#include <span>

#include "formats/convert/profile.h"
#include "formats/convert/recorded_process.h"

namespace jfrbpf::convert {

inline constexpr std::string_view kOtlpOffCpuStateKey = "jfrbpf.off_cpu.state";

// Resource attributes: service.name, process.pid (as the host sees it), then the other attributes the process
// published. Throws jfrbpf::Error when the request is too large for protobuf (2 GiB).
void writeOtlp(std::span<const Profile* const> profiles, const RecordedProcess& process, std::ostream& out);

}  // namespace jfrbpf::convert
