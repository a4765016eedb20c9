// The output directory of a continuous recording is where root deletes files (retention): only a directory
// no one else can change is used, and retention removes files from the one the recording began in, never
// from wherever its path leads later, and only files jfrbpf could have written.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/support/durations.h"
#include "tests/support/scratch_tree.h"
#include "userspace/record/files/output_directory.h"
#include "userspace/record/files/retention.h"

namespace jfrbpf::record {
namespace {

using ::jfrbpf::test::kSecond;
constexpr uid_t kNobody = 65534;

class OutputDirectorySafety : public test::ScratchTree {
 protected:
  // A file of `bytes` at `path`, last written `ageSeconds` ago (negative: dated in the future).
  void recording(const std::string& path, size_t bytes, int64_t ageSeconds) {
    write(std::filesystem::relative(path, root_), std::string(bytes, 'x'));
    const time_t when = time(nullptr) - ageSeconds;
    timespec times[2] = {{when, 0}, {when, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
  }
  static std::vector<std::string> names(const std::string& dir) {
    std::vector<std::string> all;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) all.push_back(entry.path().filename());
    std::sort(all.begin(), all.end());
    return all;
  }
  // The line makeOutputDirectory refuses `dir` with, "" when it takes it.
  static std::string refusal(const std::string& dir) {
    try {
      makeOutputDirectory(dir, "the test", std::nullopt);
      return "";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
      return e.what();
    }
  }
};

// The attack: whoever owns a parent of the output directory swaps it for a link to another directory as the
// recording ends. The final sweep removes the old recording of the directory the recording began in, and
// nothing where the link leads.
TEST_F(OutputDirectorySafety, TheFinalSweepRemovesNothingWhereASwappedInLinkLeads) {
  const std::string out = root_ + "/out", moved = root_ + "/moved", victim = root_ + "/victim";
  makeOutputDirectory(out, "the test", std::nullopt);
  for (const std::string& dir : {out, victim}) {
    recording(dir + "/1-App-20261124T100000Z.jfr", 100, 7200);
    recording(dir + "/1-App-20261124T115900Z.jfr", 100, 60);
  }
  RetentionSweeper sweeper(out, {.maxAgeNs = 3600 * kSecond});
  std::filesystem::rename(out, moved);
  std::filesystem::create_directory_symlink(victim, out);
  sweeper.sweepIfDue(INT64_MAX);
  EXPECT_EQ(names(victim), (std::vector<std::string>{"1-App-20261124T100000Z.jfr", "1-App-20261124T115900Z.jfr"}))
      << "nothing removed where the link leads";
  EXPECT_EQ(names(moved), std::vector<std::string>{"1-App-20261124T115900Z.jfr"})
      << "the directory the recording began in is swept, wherever it went";
}

// Files of another owner with jfrbpf's names were not written by it: planted, they must neither be removed
// nor push the real recordings out by their size or date.
TEST_F(OutputDirectorySafety, FilesOfAnotherOwnerAreNeitherCountedNorRemoved) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to plant files of another owner (chown)";
  const std::string out = root_ + "/out";
  makeOutputDirectory(out, "the test", std::nullopt);
  recording(out + "/2-App-20261124T100000Z.jfr", 400, 300);
  recording(out + "/2-App-20261124T100500Z.jfr", 400, 60);
  recording(out + "/1-x.jfr", 100'000, -86400);  // a day ahead: the "newest", and more than all the rest
  recording(out + "/3-y-20261123T000000Z.jfr", 100, 2 * 86400);
  for (const char* planted : {"/1-x.jfr", "/3-y-20261123T000000Z.jfr"}) {
    ASSERT_EQ(::chown((out + planted).c_str(), kNobody, kNobody), 0);
  }
  RetentionSweeper(out, {.maxAgeNs = 3600 * kSecond, .maxTotalBytes = 1000}).sweepIfDue(INT64_MAX);
  EXPECT_EQ(names(out), (std::vector<std::string>{"1-x.jfr", "2-App-20261124T100000Z.jfr",
                                                  "2-App-20261124T100500Z.jfr", "3-y-20261123T000000Z.jfr"}));
}

// A file dated in the future has no age to go by (a clock set back, or a date someone chose): left alone
// until the clock passes it, it does not count as the newest nor push the others out by its size.
TEST_F(OutputDirectorySafety, AFileDatedInTheFutureIsLeftOutOfRetention) {
  const std::string out = root_ + "/out";
  makeOutputDirectory(out, "the test", std::nullopt);
  recording(out + "/2-App-20261124T100000Z.jfr", 400, 300);
  recording(out + "/2-App-20261124T100500Z.jfr", 400, 60);
  recording(out + "/9-App-20301124T100000Z.jfr", 100'000, -86400);
  RetentionSweeper(out, {.maxTotalBytes = 1000}).sweepIfDue(INT64_MAX);
  EXPECT_EQ(names(out), (std::vector<std::string>{"2-App-20261124T100000Z.jfr", "2-App-20261124T100500Z.jfr",
                                                  "9-App-20301124T100000Z.jfr"}));
}

TEST_F(OutputDirectorySafety, AnExistingDirectoryOthersCanChangeIsRefused) {
  const std::string shared = root_ + "/shared";
  std::filesystem::create_directory(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);
  EXPECT_NE(refusal(shared).find("writable by all users"), std::string::npos) << refusal(shared);
  EXPECT_THROW(RetentionSweeper(shared, {.maxAgeNs = kSecond}), Error) << "nor swept";

  const std::string mine = root_ + "/mine";
  std::filesystem::create_directory(mine);
  ASSERT_EQ(::chmod(mine.c_str(), 0750), 0);
  EXPECT_EQ(refusal(mine), "");
  EXPECT_EQ(refusal(root_ + "/new/out"), "") << "made when missing";
  struct stat st {};
  ASSERT_EQ(::stat((root_ + "/new/out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);

  // No symbolic link is followed anywhere on the path: one in a parent would lead there as surely.
  std::filesystem::create_directories(root_ + "/real/out");
  std::filesystem::create_directory_symlink(root_ + "/real", root_ + "/link");
  EXPECT_NE(refusal(root_ + "/link/out").find("symbolic link"), std::string::npos) << refusal(root_ + "/link/out");
  EXPECT_NE(refusal(root_ + "/link/new").find("symbolic link"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(root_ + "/real/new")) << "nothing made where the link leads";

  if (geteuid() != 0) GTEST_SKIP() << "needs root, for directories of another owner or group (chown)";
  const std::string foreign = root_ + "/foreign";
  std::filesystem::create_directory(foreign);
  ASSERT_EQ(::chmod(foreign.c_str(), 0700), 0);
  ASSERT_EQ(::chown(foreign.c_str(), kNobody, kNobody), 0);
  EXPECT_NE(refusal(foreign).find("belongs to uid 65534"), std::string::npos) << refusal(foreign);
  // Writable by root's group (or a sudo user's own): no one else can change it.
  ASSERT_EQ(::chmod(mine.c_str(), 0770), 0);
  ASSERT_EQ(::chown(mine.c_str(), 0, 0), 0);
  EXPECT_EQ(refusal(mine), "");
  ASSERT_EQ(::chown(mine.c_str(), 0, kNobody), 0);
  EXPECT_NE(refusal(mine).find("writable by group 65534"), std::string::npos) << refusal(mine);
}

}  // namespace
}  // namespace jfrbpf::record
