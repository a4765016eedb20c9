// The one /proc/PID/status parser: the fields the attach client and discovery use, and text a process can
// make odd through its name.
#include "userspace/proc/status.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace jfrbpf::proc {
namespace {

TEST(ProcStatus, ReadsNameIdentityNamespacesAndSignals) {
  const std::string text =
      "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t1\n"
      "Uid:\t1000\t1001\t1002\t1003\nGid:\t2000\t2001\t2002\t2003\nNStgid:\t4242\t17\t1\nNSpid:\t4243\t18\t2\n"
      "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\nSigCgt:\t0000000101005ccd\n";
  ProcStatus status = parseStatus(text);
  EXPECT_TRUE(status.hasIds());
  EXPECT_EQ(status.name, "java");
  EXPECT_EQ(status.state, 'S');
  EXPECT_EQ(status.tgid, 4242);
  EXPECT_EQ(status.effectiveUid, 1001u);
  EXPECT_EQ(status.effectiveGid, 2001u);
  EXPECT_EQ(status.nsTgid, (std::vector<pid_t>{4242, 17, 1}));
  EXPECT_EQ(status.innermostTgid(), 1);
  EXPECT_EQ(status.innermostPid(), 2);
  EXPECT_TRUE(status.catches(3));   // SIGQUIT
  EXPECT_FALSE(status.catches(2));  // SIGINT
  EXPECT_FALSE(status.catches(9));  // SIGKILL
  EXPECT_FALSE(status.catches(0));
  EXPECT_FALSE(status.catches(65));
}

TEST(ProcStatus, MissingOrMalformedIdsAreUnset) {
  EXPECT_FALSE(parseStatus("").effectiveUid);
  EXPECT_FALSE(parseStatus("Name:\tx\nUid:\tgarbage\n").effectiveUid);
  EXPECT_FALSE(parseStatus("Uid:\t5\n").effectiveUid);
  EXPECT_FALSE(parseStatus("Name:\tx\nGid:\t0\t0\t0\t0\n").hasIds());
  EXPECT_FALSE(parseStatus("Uid:\t0\nGid:\t0\t0\t0\t0\n").hasIds());
  EXPECT_FALSE(parseStatus("Uid:\t0\tabc\t0\t0\nGid:\t0\t0\t0\t0\n").hasIds());
  EXPECT_FALSE(parseStatus("").hasIds());
  ProcStatus noNamespaces = parseStatus("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nNStgid:\tjunk\n");
  EXPECT_TRUE(noNamespaces.hasIds());
  EXPECT_EQ(noNamespaces.innermostTgid(), 0);
}

TEST(ProcStatus, ANameThatLooksLikeOtherFieldsIsOnlyTheName) {
  ProcStatus status = parseStatus("Name:\tUid:\t7\t7\nUid:\t0\t0\t0\t0\nNStgid:\t12\tjunk\n");
  EXPECT_EQ(status.name, "Uid:\t7\t7");
  EXPECT_EQ(status.effectiveUid, 0u);
  EXPECT_FALSE(status.effectiveGid);
  EXPECT_TRUE(status.nsTgid.empty());
  EXPECT_EQ(status.innermostTgid(), 0);
}

TEST(ProcStatus, ParsesOwnStatus) {
  ProcStatus status = parseStatus([] {
    FILE* f = std::fopen("/proc/self/status", "r");
    std::string text(65536, '\0');
    text.resize(std::fread(text.data(), 1, text.size(), f));
    std::fclose(f);
    return text;
  }());
  ASSERT_TRUE(status.hasIds());
  EXPECT_EQ(status.effectiveUid, geteuid());
  EXPECT_EQ(status.tgid, getpid());
  EXPECT_GT(status.innermostTgid(), 0);
}

}  // namespace
}  // namespace jfrbpf::proc
