#include "userspace/record/files/file_series.h"

#include <cctype>
#include <utility>

namespace jfrbpf::record {
namespace {

constexpr jfr::Ticks kMinFileNs = 1'000'000'000;

}  // namespace

std::string processFilePrefix(pid_t pid, std::string_view what, std::string_view containerShortId) {
  std::string name = what.empty() ? "java" : std::filesystem::path(what).filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  }
  if (name.size() > 60) name.resize(60);
  std::string prefix = std::to_string(pid) + "-" + name;
  if (!containerShortId.empty()) prefix += "-" + std::string(containerShortId);
  return prefix;
}

std::string jvmFilePrefix(const discovery::JvmInfo& jvm, std::string_view serviceName) {
  return processFilePrefix(jvm.pid, serviceName.empty() ? std::string_view(jvm.mainClass) : serviceName,
                           jvm.container.known() ? jvm.container.shortId() : "");
}

std::string utcStamp(time_t wall) {
  tm utc{};
  gmtime_r(&wall, &utc);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return stamp;
}

FileSeries::FileSeries(std::filesystem::path directory, std::string prefix, RotationPolicy policy)
    : directory_(std::move(directory)), prefix_(std::move(prefix)), policy_(policy) {}

std::string FileSeries::nextPath(time_t wallNow) {
  const std::string stem = prefix_ + "-" + utcStamp(wallNow);
  std::string path = (directory_ / (stem + ".jfr")).string();
  for (int n = 2; path == last_ || std::filesystem::exists(path); ++n) {
    path = (directory_ / (stem + "-" + std::to_string(n) + ".jfr")).string();
  }
  last_ = path;
  return path;
}

bool FileSeries::due(jfr::Ticks now, jfr::Ticks openedAt, uint64_t bytes) const {
  // At most one file a second: names, stamped to the second, then sort by time within a series.
  if (now - openedAt < kMinFileNs) return false;
  return (policy_.periodNs > 0 && now - openedAt >= policy_.periodNs) ||
         (policy_.maxBytes > 0 && bytes >= policy_.maxBytes);
}

}  // namespace jfrbpf::record
