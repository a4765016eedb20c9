// The JVM layout the BPF walker gets, built from VMStructs as JDK 17 and JDK 25 describe themselves: field
// widths that changed between them, the one read that checks a CodeBlob, and refusals with their reason
// (fields the walker's one read or its word-at-a-time access could not cover).
#include "userspace/record/jvm/hotspot_layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/record_stream_parser.h"

namespace jfrbpf::record {
namespace {

using jvm::test::StreamBuilder;
using protocol::RecordType;

struct Field {
  const char* type;
  const char* name;
  const char* typeString;
  uint64_t offset;
};

// Offsets as the two JDKs report them (x86_64).
const std::vector<Field> kJdk17 = {
    {"HeapBlock", "_header", "HeapBlock::Header", 0},     {"HeapBlock::Header", "_length", "size_t", 0},
    {"HeapBlock::Header", "_used", "bool", 8},            {"CodeBlob", "_frame_size", "int", 56},
    {"CodeBlob", "_frame_complete_offset", "int", 24},    {"CodeBlob", "_code_begin", "address", 64},
    {"CodeBlob", "_code_end", "address", 72},
};
const std::vector<Field> kJdk25 = {
    {"HeapBlock", "_header", "HeapBlock::Header", 0},     {"HeapBlock::Header", "_length", "uint32_t", 0},
    {"HeapBlock::Header", "_used", "bool", 4},            {"CodeBlob", "_frame_size", "int", 36},
    {"CodeBlob", "_frame_complete_offset", "int16_t", 30}, {"CodeBlob", "_code_offset", "int", 20},
    {"CodeBlob", "_data_offset", "int", 24},
};

jvm::JavaModel modelOf(const std::vector<Field>& fields, std::vector<uint32_t> segmentShifts,
                       const uint64_t* callStubReturnStatic = nullptr,
                       const std::vector<protocol::DynamicCode>& stubs = {}) {
  StreamBuilder b;
  b.preamble().hello();
  for (const Field& f : fields) {
    b.record(RecordType::kVmStructField, protocol::VmStructField{f.type, f.name, f.typeString, 0, f.offset, 0});
  }
  if (callStubReturnStatic) {
    b.record(RecordType::kVmStructField,
             protocol::VmStructField{"StubRoutines", "_call_stub_return_address", "address", 1, 0,
                                     reinterpret_cast<uint64_t>(callStubReturnStatic)});
  }
  b.record(RecordType::kVmType, protocol::VmType{"HeapBlock", "", 0, 16});
  uint64_t low = 0x7f0000000000;
  for (uint32_t shift : segmentShifts) {
    b.record(RecordType::kCodeHeap, protocol::CodeHeap{low, low + (64 << 20), low, low + (1 << 20), 0x5000, shift});
    low += 64 << 20;
  }
  for (const protocol::DynamicCode& stub : stubs) b.record(RecordType::kDynamicCode, stub);
  jvm::JavaModel model;
  jvm::RecordStreamParser parser;
  jvm::RecordStreamParser::Sink sink = [&](RecordType t, std::span<const uint8_t> p) { return model.apply(t, p); };
  EXPECT_TRUE(parser.feed(b.bytes(), sink)) << model.error() << parser.error();
  return model;
}

TEST(HotspotLayout, Jdk17ReadsASizeTBlockLengthAndAPointerCodeBegin) {
  std::string whyNot;
  auto layout = hotspotLayout(modelOf(kJdk17, {7, 7, 7}), whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(layout->heap_block_header_size, 16u);
  EXPECT_EQ(layout->heap_block_length, 0u);
  EXPECT_EQ(layout->heap_block_length_size, 8u);
  EXPECT_EQ(layout->heap_block_used, 8u);
  EXPECT_EQ(layout->blob_frame_complete_size, 4u);
  EXPECT_EQ(layout->blob_code_begin_is_offset, 0u);
  EXPECT_EQ(layout->blob_header_bytes, 16u + 72u) << "block header, then CodeBlob up to the end of _code_begin";
  EXPECT_EQ(layout->code_granule_shift, 7u);
  EXPECT_EQ(layout->heap_count, 3u);
}

TEST(HotspotLayout, Jdk25ReadsAUint32BlockLengthAndAnInt16FrameComplete) {
  std::string whyNot;
  auto layout = hotspotLayout(modelOf(kJdk25, {7, 6}), whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(layout->heap_block_length_size, 4u);
  EXPECT_EQ(layout->heap_block_used, 4u);
  EXPECT_EQ(layout->blob_frame_complete_size, 2u);
  EXPECT_EQ(layout->blob_code_begin_is_offset, 1u);
  EXPECT_EQ(layout->blob_header_bytes, 16u + 40u) << "up to the end of _frame_size";
  EXPECT_EQ(layout->code_granule_shift, 6u) << "the smallest segment of any heap";
}

// JDK 24+ export where a JavaThread keeps its current Java thread's id and its innermost continuation's entry
// (offsets of JDK 25 on x86_64): the walker tells samples of mounted virtual threads by them.
TEST(HotspotLayout, Jdk25GivesTheWalkerTheCurrentThreadIdAndTheContinuationEntry) {
  std::vector<Field> withThreads = kJdk25;
  withThreads.push_back({"JavaThread", "_monitor_owner_id", "int64_t", 1312});
  withThreads.push_back({"JavaThread", "_cont_entry", "ContinuationEntry*", 1560});
  std::string whyNot;
  auto layout = hotspotLayout(modelOf(withThreads, {7}), whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(layout->monitor_owner_id, 1312u);
  EXPECT_EQ(layout->cont_entry, 1560u);
}

TEST(HotspotLayout, WithoutThoseFieldsSamplesStayTheirPlatformThreads) {
  std::string whyNot;
  auto jdk17 = hotspotLayout(modelOf(kJdk17, {7}), whyNot);
  ASSERT_TRUE(jdk17) << whyNot;
  EXPECT_EQ(jdk17->cont_entry, 0u);
  EXPECT_EQ(jdk17->monitor_owner_id, 0u);
  // JDK 21-23 have _cont_entry but no _monitor_owner_id; an id of another width is not read either.
  std::vector<Field> jdk21 = kJdk25;
  jdk21.push_back({"JavaThread", "_cont_entry", "ContinuationEntry*", 1500});
  auto noOwner = hotspotLayout(modelOf(jdk21, {7}), whyNot);
  ASSERT_TRUE(noOwner) << whyNot;
  EXPECT_EQ(noOwner->cont_entry, 0u);
  jdk21.push_back({"JavaThread", "_monitor_owner_id", "int32_t", 1312});
  auto narrow = hotspotLayout(modelOf(jdk21, {7}), whyNot);
  ASSERT_TRUE(narrow) << whyNot;
  EXPECT_EQ(narrow->monitor_owner_id, 0u);
}

TEST(HotspotLayout, RefusesFieldsBeyondWhatTheWalkerCopies) {
  std::vector<Field> far = kJdk17;
  far[3].offset = 400;  // CodeBlob::_frame_size
  std::string whyNot;
  EXPECT_FALSE(hotspotLayout(modelOf(far, {7}), whyNot));
  EXPECT_NE(whyNot.find("more than the 128 it copies"), std::string::npos) << whyNot;
}

TEST(HotspotLayout, RefusesHeapBlockFieldsOutsideTheBlockHeader) {
  std::vector<Field> outside = kJdk17;
  outside[2].offset = 16;  // HeapBlock::Header::_used, in a 16-byte HeapBlock
  std::string whyNot;
  EXPECT_FALSE(hotspotLayout(modelOf(outside, {7}), whyNot));
  EXPECT_NE(whyNot.find("outside the HeapBlock"), std::string::npos) << whyNot;
}

TEST(HotspotLayout, RefusesAFieldThatSpansTwoWords) {
  std::vector<Field> packed = kJdk17;
  packed[3].offset = 62;  // CodeBlob::_frame_size, an int at 16 + 62 = 78: bytes 78..81 of the copy
  std::string whyNot;
  EXPECT_FALSE(hotspotLayout(modelOf(packed, {7}), whyNot));
  EXPECT_NE(whyNot.find("spans two words (offset 78, 4 bytes)"), std::string::npos) << whyNot;
}

// The static lives in this test process, which stands in for the JVM: the address is read from its memory.
TEST(HotspotLayout, CallStubReturnAddressIsReadFromTheProcessAndMustBeInTheCodeCache) {
  uint64_t callStubReturn = 0x7f0000001234;  // inside the first code heap of modelOf
  std::string whyNot;
  jvm::JavaModel model = modelOf(kJdk17, {7}, &callStubReturn);
  auto layout = hotspotLayout(model, whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(callStubReturnAddress(getpid(), model, *layout), 0x7f0000001234u);
  callStubReturn = 0x1000;  // not code
  EXPECT_EQ(callStubReturnAddress(getpid(), model, *layout), 0u);
}

TEST(HotspotLayout, CallStubReturnAddressIsZeroWithoutItsVmStructsEntry) {
  std::string whyNot;
  jvm::JavaModel model = modelOf(kJdk17, {7});
  auto layout = hotspotLayout(model, whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(callStubReturnAddress(getpid(), model, *layout), 0u);
}

// The walker unwinds the nmethod entry barrier's frame by its own layout: the stub is found by the name
// JDK 17 or a later JDK gives it, and is absent (size 0) when the JVM reported none.
TEST(HotspotLayout, EntryBarrierStubIsFoundByEitherJdksName) {
  for (const char* name : {"nmethod_entry_barrier", "method_entry_barrier"}) {
    std::string whyNot;
    auto layout = hotspotLayout(
        modelOf(kJdk17, {7}, nullptr,
                {protocol::DynamicCode{1, 0x7f0000002000, 0x90, protocol::kReplayed, {}, name},
                 protocol::DynamicCode{1, 0x7f0000003000, 0x40, protocol::kReplayed, {}, "call_stub"}}),
        whyNot);
    ASSERT_TRUE(layout) << whyNot;
    EXPECT_EQ(layout->entry_barrier, 0x7f0000002000u) << name;
    EXPECT_EQ(layout->entry_barrier_size, 0x90u) << name;
  }
  std::string whyNot;
  auto layout = hotspotLayout(
      modelOf(kJdk17, {7}, nullptr, {protocol::DynamicCode{1, 0x7f0000003000, 0x40, protocol::kReplayed, {}, "call_stub"}}),
      whyNot);
  ASSERT_TRUE(layout) << whyNot;
  EXPECT_EQ(layout->entry_barrier_size, 0u);
}

TEST(HotspotLayout, RefusesAJvmWithoutHeapBlockFields) {
  std::vector<Field> missing(kJdk17.begin(), kJdk17.end());
  missing.erase(missing.begin() + 1);  // HeapBlock::Header::_length
  std::string whyNot;
  EXPECT_FALSE(hotspotLayout(modelOf(missing, {7}), whyNot));
  EXPECT_NE(whyNot.find("HeapBlock::Header::_length"), std::string::npos) << whyNot;
}

}  // namespace
}  // namespace jfrbpf::record
