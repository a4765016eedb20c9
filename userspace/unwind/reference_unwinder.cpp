#include "userspace/unwind/reference_unwinder.h"

#include <array>

namespace jfrbpf::unwind {
namespace {

// mov $0xf,%rax ; syscall
constexpr std::array<uint8_t, 9> kSigreturnCode = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
constexpr uint64_t kSyscallOffset = 7;
constexpr std::array<uint8_t, 2> kSyscall = {0x0f, 0x05};

bool afterSyscall(const MemoryReader& memory, uint64_t pc) {
  std::array<uint8_t, kSyscall.size()> code{};
  return memory.read(pc - kSyscall.size(), code) && code == kSyscall;
}

}  // namespace

const char* walkEndName(WalkEnd end) {
  switch (end) {
    case WalkEnd::kEndOfStack: return "end-of-stack";
    case WalkEnd::kNoMapping: return "no-mapping";
    case WalkEnd::kNoUnwindInfo: return "no-unwind-info";
    case WalkEnd::kUnsupported: return "unsupported";
    case WalkEnd::kRbpUnknown: return "rbp-unknown";
    case WalkEnd::kReadFailed: return "read-failed";
    case WalkEnd::kBadFrame: return "bad-frame";
    case WalkEnd::kDepthLimit: return "depth-limit";
  }
  return "?";
}

bool isSigreturnTrampoline(const MemoryReader& memory, uint64_t pc) {
  std::array<uint8_t, kSigreturnCode.size()> code{};
  // pc is at the mov when the trampoline was returned into, at the syscall when it was interrupted there.
  for (uint64_t start : {pc, pc - kSyscallOffset}) {
    if (memory.read(start, code) && code == kSigreturnCode) return true;
  }
  return false;
}

Walk unwindStack(const Registers& initial, const AddressSpace& space, const MemoryReader& memory,
                 size_t maxFrames) {
  Walk walk;
  Registers regs = initial;
  bool exactPc = true;  // the innermost frame and a frame interrupted by a signal are not after a call
  bool rbpKnown = true;
  while (walk.frames.size() < maxFrames) {
    if (regs.pc == 0 && !walk.frames.empty()) {
      walk.end = WalkEnd::kEndOfStack;
      return walk;
    }
    Frame& frame = walk.frames.emplace_back(Frame{regs.pc, regs.sp, false});
    auto rowAt = [&space](uint64_t pc, const MappedTable*& mapping) -> const UnwindRow* {
      mapping = space.find(pc);
      return mapping == nullptr ? nullptr : mapping->table->find(pc - mapping->bias);
    };
    const MappedTable* mapping = nullptr;
    const UnwindRow* row = rowAt(exactPc ? regs.pc : regs.pc - 1, mapping);
    // A thread in a system call is right after its syscall, which may end its function (the sigreturn
    // trampoline's does): where that pc has no row, the syscall's holds.
    if (exactPc && (row == nullptr || row->kind == JFRBPF_UNWIND_NONE) && afterSyscall(memory, regs.pc)) {
      const MappedTable* before = nullptr;
      if (const UnwindRow* syscallRow = rowAt(regs.pc - 1, before); syscallRow != nullptr) {
        row = syscallRow;
        mapping = before;
      }
    }
    RowKind kind = row == nullptr ? RowKind::kNone : static_cast<RowKind>(row->kind);
    if ((kind == RowKind::kNone || kind == RowKind::kUnsupported) && isSigreturnTrampoline(memory, regs.pc)) {
      kind = RowKind::kSignal;
    }
    // A clone's child is at its outermost frame until its own unwind information begins.
    if (kind == RowKind::kClone && walk.frames.size() == 1 && regs.rax == 0) kind = RowKind::kEndOfStack;

    switch (kind) {
      case RowKind::kEndOfStack:
        walk.end = WalkEnd::kEndOfStack;
        return walk;
      case RowKind::kNone:
        walk.end = mapping == nullptr ? WalkEnd::kNoMapping : WalkEnd::kNoUnwindInfo;
        return walk;
      case RowKind::kUnsupported:
        walk.end = WalkEnd::kUnsupported;
        return walk;
      case RowKind::kSignal: {
        frame.signalFrame = true;
        Registers interrupted;
        if (!memory.readU64(regs.sp + JFRBPF_UCONTEXT_RIP_OFFSET, interrupted.pc) ||
            !memory.readU64(regs.sp + JFRBPF_UCONTEXT_RSP_OFFSET, interrupted.sp) ||
            !memory.readU64(regs.sp + JFRBPF_UCONTEXT_RBP_OFFSET, interrupted.rbp)) {
          walk.end = WalkEnd::kReadFailed;
          return walk;
        }
        regs = interrupted;
        exactPc = true;
        rbpKnown = true;
        continue;
      }
      case RowKind::kCfaRsp:
      case RowKind::kCfaRbp:
      case RowKind::kPlt:
      case RowKind::kClone:
        break;
    }

    uint64_t cfa;
    if (kind == RowKind::kCfaRsp || kind == RowKind::kClone) {
      cfa = regs.sp + uint64_t{row->cfa_param} * 8;
    } else if (kind == RowKind::kCfaRbp) {
      if (!rbpKnown) {
        walk.end = WalkEnd::kRbpUnknown;
        return walk;
      }
      cfa = regs.rbp + uint64_t{row->cfa_param} * 8;
    } else {
      cfa = regs.sp + 8 + ((regs.pc & 15) >= row->cfa_param ? 8 : 0);
    }
    Registers caller{0, cfa, regs.rbp, std::nullopt};
    if (!memory.readU64(cfa - 8, caller.pc)) {
      walk.end = WalkEnd::kReadFailed;
      return walk;
    }
    if (row->rbp_slot == JFRBPF_UNWIND_RBP_LOST) {
      rbpKnown = false;
    } else if (row->rbp_slot != JFRBPF_UNWIND_RBP_UNCHANGED) {
      if (!memory.readU64(cfa + static_cast<int64_t>(row->rbp_slot) * 8, caller.rbp)) {
        walk.end = WalkEnd::kReadFailed;
        return walk;
      }
      rbpKnown = true;
    }
    if (caller.sp <= regs.sp) {
      walk.end = WalkEnd::kBadFrame;
      return walk;
    }
    regs = caller;
    exactPc = false;
  }
  walk.end = WalkEnd::kDepthLimit;
  return walk;
}

}  // namespace jfrbpf::unwind
