#pragma once
// The Java version of a JVM without hsperfdata, from the `release` file of the JDK it runs from. The file
// is read inside the JVM's root directory (its container's filesystem), never following symbolic links.
#include <string>
#include <string_view>

namespace jfrbpf::discovery {

// JAVA_VERSION="17.0.15" -> "17.0.15"; "" when the text has no JAVA_VERSION line.
std::string javaVersionFromRelease(std::string_view releaseText);

struct JavaRelease {
  std::string javaHome;  // inside the JVM's mount namespace
  std::string version;   // "" when no release file was found
};

// Looks for `release` in the directories above libjvm.so (lib/server/libjvm.so in JDK 9+,
// jre/lib/amd64/server/libjvm.so in JDK 8), opened through `rootFd` (the process's /proc/PID/root).
JavaRelease findJavaRelease(int rootFd, std::string_view libjvmPath);

}  // namespace jfrbpf::discovery
