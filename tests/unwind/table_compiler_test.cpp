#include "userspace/unwind/table_compiler.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "base/error.h"
#include "base/unique_fd.h"
#include "tests/unwind/cfi_builder.h"
#include "tests/unwind/elf_builder.h"
#include "userspace/unwind/byte_source.h"
#include "userspace/unwind/dwarf_constants.h"
#include "userspace/unwind/row_classifier.h"

namespace jfrbpf::unwind {
namespace {

using namespace dwarf;
using test::CfiBuilder;

UnwindTable compile(CfiBuilder& b, CompileLimits limits = {}) {
  return compileCfiSection({CfiFormat::kEhFrame, b.bytes(), b.vaddr(), std::nullopt, nullptr}, limits);
}

RowKind kindAt(const UnwindTable& table, uint64_t pc) {
  const UnwindRow* row = table.find(pc);
  return row == nullptr ? RowKind::kNone : static_cast<RowKind>(row->kind);
}

std::string ruleAt(const UnwindTable& table, uint64_t pc) {
  const UnwindRow* row = table.find(pc);
  return row == nullptr ? "(no row)" : describeRow(*row);
}

// A typical frame: push %rbp at +1 (rbp saved at cfa-16), sub at +5, epilogue at +0x20.
std::initializer_list<uint8_t> kPushRbpFrame = {
    0x41, kCfaDefCfaOffset, 16, kCfaOffset | kRegRbp, 2,
    0x44, kCfaDefCfaOffset, 48,
    kCfaAdvanceLoc1, 0x1b, kCfaDefCfaOffset, 16,
    0x41, kCfaDefCfaOffset, 8, kCfaRestore | kRegRbp};

TEST(UnwindTableCompiler, RowsFollowThePrologueAndEpilogue) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  b.fde(cie, 0x4000, 0x30, kPushRbpFrame);
  UnwindTable table = compile(b);
  EXPECT_EQ(table.pcBase, 0u);
  EXPECT_EQ(ruleAt(table, 0x4000), "cfa=rsp+8");
  EXPECT_EQ(ruleAt(table, 0x4001), "cfa=rsp+16 rbp=[cfa-16]");
  EXPECT_EQ(ruleAt(table, 0x4004), "cfa=rsp+16 rbp=[cfa-16]");
  EXPECT_EQ(ruleAt(table, 0x4005), "cfa=rsp+48 rbp=[cfa-16]");
  EXPECT_EQ(ruleAt(table, 0x401f), "cfa=rsp+48 rbp=[cfa-16]");
  EXPECT_EQ(ruleAt(table, 0x4020), "cfa=rsp+16 rbp=[cfa-16]");
  EXPECT_EQ(ruleAt(table, 0x4021), "cfa=rsp+8");
  EXPECT_EQ(ruleAt(table, 0x402f), "cfa=rsp+8");
  EXPECT_EQ(kindAt(table, 0x4030), RowKind::kNone);
  EXPECT_EQ(table.find(0x3fff), nullptr);
  EXPECT_EQ(table.rows.size(), 6u);
}

TEST(UnwindTableCompiler, GapsBetweenFdesHaveNoRuleAndNeighboursCollapse) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  b.fde(cie, 0x4000, 0x10, {});
  b.fde(cie, 0x4010, 0x10, {});  // same rule, adjacent: one row
  b.fde(cie, 0x4040, 0x10, {});  // after a gap
  UnwindTable table = compile(b);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(kindAt(table, 0x401f), RowKind::kCfaRsp);
  EXPECT_EQ(kindAt(table, 0x4020), RowKind::kNone);
  EXPECT_EQ(kindAt(table, 0x403f), RowKind::kNone);
  EXPECT_EQ(kindAt(table, 0x4040), RowKind::kCfaRsp);
  EXPECT_EQ(kindAt(table, 0x4050), RowKind::kNone);
  EXPECT_EQ(table.stats.fdes, 3u);
  EXPECT_EQ(table.stats.rowsByKind[static_cast<size_t>(RowKind::kCfaRsp)], 2u);
  EXPECT_EQ(table.stats.bytesByKind[static_cast<size_t>(RowKind::kCfaRsp)], 0x30u);
}

TEST(UnwindTableCompiler, OverlappingFdesKeepTheFirst) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  b.fde(cie, 0x4000, 0x20, {kCfaDefCfaOffset, 16});
  b.fde(cie, 0x4010, 0x20, {kCfaDefCfaOffset, 32, 0x58, kCfaDefCfaOffset, 40});  // clipped to 0x4020
  b.fde(cie, 0x4004, 0x08, {kCfaDefCfaOffset, 64});                             // fully shadowed
  UnwindTable table = compile(b);
  EXPECT_EQ(ruleAt(table, 0x401f), "cfa=rsp+16");
  EXPECT_EQ(ruleAt(table, 0x4020), "cfa=rsp+32");  // the second FDE's rule in force at the clip point
  EXPECT_EQ(ruleAt(table, 0x4018), "cfa=rsp+16");
  EXPECT_EQ(ruleAt(table, 0x4027), "cfa=rsp+32");
  EXPECT_EQ(ruleAt(table, 0x4028), "cfa=rsp+40");
  EXPECT_EQ(kindAt(table, 0x4030), RowKind::kNone);
  EXPECT_EQ(table.stats.overlappingFdes, 2u);
}

TEST(UnwindTableCompiler, ClassifiesSpecialFrames) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  size_t signalCie = b.standardCie("zRS", {0x1b});
  // PLT: rsp+8+((rip&15)>=11)<<3, as GNU ld writes it
  b.fde(cie, 0x1000, 0x40, {kCfaDefCfaExpression, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22});
  // IBT PLT with threshold 9
  b.fde(cie, 0x1040, 0x40, {kCfaDefCfaExpression, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x39, 0x2a, 0x33, 0x24, 0x22});
  // glibc __restore_rt
  b.fde(signalCie, 0x2000, 0x10, {kCfaDefCfaExpression, 4, 0x77, 0xa0, 0x01, 0x06, kCfaExpression, 16, 3, 0x77, 0xa8, 0x01});
  // _start: return address undefined
  b.fde(cie, 0x3000, 0x10, {kCfaUndefined, 16});
  // stack realignment: cfa = *(rbp-8), not supported
  b.fde(cie, 0x4000, 0x10, {kCfaDefCfaExpression, 3, 0x76, 0x78, 0x06});
  // cfa in r10 during a realigning prologue
  b.fde(cie, 0x5000, 0x10, {kCfaDefCfa, 10, 0});
  // return address somewhere else
  b.fde(cie, 0x6000, 0x10, {kCfaOffset | 16, 2});
  // rbp saved in another register: the caller's rbp cannot be recovered
  b.fde(cie, 0x7000, 0x10, {kCfaRegister, kRegRbp, 3});
  // cfa offset not a multiple of 8
  b.fde(cie, 0x8000, 0x10, {kCfaDefCfaOffset, 12});
  // a malformed program: unsupported from where it breaks
  b.fde(cie, 0x9000, 0x10, {0x44, 0x2d});
  // frame of 100000 bytes: still representable in 8-byte units
  b.fde(cie, 0xa000, 0x10, {kCfaDefCfaOffset, 0xa8, 0x8d, 0x06});
  UnwindTable table = compile(b);
  ASSERT_EQ(kindAt(table, 0x1000), RowKind::kPlt);
  EXPECT_EQ(table.find(0x1000)->cfa_param, 11);
  EXPECT_EQ(table.find(0x1040)->cfa_param, 9);
  EXPECT_EQ(kindAt(table, 0x2000), RowKind::kSignal);
  EXPECT_EQ(kindAt(table, 0x3000), RowKind::kEndOfStack);
  EXPECT_EQ(kindAt(table, 0x4000), RowKind::kUnsupported);
  EXPECT_EQ(kindAt(table, 0x5000), RowKind::kUnsupported);
  EXPECT_EQ(kindAt(table, 0x6000), RowKind::kUnsupported);
  EXPECT_EQ(ruleAt(table, 0x7000), "cfa=rsp+8 rbp=lost");
  EXPECT_EQ(kindAt(table, 0x8000), RowKind::kUnsupported);
  EXPECT_EQ(kindAt(table, 0x9003), RowKind::kCfaRsp);
  EXPECT_EQ(kindAt(table, 0x9004), RowKind::kUnsupported);
  EXPECT_EQ(ruleAt(table, 0xa000), "cfa=rsp+100008");
  using R = UnsupportedReason;
  EXPECT_EQ(table.stats.unsupportedRows[static_cast<size_t>(R::kCfaExpression)], 1u);
  EXPECT_EQ(table.stats.unsupportedRows[static_cast<size_t>(R::kCfaRegister)], 1u);
  EXPECT_EQ(table.stats.unsupportedRows[static_cast<size_t>(R::kReturnAddressRule)], 1u);
  EXPECT_EQ(table.stats.unsupportedRows[static_cast<size_t>(R::kCfaOffsetRange)], 1u);
  EXPECT_EQ(table.stats.unsupportedRows[static_cast<size_t>(R::kProgramError)], 1u);
}

TEST(UnwindTableCompiler, ExpressionMatchersAreExact) {
  std::vector<uint8_t> plt = {0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
  EXPECT_EQ(matchPltExpression(plt), 11);
  plt[1] = 16;
  EXPECT_EQ(matchPltExpression(plt), std::nullopt);
  plt[1] = 8;
  plt[6] = 0x10;  // not a literal
  EXPECT_EQ(matchPltExpression(plt), std::nullopt);
  plt.pop_back();
  EXPECT_EQ(matchPltExpression(plt), std::nullopt);
  EXPECT_TRUE(matchSigreturnCfaExpression(std::vector<uint8_t>{0x77, 0xa0, 0x01, 0x06}));
  EXPECT_FALSE(matchSigreturnCfaExpression(std::vector<uint8_t>{0x77, 0xa0, 0x01}));
  // Without the "S" augmentation the sigreturn form is just an unknown expression.
  FrameRules rules;
  rules.cfa = CfaRule{true, true, 0, 0, std::vector<uint8_t>{0x77, 0xa0, 0x01, 0x06}};
  EXPECT_EQ(classifyRules(rules, false).kind, RowKind::kUnsupported);
}

TEST(UnwindTableCompiler, RowCapKeepsTheTableBoundedAndTerminated) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  for (int i = 0; i < 20; ++i) b.fde(cie, 0x4000 + 0x100 * i, 0x10, {});
  CompileLimits limits;
  limits.maxRows = 8;
  UnwindTable table = compile(b, limits);
  EXPECT_TRUE(table.stats.truncated);
  ASSERT_LE(table.rows.size(), 8u);
  EXPECT_EQ(table.rows.back().kind, JFRBPF_UNWIND_NONE);
  EXPECT_EQ(kindAt(table, 0x4000), RowKind::kCfaRsp);
  EXPECT_EQ(kindAt(table, 0x5300), RowKind::kNone);
}

TEST(UnwindTableCompiler, HighAddressesUseAPcBase) {
  CfiBuilder b(false, 0x7f0000001000);
  size_t cie = b.standardCie();
  b.fde(cie, 0x7f0000400000, 0x10, {0x41, kCfaDefCfaOffset, 16});
  UnwindTable table = compile(b);
  EXPECT_EQ(table.pcBase, 0x7f0000400000u);
  EXPECT_EQ(ruleAt(table, 0x7f0000400001), "cfa=rsp+16");
  EXPECT_EQ(table.find(0x400001), nullptr);
}

TEST(UnwindTableCompiler, ElfWithBothSectionsPrefersEhFrame) {
  CfiBuilder eh(false, 0x2000);
  size_t cie = eh.standardCie();
  eh.fde(cie, 0x4000, 0x10, {kCfaDefCfaOffset, 16});
  CfiBuilder debug(true, 0);
  size_t debugCie = debug.standardCie();
  debug.fde(debugCie, 0x4000, 0x10, {kCfaDefCfaOffset, 24});  // same function: .eh_frame wins
  debug.fde(debugCie, 0x4010, 0x10, {kCfaDefCfaOffset, 32});  // only here
  std::vector<uint8_t> elf = test::buildElf({{".eh_frame", 0x2000, eh.bytes()}, {".debug_frame", 0, debug.bytes()}},
                                            {true, nullptr, {0xab, 0xcd}});
  ByteSource source = ByteSource::fromBytes(elf);
  ElfImage image(source);
  UnwindTable table = compileUnwindTable(image);
  EXPECT_EQ(ruleAt(table, 0x4000), "cfa=rsp+16");
  EXPECT_EQ(ruleAt(table, 0x4010), "cfa=rsp+32");
  EXPECT_EQ(table.stats.debugFrameFdes, 2u);
  EXPECT_EQ(table.buildId, "abcd");
  ASSERT_EQ(table.loads.size(), 1u);
  EXPECT_EQ(table.loadBias(0x7f0000000000, 0), 0x7f0000000000u);
}

TEST(UnwindTableCompiler, FindsEhFrameThroughTheHeaderWithoutSectionHeaders) {
  CfiBuilder eh(false, 0x2000);
  size_t cie = eh.standardCie();
  eh.fde(cie, 0x4000, 0x10, {kCfaDefCfaOffset, 16});
  eh.u32(0);
  CfiBuilder hdr(false, 0x1800);
  hdr.u8(1).u8(0x1b).u8(0x03).u8(0x3b).pcrel4(0x2000).u32(1);
  std::vector<uint8_t> elf = test::buildElf({{".eh_frame_hdr", 0x1800, hdr.bytes()}, {".eh_frame", 0x2000, eh.bytes()}},
                                            {false, ".eh_frame_hdr", {}});
  ByteSource source = ByteSource::fromBytes(elf);
  ElfImage image(source);
  EXPECT_TRUE(image.sections().empty());
  UnwindTable table = compileUnwindTable(image);
  EXPECT_EQ(ruleAt(table, 0x4000), "cfa=rsp+16");
  EXPECT_EQ(table.stats.headerFdeCount, 1u);
}

// A .eh_frame a sparse file claims in a hole would be read whole (64 MiB of zeros per section): it is refused.
TEST(UnwindTableCompiler, RefusesAnEhFrameThatIsAHole) {
  const std::vector<uint8_t> data(2 << 20, 0xee);
  UniqueFd fd(memfd_create("sparse-eh-frame", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  ASSERT_EQ(write(fd.get(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ByteSource whole = ByteSource::fromFd(fd.get());
  EXPECT_NO_THROW(whole.readVector(0, data.size()));
  ASSERT_EQ(ftruncate(fd.get(), static_cast<off_t>(data.size()) + (32 << 20)), 0);
  ByteSource sparse = ByteSource::fromFd(fd.get());
  EXPECT_THROW(sparse.readVector(0, sparse.size()), Error);
}

TEST(UnwindTableCompiler, RejectsWhatIsNotX8664Elf) {
  std::vector<uint8_t> notElf(64, 0);
  ByteSource source = ByteSource::fromBytes(notElf);
  EXPECT_THROW(ElfImage{source}, Error);
  std::vector<uint8_t> elf = test::buildElf({});
  elf[18] = 0xb7;  // e_machine = AArch64
  ByteSource arm = ByteSource::fromBytes(elf);
  EXPECT_THROW(ElfImage{arm}, Error);
}

TEST(UnwindTableCompiler, LoadBiasFromMappings) {
  UnwindTable table;
  table.loads = {{0x0, 0x0, 0x25000, PF_R}, {0x26000, 0x26000, 0x1a0000, PF_R | PF_X},
                 {0x1d1b30, 0x1d0b30, 0x5000, PF_R | PF_W}};
  EXPECT_EQ(table.loadBias(0x7f1234526000, 0x26000), 0x7f1234500000u);
  EXPECT_EQ(table.loadBias(0x7f1234500000, 0x0), 0x7f1234500000u);
  EXPECT_EQ(table.loadBias(0x7f12346d1000, 0x1d0000), 0x7f1234500000u);
  EXPECT_EQ(table.loadBias(0x7f1234526000, 0x900000), std::nullopt);
}

}  // namespace
}  // namespace jfrbpf::unwind

namespace jfrbpf::unwind {
namespace {

TEST(UnwindTableCompiler, ReadsZlibCompressedDebugFrame) {
  test::CfiBuilder debug(true, 0);
  size_t cie = debug.standardCie();
  debug.fde(cie, 0x4000, 0x10, {0x41, dwarf::kCfaDefCfaOffset, 16});
  std::vector<uint8_t> compressed(compressBound(debug.bytes().size()));
  uLongf compressedSize = compressed.size();
  ASSERT_EQ(compress(compressed.data(), &compressedSize, debug.bytes().data(), debug.bytes().size()), Z_OK);
  Elf64_Chdr header{ELFCOMPRESS_ZLIB, 0, debug.bytes().size(), 8};
  std::vector<uint8_t> section(reinterpret_cast<uint8_t*>(&header), reinterpret_cast<uint8_t*>(&header + 1));
  section.insert(section.end(), compressed.begin(), compressed.begin() + compressedSize);
  std::vector<uint8_t> elf = test::buildElf({{".debug_frame", 0, section, SHT_PROGBITS, SHF_COMPRESSED}});
  ByteSource source = ByteSource::fromBytes(elf);
  ElfImage image(source);
  UnwindTable table = compileUnwindTable(image);
  EXPECT_EQ(ruleAt(table, 0x4001), "cfa=rsp+16");
  EXPECT_FALSE(table.stats.debugFrameUnreadable);

  // A damaged compressed .debug_frame is noted, not fatal.
  std::vector<uint8_t> damaged = test::buildElf(
      {{".debug_frame", 0, std::vector<uint8_t>(section.begin(), section.end() - 4), SHT_PROGBITS, SHF_COMPRESSED}});
  ByteSource damagedSource = ByteSource::fromBytes(damaged);
  ElfImage damagedImage(damagedSource);
  EXPECT_TRUE(compileUnwindTable(damagedImage).stats.debugFrameUnreadable);
}

}  // namespace
}  // namespace jfrbpf::unwind

namespace jfrbpf::unwind {
namespace {

// The x86_64 psABI allows .eh_frame to be typed SHT_X86_64_UNWIND instead of SHT_PROGBITS.
TEST(UnwindTableCompiler, EhFrameOfUnwindSectionType) {
  test::CfiBuilder eh(false, 0x2000);
  size_t cie = eh.standardCie();
  eh.fde(cie, 0x4000, 0x10, {0x41, dwarf::kCfaDefCfaOffset, 16});
  std::vector<uint8_t> elf = test::buildElf({{".eh_frame", 0x2000, eh.bytes(), SHT_X86_64_UNWIND}});
  ByteSource source = ByteSource::fromBytes(elf);
  ElfImage image(source);
  EXPECT_EQ(ruleAt(compileUnwindTable(image), 0x4001), "cfa=rsp+16");
}

}  // namespace
}  // namespace jfrbpf::unwind
