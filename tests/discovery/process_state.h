#pragma once
// What the discovery tests wait for in the processes they start, read from /proc.
#include <sys/types.h>

#include <chrono>
#include <vector>

namespace jfrbpf::discovery_test {

// Children of `pid` (from /proc/PID/task/PID/children).
std::vector<pid_t> childrenOf(pid_t pid);
// Waits until /proc/PID/stat shows state `state` (e.g. 'Z'); false after `timeout`.
bool waitForState(pid_t pid, char state, std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace jfrbpf::discovery_test
