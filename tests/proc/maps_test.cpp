// The one /proc/PID/maps parser: every kind of line, the rules the attach client, the symbolizer and the
// unwinder each relied on, and reading a live process.
#include "userspace/proc/maps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "userspace/proc/proc_file.h"

namespace jfrbpf::proc {
namespace {

TEST(ProcMaps, ParsesEveryKindOfLine) {
  constexpr std::string_view kMaps =
      "55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 1234567                    /usr/bin/my prog\n"
      "55d0c0a21000-55d0c0b00000 r-xp 00021000 fd:01 1234567                    /usr/bin/my prog\n"
      "7f0000000000-7f0000100000 r-xp 00002000 103:0a 42                         /tmp/lib gone.so (deleted)\n"
      "7f0000200000-7f0000201000 rwxp 00000000 00:00 0 \n"
      "7f0000300000-7f0000301000 r-xs 00000000 00:01 99                         memfd:jit (deleted)\n"
      "7f0000400000-7f0000401000 r--p 00000000 00:00 0                          [anon:java heap]\n"
      "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n"
      "7f0000500000-7f0000501000 r--p 00000000 00:00 0                          [stack]\n"
      "7f0000600000-7f0000601000 r--p 00000000 00:00 0                          [weird (deleted)]\n"
      "garbage\n"
      "7f0000700000-7f0000600000 r-xp 00000000 00:00 0\n"
      "7f0000800000-7f0000801000 r-x\n"
      "7f0000a00000-7f0000a01000 r-xs 00000000 00:01 6094                       /memfd:jit2 (deleted)\n"
      "7f0000b00000-7f0000b01000 r-xp 00000000 00:01 6095                       /memfd:real file\n"
      "7f0000900000-7f0000901000 r-xp 00000000 00:00 0                          /lib/no newline";
  std::vector<Mapping> maps = parseMaps(kMaps);
  ASSERT_EQ(maps.size(), 13u);

  EXPECT_EQ(maps[0].start, 0x55d0c0a00000u);
  EXPECT_EQ(maps[0].end, 0x55d0c0a21000u);
  EXPECT_FALSE(maps[0].executable);
  EXPECT_EQ(maps[0].path, "/usr/bin/my prog");
  EXPECT_EQ(maps[0].kind, MappingKind::kFile);
  EXPECT_EQ(maps[0].devMajor, 0xfdu);
  EXPECT_EQ(maps[0].devMinor, 1u);
  EXPECT_EQ(maps[0].inode, 1234567u);

  EXPECT_TRUE(maps[1].executable);
  EXPECT_TRUE(maps[1].readable);
  EXPECT_FALSE(maps[1].writable);
  EXPECT_EQ(maps[1].fileOffset, 0x21000u);

  EXPECT_EQ(maps[2].path, "/tmp/lib gone.so");
  EXPECT_TRUE(maps[2].deleted);
  EXPECT_EQ(maps[2].devMajor, 0x103u);
  EXPECT_EQ(maps[2].devMinor, 0xau);

  EXPECT_EQ(maps[3].kind, MappingKind::kAnonymous);
  EXPECT_TRUE(maps[3].path.empty());
  EXPECT_TRUE(maps[3].writable);

  EXPECT_EQ(maps[4].kind, MappingKind::kMemfd);
  EXPECT_EQ(maps[4].path, "memfd:jit");
  EXPECT_TRUE(maps[4].shared);
  EXPECT_TRUE(maps[4].deleted);

  EXPECT_EQ(maps[5].kind, MappingKind::kAnonymous);
  EXPECT_EQ(maps[5].path, "[anon:java heap]");
  EXPECT_EQ(maps[6].kind, MappingKind::kVdso);
  EXPECT_EQ(maps[7].kind, MappingKind::kSpecial);
  EXPECT_EQ(maps[7].start, 0xffffffffff600000u);
  EXPECT_EQ(maps[8].kind, MappingKind::kAnonymous);
  EXPECT_EQ(maps[9].path, "[weird (deleted)]");  // only files can be deleted
  EXPECT_FALSE(maps[9].deleted);
  EXPECT_EQ(maps[10].kind, MappingKind::kMemfd);
  EXPECT_EQ(maps[10].path, "/memfd:jit2");
  EXPECT_EQ(baseName(maps[10].path), "memfd:jit2");
  EXPECT_EQ(maps[11].kind, MappingKind::kFile) << "not deleted, so a real file with an odd name";
  EXPECT_EQ(maps[12].path, "/lib/no newline");
}

TEST(ProcMaps, ParsesTheFieldsTheUnwinderUses) {
  std::vector<Mapping> entries = parseMaps(
      "55d0c8a00000-55d0c8a26000 r--p 00000000 fe:01 1234   /usr/bin/java\n"
      "7f3c1e826000-7f3c1e9bb000 r-xp 00026000 fe:01 5678                       /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f3c1ea00000-7f3c1ea02000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7f3c1eb00000-7f3c1eb02000 rwxp 00000000 00:00 0 \n"
      "garbage line\n"
      "7f3c1ec00000-7f3c1eb00000 r-xp 00000000 00:00 0\n"
      "7f3c1ed00000-7f3c1ed01000 r-xp 00000000 fe:01 99 /tmp/x (deleted)");
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_FALSE(entries[0].executable);
  EXPECT_EQ(entries[1].start, 0x7f3c1e826000u);
  EXPECT_EQ(entries[1].fileOffset, 0x26000u);
  EXPECT_EQ(entries[1].inode, 5678u);
  EXPECT_EQ(entries[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_TRUE(entries[1].executable);
  EXPECT_EQ(entries[2].path, "[vdso]");
  EXPECT_EQ(entries[3].path, "");
  EXPECT_EQ(entries[4].path, "/tmp/x");
  EXPECT_TRUE(entries[4].deleted);
}

TEST(ProcMaps, ParsesOneLine) {
  std::optional<Mapping> line = parseMapsLine("7f00-7f10 r-xp 00000000 fe:00 5     /opt/my jdk/lib/server/libjvm.so");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->path, "/opt/my jdk/lib/server/libjvm.so");
  EXPECT_EQ(line->start, 0x7f00u);
  EXPECT_FALSE(parseMapsLine("zz-7f10 rw-s 00000000 fe:00 7 /tmp/hsperfdata_root/1").has_value());
  EXPECT_FALSE(parseMapsLine("7f10-7f00 rw-s 00000000 fe:00 7 /tmp/hsperfdata_root/1").has_value());
  EXPECT_FALSE(parseMapsLine("").has_value());
}

TEST(ProcMaps, ReadsOwnMapsAndFindsOwnCode) {
  std::vector<Mapping> maps = readMaps(getpid());
  auto self = reinterpret_cast<uint64_t>(&readMaps);
  bool foundCode = false;
  bool foundVdso = false;
  for (const Mapping& mapping : maps) {
    if (mapping.contains(self)) {
      foundCode = true;
      EXPECT_TRUE(mapping.executable);
      EXPECT_EQ(mapping.kind, MappingKind::kFile);
      EXPECT_EQ(baseName(mapping.path), "proc_unit_test");
    }
    foundVdso |= mapping.kind == MappingKind::kVdso;
  }
  EXPECT_TRUE(foundCode);
  EXPECT_TRUE(foundVdso);
}

TEST(ProcMaps, MissingProcessIsReportedAsGone) {
  EXPECT_THROW(readMaps(0x3ffffff), ProcessGoneError);
}

TEST(ProcMaps, BaseName) {
  EXPECT_EQ(baseName("/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
  EXPECT_EQ(baseName("memfd:jit"), "memfd:jit");
  EXPECT_EQ(baseName("/"), "");
}

}  // namespace
}  // namespace jfrbpf::proc
