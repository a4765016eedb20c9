#pragma once
// Reaching a JVM's attach listener, as HotSpot's own tools do: connect to <tmp>/.java_pid<nspid> if it is
// there; otherwise create the .attach_pid<nspid> trigger (JVM working directory first, then tmp), send
// SIGQUIT, wait for the socket with a bounded backoff, and remove the trigger. All paths go through
// /proc/PID/{root,cwd}, so JVMs in other mount namespaces work; the trigger is created and the connection
// made with the JVM's effective uid/gid on a dedicated thread (see run_as.h).
#include <chrono>

#include "base/unique_fd.h"
#include "userspace/attach/jvm_facts.h"
#include "userspace/attach/target_process.h"

namespace jfrbpf::attach {

// Budget for the listener to appear after SIGQUIT; HotSpot's tools wait about 6 s.
inline constexpr std::chrono::milliseconds kDefaultListenerTimeout{6000};

// A connected, non-blocking AF_UNIX stream socket to the JVM's attach listener. Throws AttachError:
// AttachDisabled, NotReady (no SIGQUIT handler yet), NotResponding (no listener within `timeout`),
// NoSuchProcess (exited meanwhile), PermissionDenied, UnsafeTarget (a foreign trigger or socket is in the way).
UniqueFd connectToListener(const TargetProcess& process, const JvmFacts& facts, std::chrono::milliseconds timeout);

}  // namespace jfrbpf::attach
