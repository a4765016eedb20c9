#pragma once
// The name of the host the recorded processes run on (OpenTelemetry's host.name): that of the UTS namespace
// of PID 1 as jfrbpf sees it. In a DaemonSet's pod (hostPID, but the pod's own UTS namespace) gethostname()
// names the pod; PID 1 is the node's init, whose namespace holds the node's name.
#include <string>

namespace jfrbpf::proc {

// Read once (a thread of its own joins PID 1's UTS namespace, which needs CAP_SYS_ADMIN); jfrbpf's own
// hostname when that cannot be done. "" only when neither is known.
const std::string& hostName();

}  // namespace jfrbpf::proc
