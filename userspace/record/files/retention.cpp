#include "userspace/record/files/retention.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <utility>

#include "userspace/record/files/output_directory.h"

namespace jfrbpf::record {
namespace {

struct Recording {
  std::string series;
  std::string name;
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

std::vector<std::string> applyRetention(int directory, const RetentionPolicy& policy, time_t now) {
  std::vector<Recording> recordings;
  // A listing of its own: the position of readdir belongs to the open file, and closedir closes it.
  UniqueFd listing(::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::unique_ptr<DIR, int (*)(DIR*)> dir(listing ? ::fdopendir(listing.get()) : nullptr, ::closedir);
  if (!dir) return {};
  listing.release();
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    struct stat st {};
    // Not followed: a symbolic link someone put there is not ours.
    if (!isRecordingName(name) || ::fstatat(directory, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    // Planted by another owner, or dated ahead with no age to go by (retention.h): left out.
    if (!S_ISREG(st.st_mode) || !isTrustedOwner(st.st_uid) || st.st_mtim.tv_sec > now) continue;
    recordings.push_back({seriesOf(name), name, static_cast<uint64_t>(st.st_size),
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
    if (::unlinkat(directory, r.name.c_str(), 0) != 0) return;  // gone already, or not ours to remove
    r.finished = false;
    total -= r.bytes;
    seriesBytes[r.series] -= r.bytes;
    removed.push_back(r.name);
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

RetentionSweeper::RetentionSweeper(std::string directory, RetentionPolicy policy)
    : path_(std::move(directory)),
      policy_(policy),
      directory_(policy.enabled() ? openOutputDirectory(path_, "--max-age/--max-size/--max-total-size") : UniqueFd()) {}

void RetentionSweeper::sweepIfDue(int64_t now) {
  constexpr int64_t kSweepIntervalNs = 5'000'000'000;
  if (!policy_.enabled() || now < next_) return;
  next_ = now == INT64_MAX ? now : now + kSweepIntervalNs;
  std::vector<std::string> removed = applyRetention(directory_.get(), policy_, time(nullptr));
  if (removed.empty()) return;
  std::fprintf(stderr,
               "jfrbpf: removed %zu recording%s past --max-age/--max-size/--max-total-size (the last removed: %s/%s)\n",
               removed.size(), removed.size() == 1 ? "" : "s", path_.c_str(), removed.back().c_str());
}

}  // namespace jfrbpf::record
