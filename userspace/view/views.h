#pragma once
// The terminal views of `jfrbpf view`. Each renders a RecordingDigest as text.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/view/recording_digest.h"

namespace jfrbpf::view {

struct ViewOptions {
  size_t width = 120;     // columns available
  size_t top = 25;        // rows per table (jfr view's LIMIT 25)
  size_t stackDepth = 5;  // frames shown per stack
};

std::string summaryView(const RecordingDigest& digest, const ViewOptions& options);
std::string hotMethodsView(const RecordingDigest& digest, const ViewOptions& options);
// JDK 25's `jfr view cpu-time-hot-methods`: jdk.CPUTimeSample counted by top frame.
std::string cpuTimeHotMethodsView(const RecordingDigest& digest, const ViewOptions& options);
// JDK 25's `jfr view method-timing`.
std::string methodTimingView(const RecordingDigest& digest, const ViewOptions& options);
std::string methodTracesView(const RecordingDigest& digest, const ViewOptions& options);
std::string threadsView(const RecordingDigest& digest, const ViewOptions& options);
// CPU time by OpenTelemetry context: by each attribute key's values, and by trace.
std::string contextsView(const RecordingDigest& digest, const ViewOptions& options);
std::string lostView(const RecordingDigest& digest, const ViewOptions& options);
// jfrbpf.OffCPUSample by off-CPU time: by method, kernel function, state and thread.
std::string offCpuView(const RecordingDigest& digest, const ViewOptions& options);

// jdk.ObjectAllocationSample by allocated bytes: by class, by allocation site (top frame) and by thread.
std::string allocationView(const RecordingDigest& digest, const ViewOptions& options);

// The line the summary shares with the allocation view: "3,363, 1.2 GB allocated".
std::string allocationSamplesLine(const RecordingDigest& digest);

// jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark by time waited, each kind apart: by the lock's
// class, by site (the top Java frame below Object.wait, LockSupport and java.util.concurrent.locks), by thread,
// and by the thread the event names beside the waiting one (previous owner of the monitor, notifier).
std::string locksView(const RecordingDigest& digest, const ViewOptions& options);

// The line the summary shares with the locks view: "86 (15 blocked, 47 waiting, 24 parked), 1.23 s waited".
std::string lockEventsLine(const RecordingDigest& digest);

// The lines the summary shares with the off-cpu view: "24, 3.40 s of off-CPU time" and
// "2 (7.69% of samples taken), 20.00 ms of off-CPU time" (or "0").
std::string offCpuSamplesLine(const RecordingDigest& digest);
std::string offCpuLostLine(const RecordingDigest& digest);

struct ViewInfo {
  std::string_view name;
  std::string_view description;
  std::string (*render)(const RecordingDigest&, const ViewOptions&);
};
const std::vector<ViewInfo>& allViews();

}  // namespace jfrbpf::view
