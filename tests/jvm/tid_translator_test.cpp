// Tid translation between the JVM's pid namespace and ours, against a fake /proc and this process.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/scratch_tree.h"
#include "userspace/jvm/tid_translator.h"

namespace jfrbpf::jvm::test {
namespace {

using JvmFakeProc = jfrbpf::test::ScratchTree;

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

TEST(JvmTidTranslator, OwnProcessSharesOurNamespaces) {
  TidTranslator tids(getpid());
  EXPECT_TRUE(tids.identity());
  EXPECT_EQ(tids.hostTid(1234), 1234);
}

}  // namespace
}  // namespace jfrbpf::jvm::test
