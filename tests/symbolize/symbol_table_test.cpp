#include "userspace/symbolize/symbol_table.h"

#include <gtest/gtest.h>

namespace jfrbpf::symbolize {
namespace {

using Binding = SymbolTable::Binding;

std::string nameAt(const SymbolTable& table, uint64_t address) {
  auto match = table.lookup(address);
  return match ? std::string(table.name(match->index)) : std::string("<none>");
}

TEST(SymbolizeSymbolTable, FindsContainingSymbolAndOffset) {
  SymbolTable table;
  table.add(0x2000, 0x100, 0, "second", false, Binding::kGlobal);
  table.add(0x1000, 0x80, 0, "first", false, Binding::kGlobal);
  table.finalize();
  auto match = table.lookup(0x1010);
  ASSERT_TRUE(match);
  EXPECT_EQ(table.name(match->index), "first");
  EXPECT_EQ(match->offset, 0x10u);
  EXPECT_EQ(nameAt(table, 0x1080), "<none>");  // the gap after a sized symbol belongs to nobody
  EXPECT_EQ(nameAt(table, 0xfff), "<none>");
  EXPECT_EQ(nameAt(table, 0x20ff), "second");
  EXPECT_EQ(nameAt(table, 0x2100), "<none>");
  EXPECT_STREQ(table.cName(table.lookup(0x2000)->index), "second");
}

TEST(SymbolizeSymbolTable, UnsizedSymbolsRunToTheNextSymbolOrSectionEnd) {
  SymbolTable table;
  table.add(0x1000, 0, 0x1800, "asm_entry", false, Binding::kGlobal);
  table.add(0x1100, 0x10, 0x1800, "after", false, Binding::kGlobal);
  table.add(0x1200, 0, 0x1300, "asm_tail", false, Binding::kLocal);
  table.add(0x5000, 0, 0, "lonely", false, Binding::kLocal);
  table.finalize();
  EXPECT_EQ(nameAt(table, 0x10ff), "asm_entry");
  EXPECT_EQ(nameAt(table, 0x1105), "after");
  EXPECT_EQ(nameAt(table, 0x12ff), "asm_tail");
  EXPECT_EQ(nameAt(table, 0x1300), "<none>");  // past its section
  EXPECT_EQ(nameAt(table, 0x5001), "<none>");  // no extent known at all
}

TEST(SymbolizeSymbolTable, PrefersTheMostReadableAliasAtOneAddress) {
  SymbolTable table;
  table.add(0x1000, 0x40, 0, "__libc_malloc", false, Binding::kGlobal);
  table.add(0x1000, 0x40, 0, "malloc", false, Binding::kGlobal);
  table.add(0x1000, 0x40, 0, "a_local_alias", false, Binding::kLocal);
  table.add(0x1000, 0, 0, "m", false, Binding::kGlobal);
  table.add(0x2000, 0x40, 0, "memcpy", true, Binding::kGlobal);
  table.add(0x2000, 0x40, 0, "__memcpy_resolver", false, Binding::kLocal);
  table.finalize();
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(nameAt(table, 0x1001), "malloc");
  EXPECT_EQ(nameAt(table, 0x2001), "__memcpy_resolver");  // an ifunc's value is its resolver's code
}

TEST(SymbolizeSymbolTable, FindsEnclosingSymbolPastANestedOne) {
  SymbolTable table;
  table.add(0x1000, 0x100, 0, "outer", false, Binding::kGlobal);
  table.add(0x1040, 0x10, 0, "inner", false, Binding::kLocal);
  table.finalize();
  EXPECT_EQ(nameAt(table, 0x1044), "inner");
  EXPECT_EQ(nameAt(table, 0x1080), "outer");
  EXPECT_EQ(table.lookup(0x1080)->offset, 0x80u);
}

TEST(SymbolizeSymbolTable, RejectsEmptyNamesAndWrappingSizes) {
  SymbolTable table;
  table.add(0x1000, 0x10, 0, "", false, Binding::kGlobal);
  table.add(UINT64_MAX - 4, 0x10, 0, "wraps", false, Binding::kGlobal);
  table.finalize();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_FALSE(table.lookup(0x1000));
}

}  // namespace
}  // namespace jfrbpf::symbolize
