#include <gtest/gtest.h>

#include "tests/unwind/cfi_builder.h"
#include "tests/unwind/elf_builder.h"
#include "userspace/unwind/dwarf_cfi.h"
#include "userspace/unwind/dwarf_constants.h"
#include "userspace/unwind/elf_image.h"

namespace jfrbpf::unwind {
namespace {

using test::CfiBuilder;

CfiSectionView ehFrameView(CfiBuilder& builder) {
  return CfiSectionView{CfiFormat::kEhFrame, builder.bytes(), builder.vaddr(), std::nullopt, nullptr};
}

TEST(UnwindCfiParse, ReadsGccStyleCieAndFdes) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  b.fde(cie, 0x4000, 0x20, {0x41, 0x0e, 16});
  b.fde(cie, 0x4020, 0x10, {});
  b.u32(0);  // terminator
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  ASSERT_EQ(entries.cies.size(), 1u);
  EXPECT_EQ(entries.cies[0].codeAlignment, 1u);
  EXPECT_EQ(entries.cies[0].dataAlignment, -8);
  EXPECT_EQ(entries.cies[0].returnAddressRegister, 16u);
  EXPECT_EQ(entries.cies[0].fdeEncoding, 0x1b);
  EXPECT_TRUE(entries.cies[0].hasAugmentationData);
  EXPECT_FALSE(entries.cies[0].signalFrame);
  ASSERT_EQ(entries.fdes.size(), 2u);
  EXPECT_EQ(entries.fdes[0].pcBegin, 0x4000u);
  EXPECT_EQ(entries.fdes[0].pcEnd, 0x4020u);
  EXPECT_EQ(entries.fdes[0].instructions.size(), 3u);
  EXPECT_EQ(entries.fdes[1].pcBegin, 0x4020u);
  EXPECT_EQ(entries.malformedEntries, 0u);
  EXPECT_FALSE(entries.truncated);
}

TEST(UnwindCfiParse, SkipsPersonalityAndLsdaAugmentations) {
  CfiBuilder b;
  size_t cie = b.begin();
  // "zPLR": personality indirect|pcrel|sdata4, LSDA pcrel|sdata4, FDE pointers pcrel|sdata4.
  b.u32(0).u8(1).str("zPLR").uleb(1).sleb(-8).u8(16).uleb(7).u8(0x9b).u32(0x1234).u8(0x1b).u8(0x1b);
  b.bytes({0x0c, 7, 8, 0x90, 1});
  b.end(cie);
  size_t fde = b.begin();
  b.u32(static_cast<uint32_t>(b.bytes().size() - cie)).pcrel4(0x5000).u32(0x40).uleb(4).u32(0xdeadbeef);
  b.bytes({0x41, 0x0e, 16});
  b.end(fde);
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  ASSERT_EQ(entries.fdes.size(), 1u);
  EXPECT_EQ(entries.fdes[0].pcBegin, 0x5000u);
  EXPECT_EQ(entries.fdes[0].pcEnd, 0x5040u);
  ASSERT_EQ(entries.fdes[0].instructions.size(), 3u);  // the LSDA pointer was skipped
  EXPECT_EQ(entries.fdes[0].instructions[0], 0x41);
}

TEST(UnwindCfiParse, SignalFrameAugmentation) {
  CfiBuilder b;
  size_t cie = b.standardCie("zRS", {0x1b});
  b.fde(cie, 0x6000, 8, {});
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  ASSERT_EQ(entries.cies.size(), 1u);
  EXPECT_TRUE(entries.cies[0].signalFrame);
  EXPECT_EQ(entries.fdes.size(), 1u);
}

TEST(UnwindCfiParse, UnknownAugmentationMakesItsFdesUnreadable) {
  CfiBuilder b;
  size_t bad = b.standardCie("zRX", {0x1b});
  b.fde(bad, 0x6000, 8, {});
  size_t good = b.standardCie();
  b.fde(good, 0x7000, 8, {});
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  ASSERT_EQ(entries.fdes.size(), 1u);
  EXPECT_EQ(entries.fdes[0].pcBegin, 0x7000u);
  EXPECT_EQ(entries.malformedEntries, 2u);  // the CIE itself and its FDE
}

TEST(UnwindCfiParse, OldEhAugmentationAndVersion3) {
  CfiBuilder b;
  size_t cie = b.begin();
  b.u32(0).u8(3).str("eh").u64(0).uleb(1).sleb(-8).uleb(16);  // version 3: RA column is ULEB128
  b.bytes({0x0c, 7, 8, 0x90, 1});
  b.end(cie);
  size_t fde = b.begin();
  b.u32(static_cast<uint32_t>(b.bytes().size() - cie)).u64(0x8000).u64(0x10);  // absptr without "R"
  b.end(fde);
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  ASSERT_EQ(entries.fdes.size(), 1u);
  EXPECT_EQ(entries.fdes[0].pcBegin, 0x8000u);
  EXPECT_EQ(entries.fdes[0].pcEnd, 0x8010u);
}

TEST(UnwindCfiParse, DebugFrameWith64BitEntriesAndForwardCie) {
  CfiBuilder b(true, 0);
  // An FDE first, pointing at a CIE that follows it: legal in .debug_frame.
  size_t fde = b.begin(true);
  size_t cieOffsetField = b.bytes().size();
  b.u64(0).u64(0x9000).u64(0x30).bytes({0x41, 0x0e, 16});
  b.end(fde);
  size_t cie = b.begin(true);
  b.u64(~uint64_t{0}).u8(4).str("").u8(8).u8(0).uleb(1).sleb(-8).uleb(16).bytes({0x0c, 7, 8, 0x90, 1});
  b.end(cie);
  uint64_t cieOffset = cie;
  std::memcpy(b.bytes().data() + cieOffsetField, &cieOffset, 8);
  CfiEntries entries =
      parseCfiSection({CfiFormat::kDebugFrame, b.bytes(), 0, std::nullopt, nullptr}, 100);
  ASSERT_EQ(entries.fdes.size(), 1u);
  EXPECT_EQ(entries.fdes[0].pcBegin, 0x9000u);
  EXPECT_EQ(entries.fdes[0].pcEnd, 0x9030u);
  EXPECT_EQ(entries.cies.size(), 1u);  // parsed once, though referenced before and met after
  EXPECT_EQ(entries.cies[0].version, 4);
}

TEST(UnwindCfiParse, ZeroTerminatorEndsEhFrameButNotDebugFrame) {
  CfiBuilder eh;
  size_t cie = eh.standardCie();
  eh.u32(0);
  eh.fde(cie, 0x4000, 8, {});
  EXPECT_EQ(parseCfiSection(ehFrameView(eh), 100).fdes.size(), 0u);

  CfiBuilder debug(true, 0);
  size_t debugCie = debug.standardCie();
  debug.u32(0);
  debug.fde(debugCie, 0x4000, 8, {});
  EXPECT_EQ(parseCfiSection({CfiFormat::kDebugFrame, debug.bytes(), 0, std::nullopt, nullptr}, 100).fdes.size(), 1u);
}

TEST(UnwindCfiParse, BadEntriesAreCountedNotFatal) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  size_t fde = b.begin();
  b.u32(0x7fffffff).u32(0).u32(8);  // CIE pointer before the section start
  b.end(fde);
  b.fde(cie, 0x4000, 8, {});
  size_t cut = b.begin();
  b.u32(0);
  b.end(cut);
  b.bytes()[cut] = 0xff;  // length now runs past the end
  CfiEntries entries = parseCfiSection(ehFrameView(b), 100);
  EXPECT_EQ(entries.fdes.size(), 1u);
  EXPECT_EQ(entries.malformedEntries, 2u);
  EXPECT_TRUE(entries.truncated);
}

TEST(UnwindCfiParse, DiscardedFdesAreSkipped) {
  CfiBuilder b(true, 0);
  size_t cie = b.standardCie();
  b.fde(cie, 0, 0x10, {});                  // code discarded by the linker
  b.fde(cie, ~uint64_t{0}, 0x10, {});       // tombstone: the range wraps
  b.fde(cie, 0x4000, 0, {});                // empty
  CfiEntries entries = parseCfiSection({CfiFormat::kDebugFrame, b.bytes(), 0, std::nullopt, nullptr}, 100);
  EXPECT_EQ(entries.fdes.size(), 0u);
  EXPECT_EQ(entries.malformedEntries, 0u);
}

TEST(UnwindCfiParse, EntryCapBoundsTheWalk) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  for (int i = 0; i < 10; ++i) b.fde(cie, 0x4000 + 16 * i, 16, {});
  CfiEntries entries = parseCfiSection(ehFrameView(b), 4);
  EXPECT_EQ(entries.fdes.size(), 3u);
  EXPECT_TRUE(entries.truncated);
}

TEST(UnwindCfiParse, PointerEncodings) {
  using namespace dwarf;
  std::vector<uint8_t> bytes = {0xfe, 0xff,                                      // sdata2 -2 / udata2
                                0x10, 0x00, 0x00, 0x00,                          // udata4 16
                                0x80, 0x01,                                      // uleb 128
                                0x7e};                                           // sleb -2
  CfiSectionView view{CfiFormat::kEhFrame, bytes, 0x1000, 0x5000, nullptr};
  auto read = [&](size_t at, uint8_t encoding) {
    ByteReader reader(bytes, at);
    return readEncodedPointer(reader, encoding, 0x1000 + at, view, 8);
  };
  EXPECT_EQ(read(0, kPeSdata2), static_cast<uint64_t>(-2));
  EXPECT_EQ(read(0, kPeUdata2), 0xfffeu);
  EXPECT_EQ(read(2, kPeUdata4), 16u);
  EXPECT_EQ(read(2, kPeSdata4 | kPePcrel), 0x1000u + 2 + 16);
  EXPECT_EQ(read(2, kPeUdata4 | kPeDatarel), 0x5000u + 16);
  EXPECT_EQ(read(6, kPeUleb128), 128u);
  EXPECT_EQ(read(8, kPeSleb128 | kPePcrel), 0x1000u + 8 - 2);
  EXPECT_EQ(read(4, kPeUdata8), std::nullopt);               // runs out of bytes
  EXPECT_EQ(read(2, kPeUdata4 | kPeTextrel), std::nullopt);  // no text base on x86_64
  EXPECT_EQ(read(2, kPeUdata4 | kPeIndirect), std::nullopt); // no image to read through
  EXPECT_EQ(read(0, 0x07), std::nullopt);                    // no such format
  CfiSectionView noDataBase{CfiFormat::kEhFrame, bytes, 0x1000, std::nullopt, nullptr};
  ByteReader reader(bytes, 2);
  EXPECT_EQ(readEncodedPointer(reader, kPeUdata4 | kPeDatarel, 0x1002, noDataBase, 8), std::nullopt);
}

TEST(UnwindCfiParse, IndirectPointersAreReadThroughTheImage) {
  using namespace dwarf;
  std::vector<uint8_t> slot(8);
  uint64_t target = 0x123456;
  std::memcpy(slot.data(), &target, 8);
  std::vector<uint8_t> elf = test::buildElf({{".got", 0x2000, slot}});
  ByteSource source = ByteSource::fromBytes(elf);
  ElfImage image(source);
  std::vector<uint8_t> bytes = {0x00, 0x20, 0x00, 0x00};  // udata4 0x2000
  CfiSectionView view{CfiFormat::kEhFrame, bytes, 0, std::nullopt, &image};
  ByteReader reader(bytes);
  EXPECT_EQ(readEncodedPointer(reader, kPeUdata4 | kPeIndirect, 0, view, 8), 0x123456u);
}

TEST(UnwindCfiParse, EhFrameHeader) {
  CfiBuilder b(false, 0x3000);
  b.u8(1).u8(0x1b).u8(0x03).u8(0x3b);
  b.pcrel4(0x3400);  // eh_frame_ptr
  b.u32(7);          // fde_count
  std::optional<EhFrameHeader> header = parseEhFrameHeader(b.bytes(), 0x3000);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->ehFrameVaddr, 0x3400u);
  EXPECT_EQ(header->fdeCount, 7u);
  b.bytes()[0] = 2;
  EXPECT_FALSE(parseEhFrameHeader(b.bytes(), 0x3000));
}

}  // namespace
}  // namespace jfrbpf::unwind
