#pragma once
// Command lines for the JVMs the discovery tests start: small, quick, and recognisable by main class.
#include <string>
#include <vector>

#include "test_config.h"

namespace jfrbpf::discovery_test {

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
