#pragma once
// How the discovery tests start their processes, and the command lines of their JVMs: small, quick, and
// recognisable by main class.
#include <chrono>
#include <string>
#include <vector>

#include "test_config.h"
#include "tests/support/child_process.h"

namespace jfrbpf::discovery_test {

// stdin a pipe (late_libjvm waits for a line on it); ended with SIGTERM first, so that a JVM deletes its
// hsperfdata file, and SIGKILL after 10 s.
inline test::ChildOptions childOptions() { return {.writableStdin = true, .stopGrace = std::chrono::seconds(10)}; }

// How long a started process may take to print the line that says it is ready: a hang guard.
inline constexpr std::chrono::seconds kReadyTimeout{60};

inline constexpr const char* kSleeperMainClass = "jfrbpf.discovery.test.DiscoverySleeper";

inline std::string javaIn(const std::string& jdkHome) { return jdkHome + "/bin/java"; }

// java <options> -cp <classes> DiscoverySleeper <args>; prints "ready" once running.
inline std::vector<std::string> sleeperCommand(const std::string& jdkHome, const std::vector<std::string>& options,
                                               const std::vector<std::string>& args = {}) {
  std::vector<std::string> command{javaIn(jdkHome), "-Xmx32m", "-Xss512k", "-XX:+UseSerialGC",
                                   "-XX:TieredStopAtLevel=1"};
  command.insert(command.end(), options.begin(), options.end());
  command.insert(command.end(), {"-cp", DISCOVERY_TEST_CLASSES, kSleeperMainClass});
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

}  // namespace jfrbpf::discovery_test
