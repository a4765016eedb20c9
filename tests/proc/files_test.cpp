// Bounded reading of files a process shapes: lines longer than the limit are skipped without holding them, and
// holes are told from data.
#include "userspace/proc/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace jfrbpf::proc {
namespace {

class ProcLineReader : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/jfrbpf-proc-lines-XXXXXX";
    int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = path;
  }
  void TearDown() override { ::unlink(path_.c_str()); }

  std::vector<std::string> lines(const std::string& content, size_t maxLine, size_t stopAfter = SIZE_MAX) {
    std::ofstream(path_, std::ios::binary) << content;
    std::vector<std::string> seen;
    int error = forEachLineOfFile(AT_FDCWD, path_.c_str(), maxLine, [&](std::string_view line) {
      seen.emplace_back(line);
      return seen.size() < stopAfter;
    });
    EXPECT_EQ(error, 0);
    return seen;
  }

  std::string path_;
};

TEST_F(ProcLineReader, SkipsOverlongLinesWithBoundedMemory) {
  const std::string huge(300 * 1024, 'x');  // longer than the reader's buffer
  EXPECT_EQ(lines("short\n" + huge + "\nafter\nlast", 100), (std::vector<std::string>{"short", "after", "last"}));
  EXPECT_EQ(lines("a\n" + huge, 100), (std::vector<std::string>{"a"}));
  EXPECT_EQ(lines(huge + "\n" + huge + "\nz\n", 100), (std::vector<std::string>{"z"}));
  EXPECT_EQ(lines("exactly10!\nelevenchars\n", 10), (std::vector<std::string>{"exactly10!"}));
  EXPECT_EQ(lines("", 100), (std::vector<std::string>{}));
  EXPECT_EQ(lines("\n\n", 100), (std::vector<std::string>{"", ""}));
}

TEST_F(ProcLineReader, StopsWhenAsked) {
  EXPECT_EQ(lines("1\n2\n3\n", 100, 2), (std::vector<std::string>{"1", "2"}));
}

TEST_F(ProcLineReader, ReportsOpenErrors) {
  EXPECT_EQ(forEachLineOfFile(AT_FDCWD, "/nonexistent/jfrbpf", 100, [](std::string_view) { return true; }), ENOENT);
}

// A table a file claims in a hole (a sparse file made long to look large) is told from one with data.
TEST(MostlyHole, TellsAHoleFromData) {
  int fd = memfd_create("holes", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  constexpr off_t kMiB = 1 << 20;
  const std::vector<char> data(2 * kMiB, 'd');
  // [0, 2 MiB) data, [2, 10 MiB) hole, [10, 12 MiB) data, then a hole to 20 MiB.
  ASSERT_EQ(pwrite(fd, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(pwrite(fd, data.data(), data.size(), 10 * kMiB), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(ftruncate(fd, 20 * kMiB), 0);

  EXPECT_FALSE(mostlyHole(fd, 0, 2 * kMiB));
  EXPECT_TRUE(mostlyHole(fd, 2 * kMiB, 8 * kMiB));
  EXPECT_TRUE(mostlyHole(fd, 0, 10 * kMiB)) << "2 MiB of data in 10";
  EXPECT_FALSE(mostlyHole(fd, 1 * kMiB, 2 * kMiB)) << "half data is not mostly a hole";
  EXPECT_TRUE(mostlyHole(fd, 12 * kMiB, 8 * kMiB)) << "a hole to the end of the file";
  EXPECT_FALSE(mostlyHole(fd, 3 * kMiB, kMiB - 1)) << "under 1 MiB: not judged";
  ::close(fd);
}

}  // namespace
}  // namespace jfrbpf::proc
