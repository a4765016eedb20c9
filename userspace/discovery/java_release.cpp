#include "userspace/discovery/java_release.h"

#include <fcntl.h>

#include "userspace/proc/files.h"
#include "userspace/proc/root_files.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kReleaseFileLimit = 64 * 1024;
// libjvm.so sits 3 (JDK 9+: <home>/lib/server) or 4 (JDK 8: <home>/jre/lib/amd64/server) levels below the
// directory holding `release`; one more covers JDK 8's <home>/jre as java.home.
constexpr int kLevelsToTry = 5;

std::string_view parentOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::string javaVersionFromRelease(std::string_view releaseText) {
  std::string version;
  proc::forEachLine(releaseText, [&](std::string_view line) {
    line = proc::trimBlanks(line);
    constexpr std::string_view kKey = "JAVA_VERSION=";
    if (!version.empty() || !line.starts_with(kKey)) return;
    std::string_view value = line.substr(kKey.size());
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    version = value;
  });
  return version;
}

JavaRelease findJavaRelease(int rootFd, std::string_view libjvmPath) {
  std::string_view directory = parentOf(libjvmPath);
  std::string_view home = parentOf(parentOf(directory));  // <home>/lib/server -> <home>
  for (int level = 0; level < kLevelsToTry && directory != "/"; ++level) {
    directory = parentOf(directory);
    std::string path = std::string(directory) + "/release";
    UniqueFd fd = proc::openInRoot(rootFd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!fd) continue;
    proc::FileData text = proc::readRegularFile(fd.get(), kReleaseFileLimit);
    if (!text.ok()) continue;
    std::string version = javaVersionFromRelease(text.bytes);
    if (!version.empty()) return JavaRelease{std::string(directory), std::move(version)};
  }
  return JavaRelease{std::string(home), {}};
}

}  // namespace jfrbpf::discovery
