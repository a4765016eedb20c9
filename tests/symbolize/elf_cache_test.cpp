#include "userspace/symbolize/elf_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace jfrbpf::symbolize {
namespace {

std::shared_ptr<ElfSymbols> objectWithSymbols(int count) {
  auto symbols = std::make_shared<ElfSymbols>();
  for (int i = 0; i < count; ++i) {
    symbols->symbols.add(0x1000 + 0x10 * i, 0x10, 0, "function_" + std::to_string(i), false,
                         SymbolTable::Binding::kGlobal);
  }
  symbols->symbols.finalize();
  return symbols;
}

TEST(SymbolizeElfCache, FindsObjectsUnderEveryKey) {
  ElfCache cache(1 << 20);
  auto object = objectWithSymbols(10);
  cache.insert("build-id:ab", object);
  cache.insert("file:1:2", object);
  EXPECT_EQ(cache.find("build-id:ab"), object);
  EXPECT_EQ(cache.find("file:1:2"), object);
  EXPECT_EQ(cache.find("file:9:9"), nullptr);
  EXPECT_EQ(cache.objects(), 1u);
  EXPECT_EQ(cache.bytes(), object->memoryBytes());
}

TEST(SymbolizeElfCache, EvictsLeastRecentlyUsedOverBudget) {
  auto a = objectWithSymbols(1000);
  auto b = objectWithSymbols(1000);
  auto c = objectWithSymbols(1000);
  ElfCache cache(a->memoryBytes() * 2 + a->memoryBytes() / 2);
  cache.insert("a", a);
  cache.insert("a2", a);
  cache.insert("b", b);
  EXPECT_EQ(cache.find("a"), a);  // a is now the most recently used
  cache.insert("c", c);
  EXPECT_EQ(cache.objects(), 2u);
  EXPECT_EQ(cache.find("b"), nullptr);
  EXPECT_EQ(cache.find("a2"), a);
  EXPECT_EQ(cache.find("c"), c);
  EXPECT_LE(cache.bytes(), a->memoryBytes() * 2 + a->memoryBytes() / 2);
  EXPECT_EQ(b.use_count(), 1) << "evicted objects are released by the cache";
}

TEST(SymbolizeElfCache, KeepsTheNewestObjectEvenAboveBudget) {
  ElfCache cache(1);
  auto big = objectWithSymbols(100);
  cache.insert("big", big);
  EXPECT_EQ(cache.find("big"), big);
}

TEST(SymbolizeElfCache, KeyReusedForAnotherObjectForgetsTheOldOne) {
  ElfCache cache(1 << 20);
  auto before = objectWithSymbols(5);
  auto after = objectWithSymbols(6);
  cache.insert("file:1:2", before);
  cache.insert("file:1:2", after);
  EXPECT_EQ(cache.find("file:1:2"), after);
  EXPECT_EQ(cache.objects(), 1u);
  EXPECT_EQ(before.use_count(), 1);
}

}  // namespace
}  // namespace jfrbpf::symbolize
