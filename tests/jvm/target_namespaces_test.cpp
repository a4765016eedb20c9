// Time-namespace offsets and tid translation, against a fake /proc.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "userspace/jvm/target_namespaces.h"

namespace jfrbpf::jvm::test {
namespace {

class JvmFakeProc : public testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/jfrbpf-fakeproc-XXXXXX";
    ASSERT_NE(mkdtemp(path), nullptr);
    root_ = path;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    std::filesystem::path p = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string root_;
};

TEST_F(JvmFakeProc, MonotonicOffsetFromTimensOffsets) {
  write("42/timens_offsets", "monotonic           -5         250\nboottime             7          0\n");
  EXPECT_EQ(monotonicOffsetNs(42, root_), -5 * 1000000000ll + 250);
  write("43/timens_offsets", "1 3 0\n");
  EXPECT_EQ(monotonicOffsetNs(43, root_), 3000000000ll);
  write("44/timens_offsets", "monotonic lots of garbage\n");
  EXPECT_EQ(monotonicOffsetNs(44, root_), 0);
  EXPECT_EQ(monotonicOffsetNs(45, root_), 0) << "no file: no time namespace";
}

TEST_F(JvmFakeProc, TidsOfAnotherPidNamespaceAreTranslatedThroughNSpid) {
  write("self/ns/pid", "ours");
  write("42/ns/pid", "theirs");  // another file, another inode: another namespace
  write("42/task/5001/status", "Name:\tjava\nNSpid:\t5001\t1\n");
  write("42/task/5002/status", "Name:\tworker\nNSpid:\t5002\t17\n");
  TidTranslator tids(42, root_);
  EXPECT_FALSE(tids.identity());
  EXPECT_EQ(tids.hostTid(17), 5002);
  EXPECT_EQ(tids.hostTid(1), 5001);
  // A thread that appears later is found after the next rescan allowance only.
  write("42/task/5003/status", "NSpid:\t5003\t18\n");
  EXPECT_EQ(tids.hostTid(18), 0);
  tids.allowRescan();
  EXPECT_EQ(tids.hostTid(18), 5003);
  EXPECT_EQ(tids.hostTid(0), 0);
}

TEST(JvmTargetNamespaces, OwnProcessSharesOurNamespaces) {
  TidTranslator tids(getpid());
  EXPECT_TRUE(tids.identity());
  EXPECT_EQ(tids.hostTid(1234), 1234);
}

}  // namespace
}  // namespace jfrbpf::jvm::test
