#include "userspace/unwind/table_cache.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/error.h"
#include "base/unique_fd.h"
#include "tests/unwind/cfi_builder.h"
#include "tests/unwind/elf_builder.h"
#include "userspace/unwind/process_maps.h"

namespace jfrbpf::unwind {
namespace {

constexpr const char* kLibc = "/lib/x86_64-linux-gnu/libc.so.6";

TEST(UnwindTableCache, SameFileIsParsedOnce) {
  TableCache cache;
  UniqueFd first(::open(kLibc, O_RDONLY | O_CLOEXEC));
  UniqueFd second(::open(kLibc, O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(first && second);
  auto a = cache.forFile(first.get());
  auto b = cache.forFile(second.get());
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.compilations(), 1u);

  // The same build as bytes (as from another container's copy) is found by its build-id.
  std::ifstream in(kLibc, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto c = cache.forBytes(bytes);
  EXPECT_EQ(c.get(), a.get());
  EXPECT_EQ(cache.compilations(), 1u);
  EXPECT_EQ(cache.size(), 1u);

  cache.prune();
  EXPECT_EQ(cache.size(), 1u);  // still held here
  a.reset();
  b.reset();
  c.reset();
  cache.prune();
  EXPECT_EQ(cache.size(), 0u);
}

TEST(UnwindTableCache, ImagesWithoutBuildIdAreKeyedByContent) {
  test::CfiBuilder eh(false, 0x2000);
  size_t cie = eh.standardCie();
  eh.fde(cie, 0x4000, 0x10, {});
  std::vector<uint8_t> elf = test::buildElf({{".eh_frame", 0x2000, eh.bytes()}});
  TableCache cache;
  auto a = cache.forBytes(elf);
  auto b = cache.forBytes(std::vector<uint8_t>(elf));
  EXPECT_EQ(a.get(), b.get());
  elf.back() ^= 1;
  auto c = cache.forBytes(elf);
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(cache.compilations(), 2u);
  std::vector<uint8_t> junk(100, 7);
  EXPECT_THROW(cache.forBytes(junk), Error);
}

TEST(UnwindProcessMaps, OwnProcessHasLibcAndTheVdso) {
  TableCache cache;
  std::vector<std::string> problems;
  AddressSpace space = AddressSpace::forProcess(::getpid(), cache, &problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  const MappedTable* libc = space.find(reinterpret_cast<uint64_t>(&::getpid));
  ASSERT_NE(libc, nullptr);
  EXPECT_NE(libc->path.find("libc.so.6"), std::string::npos);
  // getpid's own row must be an ordinary frame rule.
  const UnwindRow* row = libc->table->find(reinterpret_cast<uint64_t>(&::getpid) - libc->bias);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->kind, JFRBPF_UNWIND_CFA_RSP);

  uint64_t vdso = ::getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0) {
    const MappedTable* mapping = space.find(vdso + 0x800);
    ASSERT_NE(mapping, nullptr);
    EXPECT_EQ(mapping->path, "[vdso]");
    EXPECT_GT(mapping->table->rows.size(), 2u);
  }
}

}  // namespace
}  // namespace jfrbpf::unwind

namespace jfrbpf::unwind {
namespace {

// A library whose only CFI is .debug_frame, stripped of it, gets its rows back from the host's debug
// file for its build-id, even when that debug file's sections are zlib-compressed (as Debian ships them).
TEST(UnwindTableCache, SeparateDebugFileByBuildId) {
  if (std::system("objcopy --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "objcopy (binutils) not installed";
  char pattern[] = "/tmp/unwind-debugdir-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  std::string stripped = dir + "/stripped.so";
  std::string debug = dir + "/full.debug";
  std::string lib = UNWIND_CHAIN_LIB_B;
  ASSERT_EQ(std::system(("objcopy --only-keep-debug --compress-debug-sections=zlib '" + lib + "' '" + debug + "'").c_str()), 0);
  ASSERT_EQ(std::system(("objcopy --strip-debug '" + lib + "' '" + stripped + "'").c_str()), 0);

  UniqueFd fd(::open(stripped.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  TableCache withoutDebugFiles({}, "");
  std::shared_ptr<const UnwindTable> bare = withoutDebugFiles.forFile(fd.get());
  EXPECT_EQ(bare->stats.fdes, 0u);

  std::string buildId = bare->buildId;
  ASSERT_GT(buildId.size(), 2u);
  std::filesystem::create_directories(dir + "/.build-id/" + buildId.substr(0, 2));
  std::filesystem::rename(debug, dir + "/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug");
  TableCache withDebugFiles({}, dir);
  std::shared_ptr<const UnwindTable> full = withDebugFiles.forFile(fd.get());
  EXPECT_GE(full->stats.debugFrameFdes, 3u);
  EXPECT_FALSE(full->stats.debugFrameUnreadable);
  EXPECT_GT(full->rows.size(), bare->rows.size());
}

}  // namespace
}  // namespace jfrbpf::unwind
