#include "userspace/jvm/thread_names.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace jfrbpf::jvm {
namespace {

// A heap of a few objects laid out as HotSpot lays them out with compressed oops (narrow references, a
// byte[]'s length at 12 and its elements at 16), at kHeap.
constexpr uint64_t kHeap = 0x7f0000000000;
constexpr uint64_t kThread = kHeap + 0x100, kName = kHeap + 0x200, kValue = kHeap + 0x300;

class Heap final : public unwind::MemoryReader {
 public:
  Heap() : bytes_(0x1000, 0) {}
  template <typename T>
  void put(uint64_t address, T value) {
    std::memcpy(&bytes_.at(address - kHeap), &value, sizeof value);
  }
  void putReference(uint64_t address, uint64_t object) { put(address, static_cast<uint32_t>((object - kHeap) >> 3)); }
  void putBytes(uint64_t address, const std::vector<uint8_t>& bytes) {
    std::memcpy(&bytes_.at(address - kHeap), bytes.data(), bytes.size());
  }
  bool read(uint64_t address, std::span<uint8_t> out) const override {
    if (address < kHeap || address - kHeap + out.size() > bytes_.size()) return false;
    std::memcpy(out.data(), bytes_.data() + (address - kHeap), out.size());
    return true;
  }

 private:
  std::vector<uint8_t> bytes_;
};

protocol::ContinuationLayout layout() {
  protocol::ContinuationLayout l;
  l.compressedOops = 1;
  l.narrowOopBase = kHeap;
  l.narrowOopShift = 3;
  l.threadTid = 16;
  l.threadName = 28;
  l.stringValue = 12;
  l.stringCoder = 16;
  l.byteArrayLength = 12;
  l.byteArrayBase = 16;
  return l;
}

// Thread 4711 at kThread named by `characters` in `coder`.
Heap threadNamed(const std::vector<uint8_t>& characters, uint8_t coder) {
  Heap heap;
  heap.put<int64_t>(kThread + 16, 4711);
  heap.putReference(kThread + 28, kName);
  heap.putReference(kName + 12, kValue);
  heap.put<uint8_t>(kName + 16, coder);
  heap.put<int32_t>(kValue + 12, static_cast<int32_t>(characters.size()));
  heap.putBytes(kValue + 16, characters);
  return heap;
}

TEST(JvmThreadNames, ReadsALatin1NameAsUtf8) {
  Heap heap = threadNamed({'t', 'a', 's', 'k', '-', '7', 0xE9}, 0);
  EXPECT_EQ(readThreadName(heap, layout(), kThread, 4711), "task-7\xC3\xA9");
}

TEST(JvmThreadNames, ReadsAUtf16NameWithASurrogatePairAsUtf8) {
  // "h€" then U+1F600 (a surrogate pair), little-endian.
  Heap heap = threadNamed({'h', 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE}, 1);
  EXPECT_EQ(readThreadName(heap, layout(), kThread, 4711), "h\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(JvmThreadNames, AnUnnamedThreadHasAnEmptyName) {
  Heap heap = threadNamed({}, 0);
  EXPECT_EQ(readThreadName(heap, layout(), kThread, 4711), "");
}

TEST(JvmThreadNames, CutsALongNameToTheBound) {
  Heap heap = threadNamed(std::vector<uint8_t>(kMaxThreadNameChars + 40, 'x'), 0);
  std::optional<std::string> name = readThreadName(heap, layout(), kThread, 4711);
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->size(), kMaxThreadNameChars);
}

// The name's array ends just before unreadable memory: read as long as it is, not as long as a name may be.
TEST(JvmThreadNames, ReadsAShortArrayAtTheEndOfReadableMemory) {
  Heap heap = threadNamed({}, 0);
  constexpr uint64_t kLastArray = kHeap + 0x1000 - 24;
  heap.putReference(kName + 12, kLastArray);
  heap.put<int32_t>(kLastArray + 12, 3);
  heap.putBytes(kLastArray + 16, {'e', 'n', 'd'});
  EXPECT_EQ(readThreadName(heap, layout(), kThread, 4711), "end");
}

TEST(JvmThreadNames, ReadsFullReferencesWithoutCompressedOops) {
  Heap heap;
  protocol::ContinuationLayout wide = layout();
  wide.compressedOops = 0;
  wide.threadName = 32;
  wide.stringValue = 16;
  wide.stringCoder = 24;
  wide.byteArrayLength = 16;
  wide.byteArrayBase = 20;
  heap.put<int64_t>(kThread + 16, 4711);
  heap.put<uint64_t>(kThread + 32, kName);
  heap.put<uint64_t>(kName + 16, kValue);
  heap.put<uint8_t>(kName + 24, 0);
  heap.put<int32_t>(kValue + 16, 2);
  heap.putBytes(kValue + 20, {'w', '1'});
  EXPECT_EQ(readThreadName(heap, wide, kThread, 4711), "w1");
}

// A collector moved the thread since the sample: whatever is there now is not taken for its name.
TEST(JvmThreadNames, RefusesAnObjectThatIsNotTheThreadAnyMore) {
  Heap heap = threadNamed({'a'}, 0);
  EXPECT_EQ(readThreadName(heap, layout(), kThread, 4712), std::nullopt);
  EXPECT_EQ(readThreadName(heap, layout(), kThread + 8, 4711), std::nullopt);
  EXPECT_EQ(readThreadName(heap, layout(), kThread + 4, 4711), std::nullopt);  // not an object's address
  EXPECT_EQ(readThreadName(heap, layout(), 0x1000, 4711), std::nullopt);        // unreadable
}

TEST(JvmThreadNames, RefusesAStringThatDoesNotLookLikeOne) {
  Heap badCoder = threadNamed({'a', 'b'}, 2);
  EXPECT_EQ(readThreadName(badCoder, layout(), kThread, 4711), std::nullopt);
  Heap oddUtf16 = threadNamed({'a', 0, 'b'}, 1);
  EXPECT_EQ(readThreadName(oddUtf16, layout(), kThread, 4711), std::nullopt);
  Heap negative = threadNamed({'a'}, 0);
  negative.put<int32_t>(kValue + 12, -1);
  EXPECT_EQ(readThreadName(negative, layout(), kThread, 4711), std::nullopt);
  Heap huge = threadNamed({'a'}, 0);
  huge.put<int32_t>(kValue + 12, (1 << 20) + 1);  // no thread has a name of a million characters
  EXPECT_EQ(readThreadName(huge, layout(), kThread, 4711), std::nullopt);
  Heap nullName = threadNamed({'a'}, 0);
  nullName.put<uint32_t>(kThread + 28, 0);
  EXPECT_EQ(readThreadName(nullName, layout(), kThread, 4711), std::nullopt);
}

// The layout comes from the target's agent: a byte[] header that would wrap a 32-bit size (a 4-byte buffer
// read 4 GiB past its end) or ask for gigabytes is refused before anything is read or allocated.
TEST(JvmThreadNames, RefusesAByteArrayHeaderNoJvmHas) {
  Heap heap = threadNamed({'a'}, 0);
  for (uint32_t base : {0xFFFFFF04u, 0xFFFF0000u, 65u}) {
    protocol::ContinuationLayout hostile = layout();
    hostile.byteArrayBase = base;
    EXPECT_EQ(readThreadName(heap, hostile, kThread, 4711), std::nullopt) << base;
  }
}

TEST(JvmThreadNames, NothingWithoutTheAgentsCheckedLayout) {
  Heap heap = threadNamed({'a'}, 0);
  EXPECT_EQ(readThreadName(heap, protocol::ContinuationLayout{}, kThread, 4711), std::nullopt);
}

}  // namespace
}  // namespace jfrbpf::jvm
