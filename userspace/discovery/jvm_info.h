#pragma once
// Everything `jfrbpf list` shows about one HotSpot JVM, learnt without attaching to it.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "userspace/discovery/attach_verdict.h"
#include "userspace/discovery/container_id.h"

namespace jfrbpf::discovery {

// Where the Java-level facts (main class, version, options) came from.
enum class JvmFactsSource {
  PerfData,     // the JVM's hsperfdata counters
  CommandLine,  // /proc/PID/cmdline and the JDK's release file (the JVM runs with -XX:-UsePerfData)
};

struct JvmInfo {
  pid_t pid = 0;                  // in our pid namespace: for /proc, signals, perf events
  pid_t namespacePid = 0;         // as the JVM sees itself (last NStgid); names its hsperfdata and socket files
  uid_t uid = 0;                  // effective uid
  std::string user;               // uid's name in our user database, or the number
  ContainerInfo container;
  bool otherPidNamespace = false;    // namespacePid != pid
  bool otherMountNamespace = false;  // its files are reachable only through /proc/PID/root

  std::string mainClass;          // main class, jar or module; "" when unknown
  std::string javaCommand;        // main class/jar with its arguments
  std::string javaVersion;        // java.version, e.g. "17.0.15"; "" when unknown
  std::optional<int> featureVersion;  // 17 for "17.0.15"
  std::string vmName;             // "OpenJDK 64-Bit Server VM"; "" without hsperfdata
  std::string vmVersion;          // java.vm.version, e.g. "17.0.15+6-Debian-1deb12u1"; "" without hsperfdata
  std::string javaHome;           // inside the JVM's mount namespace
  std::string libjvmPath;         // as mapped, inside the JVM's mount namespace
  std::string vmArgs;             // the options the VM was started with (java.rt.vmArgs or the command line)
  std::optional<int64_t> startTimeMs;  // milliseconds since the epoch (VM creation, else process start)

  JvmFactsSource source = JvmFactsSource::CommandLine;
  bool initializing = false;      // hsperfdata exists but the VM has not finished starting: facts may be partial
  AttachVerdict attach;
  // JFRBPF_OPT_OUT in its environment (not empty, "0" or "false"): `record --all` leaves it alone. A pod sets
  // it in its spec, or from a label through the downward API.
  bool optedOut = false;
};

}  // namespace jfrbpf::discovery
