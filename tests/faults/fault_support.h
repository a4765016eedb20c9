#pragma once
// What the fault tests look at after each fault: the part files a recorder leaves, what jfrbpf left in a
// target's /tmp and working directory, the BPF objects a recorder held (gone once it exited), whether a
// JVM's timed method has its original bytecode again, and a process started under the pid of one that exited.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "tests/java_e2e/workloads.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

std::vector<std::string> partFiles(const std::filesystem::path& dir);
// Waits (bounded) until a part file in `dir` holds a chunk: the recording runs and has written out.
bool awaitFirstChunk(const std::filesystem::path& dir, std::chrono::seconds timeout = std::chrono::seconds(60));

// A JDK 17 JVM running `mainClass` of the java_e2e workloads in a mount namespace of its own, with a private
// /tmp as its working directory: what jfrbpf stages there (agent copies, HotSpot's attach trigger) is
// jfrbpf's alone, whatever else runs on the machine.
std::unique_ptr<Workload> jvmWithPrivateTmp(const std::string& mainClass, const std::vector<std::string>& args,
                                            size_t workers);

// What jfrbpf left in a JVM's /tmp or working directory (seen through /proc/PID/root and /proc/PID/cwd):
// attach triggers (".attach_pid*") and agent copies (staging names, also under their first dot name) that
// no live process holds locked (a recorder locks its copy's directory while it lives; other test runs or a
// `record --all` on the machine may attach any JVM).
std::vector<std::string> jfrbpfFilesOf(pid_t jvm);
// Whether a live process holds a flock on `path`: a recorder's staged copy in use, not one left behind.
bool lockedByAProcess(const std::filesystem::path& path);
// Whether the process holds a directory of a staged agent copy open: it is in the attach, its copy made.
bool holdsStagedAgent(pid_t recorder);
// Whether the JVM has a jfrbpf agent library mapped.
bool agentLoaded(pid_t jvm);

// Holds the JVM's attach listener (started first, as jcmd does, if it is not running): HotSpot serves one
// connection at a time and reads its request without a timeout, so while the returned connection stays
// open and silent, every other attach waits for its answer. Invalid (with a test failure) if it cannot.
UniqueFd holdAttachListener(pid_t jvm);

// The BPF programs, maps and links a live process holds (from /proc/PID/fdinfo).
struct BpfObjects {
  std::set<uint32_t> programs, maps, links;
  size_t size() const { return programs.size() + maps.size() + links.size(); }
  std::string describe() const;
};
BpfObjects bpfObjectsOf(pid_t pid);
// Which of `objects` still exist after waiting up to `timeout` for the kernel to free them (it may defer).
BpfObjects stillLoaded(const BpfObjects& objects, std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Fails the test unless the current version of `className::method` is its original bytecode (the shortest:
// timing stubs lengthen it) and, with `wasInstrumented`, an instrumented version existed. Reads the JVM's
// methods through an agent session of this process's own: call it once a recording loaded the agent.
void expectOriginalCode(pid_t jvm, const std::string& className, const std::string& method, bool wasInstrumented);

// Starts `argv` as process `pid` (free: its process exited and was reaped) by setting the kernel's last
// pid; null with `why` when the kernel refuses or other processes keep taking it first.
std::unique_ptr<ChildProcess> spawnWithPid(pid_t pid, const std::vector<std::string>& argv, std::string& why);

}  // namespace jfrbpf::test
