// Bounded reading of files a process shapes: lines longer than the limit are skipped without holding them.
#include "userspace/proc/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
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

}  // namespace
}  // namespace jfrbpf::proc
