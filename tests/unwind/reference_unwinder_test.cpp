#include "userspace/unwind/reference_unwinder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

namespace jfrbpf::unwind {
namespace {

// Memory made of a few byte regions.
class FakeMemory final : public MemoryReader {
 public:
  void region(uint64_t base, size_t size) { regions_[base].assign(size, 0); }
  void put(uint64_t address, uint64_t value) { std::memcpy(at(address, 8), &value, 8); }
  void putBytes(uint64_t address, std::initializer_list<uint8_t> bytes) {
    std::memcpy(at(address, bytes.size()), bytes.begin(), bytes.size());
  }
  bool read(uint64_t address, std::span<uint8_t> out) const override {
    for (const auto& [base, bytes] : regions_) {
      if (address >= base && address - base + out.size() <= bytes.size()) {
        std::memcpy(out.data(), bytes.data() + (address - base), out.size());
        return true;
      }
    }
    return false;
  }

 private:
  uint8_t* at(uint64_t address, size_t size) {
    for (auto& [base, bytes] : regions_) {
      if (address >= base && address - base + size <= bytes.size()) return bytes.data() + (address - base);
    }
    ADD_FAILURE() << "no fake region at " << std::hex << address;
    static uint8_t scratch[64];
    return scratch;
  }
  std::map<uint64_t, std::vector<uint8_t>> regions_;
};

constexpr uint64_t kBias = 0x10000000;

UnwindRow row(uint32_t pc, RowKind kind, uint16_t param = 0, int8_t rbpSlot = 0) {
  return UnwindRow{pc, param, static_cast<uint8_t>(kind), rbpSlot};
}

class UnwindReferenceUnwinder : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = std::make_shared<UnwindTable>();
    table->rows = {
        row(0x1000, RowKind::kCfaRsp, 2, -2),                        // A: cfa=rsp+16, rbp at cfa-16
        row(0x1100, RowKind::kCfaRbp, 2, -2),                        // B: cfa=rbp+16, rbp at cfa-16
        row(0x1200, RowKind::kPlt, 11),                              // PLT
        row(0x1300, RowKind::kEndOfStack),                           // _start
        row(0x1400, RowKind::kUnsupported),                          //
        row(0x1500, RowKind::kCfaRsp, 1, JFRBPF_UNWIND_RBP_LOST),    // C: rbp not recoverable
        row(0x1600, RowKind::kNone),
        row(0x1700, RowKind::kClone, 1),                             // clone3 from its syscall on
        row(0x170a, RowKind::kEndOfStack),                           // the child's thread_start
        row(0x1720, RowKind::kCfaRsp, 1),                            // D: ends with a syscall at 0x172e
        row(0x1730, RowKind::kNone),
    };
    space_.add({kBias, kBias + 0x2000, kBias, table, "test"});
    memory_.region(0, 0x20000);
  }

  Walk walk(Registers regs, size_t maxFrames = 64) { return unwindStack(regs, space_, memory_, maxFrames); }

  AddressSpace space_;
  FakeMemory memory_;
};

TEST_F(UnwindReferenceUnwinder, WalksRspRbpAndPltFramesToTheEnd) {
  memory_.put(0x7008, kBias + 0x1050);  // PLT at pc&15 == 11: cfa = rsp + 16
  memory_.put(0x7010, 0x7100);          // A saved the caller's rbp at cfa-16
  memory_.put(0x7018, kBias + 0x1150);  // A's return address
  memory_.put(0x7108, kBias + 0x1301);  // B (cfa = rbp+16 = 0x7110) returns into _start
  Walk result = walk({kBias + 0x120b, 0x7000, 0, {}});
  ASSERT_EQ(result.frames.size(), 4u);
  EXPECT_EQ(result.end, WalkEnd::kEndOfStack);
  EXPECT_EQ(result.frames[1].pc, kBias + 0x1050);
  EXPECT_EQ(result.frames[1].sp, 0x7010u);
  EXPECT_EQ(result.frames[2].pc, kBias + 0x1150);
  EXPECT_EQ(result.frames[2].sp, 0x7020u);
  EXPECT_EQ(result.frames[3].sp, 0x7110u);
}

TEST_F(UnwindReferenceUnwinder, PltBeforeThePushHasTheReturnAddressOnTop) {
  memory_.put(0x7000, kBias + 0x1301);
  Walk result = walk({kBias + 0x1206, 0x7000, 0, {}});  // pc&15 == 6 < 11: cfa = rsp + 8
  ASSERT_EQ(result.frames.size(), 2u);
  EXPECT_EQ(result.end, WalkEnd::kEndOfStack);
}

TEST_F(UnwindReferenceUnwinder, SignalFrameRestoresTheInterruptedRegisters) {
  memory_.region(0x30000, 0x100);
  memory_.putBytes(0x30010, {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05});
  memory_.put(0x8000 + JFRBPF_UCONTEXT_RIP_OFFSET, kBias + 0x1100);  // interrupted at B's first byte
  memory_.put(0x8000 + JFRBPF_UCONTEXT_RSP_OFFSET, 0x9000);
  memory_.put(0x8000 + JFRBPF_UCONTEXT_RBP_OFFSET, 0x9100);
  memory_.put(0x9008, 0xdead);  // what a pc-1 lookup (into A) would wrongly take as return address
  Walk result = walk({0x30010, 0x8000, 0, {}});
  ASSERT_EQ(result.frames.size(), 2u);
  EXPECT_TRUE(result.frames[0].signalFrame);
  EXPECT_EQ(result.frames[1].pc, kBias + 0x1100);
  EXPECT_EQ(result.frames[1].sp, 0x9000u);
  EXPECT_EQ(result.end, WalkEnd::kEndOfStack);  // B: cfa = 0x9110, return address 0
  EXPECT_TRUE(isSigreturnTrampoline(memory_, 0x30017));
  EXPECT_FALSE(isSigreturnTrampoline(memory_, 0x30011));
}

TEST_F(UnwindReferenceUnwinder, AfterCloneTheParentReturnsAndTheChildIsOutermost) {
  memory_.put(0x7000, kBias + 0x1301);  // the parent's return address: into _start
  Walk parent = walk({kBias + 0x1702, 0x7000, 0, 12345});  // rax: the child's tid
  ASSERT_EQ(parent.frames.size(), 2u);
  EXPECT_EQ(parent.frames[1].sp, 0x7008u);
  EXPECT_EQ(parent.end, WalkEnd::kEndOfStack);
  EXPECT_EQ(walk({kBias + 0x1702, 0x7000, 0, {}}).frames.size(), 2u);  // rax unknown: taken for the parent
  Walk child = walk({kBias + 0x1702, 0x9000, 0, 0});
  EXPECT_EQ(child.frames.size(), 1u);
  EXPECT_EQ(child.end, WalkEnd::kEndOfStack);
}

TEST_F(UnwindReferenceUnwinder, AThreadInASyscallThatEndsItsFunctionUnwindsByTheSyscallsRow) {
  memory_.region(kBias + 0x1700, 0x100);
  memory_.putBytes(kBias + 0x172e, {0x0f, 0x05});
  memory_.put(0x7000, kBias + 0x1301);
  Walk result = walk({kBias + 0x1730, 0x7000, 0, {}});  // right after D's syscall, where no row is
  ASSERT_EQ(result.frames.size(), 2u);
  EXPECT_EQ(result.end, WalkEnd::kEndOfStack);
  memory_.putBytes(kBias + 0x172e, {0x90, 0x90});
  EXPECT_EQ(walk({kBias + 0x1730, 0x7000, 0, {}}).end, WalkEnd::kNoUnwindInfo);  // not after a syscall
}

TEST_F(UnwindReferenceUnwinder, StopsWhereRbpIsNeededButLost) {
  memory_.put(0xa000, kBias + 0x1101);
  Walk result = walk({kBias + 0x1500, 0xa000, 0x1234, {}});
  EXPECT_EQ(result.frames.size(), 2u);
  EXPECT_EQ(result.end, WalkEnd::kRbpUnknown);
}

TEST_F(UnwindReferenceUnwinder, StopsOnAStackThatDoesNotGrow) {
  Walk result = walk({kBias + 0x1100, 0x7000, 0x100, {}});  // cfa = rbp+16 = 0x110, below rsp
  EXPECT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.end, WalkEnd::kBadFrame);
}

TEST_F(UnwindReferenceUnwinder, ReportsWhyItStopped) {
  EXPECT_EQ(walk({0x5, 0x7000, 0, {}}).end, WalkEnd::kNoMapping);
  EXPECT_EQ(walk({kBias + 0x1600, 0x7000, 0, {}}).end, WalkEnd::kNoUnwindInfo);
  EXPECT_EQ(walk({kBias + 0x1400, 0x7000, 0, {}}).end, WalkEnd::kUnsupported);
  EXPECT_EQ(walk({kBias + 0x1000, 0x1fff8, 0, {}}).end, WalkEnd::kReadFailed);
}

TEST_F(UnwindReferenceUnwinder, DepthIsBounded) {
  for (uint64_t sp = 0x7000; sp < 0x8000; sp += 16) memory_.put(sp + 8, kBias + 0x1050);
  Walk result = walk({kBias + 0x1000 + 1, 0x7000, 0, {}}, 10);
  EXPECT_EQ(result.frames.size(), 10u);
  EXPECT_EQ(result.end, WalkEnd::kDepthLimit);
}

}  // namespace
}  // namespace jfrbpf::unwind
