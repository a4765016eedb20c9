#include "userspace/unwind/cfa_program.h"

#include <optional>

#include "userspace/unwind/dwarf_constants.h"

namespace jfrbpf::unwind {
namespace {

using namespace dwarf;

class Interpreter {
 public:
  Interpreter(const Cie& cie, const Fde& fde, const CfiSectionView& section, const CfaProgramLimits& limits)
      : cie_(cie), fde_(fde), section_(section), limits_(limits), location_(fde.pcBegin) {}

  CfaProgramResult run() {
    inCie_ = true;
    if (execute(cie_.instructions)) {
      initial_ = rules_;
      inCie_ = false;
      execute(fde_.instructions);
    }
    if (!stopped_) appendRow();
    return std::move(result_);
  }

 private:
  // Returns false once the program must stop: on failure, or when the location passed the FDE's end.
  bool execute(std::span<const uint8_t> program) {
    ByteReader reader(program);
    while (!reader.atEnd()) {
      if (++result_.instructions > limits_.maxInstructions) return fail(ProgramStatus::kLimit);
      if (!step(reader)) return false;
      if (!reader.ok()) return fail(ProgramStatus::kMalformed);
    }
    return true;
  }

  bool step(ByteReader& reader) {
    uint8_t opcode = reader.u8();
    uint8_t operand = opcode & 0x3f;
    switch (opcode & 0xc0) {
      case kCfaAdvanceLoc: return advanceBy(operand);
      case kCfaOffset: return setRule(operand, RuleKind::kOffset, factored(reader.uleb128()));
      case kCfaRestore: return restore(operand);
      default: break;
    }
    switch (opcode) {
      case kCfaNop: return true;
      case kCfaSetLoc: {
        uint64_t fieldVaddr = section_.vaddr + static_cast<uint64_t>(reader.bytes().data() + reader.position() -
                                                                     section_.bytes.data());
        std::optional<uint64_t> target =
            readEncodedPointer(reader, cie_.fdeEncoding, fieldVaddr, section_, cie_.addressSize);
        return target ? advanceTo(*target) : fail(ProgramStatus::kMalformed);
      }
      case kCfaAdvanceLoc1: return advanceBy(reader.u8());
      case kCfaAdvanceLoc2: return advanceBy(reader.u16());
      case kCfaAdvanceLoc4: return advanceBy(reader.u32());
      case kCfaOffsetExtended: {
        uint64_t reg = reader.uleb128();
        return setRule(reg, RuleKind::kOffset, factored(reader.uleb128()));
      }
      case kCfaOffsetExtendedSf: {
        uint64_t reg = reader.uleb128();
        return setRule(reg, RuleKind::kOffset, factored(reader.sleb128()));
      }
      case kCfaGnuNegativeOffsetExtended: {
        uint64_t reg = reader.uleb128();
        std::optional<int64_t> offset = factored(reader.uleb128());
        return setRule(reg, RuleKind::kOffset, offset ? std::optional<int64_t>(-*offset) : std::nullopt);
      }
      case kCfaValOffset: {
        uint64_t reg = reader.uleb128();
        return setRule(reg, RuleKind::kValOffset, factored(reader.uleb128()));
      }
      case kCfaValOffsetSf: {
        uint64_t reg = reader.uleb128();
        return setRule(reg, RuleKind::kValOffset, factored(reader.sleb128()));
      }
      case kCfaRestoreExtended: return restore(reader.uleb128());
      case kCfaUndefined: return setRule(reader.uleb128(), RuleKind::kUndefined, 0);
      case kCfaSameValue: return setRule(reader.uleb128(), RuleKind::kSameValue, 0);
      case kCfaRegister: {
        uint64_t reg = reader.uleb128();
        uint64_t source = reader.uleb128();
        if (source > INT64_MAX) return fail(ProgramStatus::kMalformed);
        return setRule(reg, RuleKind::kRegister, static_cast<int64_t>(source));
      }
      case kCfaRememberState:
        if (stack_.size() >= limits_.maxStateStack) return fail(ProgramStatus::kLimit);
        stack_.push_back(rules_);
        return true;
      case kCfaRestoreState:
        if (stack_.empty()) return fail(ProgramStatus::kMalformed);
        rules_ = stack_.back();
        stack_.pop_back();
        return true;
      case kCfaDefCfa: {
        uint64_t reg = reader.uleb128();
        uint64_t offset = reader.uleb128();
        if (offset > INT64_MAX) return fail(ProgramStatus::kMalformed);
        return defineCfa(reg, static_cast<int64_t>(offset));
      }
      case kCfaDefCfaSf: {
        uint64_t reg = reader.uleb128();
        std::optional<int64_t> offset = factored(reader.sleb128());
        return offset ? defineCfa(reg, *offset) : fail(ProgramStatus::kMalformed);
      }
      case kCfaDefCfaRegister:
        if (rules_.cfa.isExpression || !rules_.cfa.defined) return fail(ProgramStatus::kMalformed);
        rules_.cfa.reg = reader.uleb128();
        return true;
      case kCfaDefCfaOffset: {
        uint64_t offset = reader.uleb128();
        if (rules_.cfa.isExpression || !rules_.cfa.defined || offset > INT64_MAX) {
          return fail(ProgramStatus::kMalformed);
        }
        rules_.cfa.offset = static_cast<int64_t>(offset);
        return true;
      }
      case kCfaDefCfaOffsetSf: {
        std::optional<int64_t> offset = factored(reader.sleb128());
        if (rules_.cfa.isExpression || !rules_.cfa.defined || !offset) return fail(ProgramStatus::kMalformed);
        rules_.cfa.offset = *offset;
        return true;
      }
      case kCfaDefCfaExpression: {
        std::span<const uint8_t> block = reader.take(reader.uleb128());
        rules_.cfa = CfaRule{true, true, 0, 0, block};
        return true;
      }
      case kCfaExpression:
      case kCfaValExpression: {
        uint64_t reg = reader.uleb128();
        std::span<const uint8_t> block = reader.take(reader.uleb128());
        RuleKind kind = opcode == kCfaExpression ? RuleKind::kExpression : RuleKind::kValExpression;
        if (RegisterRule* rule = slot(reg)) *rule = RegisterRule{kind, 0, block};
        return true;
      }
      case kCfaGnuArgsSize:
        reader.uleb128();  // only matters to landing pads: the CFA rule already accounts for pushed args
        return true;
      default:
        return fail(ProgramStatus::kMalformed);
    }
  }

  RegisterRule* slot(uint64_t reg) {
    if (reg == cie_.returnAddressRegister) return &rules_.returnAddress;
    if (reg == kRegRbp) return &rules_.rbp;
    if (reg == kRegRsp) return &rules_.rsp;
    return nullptr;
  }

  bool setRule(uint64_t reg, RuleKind kind, std::optional<int64_t> value) {
    if (!value) return fail(ProgramStatus::kMalformed);
    if (RegisterRule* rule = slot(reg)) *rule = RegisterRule{kind, *value, {}};
    return true;
  }

  bool restore(uint64_t reg) {
    RegisterRule* rule = slot(reg);
    if (rule == nullptr) return true;
    if (inCie_) {
      *rule = RegisterRule{};
    } else if (rule == &rules_.returnAddress) {
      *rule = initial_.returnAddress;
    } else if (rule == &rules_.rbp) {
      *rule = initial_.rbp;
    } else {
      *rule = initial_.rsp;
    }
    return true;
  }

  bool defineCfa(uint64_t reg, int64_t offset) {
    rules_.cfa = CfaRule{false, true, reg, offset, {}};
    return true;
  }

  std::optional<int64_t> factored(uint64_t value) const {
    if (value > INT64_MAX) return std::nullopt;
    return factored(static_cast<int64_t>(value));
  }
  std::optional<int64_t> factored(int64_t value) const {
    int64_t result;
    if (__builtin_mul_overflow(value, cie_.dataAlignment, &result)) return std::nullopt;
    return result;
  }

  bool advanceBy(uint64_t delta) {
    uint64_t scaled;
    uint64_t target;
    if (__builtin_mul_overflow(delta, cie_.codeAlignment, &scaled) ||
        __builtin_add_overflow(location_, scaled, &target)) {
      return fail(ProgramStatus::kMalformed);
    }
    return advanceTo(target);
  }

  bool advanceTo(uint64_t target) {
    if (inCie_ || target < location_) return fail(ProgramStatus::kMalformed);
    if (target == location_) return true;
    if (!appendRow()) return false;
    location_ = target;
    if (location_ >= fde_.pcEnd) {
      stopped_ = true;  // the rest of the program describes addresses outside this FDE
      return false;
    }
    return true;
  }

  bool appendRow() {
    if (location_ >= fde_.pcEnd) return true;
    std::vector<CfiRow>& rows = result_.rows;
    if (!rows.empty() && rows.back().rules == rules_) return true;
    if (rows.size() >= limits_.maxRows) return fail(ProgramStatus::kLimit);
    rows.push_back({location_, rules_});
    return true;
  }

  bool fail(ProgramStatus status) {
    if (!stopped_) {
      result_.status = status;
      result_.failedAt = location_;
      stopped_ = true;
    }
    return false;
  }

  const Cie& cie_;
  const Fde& fde_;
  const CfiSectionView& section_;
  const CfaProgramLimits& limits_;
  uint64_t location_;
  bool inCie_ = false;
  bool stopped_ = false;
  FrameRules rules_;
  FrameRules initial_;
  std::vector<FrameRules> stack_;
  CfaProgramResult result_;
};

}  // namespace

CfaProgramResult runCfaProgram(const Cie& cie, const Fde& fde, const CfiSectionView& section,
                               const CfaProgramLimits& limits) {
  return Interpreter(cie, fde, section, limits).run();
}

}  // namespace jfrbpf::unwind
