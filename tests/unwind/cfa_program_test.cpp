#include "userspace/unwind/cfa_program.h"

#include <gtest/gtest.h>

#include "tests/unwind/cfi_builder.h"
#include "userspace/unwind/dwarf_constants.h"

namespace jfrbpf::unwind {
namespace {

using namespace dwarf;
using test::CfiBuilder;

// Runs one FDE for [0x4000, 0x4100) with the standard CIE (cfa=rsp+8, ra=[cfa-8]).
CfaProgramResult run(std::initializer_list<uint8_t> program, CfaProgramLimits limits = {}) {
  static CfiBuilder builder;  // the result's spans point into the builder: keep it alive
  builder = CfiBuilder();
  size_t cie = builder.standardCie();
  builder.fde(cie, 0x4000, 0x100, program);
  CfiSectionView view{CfiFormat::kEhFrame, builder.bytes(), builder.vaddr(), std::nullopt, nullptr};
  CfiEntries entries = parseCfiSection(view, 10);
  EXPECT_EQ(entries.fdes.size(), 1u);
  if (entries.fdes.empty()) return {};
  return runCfaProgram(entries.cies[0], entries.fdes[0], view, limits);
}

TEST(UnwindCfaProgram, InitialRulesComeFromTheCie) {
  CfaProgramResult result = run({});
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 1u);
  const FrameRules& rules = result.rows[0].rules;
  EXPECT_EQ(result.rows[0].pc, 0x4000u);
  EXPECT_EQ(rules.cfa.reg, kRegRsp);
  EXPECT_EQ(rules.cfa.offset, 8);
  EXPECT_EQ(rules.returnAddress.kind, RuleKind::kOffset);
  EXPECT_EQ(rules.returnAddress.value, -8);
  EXPECT_EQ(rules.rbp.kind, RuleKind::kUnspecified);
}

TEST(UnwindCfaProgram, AdvanceOpcodesMoveTheLocation) {
  CfaProgramResult result = run({
      0x41, kCfaDefCfaOffset, 16,                   // advance_loc 1
      kCfaAdvanceLoc1, 2, kCfaDefCfaOffset, 24,     // +2
      kCfaAdvanceLoc2, 3, 0, kCfaDefCfaOffset, 32,  // +3
      kCfaAdvanceLoc4, 4, 0, 0, 0, kCfaDefCfaOffset, 40,
  });
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_EQ(result.rows[1].pc, 0x4001u);
  EXPECT_EQ(result.rows[2].pc, 0x4003u);
  EXPECT_EQ(result.rows[3].pc, 0x4006u);
  EXPECT_EQ(result.rows[4].pc, 0x400au);
  EXPECT_EQ(result.rows[4].rules.cfa.offset, 40);
}

TEST(UnwindCfaProgram, SetLocUsesTheFdePointerEncoding) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  size_t fde = b.begin();
  b.u32(static_cast<uint32_t>(b.bytes().size() - cie)).pcrel4(0x4000).u32(0x100).uleb(0);
  b.u8(kCfaSetLoc).pcrel4(0x4050).bytes({kCfaDefCfaOffset, 16});
  b.end(fde);
  CfiSectionView view{CfiFormat::kEhFrame, b.bytes(), b.vaddr(), std::nullopt, nullptr};
  CfiEntries entries = parseCfiSection(view, 10);
  ASSERT_EQ(entries.fdes.size(), 1u);
  CfaProgramResult result = runCfaProgram(entries.cies[0], entries.fdes[0], view, {});
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[1].pc, 0x4050u);
  EXPECT_EQ(result.rows[1].rules.cfa.offset, 16);
}

TEST(UnwindCfaProgram, CfaDefinitions) {
  CfaProgramResult result = run({
      kCfaDefCfa, kRegRbp, 16,             0x41,  // cfa = rbp+16
      kCfaDefCfaRegister, kRegRsp,         0x41,  // cfa = rsp+16
      kCfaDefCfaSf, kRegRsp, 0x7d,         0x41,  // sleb -3 * -8 = 24
      kCfaDefCfaOffsetSf, 0x7c,            0x41,  // -4 * -8 = 32
      kCfaDefCfaExpression, 2, 0x77, 0x08,        // rsp + 8 as an expression
  });
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_EQ(result.rows[0].rules.cfa.reg, kRegRbp);
  EXPECT_EQ(result.rows[0].rules.cfa.offset, 16);
  EXPECT_EQ(result.rows[1].rules.cfa.reg, kRegRsp);
  EXPECT_EQ(result.rows[1].rules.cfa.offset, 16);
  EXPECT_EQ(result.rows[2].rules.cfa.offset, 24);
  EXPECT_EQ(result.rows[3].rules.cfa.offset, 32);
  EXPECT_TRUE(result.rows[4].rules.cfa.isExpression);
  EXPECT_EQ(result.rows[4].rules.cfa.expression.size(), 2u);
}

TEST(UnwindCfaProgram, RegisterRules) {
  CfaProgramResult result = run({
      kCfaOffset | kRegRbp, 2,                          0x41,  // rbp at cfa-16
      kCfaOffsetExtended, kRegRbp, 3,                   0x41,  // cfa-24
      kCfaOffsetExtendedSf, kRegRbp, 0x7c,              0x41,  // sleb -4 * -8: cfa+32
      kCfaGnuNegativeOffsetExtended, kRegRbp, 1,        0x41,  // -(1 * -8) = +8
      kCfaValOffset, kRegRbp, 1,                        0x41,  // value cfa-8
      kCfaValOffsetSf, kRegRbp, 0x7f,                   0x41,  // value cfa+8
      kCfaRegister, kRegRbp, 3,                         0x41,  // in rbx
      kCfaSameValue, kRegRbp,                           0x41,
      kCfaUndefined, kRegRip,                           0x41,
      kCfaExpression, kRegRbp, 1, 0x30,                 0x41,
      kCfaValExpression, kRegRbp, 1, 0x30,              0x41,
      kCfaRestore | kRegRip, kCfaRestoreExtended, kRegRbp,   0x41,
  });
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 12u);
  auto rbp = [&](size_t i) { return result.rows[i].rules.rbp; };
  EXPECT_EQ(rbp(0).kind, RuleKind::kOffset);
  EXPECT_EQ(rbp(0).value, -16);
  EXPECT_EQ(rbp(1).value, -24);
  EXPECT_EQ(rbp(2).value, 32);
  EXPECT_EQ(rbp(3).value, 8);
  EXPECT_EQ(rbp(4).kind, RuleKind::kValOffset);
  EXPECT_EQ(rbp(4).value, -8);
  EXPECT_EQ(rbp(5).value, 8);
  EXPECT_EQ(rbp(6).kind, RuleKind::kRegister);
  EXPECT_EQ(rbp(6).value, 3);
  EXPECT_EQ(rbp(7).kind, RuleKind::kSameValue);
  EXPECT_EQ(result.rows[8].rules.returnAddress.kind, RuleKind::kUndefined);
  EXPECT_EQ(rbp(9).kind, RuleKind::kExpression);
  EXPECT_EQ(rbp(10).kind, RuleKind::kValExpression);
  // restore brings back the CIE's rules: ra=[cfa-8], rbp unspecified
  EXPECT_EQ(result.rows[11].rules.returnAddress.kind, RuleKind::kOffset);
  EXPECT_EQ(rbp(11).kind, RuleKind::kUnspecified);
}

TEST(UnwindCfaProgram, RememberAndRestoreStateIncludeTheCfa) {
  CfaProgramResult result = run({
      0x41, kCfaDefCfaOffset, 16, kCfaOffset | kRegRbp, 2,
      kCfaRememberState,
      0x41, kCfaDefCfaOffset, 8, kCfaRestore | kRegRbp,
      0x41, kCfaRestoreState,
      kCfaNop, kCfaGnuArgsSize, 16, kCfaNop,
  });
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 4u);
  EXPECT_EQ(result.rows[2].rules.cfa.offset, 8);
  EXPECT_EQ(result.rows[2].rules.rbp.kind, RuleKind::kUnspecified);
  EXPECT_EQ(result.rows[3].pc, 0x4003u);
  EXPECT_EQ(result.rows[3].rules.cfa.offset, 16);
  EXPECT_EQ(result.rows[3].rules.rbp.kind, RuleKind::kOffset);
}

TEST(UnwindCfaProgram, RowsStopAtTheFdeEnd) {
  CfaProgramResult result = run({0x41, kCfaDefCfaOffset, 16, kCfaAdvanceLoc2, 0x00, 0x10, kCfaDefCfaOffset, 24});
  ASSERT_EQ(result.status, ProgramStatus::kOk);
  ASSERT_EQ(result.rows.size(), 2u);  // the rule at 0x5001 lies past the end (0x4100)
}

TEST(UnwindCfaProgram, IdenticalConsecutiveRowsAreMerged) {
  CfaProgramResult result = run({0x41, kCfaNop, 0x41, kCfaDefCfaOffset, 8, 0x41, kCfaDefCfaOffset, 16});
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[1].pc, 0x4003u);
}

TEST(UnwindCfaProgram, ErrorsMarkWhereRowsBecomeUnknown) {
  CfaProgramResult unknown = run({0x42, kCfaDefCfaOffset, 16, 0x42, 0x2d});
  EXPECT_EQ(unknown.status, ProgramStatus::kMalformed);
  EXPECT_EQ(unknown.failedAt, 0x4004u);
  EXPECT_EQ(unknown.rows.size(), 2u);

  EXPECT_EQ(run({0x41, kCfaRestoreState}).status, ProgramStatus::kMalformed);
  EXPECT_EQ(run({kCfaDefCfaExpression, 1, 0x30, kCfaDefCfaOffset, 8}).status, ProgramStatus::kMalformed);
  EXPECT_EQ(run({kCfaDefCfa, 7}).status, ProgramStatus::kMalformed);  // operand missing
  EXPECT_EQ(run({kCfaExpression, 6, 10, 0x30}).status, ProgramStatus::kMalformed);  // block past the end

  CfaProgramLimits shallow;
  shallow.maxStateStack = 2;
  EXPECT_EQ(run({kCfaRememberState, kCfaRememberState, kCfaRememberState}, shallow).status, ProgramStatus::kLimit);
  CfaProgramLimits few;
  few.maxInstructions = 4;  // the CIE's two instructions count too
  EXPECT_EQ(run({kCfaNop, kCfaNop, kCfaNop}, few).status, ProgramStatus::kLimit);
  CfaProgramLimits rows;
  rows.maxRows = 2;
  CfaProgramResult limited = run({0x41, kCfaDefCfaOffset, 16, 0x41, kCfaDefCfaOffset, 24}, rows);
  EXPECT_EQ(limited.status, ProgramStatus::kLimit);
  EXPECT_EQ(limited.failedAt, 0x4002u);
}

TEST(UnwindCfaProgram, LocationCannotMoveBackwards) {
  CfiBuilder b;
  size_t cie = b.standardCie();
  size_t fde = b.begin();
  b.u32(static_cast<uint32_t>(b.bytes().size() - cie)).pcrel4(0x4000).u32(0x100).uleb(0);
  b.bytes({0x48}).u8(kCfaSetLoc).pcrel4(0x4004);
  b.end(fde);
  CfiSectionView view{CfiFormat::kEhFrame, b.bytes(), b.vaddr(), std::nullopt, nullptr};
  CfiEntries entries = parseCfiSection(view, 10);
  ASSERT_EQ(entries.fdes.size(), 1u);
  CfaProgramResult result = runCfaProgram(entries.cies[0], entries.fdes[0], view, {});
  EXPECT_EQ(result.status, ProgramStatus::kMalformed);
  EXPECT_EQ(result.failedAt, 0x4008u);
}

}  // namespace
}  // namespace jfrbpf::unwind
