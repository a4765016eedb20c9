// Lookups inside a process's root: they stay inside it, and refuse symbolic links unless told to follow them
// (and then only within the root).
#include "userspace/proc/root_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>

#include "tests/support/scratch_tree.h"

namespace jfrbpf::proc {
namespace {

class ProcRootFiles : public jfrbpf::test::ScratchTree {
 protected:
  void SetUp() override {
    ScratchTree::SetUp();
    const std::filesystem::path scratch = root_;
    std::filesystem::create_directory(scratch / "real");
    std::filesystem::create_symlink("/etc", scratch / "tmp");
    std::filesystem::create_symlink("real", scratch / "relative");
    rootFd_ = UniqueFd(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(rootFd_);
  }

  UniqueFd rootFd_;
};

TEST_F(ProcRootFiles, LookupsStayInsideTheRootAndRefuseLinks) {
  EXPECT_TRUE(openInRoot(rootFd_.get(), "real", O_PATH | O_DIRECTORY));
  UniqueFd viaAbsoluteLink = openInRoot(rootFd_.get(), "tmp", O_PATH | O_DIRECTORY);
  EXPECT_FALSE(viaAbsoluteLink);
  EXPECT_EQ(errno, ELOOP);
  EXPECT_FALSE(openInRoot(rootFd_.get(), "relative", O_PATH | O_DIRECTORY));
  // ".." cannot climb above the root: this names <scratch>/etc, which does not exist, not the host's /etc.
  EXPECT_FALSE(openInRoot(rootFd_.get(), "real/../../../etc", O_PATH | O_DIRECTORY));
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(ProcRootFiles, FollowedLinksStayInsideTheRoot) {
  EXPECT_TRUE(openInRoot(rootFd_.get(), "relative", O_PATH | O_DIRECTORY, Links::kFollowInsideRoot));
  // "/etc" is resolved inside the root, where there is none.
  EXPECT_FALSE(openInRoot(rootFd_.get(), "tmp", O_PATH | O_DIRECTORY, Links::kFollowInsideRoot));
  EXPECT_EQ(errno, ENOENT);
}

}  // namespace
}  // namespace jfrbpf::proc
