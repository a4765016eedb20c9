#include "userspace/symbolize/demangle.h"

#include <gtest/gtest.h>

#include <string>

namespace jfrbpf::symbolize {
namespace {

TEST(SymbolizeDemangle, CxxNames) {
  Demangler demangler;
  EXPECT_EQ(demangler.demangle("_ZN13symtest_alpha11AccumulatorIiE3addEii"), "symtest_alpha::Accumulator<int>::add(int, int)");
  EXPECT_EQ(demangler.demangle("_ZL13hidden_helperi"), "hidden_helper(int)");
  EXPECT_EQ(demangler.demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"), "std::vector<int, std::allocator<int> >::push_back(int const&)");
  EXPECT_EQ(demangler.demangle("_ZL13hidden_helperi.constprop.0"), "hidden_helper(int) [clone .constprop.0]");
}

TEST(SymbolizeDemangle, LeavesOtherNamesAlone) {
  Demangler demangler;
  EXPECT_EQ(demangler.demangle("memcpy"), "memcpy");
  EXPECT_EQ(demangler.demangle("_Z"), "_Z");
  EXPECT_EQ(demangler.demangle("_Zgarbage!"), "_Zgarbage!");
  EXPECT_EQ(demangler.demangle(""), "");
  std::string giant = "_ZN" + std::string(20000, 'a') + "E";  // beyond any real name: left as it is
  EXPECT_EQ(demangler.demangle(giant.c_str()), giant);
}

TEST(SymbolizeDemangle, RustLegacyNames) {
  Demangler demangler;
  EXPECT_EQ(demangler.demangle("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
  EXPECT_EQ(demangler.demangle("_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0123456789abcdefE"),
            "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
}

TEST(SymbolizeDemangle, ReusesItsBufferAcrossCalls) {
  Demangler demangler;
  std::string longName = "_ZN";
  for (int i = 0; i < 40; ++i) longName += "9namespace";
  longName += "1fEv";
  std::string expected;
  for (int i = 0; i < 40; ++i) expected += "namespace::";
  expected += "f()";
  std::string first(demangler.demangle(longName.c_str()));
  EXPECT_EQ(first, expected);
  EXPECT_EQ(demangler.demangle("_Z1gv"), "g()");
  EXPECT_EQ(demangler.demangle(longName.c_str()), first);
}

}  // namespace
}  // namespace jfrbpf::symbolize
