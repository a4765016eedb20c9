// The writer's in-memory structures: stack trace deduplication, constant pools with per-chunk marks, and
// the /proc/cpuinfo parser behind jdk.CPUInformation.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "base/error.h"
#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/chunk.h"
#include "formats/jfr/writer/constant_pools.h"
#include "formats/jfr/writer/stack_trace_table.h"
#include "formats/jfr/writer/system_info.h"
#include "formats/jfr/writer/type_ids.h"

namespace jfrbpf::jfr {
namespace {

std::vector<StackFrame> stack(uint32_t seed, size_t depth) {
  std::vector<StackFrame> frames;
  for (size_t i = 0; i < depth; ++i)
    frames.push_back({static_cast<MethodId>(seed * 100 + i), static_cast<int32_t>(i), static_cast<int32_t>(i * 3),
                      FrameType::JitCompiled});
  return frames;
}

struct Interned {
  uint64_t key;
  bool inserted;
};

// The find-then-insert protocol Chunk uses, with keys from a counter.
class Table {
 public:
  Interned intern(std::span<const StackFrame> frames, bool truncated) {
    uint64_t hash = StackTraceTable::hash(frames, truncated);
    if (uint64_t key = table_.find(frames, truncated, hash)) return {key, false};
    table_.insert(frames, truncated, hash, ++lastKey_);
    return {lastKey_, true};
  }
  void clear() { table_.clear(), lastKey_ = 0; }
  uint32_t size() const { return table_.size(); }

 private:
  StackTraceTable table_;
  uint64_t lastKey_ = 0;
};

TEST(JfrWriterStackTable, SameFramesSameKey) {
  Table table;
  auto a = stack(1, 64);
  auto first = table.intern(a, false);
  EXPECT_EQ(first.key, 1u);
  EXPECT_TRUE(first.inserted);
  auto copy = a;  // equal contents at another address
  auto again = table.intern(copy, false);
  EXPECT_EQ(again.key, 1u);
  EXPECT_FALSE(again.inserted);
  EXPECT_EQ(table.size(), 1u);
}

TEST(JfrWriterStackTable, EveryFieldAndTheTruncatedFlagDistinguish) {
  Table table;
  auto base = stack(2, 10);
  std::set<uint64_t> keys{table.intern(base, false).key};
  auto variant = [&](auto change) {
    auto frames = base;
    change(frames);
    auto result = table.intern(frames, false);
    EXPECT_TRUE(result.inserted);
    keys.insert(result.key);
  };
  variant([](auto& f) { f[5].method += 1; });
  variant([](auto& f) { f[5].lineNumber = -1; });
  variant([](auto& f) { f[5].bytecodeIndex = 77; });
  variant([](auto& f) { f[5].type = FrameType::Inlined; });
  variant([](auto& f) { f.pop_back(); });
  variant([](auto& f) { std::swap(f[0], f[1]); });
  auto truncated = table.intern(base, true);
  EXPECT_TRUE(truncated.inserted);
  keys.insert(truncated.key);
  EXPECT_EQ(keys.size(), 8u);
  EXPECT_EQ(table.size(), 8u);
  EXPECT_FALSE(table.intern(base, false).inserted);
}

TEST(JfrWriterStackTable, GrowthKeepsKeysAndClearStartsOver) {
  Table table;
  std::vector<uint64_t> keys;
  for (uint32_t i = 0; i < 20000; ++i) keys.push_back(table.intern(stack(i, 1 + i % 64), false).key);
  for (uint32_t i = 0; i < 20000; ++i) {
    auto again = table.intern(stack(i, 1 + i % 64), false);
    ASSERT_FALSE(again.inserted) << i;
    ASSERT_EQ(again.key, keys[i]) << i;
    ASSERT_EQ(keys[i], i + 1) << "keys follow first appearance";
  }
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  auto fresh = table.intern(stack(19999, 64), false);
  EXPECT_TRUE(fresh.inserted);
  EXPECT_EQ(fresh.key, 1u);
}

TEST(JfrWriterStackTable, PaddingBytesDoNotMatter) {
  Table table;
  std::vector<StackFrame> a(3), b(3);
  std::memset(a.data(), 0x00, sizeof(StackFrame) * 3);
  std::memset(b.data(), 0xab, sizeof(StackFrame) * 3);
  for (int i = 0; i < 3; ++i) {
    a[i].method = b[i].method = 7;
    a[i].lineNumber = b[i].lineNumber = 1;
    a[i].bytecodeIndex = b[i].bytecodeIndex = 2;
    a[i].type = b[i].type = FrameType::Native;
  }
  EXPECT_EQ(table.intern(a, false).key, table.intern(b, false).key);
}

// Stack keys never name two different stacks in one recording (the JDK reuses the previous chunk's
// constants by key); a stack that was in the previous chunk keeps its key.
TEST(JfrWriterStackTable, ChunkKeysAreUniqueForTheRecording) {
  ConstantPools pools;
  ClassId cls = pools.internClass("C", 0, false);
  MethodId a = pools.internMethod(cls, "a", "()V", 0, false), b = pools.internMethod(cls, "b", "()V", 0, false);
  std::vector<StackFrame> stackA{{a, 1, 1, FrameType::JitCompiled}}, stackB{{b, 1, 1, FrameType::JitCompiled}};
  Chunk chunk(1024);
  chunk.start({1, 1});
  uint64_t keyA = chunk.stackTraceKey(stackA, false, pools, a);
  EXPECT_EQ(chunk.stackTraceKey(stackA, false, pools, a), keyA);
  chunk.start({2, 2});
  EXPECT_EQ(chunk.stackTraceKey(stackA, false, pools, a), keyA) << "carried over from the previous chunk";
  uint64_t keyB = chunk.stackTraceKey(stackB, false, pools, a);
  EXPECT_NE(keyB, keyA);
  chunk.start({3, 3});
  EXPECT_EQ(chunk.stackTraceKey(stackB, false, pools, a), keyB);
  chunk.start({4, 4});
  uint64_t againA = chunk.stackTraceKey(stackA, false, pools, a);
  EXPECT_NE(againA, keyA) << "after a chunk without it, a stack gets a fresh key";
  EXPECT_NE(againA, keyB);
  EXPECT_EQ(chunk.stackTraceCount(), 1u);
}

// Pool blocks in a buffer: "typeId | count | entries"; returns the type ids in order (entries are skipped
// by counting only, so this reads just the first block's header precisely).
uint64_t readVarint(const ByteBuffer& b, size_t& at) {
  uint64_t v = 0;
  for (int shift = 0; at < b.size(); shift += 7) {
    uint8_t byte = b.data()[at++];
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  return v;
}

TEST(JfrWriterConstantPools, InterningIsStable) {
  ConstantPools pools;
  ClassId string = pools.internClass("java/lang/String", 0x11, false);
  EXPECT_NE(string, 0u);
  EXPECT_EQ(pools.internClass("java/lang/String", 0x11, false), string);
  EXPECT_NE(pools.internClass("java/lang/String", 0x01, false), string);
  MethodId length = pools.internMethod(string, "length", "()I", 1, false);
  EXPECT_NE(length, 0u);
  EXPECT_EQ(pools.internMethod(string, "length", "()I", 1, false), length);
  EXPECT_NE(pools.internMethod(string, "length", "()J", 1, false), length);
  EXPECT_THROW(pools.internMethod(9999, "x", "()V", 0, false), Error);
  EXPECT_THROW(pools.internMethod(0, "x", "()V", 0, false), Error);

  ThreadId main = pools.internThread({"main", 10, "main", 1});
  EXPECT_EQ(pools.internThread({"renamed", 10, "main", 1}), main) << "keyed by thread ids, not names";
  ThreadId other = pools.internThread({"main", 11, "main", 2});
  EXPECT_NE(other, main);
  pools.updateThread(other, {"main", 11, "worker", 5});
  EXPECT_EQ(pools.internThread({"x", 11, "", 5}), other) << "updateThread re-keys the thread";
  EXPECT_THROW(pools.updateThread(999, {"x", 1, "", 0}), Error);
}

TEST(JfrWriterConstantPools, WritesOnlyWhatTheChunkReferences) {
  ConstantPools pools;
  ClassId cls = pools.internClass("com/example/Work", 1, false);
  ClassId libc = pools.internClass("libc.so.6", 0, false);
  MethodId used = pools.internMethod(cls, "compute", "(I)J", 8, false);
  pools.internMethod(libc, "memcpy", "()V", 0, false);  // never referenced
  ThreadId thread = pools.internThread({"main", 10, "main", 1});
  pools.internThread({"idle", 11, "", 0});  // never referenced

  ByteBuffer empty;
  EXPECT_EQ(pools.writeReferencedPools(empty), 0u) << "nothing referenced: no (empty) pools at all";
  EXPECT_EQ(empty.size(), 0u);

  pools.markMethod(used);
  pools.markMethod(used);
  pools.markThread(thread);
  pools.markFrameType(FrameType::Inlined);
  ByteBuffer out;
  ASSERT_EQ(pools.writeReferencedPools(out), 6u);  // Thread, Method, Class, Package, Symbol, FrameType

  size_t at = 0;
  EXPECT_EQ(readVarint(out, at), kThreadType);
  EXPECT_EQ(readVarint(out, at), 1u) << "one thread";
  EXPECT_EQ(readVarint(out, at), thread);
  // Thread entry: osName "main" (03 04 m a i n), osThreadId 10, javaName, javaThreadId, group 0, virtual.
  EXPECT_EQ(out.data()[at], kStringUtf8);
  at += 6;
  EXPECT_EQ(readVarint(out, at), 10u);
  at += 6;
  EXPECT_EQ(readVarint(out, at), 1u);
  EXPECT_EQ(readVarint(out, at), 0u) << "group null";
  EXPECT_EQ(out.data()[at++], 0u) << "not virtual";
  EXPECT_EQ(readVarint(out, at), kMethodType);
  EXPECT_EQ(readVarint(out, at), 1u) << "one method: the unreferenced memcpy is left out";
  EXPECT_GT(pools.pendingBytes(), 0u);

  pools.startNextChunk();
  ByteBuffer next;
  EXPECT_EQ(pools.writeReferencedPools(next), 0u) << "a new chunk starts with nothing referenced";
  EXPECT_EQ(pools.pendingBytes(), 0u);
  pools.markMethod(used);
  EXPECT_EQ(pools.writeReferencedPools(next), 4u) << "Method, Class, Package, Symbol again in the next chunk";
}

TEST(JfrWriterConstantPools, UpdatedThreadsGetANewKey) {
  ConstantPools pools;
  ThreadId thread = pools.internThread({"pool-1", 10, "", 0});
  uint64_t before = pools.markThread(thread);
  pools.updateThread(thread, {"pool-1", 10, "", 0});
  EXPECT_EQ(pools.markThread(thread), before) << "no change, same key";
  pools.updateThread(thread, {"pool-1", 10, "pool-1-thread-1", 23});
  uint64_t after = pools.markThread(thread);
  EXPECT_NE(after, before);
  ByteBuffer out;
  ASSERT_EQ(pools.writeReferencedPools(out), 1u);
  size_t at = 0;
  EXPECT_EQ(readVarint(out, at), kThreadType);
  EXPECT_EQ(readVarint(out, at), 2u) << "this chunk's events used both keys";
  pools.startNextChunk();
  EXPECT_EQ(pools.markThread(thread), after);
  ByteBuffer next;
  ASSERT_EQ(pools.writeReferencedPools(next), 1u);
  at = 0;
  readVarint(next, at);
  EXPECT_EQ(readVarint(next, at), 1u);
}

TEST(JfrWriterCpuInfo, CountsSocketsCoresAndThreads) {
  std::string cpuinfo;
  int processor = 0;
  for (int socket = 0; socket < 2; ++socket)
    for (int core = 0; core < 2; ++core)
      for (int thread = 0; thread < 2; ++thread)
        cpuinfo += "processor\t: " + std::to_string(processor++) +
                   "\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) "
                   "Gold 6148 CPU @ 2.40GHz\nstepping\t: 4\nphysical id\t: " +
                   std::to_string(socket) + "\ncore id\t\t: " + std::to_string(core) +
                   "\nflags\t\t: fpu sse sse2 avx\n\n";
  SystemInfo info;
  parseCpuInfo(cpuinfo, info);
  EXPECT_EQ(info.cpu, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
  EXPECT_EQ(info.sockets, 2);
  EXPECT_EQ(info.cores, 4);
  EXPECT_EQ(info.hwThreads, 8);
  EXPECT_EQ(info.cpuDescription,
            "Brand: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz, Vendor: GenuineIntel\n"
            "Family: 6, Model: 85, Stepping: 4\nFlags: fpu sse sse2 avx");
}

TEST(JfrWriterCpuInfo, ArmAndGarbage) {
  SystemInfo arm;
  parseCpuInfo(
      "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
      "processor\t: 1\nFeatures\t: fp asimd\n",
      arm);
  EXPECT_EQ(arm.cpu, "") << "no brand: readSystemInfo falls back to uname's machine";
  EXPECT_EQ(arm.hwThreads, 2);
  EXPECT_EQ(arm.cores, 2);
  EXPECT_EQ(arm.sockets, 1);
  EXPECT_NE(arm.cpuDescription.find("Vendor: 0x41"), std::string::npos);

  std::mt19937 random(7);
  for (int i = 0; i < 200; ++i) {
    std::string noise(static_cast<size_t>(random() % 400), '\0');
    for (char& c : noise) c = "::\n\t processor physical id core"[random() % 31];
    SystemInfo info;
    parseCpuInfo(noise, info);  // must not crash; counts stay non-negative
    EXPECT_GE(info.cores, 0);
  }
}

TEST(JfrWriterCpuInfo, ReadsThisMachine) {
  SystemInfo info = readSystemInfo();
  EXPECT_FALSE(info.cpu.empty());
  EXPECT_GT(info.hwThreads, 0);
  EXPECT_NE(info.osVersion.find("uname: Linux"), std::string::npos);
}

}  // namespace
}  // namespace jfrbpf::jfr
