// The files of a continuous recording: names that sort by time within a process, when the next file is
// due, and retention that removes only finished recordings jfrbpf named, oldest first.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/unique_fd.h"
#include "tests/support/durations.h"
#include "tests/support/scratch_tree.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/files/retention.h"
#include "userspace/record/sampling/rate_governor.h"
#include "userspace/record/session/slot_ranges.h"

namespace jfrbpf::record {
namespace {

using ::jfrbpf::test::kMs;
using ::jfrbpf::test::kSecond;

TEST(FileSeries, NamesSayTheProcessAndSortByTime) {
  EXPECT_EQ(processFilePrefix(1234, "com.example.App", "3f2a9c1b04de"), "1234-com.example.App-3f2a9c1b04de");
  EXPECT_EQ(processFilePrefix(7, "/opt/app/server.jar", ""), "7-server.jar");
  EXPECT_EQ(processFilePrefix(7, "", ""), "7-java");
  EXPECT_EQ(processFilePrefix(7, "a b/c:d", ""), "7-c_d") << "the last path part, in safe characters";
  EXPECT_EQ(utcStamp(0), "19700101T000000Z");
  EXPECT_EQ(utcStamp(1795602900), "20261125T103500Z");

  FileSeries series("/nonexistent-dir", "1234-App", {.periodNs = 60 * kSecond});
  std::vector<std::string> names;
  for (time_t t : {1795602900, 1795602960, 1795603020}) names.push_back(series.nextPath(t));
  EXPECT_EQ(names[0], "/nonexistent-dir/1234-App-20261125T103500Z.jfr");
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(series.nextPath(1795603020), "/nonexistent-dir/1234-App-20261125T103700Z-2.jfr")
      << "a name given already is not given again";
}

TEST(FileSeries, DueByTimeOrSizeButNotTwiceInASecond) {
  FileSeries byTime("/d", "1-x", {.periodNs = 60 * kSecond});
  EXPECT_FALSE(byTime.due(59 * kSecond, 0, 1u << 30));
  EXPECT_TRUE(byTime.due(60 * kSecond, 0, 0));
  FileSeries bySize("/d", "1-x", {.maxBytes = 1u << 20});
  EXPECT_FALSE(bySize.due(100 * kSecond, 0, (1u << 20) - 1));
  EXPECT_TRUE(bySize.due(100 * kSecond, 0, 1u << 20));
  EXPECT_FALSE(bySize.due(kSecond / 2, 0, 1u << 30)) << "at most a file a second: names stamped to the second";
}

class Retention : public test::ScratchTree {
 protected:
  // A file of `bytes` last written `ageSeconds` before `now_`.
  void file(const std::string& name, size_t bytes, int ageSeconds) {
    write(name, std::string(bytes, 'x'));
    timespec times[2] = {{now_ - ageSeconds, 0}, {now_ - ageSeconds, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (root_ + "/" + name).c_str(), times, 0), 0);
  }
  // applyRetention on the scratch directory, as a recording's sweeper opens it.
  std::vector<std::string> sweep(const RetentionPolicy& policy) {
    return applyRetention(openOutputDirectory(root_, "the test").get(), policy, now_);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto& entry : std::filesystem::directory_iterator(root_)) all.push_back(entry.path().filename());
    std::sort(all.begin(), all.end());
    return all;
  }
  time_t now_ = time(nullptr);
};

TEST_F(Retention, MaxAgeRemovesOnlyOldFinishedRecordings) {
  file("10-App-20261124T100000Z.jfr", 100, 7200);
  file("10-App-20261124T110000Z.jfr", 100, 60);
  file("11-App.a1b2c3.part.jfr", 100, 7200);  // being written (or left by a crash): never removed
  file("notes.jfr", 100, 7200);               // not a name jfrbpf gives
  file("12-App.txt", 100, 7200);
  std::filesystem::create_symlink("/etc/hostname", root_ + "/13-App-link.jfr");
  auto removed = sweep({.maxAgeNs = 3600 * kSecond});
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], "10-App-20261124T100000Z.jfr");
  EXPECT_EQ(names(), (std::vector<std::string>{"10-App-20261124T110000Z.jfr", "11-App.a1b2c3.part.jfr",
                                               "12-App.txt", "13-App-link.jfr", "notes.jfr"}));
}

TEST_F(Retention, MaxSizeRemovesAProcesssOldestFirstCountingFilesBeingWritten) {
  file("1-A-20261124T100000Z.jfr", 400, 300);
  file("2-B-20261124T100100Z.jfr", 400, 240);
  file("1-A-20261124T100200Z.jfr", 400, 180);
  file("1-A-20261124T100300Z.jfr", 400, 120);
  file("2-B-20261124T100400Z.a1b2c3d4e5f60718.part.jfr", 400, 0);
  // 1000 bytes allowed per process: A's 1200 lose its oldest file; B's 800 (its part file counts) stay, however
  // chatty A is.
  auto removed = sweep({.maxBytes = 1000});
  EXPECT_EQ(removed.size(), 1u);
  EXPECT_EQ(names(), (std::vector<std::string>{"1-A-20261124T100200Z.jfr", "1-A-20261124T100300Z.jfr",
                                               "2-B-20261124T100100Z.jfr",
                                               "2-B-20261124T100400Z.a1b2c3d4e5f60718.part.jfr"}));
  EXPECT_TRUE(sweep({.maxBytes = 1000}).empty()) << "under the limit: nothing more";
  removed = sweep({.maxBytes = 1});
  EXPECT_EQ(names(), (std::vector<std::string>{"1-A-20261124T100300Z.jfr", "2-B-20261124T100100Z.jfr",
                                               "2-B-20261124T100400Z.a1b2c3d4e5f60718.part.jfr"}))
      << "each process's newest finished file stays";
  std::filesystem::create_directory(root_ + "/gone");
  UniqueFd gone(::open((root_ + "/gone").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::filesystem::remove(root_ + "/gone");
  EXPECT_TRUE(applyRetention(gone.get(), {.maxBytes = 1}, now_).empty()) << "a directory removed meanwhile: no error";
}

TEST_F(Retention, MaxAgeRemovesTheLastFileOfAnExitedProcessToo) {
  file("1-A-20261124T100000Z.jfr", 100, 7200);  // A exited two hours ago: its last file goes with age
  file("2-B-20261124T110000Z.jfr", 100, 7000);
  file("2-B-20261124T115900Z.jfr", 100, 60);
  auto removed = sweep({.maxAgeNs = 3600 * kSecond, .maxBytes = 1u << 20});
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_EQ(names(), std::vector<std::string>{"2-B-20261124T115900Z.jfr"});
}

TEST_F(Retention, MaxTotalSizeRemovesTheOldestOfAnyProcessButEachOnesNewest) {
  file("1-A-20261124T100000Z.jfr", 400, 300);
  file("2-B-20261124T100100Z.jfr", 400, 240);
  file("1-A-20261124T100200Z.jfr", 400, 180);
  file("2-B-20261124T100300Z.jfr", 400, 120);
  file("3-C-20261124T100400Z.jfr", 400, 60);
  // 2000 bytes, 1000 allowed in all, no per-process limit: the oldest of any process go, while they may.
  auto removed = sweep({.maxTotalBytes = 1000});
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_EQ(names(), (std::vector<std::string>{"1-A-20261124T100200Z.jfr", "2-B-20261124T100300Z.jfr",
                                               "3-C-20261124T100400Z.jfr"}))
      << "each process's newest stays even over the total";
}

TEST(RateGovernor, LengthensThePeriodWhenOverTheBudgetAndComesBackWhenWellUnder) {
  RateGovernor governor(100, 10 * kMs);  // 100 samples/s over the host, at least 10 ms of a thread's CPU
  int64_t now = 1;
  uint64_t ticks = 0;
  EXPECT_EQ(governor.update(now, ticks), std::nullopt) << "the first call starts the first window";
  now += kSecond;
  ticks += 300;
  EXPECT_EQ(governor.update(now, ticks), std::nullopt) << "windows of 2 s";
  now += kSecond;
  ticks += 300;  // 300/s at 10 ms: the host's threads use 3 CPUs' worth
  EXPECT_EQ(governor.update(now, ticks), 38 * kMs) << "80 % of the budget: 3 CPUs / 80/s = 37.5 ms";
  now += 2 * kSecond;
  ticks += 160;  // 80/s: as aimed
  EXPECT_EQ(governor.update(now, ticks), std::nullopt);
  now += 2 * kSecond;
  ticks += 60;  // 30/s: the JVMs went quiet
  EXPECT_EQ(governor.update(now, ticks), 15 * kMs);
  now += 2 * kSecond;
  ticks += 20;  // 10/s
  EXPECT_EQ(governor.update(now, ticks), 10 * kMs) << "never shorter than the period asked for";
  now += 2 * kSecond;
  ticks += 10;
  EXPECT_EQ(governor.update(now, ticks), std::nullopt);
}

// A host recording times methods in at most 64 JVMs at once, not 64 over its life: a finished JVM's
// range serves the next.
TEST(RecordSlotRanges, RangesAreDisjointAndComeBackWhenReleased) {
  SlotRanges slots(4096, 1024);
  std::vector<uint32_t> bases;
  while (std::optional<uint32_t> base = slots.acquire()) bases.push_back(*base);
  EXPECT_EQ(bases, (std::vector<uint32_t>{0, 1024, 2048, 3072}));
  EXPECT_EQ(slots.acquire(), std::nullopt) << "every range in use";
  slots.release(2048);
  EXPECT_EQ(slots.acquire(), std::optional<uint32_t>(2048));
  EXPECT_EQ(slots.acquire(), std::nullopt);
  EXPECT_EQ(SlotRanges(1000, 1024).ranges(), 0u) << "no partial range";
}

}  // namespace
}  // namespace jfrbpf::record
