#include "bench/sampler/bench_env.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "bench/sampler/proc_probe.h"

namespace jfrbpf::bench {

std::optional<Jdk> findJdk(const std::string& home) {
  if (home.empty() || access((home + "/bin/java").c_str(), X_OK) != 0) return std::nullopt;
  Jdk jdk{home, "unknown version"};
  std::string release = readTextFile(home + "/release");
  const std::string key = "JAVA_VERSION=\"";
  size_t at = release.find(key);
  if (at != std::string::npos) {
    size_t end = release.find('"', at + key.size());
    if (end != std::string::npos) jdk.version = release.substr(at + key.size(), end - at - key.size());
  }
  return jdk;
}

void progress(const std::string& message) {
  time_t now = time(nullptr);
  tm local{};
  localtime_r(&now, &local);
  char stamp[16];
  strftime(stamp, sizeof(stamp), "%H:%M:%S", &local);
  std::fprintf(stderr, "[bench %s] %s\n", stamp, message.c_str());
}

}  // namespace jfrbpf::bench
