// The budget's decisions, with the loader's RSS played by the test: what it sheds, whose Java frames go,
// and that it says so once.
#include "userspace/record/session/memory_budget.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "userspace/record/config.h"

namespace jfrbpf::record {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// A loader whose RSS is `resident`, whose caches hold `caches` bytes and whose JVM models are `models`.
struct FakeLoader {
  size_t resident = 0;
  size_t caches = 0;
  std::map<pid_t, size_t> models;
  std::vector<std::pair<pid_t, std::string>> dropped;
  std::vector<std::string> sheds;

  MemoryBudget::Consumers consumers() {
    MemoryBudget::Consumers c;
    c.shedCaches = [this] {
      resident -= caches;
      caches = 0;
    };
    c.javaModels = [this] { return std::vector<std::pair<pid_t, size_t>>(models.begin(), models.end()); };
    c.dropJavaFrames = [this](pid_t pid, const std::string& why) {
      resident -= models.at(pid);
      models.erase(pid);
      dropped.emplace_back(pid, why);
    };
    c.noteShed = [this](const std::string& what) { sheds.push_back(what); };
    return c;
  }
};

TEST(MemoryBudget, DoesNothingBelowSevenEighthsOfTheLimit) {
  FakeLoader loader{.resident = 223 * kMiB, .caches = 100 * kMiB, .models = {{10, 60 * kMiB}}};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; });
  budget.check(loader.consumers());
  EXPECT_EQ(loader.caches, 100 * kMiB);
  EXPECT_TRUE(loader.dropped.empty());
  EXPECT_TRUE(loader.sheds.empty());
  EXPECT_EQ(budget.peakResident(), 223 * kMiB);
}

TEST(MemoryBudget, ShedsCachesFirstAndSaysSoOnce) {
  FakeLoader loader{.resident = 230 * kMiB, .caches = 100 * kMiB, .models = {{10, 60 * kMiB}}};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; });
  budget.check(loader.consumers());
  EXPECT_EQ(loader.caches, 0u);
  EXPECT_TRUE(loader.dropped.empty()) << "shedding the caches was enough";
  ASSERT_EQ(loader.sheds.size(), 1u);
  EXPECT_NE(loader.sheds[0].find("230 MiB of --memory-limit 256 MiB"), std::string::npos) << loader.sheds[0];
  EXPECT_NE(loader.sheds[0].find("130 MiB after"), std::string::npos) << loader.sheds[0];

  loader.resident = 240 * kMiB;
  loader.caches = 50 * kMiB;
  budget.check(loader.consumers());
  EXPECT_EQ(loader.caches, 0u);
  EXPECT_EQ(budget.sheds(), 2u);
  EXPECT_EQ(loader.sheds.size(), 1u) << "said once";
}

TEST(MemoryBudget, OverTheLimitWithoutCachesTheLargestJvmLosesItsJavaFrames) {
  FakeLoader loader{.resident = 270 * kMiB, .caches = 5 * kMiB, .models = {{10, 40 * kMiB}, {11, 60 * kMiB}, {12, 30 * kMiB}}};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; });
  budget.check(loader.consumers());
  ASSERT_EQ(loader.dropped.size(), 1u);
  EXPECT_EQ(loader.dropped[0].first, 11);
  EXPECT_NE(loader.dropped[0].second.find("--memory-limit 256 MiB"), std::string::npos) << loader.dropped[0].second;
  EXPECT_NE(loader.dropped[0].second.find("(60 MiB) was the largest"), std::string::npos) << loader.dropped[0].second;
  EXPECT_EQ(loader.models.size(), 2u) << "the others go on";
  EXPECT_EQ(budget.peakResident(), 270 * kMiB);
}

TEST(MemoryBudget, OneLargeJvmModelBelowTheLimitIsLeftAlone) {
  // A JVM's share is its session's to hold to (jvm::SessionLimits): the budget only acts on the loader's RSS.
  FakeLoader loader{.resident = 100 * kMiB, .models = {{10, 65 * kMiB}, {11, 64 * kMiB}}};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; });
  budget.check(loader.consumers());
  EXPECT_TRUE(loader.dropped.empty());
  EXPECT_TRUE(loader.sheds.empty());
}

TEST(MemoryBudget, OverTheLimitWithNoJvmLeftItOnlyKeepsShedding) {
  FakeLoader loader{.resident = 300 * kMiB};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; });
  budget.check(loader.consumers());
  budget.check(loader.consumers());
  EXPECT_TRUE(loader.dropped.empty());
  EXPECT_EQ(budget.sheds(), 2u);
}

TEST(MemoryBudget, SharesComeFromTheLimit) {
  MemoryBudget budget(kDefaultMemoryLimit, [] { return size_t{0}; });
  EXPECT_EQ(budget.symbolCacheShare(), 64 * kMiB);
  EXPECT_EQ(javaModelShareOf(kDefaultMemoryLimit), 64 * kMiB);
}

TEST(MemoryBudget, ReadsItsOwnResidentSetSize) {
  size_t rss = residentSetBytes();
  EXPECT_GT(rss, kMiB);
  EXPECT_LT(rss, 1024 * kMiB);
  EXPECT_GE(peakResidentSetBytes(), rss);
}

// The peak is the kernel's high-water mark: a burst between two checks counts.
TEST(MemoryBudget, ThePeakIsTheHighWaterMarkNotTheLargestCheck) {
  FakeLoader loader{.resident = 100 * kMiB};
  MemoryBudget budget(256 * kMiB, [&] { return loader.resident; }, [] { return 180 * kMiB; });
  budget.check(loader.consumers());
  EXPECT_EQ(budget.peakResident(), 180 * kMiB);
  MemoryAccount account;
  budget.addTo(account);
  EXPECT_EQ(account.resident, 100 * kMiB);
  EXPECT_EQ(account.peakResident, 180 * kMiB);
  EXPECT_EQ(account.limit, 256 * kMiB);
}

TEST(MemoryAccount, NamesEachPartAndWhatIsNotItemized) {
  MemoryAccount a{.resident = 120 * kMiB, .residentMapped = 30 * kMiB, .peakResident = 150 * kMiB, .limit = 256 * kMiB, .sheds = 0,
                  .symbols = 10 * kMiB, .unwindTables = 5 * kMiB, .javaModels = 30 * kMiB, .jvms = 4,
                  .waiting = 1 * kMiB, .files = 7 * kMiB, .stackCaches = 2 * kMiB, .unwrittenChunkBytes = 24 * kMiB,
                  .heapInUse = 100 * kMiB, .heapFree = 10 * kMiB};
  std::string text;
  for (const std::string& line : describe(a)) text += line + "\n";
  EXPECT_NE(text.find("memory   120 MiB resident, peak 150 MiB of --memory-limit 256 MiB, caches dropped 0 times"),
            std::string::npos) << text;
  EXPECT_NE(text.find("native symbols 10 MiB, unwind tables 5 MiB, Java models 30 MiB (4 JVMs)"), std::string::npos)
      << text;
  // 100 allocated - 79 itemized (the chunk buffers never written among them).
  EXPECT_NE(text.find("files being written 7 MiB, stack caches 2 MiB, other heap 21 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("heap 100 MiB allocated (24 MiB of it chunk buffers never written)"), std::string::npos) << text;
  EXPECT_NE(text.find("10 MiB free in the allocator; 30 MiB of the resident memory is mapped"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace jfrbpf::record
