#pragma once
// DWARF call-frame constants (DWARF 5 §6.4, LSB "Exception Frames") and the x86_64 register numbers of
// the System V psABI DWARF mapping. Only the values this module interprets.
#include <cstdint>

namespace jfrbpf::unwind::dwarf {

// Pointer encodings (.eh_frame augmentation data, .eh_frame_hdr).
inline constexpr uint8_t kPeAbsptr = 0x00;
inline constexpr uint8_t kPeUleb128 = 0x01;
inline constexpr uint8_t kPeUdata2 = 0x02;
inline constexpr uint8_t kPeUdata4 = 0x03;
inline constexpr uint8_t kPeUdata8 = 0x04;
inline constexpr uint8_t kPeSleb128 = 0x09;
inline constexpr uint8_t kPeSdata2 = 0x0a;
inline constexpr uint8_t kPeSdata4 = 0x0b;
inline constexpr uint8_t kPeSdata8 = 0x0c;
inline constexpr uint8_t kPeFormatMask = 0x0f;
inline constexpr uint8_t kPePcrel = 0x10;
inline constexpr uint8_t kPeTextrel = 0x20;
inline constexpr uint8_t kPeDatarel = 0x30;
inline constexpr uint8_t kPeFuncrel = 0x40;
inline constexpr uint8_t kPeAligned = 0x50;
inline constexpr uint8_t kPeApplicationMask = 0x70;
inline constexpr uint8_t kPeIndirect = 0x80;
inline constexpr uint8_t kPeOmit = 0xff;

// Call frame instructions: the three "primary" opcodes live in the top two bits.
inline constexpr uint8_t kCfaAdvanceLoc = 0x40;
inline constexpr uint8_t kCfaOffset = 0x80;
inline constexpr uint8_t kCfaRestore = 0xc0;
inline constexpr uint8_t kCfaNop = 0x00;
inline constexpr uint8_t kCfaSetLoc = 0x01;
inline constexpr uint8_t kCfaAdvanceLoc1 = 0x02;
inline constexpr uint8_t kCfaAdvanceLoc2 = 0x03;
inline constexpr uint8_t kCfaAdvanceLoc4 = 0x04;
inline constexpr uint8_t kCfaOffsetExtended = 0x05;
inline constexpr uint8_t kCfaRestoreExtended = 0x06;
inline constexpr uint8_t kCfaUndefined = 0x07;
inline constexpr uint8_t kCfaSameValue = 0x08;
inline constexpr uint8_t kCfaRegister = 0x09;
inline constexpr uint8_t kCfaRememberState = 0x0a;
inline constexpr uint8_t kCfaRestoreState = 0x0b;
inline constexpr uint8_t kCfaDefCfa = 0x0c;
inline constexpr uint8_t kCfaDefCfaRegister = 0x0d;
inline constexpr uint8_t kCfaDefCfaOffset = 0x0e;
inline constexpr uint8_t kCfaDefCfaExpression = 0x0f;
inline constexpr uint8_t kCfaExpression = 0x10;
inline constexpr uint8_t kCfaOffsetExtendedSf = 0x11;
inline constexpr uint8_t kCfaDefCfaSf = 0x12;
inline constexpr uint8_t kCfaDefCfaOffsetSf = 0x13;
inline constexpr uint8_t kCfaValOffset = 0x14;
inline constexpr uint8_t kCfaValOffsetSf = 0x15;
inline constexpr uint8_t kCfaValExpression = 0x16;
inline constexpr uint8_t kCfaGnuArgsSize = 0x2e;
inline constexpr uint8_t kCfaGnuNegativeOffsetExtended = 0x2f;

// DWARF expression opcodes recognized in CFA expressions.
inline constexpr uint8_t kOpDeref = 0x06;
inline constexpr uint8_t kOpAnd = 0x1a;
inline constexpr uint8_t kOpPlus = 0x22;
inline constexpr uint8_t kOpShl = 0x24;
inline constexpr uint8_t kOpGe = 0x2a;
inline constexpr uint8_t kOpLit0 = 0x30;
inline constexpr uint8_t kOpBreg0 = 0x70;

// x86_64 DWARF register numbers.
inline constexpr uint32_t kRegRbp = 6;
inline constexpr uint32_t kRegRsp = 7;
inline constexpr uint32_t kRegRip = 16;  // the return-address column

}  // namespace jfrbpf::unwind::dwarf
