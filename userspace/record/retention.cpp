#include "userspace/record/retention.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <regex>

namespace jfrbpf::record {
namespace {

struct Recording {
  std::string series;
  std::string path;
  uint64_t bytes = 0;
  int64_t modifiedNs = 0;
  bool finished = false;
};

bool isRecordingName(const std::string& name) {
  size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  return digits > 0 && digits < name.size() && name[digits] == '-' && name.ends_with(".jfr");
}

// "PID-MAIN[-CONTAINER]" of "PID-MAIN[-CONTAINER]-UTCSTART[-N].jfr" (or of its ".<random>.part.jfr"): the
// files of one process. A name without a stamp is a series of its own.
std::string seriesOf(const std::string& name) {
  static const std::regex stamp("-[0-9]{8}T[0-9]{6}Z[-.]");
  std::smatch match;
  if (!std::regex_search(name, match, stamp)) return name;
  return name.substr(0, static_cast<size_t>(match.position(0)));
}

int64_t nowNs(time_t now) { return static_cast<int64_t>(now) * 1'000'000'000; }

}  // namespace

bool isFinishedRecordingName(const std::string& name) {
  return isRecordingName(name) && !name.ends_with(".part.jfr");
}

std::vector<std::string> applyRetention(const std::filesystem::path& directory, const RetentionPolicy& policy,
                                        time_t now) {
  std::vector<Recording> recordings;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    struct stat st {};
    // lstat: a symlink someone put there is not ours, and is not followed.
    if (!isRecordingName(name) || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    recordings.push_back({seriesOf(name), entry.path().string(), static_cast<uint64_t>(st.st_size),
                          static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                          isFinishedRecordingName(name)});
  }
  std::sort(recordings.begin(), recordings.end(),
            [](const Recording& a, const Recording& b) { return a.modifiedNs < b.modifiedNs; });
  // A limit too small must not leave nothing: the directory's newest finished recording stays whatever the
  // age, and each process's newest whatever the sizes (an exited JVM's last file still goes with age).
  std::map<std::string, Recording*> newestOfSeries;
  Recording* newestOfAll = nullptr;
  uint64_t total = 0;
  std::map<std::string, uint64_t> seriesBytes;
  for (Recording& r : recordings) {
    total += r.bytes;
    seriesBytes[r.series] += r.bytes;
    if (!r.finished) continue;
    newestOfSeries[r.series] = &r;
    newestOfAll = &r;
  }
  std::vector<std::string> removed;
  auto remove = [&](Recording& r) {
    if (::unlink(r.path.c_str()) != 0) return;  // gone already, or not ours to remove
    r.finished = false;
    total -= r.bytes;
    seriesBytes[r.series] -= r.bytes;
    removed.push_back(r.path);
  };
  for (Recording& r : recordings) {
    const bool tooOld = policy.maxAgeNs > 0 && nowNs(now) - r.modifiedNs > policy.maxAgeNs && &r != newestOfAll;
    const bool overSize = policy.maxBytes > 0 && seriesBytes[r.series] > policy.maxBytes && &r != newestOfSeries[r.series];
    if (r.finished && (tooOld || overSize)) remove(r);
  }
  for (Recording& r : recordings) {
    if (policy.maxTotalBytes == 0 || total <= policy.maxTotalBytes) break;
    if (r.finished && &r != newestOfSeries[r.series]) remove(r);
  }
  return removed;
}

void RetentionSweeper::sweepIfDue(int64_t now) {
  constexpr int64_t kSweepIntervalNs = 5'000'000'000;
  if (!policy_.enabled() || now < next_) return;
  next_ = now == INT64_MAX ? now : now + kSweepIntervalNs;
  std::vector<std::string> removed = applyRetention(directory_, policy_, time(nullptr));
  if (removed.empty()) return;
  std::fprintf(stderr, "jfrbpf: removed %zu recording%s past --max-age/--max-size/--max-total-size (the last removed: %s)\n",
               removed.size(), removed.size() == 1 ? "" : "s", removed.back().c_str());
}

}  // namespace jfrbpf::record
