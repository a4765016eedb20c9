// The agent's safe reads of its own memory: batched reads that meet an unreadable address read the others.
#include "jvmsupport/agent/safe_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace jfrbpf::agent {
namespace {

// One readable page followed by one without access: an address in the second faults.
struct GuardedPage {
  GuardedPage() {
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mapped, MAP_FAILED);
    base = static_cast<uint8_t*>(mapped);
    EXPECT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  }
  ~GuardedPage() { munmap(base, 2 * page); }
  uintptr_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(base + offset); }
  size_t page = 0;
  uint8_t* base = nullptr;
};

TEST(AgentSafeMemory, ReadsEachAddressOfABatch) {
  ASSERT_TRUE(safeMemoryAvailable()) << "process_vm_readv of our own memory is refused here";
  std::vector<uint64_t> values(600);  // more than one system call's worth
  std::vector<uintptr_t> addresses;
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = 0x1000 + i * 7;
    addresses.push_back(reinterpret_cast<uintptr_t>(&values[values.size() - 1 - i]));  // not in order
  }
  std::vector<uint64_t> out(values.size());
  std::vector<uint8_t> readable(values.size());
  safeReadEach(addresses, sizeof(uint64_t), reinterpret_cast<uint8_t*>(out.data()),
               reinterpret_cast<bool*>(readable.data()));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE(readable[i]) << i;
    EXPECT_EQ(out[i], values[values.size() - 1 - i]) << i;
  }
}

TEST(AgentSafeMemory, UnreadableAddressesFailAloneAndTheRestAreRead) {
  GuardedPage memory;
  for (size_t i = 0; i < 16; ++i) std::memcpy(memory.base + i * 8, &i, 8);
  // Readable, null, unreadable, readable, straddling into the unreadable page, readable.
  const std::vector<uintptr_t> addresses = {memory.at(8),         0, memory.at(memory.page + 64), memory.at(24),
                                            memory.at(memory.page - 4), memory.at(40)};
  std::vector<uint64_t> out(addresses.size(), 0xdead);
  bool readable[6] = {};
  safeReadEach(addresses, sizeof(uint64_t), reinterpret_cast<uint8_t*>(out.data()), readable);
  EXPECT_TRUE(readable[0]);
  EXPECT_EQ(out[0], 1u);
  EXPECT_FALSE(readable[1]) << "address 0";
  EXPECT_FALSE(readable[2]) << "a page without access";
  EXPECT_TRUE(readable[3]);
  EXPECT_EQ(out[3], 3u);
  EXPECT_FALSE(readable[4]) << "8 bytes of which 4 are in the page without access";
  EXPECT_TRUE(readable[5]);
  EXPECT_EQ(out[5], 5u);
}

TEST(AgentSafeMemory, IntegersComeAtTheirWidthFromACopy) {
  const uint8_t object[8] = {0xfe, 0xff, 0x34, 0x12, 0, 0, 0, 0};
  int64_t value = 0;
  ASSERT_TRUE(integerAt(object, sizeof object, 0, 2, true, value));
  EXPECT_EQ(value, -2);
  ASSERT_TRUE(integerAt(object, sizeof object, 0, 2, false, value));
  EXPECT_EQ(value, 0xfffe);
  ASSERT_TRUE(integerAt(object, sizeof object, 2, 2, false, value));
  EXPECT_EQ(value, 0x1234);
  EXPECT_FALSE(integerAt(object, sizeof object, 6, 4, false, value)) << "past the copy's end";
  EXPECT_FALSE(integerAt(object, sizeof object, 0, 3, false, value)) << "not an integer width";
}

}  // namespace
}  // namespace jfrbpf::agent
