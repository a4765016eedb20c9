// Containers: files must be read as the process sees them. A helper runs in its own mount namespace where
// another library is bind-mounted over libsymtest_debug.so's path; the symbolizer must name the functions of
// the library the process really mapped (namespace symtest_beta), not those of the host file (symtest_alpha).
// Also: path resolution inside a process root cannot be led out of it by symlinks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/symbolize/test_helpers.h"
#include "userspace/proc/process_dir.h"
#include "userspace/symbolize/process_files.h"
#include "userspace/symbolize/process_symbolizer.h"

namespace jfrbpf::symbolize {
namespace {

namespace fs = std::filesystem;
using jfrbpf::test::ChildProcess;
using test::parseAddress;
using test::readUntilReady;
using test::symtestLibrary;

bool canUnshareMounts() {
  if (geteuid() != 0) return false;
  return test::commandOutput("unshare --mount --fork true 2>&1 && echo ok") == "ok\n";
}

TEST(SymbolizeMountNamespace, ReadsTheFileTheProcessMappedNotTheHostPath) {
  if (!canUnshareMounts()) GTEST_SKIP() << "needs root and unshare --mount (CAP_SYS_ADMIN)";
  std::string alpha = symtestLibrary("symtest_debug");
  std::string beta = symtestLibrary("symtest_beta");
  ChildProcess child({"unshare", "--mount", "--fork", "sh", "-c",
                      "mount --bind '" + beta + "' '" + alpha + "' && exec '" + SYMTEST_PROG + "'"},
                     {.writableStdin = true});
  std::string error;
  auto started = readUntilReady(child, error);
  ASSERT_TRUE(started) << error;
  int pid = std::stoi((*started)["pid"]);
  child.writeLine("dlopen " + alpha);
  auto lib = readUntilReady(child, error);
  ASSERT_TRUE(lib) << error;
  uint64_t pc = parseAddress((*lib)["lib.template"]) + 2;

  test::MappingFacts mapping = test::mappingOf(pid, pc);
  ASSERT_EQ(mapping.path, alpha) << "the process believes it mapped the alpha path";
  struct stat betaStat;
  ASSERT_EQ(stat(beta.c_str(), &betaStat), 0);

  ProcessSymbolizer symbolizer;
  NativeFrame frame = symbolizer.symbolize(pid, pc);
  EXPECT_EQ(frame.kind, FrameKind::kSymbol);
  EXPECT_EQ(frame.library, "libsymtest_debug.so");
  EXPECT_EQ(frame.symbol, "symtest_beta::Accumulator<int>::add(int, int)");
  EXPECT_EQ(frame.offset, 2u);

  // The fallback route resolves the path inside the process's root, and finds the same (beta) file.
  UniqueFd root = proc::openProcessRoot(pid);
  UniqueFd viaRoot = openInRoot(root.get(), alpha);
  ASSERT_TRUE(viaRoot);
  struct stat viaRootStat;
  ASSERT_EQ(fstat(viaRoot.get(), &viaRootStat), 0);
  EXPECT_EQ(viaRootStat.st_ino, betaStat.st_ino);
  child.writeLine("quit");
}

TEST(SymbolizeOpenInRoot, SymlinksAndDotDotStayInsideTheRoot) {
  test::TempDir dir;
  fs::path root = dir.path() / "root";
  fs::create_directories(root / "lib");
  fs::create_directories(root / "etc");
  std::ofstream(root / "lib" / "real.so") << "inside";
  fs::create_symlink("/lib/real.so", root / "lib" / "absolute-link.so");
  fs::create_symlink("/etc/hostname", root / "lib" / "escape.so");  // exists on the host, not in the root
  fs::create_symlink("../../../../../../etc/hostname", root / "lib" / "dotdot.so");
  fs::create_symlink("/proc/self/exe", root / "lib" / "magic.so");
  ASSERT_EQ(mkfifo((root / "lib" / "fifo.so").c_str(), 0600), 0);
  ASSERT_TRUE(fs::exists("/etc/hostname")) << "the escape target must exist for the test to mean something";

  UniqueFd rootFd(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(rootFd);
  auto contents = [](const UniqueFd& fd) {
    char buffer[16] = {};
    ssize_t got = pread(fd.get(), buffer, sizeof buffer - 1, 0);
    return std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0);
  };
  UniqueFd direct = openInRoot(rootFd.get(), "/lib/real.so");
  ASSERT_TRUE(direct);
  EXPECT_EQ(contents(direct), "inside");
  UniqueFd linked = openInRoot(rootFd.get(), "/lib/absolute-link.so");
  ASSERT_TRUE(linked) << "absolute symlinks resolve inside the root";
  EXPECT_EQ(contents(linked), "inside");
  EXPECT_FALSE(openInRoot(rootFd.get(), "/lib/escape.so"));
  EXPECT_FALSE(openInRoot(rootFd.get(), "/lib/dotdot.so"));
  EXPECT_FALSE(openInRoot(rootFd.get(), "/../../../etc/hostname"));
  EXPECT_FALSE(openInRoot(rootFd.get(), "/lib/magic.so"));
  EXPECT_FALSE(openInRoot(rootFd.get(), "/lib/fifo.so")) << "a FIFO is refused, without blocking";
  EXPECT_FALSE(openInRoot(rootFd.get(), "/lib"));
  EXPECT_FALSE(openInRoot(-1, "/lib/real.so"));
}

}  // namespace
}  // namespace jfrbpf::symbolize
